"""``Run.observe`` reads a message dict by a fast path where the dict has the common
shape, and by the transcript's schema otherwise: both must build the same message,
the fast path must be the one taken for the common shape, and where it leaves a dict
the schema gives its own answer or error."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

import doneseq
from doneseq import _native

COMMON: list[dict[str, Any]] = [
    {"role": "assistant", "content": "Let me think."},
    {"role": "user", "content": "café ☕ — naïve"},
    {"role": "tool", "content": "42", "tool_call_id": "c1"},
    {"role": "system", "content": "You are careful."},
    {"role": "llm", "content": None},
    {"role": "agent", "content": "", "name": "Calculator"},
    {"role": "Assistant", "content": "odd case"},
    {"role": "assistant", "content": "x", "responder": "Main", "name": "ignored"},
    {"role": "assistant", "content": "x", "responder": None, "name": "Named"},
    {"role": "assistant", "content": "", "tool_calls": []},
    {"role": "assistant", "content": "", "tool_calls": None},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "calculator", "arguments": '{"x": "6*7"}'},
            },
            {"name": "search", "arguments": "{}"},
            {"name": "noargs"},
            {"function": {"name": "f"}},
            {"name": "nullargs", "arguments": None, "id": None},
        ],
    },
    # The OpenAI SDK's ChatCompletionMessage.model_dump(): its empty keys.
    {
        "content": "The answer is 42.",
        "refusal": None,
        "role": "assistant",
        "annotations": [],
        "audio": None,
        "function_call": None,
        "tool_calls": [
            {"id": "c", "function": {"arguments": "{}", "name": "f"}, "type": "function"}
        ],
    },
    {"role": "assistant", "content": "x", "annotations": None},
    # The reasoning OpenAI-compatible providers write beside the answer (DeepSeek's,
    # OpenRouter's, Ollama's), not read.
    {"role": "assistant", "content": "42", "reasoning_content": "6*7"},
    {"role": "assistant", "content": "42", "reasoning": None, "thinking": "6*7"},
]

# Dicts the fast path leaves to the schema: other keys, other value types, and what
# the schema refuses.
OTHER: list[dict[str, Any]] = [
    {"role": "assistant", "content": "x", "usage": {"input_tokens": 3}},
    {"role": "assistant", "content": [{"type": "text", "text": "parts"}]},
    {"role": "assistant", "content": "", "tool_calls": [{"name": "t", "arguments": {"a": 1}}]},
    {"role": "assistant", "content": "", "tool_calls": [{"name": "t", "type": 3}]},
    {"role": "tool", "content": "x", "error": "boom", "tool_name": "t"},
    {"role": "assistant", "no_response": True},
    {"role": "assistant", "content": "x", "refusal": "no"},
    {"role": "assistant", "content": "x", "metrics": {"score": 0.5}},
    # What OpenAI-compatible providers and clients add: LiteLLM's message, Ollama's
    # and Mistral's calls with their index, Gemini's signature on a call.
    {
        "content": "42",
        "role": "assistant",
        "tool_calls": None,
        "function_call": None,
        "provider_specific_fields": {"refusal": None},
        "reasoning_content": "6*7",
        "thinking_blocks": [{"type": "thinking", "thinking": "6*7", "signature": "s"}],
    },
    {
        "role": "assistant",
        "content": "",
        "thinking": "use it",
        "images": None,
        "tool_calls": [{"function": {"index": 0, "name": "calc", "arguments": {"x": 1}}}],
    },
    {
        "role": "assistant",
        "content": "",
        "prefix": False,
        "tool_calls": [
            {
                "id": "c",
                "type": "function",
                "index": 0,
                "function": {"name": "f", "arguments": "{}"},
                "extra_content": {"google": {"thought_signature": "s"}},
            }
        ],
    },
    {"role": "assistant", "content": "x", "reasoning": {"text": "not a string"}},
    # The SDK's keys with something in them: the schema reads them.
    {"role": "assistant", "content": "x", "annotations": [{"type": "url_citation"}]},
    {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
    {"role": "assistant", "content": "x", "audio": {"id": "a", "data": "", "transcript": ""}},
]

REFUSED: list[Any] = [
    {"role": "robot", "content": "x"},
    {"content": "no role"},
    {"role": "assistant", "content": 3},
    {"role": "assistant", "content": "x", "text": "unknown key"},
    {"role": "assistant", "content": "", "tool_calls": [{"arguments": "{}"}]},
    {"role": "assistant", "content": "", "tool_calls": [{"name": ""}]},
    {"role": "assistant", "content": "", "tool_calls": [{"name": "a", "function": {"name": "b"}}]},
    {"role": "assistant", "content": "", "tool_calls": "calculator"},
    {"role": "assistant", "content": "\ud800"},
    {"role": "assistant", "content": "x", "reasoning_contents": "misspelt"},
    {1: "x"},
    ["role", "assistant"],
]


@pytest.fixture(autouse=True, params=[True, False], ids=["utf8-borrowed", "utf8-encoded"])
def utf8_reading(request: pytest.FixtureRequest) -> Iterator[None]:
    # Texts borrowed from the strings (CPython 3.10 on) and encoded into bytes (3.9's
    # way, taken here on this interpreter): every test both ways.
    _native._borrow_utf8(request.param)
    yield
    _native._borrow_utf8(True)


def both(message: Any) -> tuple[str | None, str]:
    return _native._message_debug(message, True), _native._message_debug(message, False)


@pytest.mark.parametrize("message", COMMON)
def test_the_common_shape_takes_the_fast_path_and_agrees(message: dict[str, Any]) -> None:
    fast, schema = both(message)
    assert fast is not None, "the fast path left a common message to the schema"
    assert fast == schema


@pytest.mark.parametrize("message", COMMON)
def test_keys_built_at_run_time_are_recognised(message: dict[str, Any]) -> None:
    # json.loads does not intern its keys: the fast path compares their text.
    rebuilt = json.loads(json.dumps(message))
    fast, schema = both(rebuilt)
    assert fast is not None
    assert fast == schema == both(message)[1]


@pytest.mark.parametrize("message", OTHER)
def test_other_shapes_go_to_the_schema(message: dict[str, Any]) -> None:
    fast, schema = both(message)
    assert fast is None
    assert schema is not None


@pytest.mark.parametrize("message", REFUSED)
def test_what_the_schema_refuses_is_refused_whatever_the_path(message: Any) -> None:
    assert _native._message_debug(message, True) is None
    with pytest.raises(doneseq.MessageError):
        _native._message_debug(message, False)
    run = doneseq.Monitor(done_sequences=["L"]).start()
    with pytest.raises(doneseq.MessageError):
        run.observe(message)


def test_random_combinations_agree() -> None:
    # Every subset of the common keys with values of every kind the fast path reads
    # (and some it does not): where it builds a message, the schema builds the same.
    values: dict[str, list[Any]] = {
        "role": ["assistant", "tool", "USER", "developer", "function", "bot"],
        "content": ["", "text", None, "PASS", "ünï", 7],
        "name": ["N", None, ""],
        "responder": ["R", None],
        "tool_call_id": ["c9", None],
        "tool_calls": [
            None,
            [],
            [{"name": "a", "arguments": "{}", "id": "1", "type": "function"}],
            [{"function": {"name": "b", "arguments": '{"q": 1}'}}],
            [{"name": "c"}, {"function": {"name": "d"}}],
            [{"name": ""}],
        ],
        # The OpenAI SDK's keys, empty or not; a provider's reasoning.
        "refusal": [None, "no"],
        "annotations": [None, [], [{"type": "url_citation"}]],
        "function_call": [None, {"name": "g", "arguments": "{}"}],
        "reasoning_content": [None, "thought", 3],
    }
    rng = random.Random(20261125)
    keys = list(values)
    taken = 0
    for size in range(1, len(keys) + 1):
        for subset in itertools.combinations(keys, size):
            for _ in range(8):
                message = {k: rng.choice(values[k]) for k in subset}
                fast = _native._message_debug(message, True)
                try:
                    schema = _native._message_debug(message, False)
                except doneseq.MessageError:
                    assert fast is None, message
                    continue
                if fast is not None:
                    taken += 1
                    assert fast == schema, message
    assert taken > 100


def test_observe_gives_the_same_verdicts_by_either_path() -> None:
    # The same messages observed as dict literals (fast) and with an unread key the
    # schema accepts (`metadata`, which sends them to the schema).
    monitor = doneseq.Monitor(done_sequences=["T[calculator], A", "C[bye]"])
    messages = [
        {"role": "user", "content": "6*7?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"name": "calculator", "arguments": "{}"}],
        },
        {"role": "tool", "content": "42", "tool_call_id": "c1"},
    ]
    fast_run, schema_run = monitor.start(), monitor.start()
    fast = [fast_run.observe(m) for m in messages]
    schema = [schema_run.observe({**m, "metadata": {}}) for m in messages]
    assert [o is None for o in fast] == [True, True, False]
    assert [o is None for o in schema] == [True, True, False]
    assert fast_run.to_json() == schema_run.to_json()
