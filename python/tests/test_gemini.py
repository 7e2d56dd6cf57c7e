"""The gemini transcript format against real Google ADK and google-genai runs.

ADK: a root agent that transfers to a ``calc`` agent (scripted models, offline),
which thinks and calls two tools in a turn (one returns an ``error``), calls a tool
that escalates, answers, then calls a tool that raises (ADK records the error as an
event). The run saved as ADK saves it (the session, in the API's camelCase names),
its events one a line (``model_dump()``), and the events the runner streamed (its
partial chunks among them) must stop, whatever the stop rule, where the same events
written one by one as doneseq's JSONL stop.

google-genai: a chat whose two Python tools the SDK calls itself (automatic function
calling; the second raises), against a local server that answers as the Gemini API
does. Its history (``chat.get_history()``, in the SDK's names and in the API's), and
the response of ``generate_content`` that holds the calls made before it, stop as
their contents written one by one do."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from google import genai
from google.adk.agents import LlmAgent, RunConfig
from google.adk.agents.run_config import StreamingMode
from google.adk.events import Event
from google.adk.models import BaseLlm, LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools import ToolContext
from google.genai import types
from recorded_runs import read_alike, scripted_server

import doneseq

# Each scripted model turn's usage (prompt and candidates tokens), in order.
USAGE = [(20, 9), (40, 12), (75, 15), (90, 2), (110, 6)]


def usage(n: int) -> types.GenerateContentResponseUsageMetadata:
    i, o = USAGE[n]
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=i, candidates_token_count=o, total_token_count=i + o
    )


def turn(n: int, *parts: types.Part) -> LlmResponse:
    return LlmResponse(
        content=types.Content(role="model", parts=list(parts)), usage_metadata=usage(n)
    )


def call(name: str, **args: Any) -> types.Part:
    return types.Part.from_function_call(name=name, args=args)


class Scripted(BaseLlm):
    """A model that answers from a script (``SCRIPTS[model]``). Streamed, a text
    answer comes first as a partial chunk of its first word, as Gemini streams."""

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
        response = SCRIPTS[self.model].pop(0)
        text = response.content.parts[0].text if response.content.parts else None
        if stream and text:
            chunk = types.Content(role="model", parts=[types.Part(text=text.split()[0])])
            yield LlmResponse(content=chunk, partial=True)
        yield response


SCRIPTS: dict[str, list[LlmResponse]] = {}


def script() -> None:
    SCRIPTS["root-model"] = [
        turn(0, types.Part(text="Calc does sums."), call("transfer_to_agent", agent_name="calc")),
    ]
    SCRIPTS["calc-model"] = [
        turn(1, types.Part(text="Add, then divide.", thought=True), call("add", a=2, b=3),
             call("divide", a=1, b=0)),
        turn(2, types.Part(text="2 + 3 = 5; 1 / 0 has no answer."), call("finish")),
        turn(3, types.Part(text="Done.")),
        turn(4, call("root_of", x=-4)),
    ]  # fmt: skip


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def divide(a: int, b: int) -> dict[str, Any]:
    """Divides a by b."""
    if b == 0:
        return {"error": "division by zero"}
    return {"output": a / b}


def root_of(x: float) -> float:
    """The square root of x."""
    if x < 0:
        raise ValueError("math domain error")
    return float(x**0.5)


def finish(tool_context: ToolContext) -> dict[str, str]:
    """Ends the loop."""
    tool_context.actions.escalate = True
    return {"status": "done"}


async def run_adk() -> tuple[list[Event], list[Event]]:
    """The ADK run's two invocations, streamed: the events the runner gave, and the
    session's."""
    script()
    calc = LlmAgent(
        name="calc",
        model=Scripted(model="calc-model"),
        tools=[add, divide, root_of, finish],
        instruction="You calculate.",
    )
    root = LlmAgent(
        name="root", model=Scripted(model="root-model"), sub_agents=[calc], instruction="Route."
    )
    runner = InMemoryRunner(agent=root, app_name="calculator")
    session = await runner.session_service.create_session(app_name="calculator", user_id="u")
    streamed: list[Event] = []
    for text in ["Add 2 and 3, then divide 1 by 0.", "And the square root of -4?"]:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        try:
            async for event in runner.run_async(
                user_id="u", session_id=session.id, new_message=message,
                run_config=RunConfig(streaming_mode=StreamingMode.SSE),
            ):  # fmt: skip
                streamed.append(event)
        except ValueError as e:
            assert str(e) == "math domain error"
    saved = await runner.session_service.get_session(
        app_name="calculator", user_id="u", session_id=session.id
    )
    assert saved is not None
    return streamed, saved.events


def tokens(metadata: Any) -> dict[str, int]:
    """A call's usage as doneseq's: the prompt's and tool-use prompt's tokens in, the
    candidates' and thoughts' out."""
    count = lambda n: n or 0  # noqa: E731
    return {
        "input_tokens": count(metadata.prompt_token_count)
        + count(metadata.tool_use_prompt_token_count),
        "output_tokens": count(metadata.candidates_token_count)
        + count(metadata.thoughts_token_count),
    }


def content_lines(content: types.Content, metadata: Any = None) -> list[dict[str, Any]]:
    """A content as doneseq's JSONL (a part this test does not know fails it): the
    model's turn, its texts (not its thoughts) joined, its calls and usage; the user's
    text, and each function response as the tool's result (its response's JSON,
    failed where it holds an ``error``)."""
    parts = content.parts or []
    if content.role == "model":
        texts = [p.text for p in parts if p.text is not None and not p.thought]
        calls = [{"id": p.function_call.id, "name": p.function_call.name,
                  "arguments": p.function_call.args or {}}
                 for p in parts if p.function_call]  # fmt: skip
        assert all(p.text is not None or p.function_call for p in parts), parts
        line: dict[str, Any] = {"role": "llm", "content": "\n".join(texts), "tool_calls": calls}
        if metadata is not None:
            line["usage"] = tokens(metadata)
        return [line]
    out: list[dict[str, Any]] = []
    texts = [p.text for p in parts if p.text is not None]
    if texts:
        out.append({"role": "user", "content": "\n".join(texts)})
    for part in parts:
        response = part.function_response
        if response is None:
            assert part.text is not None, part
            continue
        result = {
            "role": "agent",
            "content": json.dumps(response.response, separators=(",", ":")),
            "tool_name": response.name,
        }
        if response.id:
            result["tool_call_id"] = response.id
        if "error" in (response.response or {}):
            result["error"] = response.response["error"]
        out.append(result)
    return out


def event_lines(events: list[Event]) -> list[dict[str, Any]]:
    """ADK's events as doneseq's JSONL: each content's lines, said by the event's
    author (the user's by no one); a transfer is the last line's handoff, an
    escalation its stop, an error its error (or a line of its own); partial chunks
    are left out (the whole answer's event follows them)."""
    out: list[dict[str, Any]] = []
    for event in events:
        if event.partial:
            continue
        lines = content_lines(event.content, event.usage_metadata) if event.content else []
        if event.author != "user":
            for line in lines:
                line["responder"] = event.author
        actions = event.actions
        marks: dict[str, Any] = {}
        if event.error_code or event.error_message:
            marks["error"] = f"{event.error_code}: {event.error_message}"
        if actions.transfer_to_agent:
            marks["handoff"] = actions.transfer_to_agent
        if actions.escalate:
            marks["stop"] = True
        if marks and not lines:
            lines = [{"role": "agent", "content": "", "responder": event.author}]
        if lines:
            lines[-1].update(marks)
        out += lines
    return out


def write(directory: Path, files: dict[str, str]) -> list[Path]:
    for name, text in files.items():
        (directory / name).write_text(text)
    return [directory / name for name in files]


def jsonl(records: list[Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture(scope="module")
def adk_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The ADK run saved each way, and as doneseq's JSONL (``run.jsonl``); the events
    the runner streamed, and the same as doneseq's JSONL (``streamed-run.jsonl``)."""
    streamed, saved = asyncio.run(run_adk())
    assert any(e.partial for e in streamed), "the runner streamed no partial chunk"
    assert [e.author for e in saved] == [
        "user", "root", "root", "calc", "calc", "calc", "calc", "calc", "user", "calc", "calc",
    ]  # fmt: skip
    assert saved[2].actions.transfer_to_agent == "calc" and saved[6].actions.escalate
    assert saved[-1].error_code == "ValueError"
    session = {"appName": "calculator", "events": [
        json.loads(e.model_dump_json(exclude_none=True, by_alias=True)) for e in saved
    ]}  # fmt: skip
    dump = lambda events: jsonl([e.model_dump(mode="json") for e in events])  # noqa: E731
    # The runner streams what the session saves but the user's messages.
    whole = [e for e in streamed if not e.partial]
    assert [e.id for e in whole] == [e.id for e in saved if e.author != "user"]
    files = {
        "session.json": json.dumps(session, indent=1),
        "events.jsonl": dump(saved),
        "run.jsonl": jsonl(event_lines(saved)),
        "streamed.jsonl": dump(streamed),
        "streamed-run.jsonl": jsonl(event_lines(streamed)),
    }
    paths = write(tmp_path_factory.mktemp("adk"), files)
    return dict(zip(files, paths, strict=True))


ADK_STOPS = [
    "handoff(calc)",
    "stop_message",
    "consecutive_errors(1)",
    'seq("T[add], A, A")',
    "tool(divide, executed)",
    "no_tool_calls",
    "max_model_calls(3)",
    "max_turns(6)",
    "tokens(100)",
    "loop(repeats=2)",
]


@pytest.mark.parametrize("stop", ADK_STOPS)
def test_every_way_adk_saves_a_run_stops_as_its_events(adk_run, stop):
    saved = {adk_run["session.json"]: "gemini", adk_run["events.jsonl"]: "gemini"}
    replay = read_alike(stop, saved, adk_run["run.jsonl"])
    # Every message but the first task is a step: five model turns, four tool results,
    # the error, the second task.
    assert replay["recorded_steps"] == 11
    assert replay["recorded_tokens"] == sum(i + o for i, o in USAGE)


@pytest.mark.parametrize("stop", ADK_STOPS)
def test_the_events_a_runner_streams_stop_as_they_do_without_their_chunks(adk_run, stop):
    streamed = {adk_run["streamed.jsonl"]: "gemini"}
    replay = read_alike(stop, streamed, adk_run["streamed-run.jsonl"])
    # The same steps but the second task (the runner does not stream the user's).
    assert replay["recorded_steps"] == 10


def test_adk_marks_fire_where_adk_acted(adk_run):
    session = adk_run["session.json"]
    fired = {
        stop: doneseq.Monitor(stop=stop).check_file(session)
        for stop in ("handoff(calc)", "stop_message", "consecutive_errors(1)")
    }
    # The transfer's response, the escalating tool's, the divide's error.
    assert [fired[s]["steps"] for s in fired] == [2, 7, 5]
    assert [fired[s]["kind"] for s in fired] == ["done", "done", "failed"]


REPLIES = [
    {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Two sums at once.", "thought": True},
        {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}},
        {"functionCall": {"name": "div", "args": {"a": 1, "b": 0}}},
    ]}, "finishReason": "STOP"}],
     "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 8, "thoughtsTokenCount": 4}},
    {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "2 + 3 = 5, and 1 / 0 has no answer."},
    ]}, "finishReason": "STOP"}],
     "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 12}},
]  # fmt: skip


@contextmanager
def gemini_server() -> Iterator[tuple[str, list[Any]]]:
    """A local server that answers each ``generateContent`` with the next of
    ``REPLIES`` (as the Gemini API writes them): its address, and the requests."""
    served = 0

    def reply(_request: Any) -> Any:
        nonlocal served
        served += 1
        return REPLIES[(served - 1) % len(REPLIES)]

    with scripted_server(reply) as (address, requests):
        yield address, requests


def div(a: int, b: int) -> float:
    """Divides a by b."""
    return a / b


@pytest.fixture(scope="module")
def genai_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], list[Path]]:
    """A chat's history saved each way and as doneseq's JSONL (last); the response of
    ``generate_content`` and the same as doneseq's JSONL."""
    with gemini_server() as (address, requests):
        client = genai.Client(api_key="offline", http_options=types.HttpOptions(base_url=address))
        config = types.GenerateContentConfig(
            tools=[add, div], system_instruction="You do arithmetic."
        )
        chat = client.chats.create(model="gemini-test", config=config)
        assert chat.send_message("What are 2 + 3 and 1 / 0?").text.startswith("2 + 3 = 5")
        response = client.models.generate_content(
            model="gemini-test", contents="What are 2 + 3 and 1 / 0?", config=config
        )
        assert len(requests) == 4
    history = chat.get_history()
    assert [c.role for c in history] == ["user", "model", "user", "model"]
    results = history[2].parts
    assert "error" in results[1].function_response.response, results
    directory = tmp_path_factory.mktemp("genai")
    chat_files = write(
        directory,
        {
            "history.json": json.dumps([c.model_dump(mode="json") for c in history]),
            "history-api.jsonl": jsonl(
                [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in history]
            ),
            "history-run.jsonl": jsonl([line for c in history for line in content_lines(c)]),
        },
    )
    before = response.automatic_function_calling_history
    assert before is not None and len(before) == 3
    answer = response.candidates[0].content
    response_files = write(
        directory,
        {
            "response.json": response.model_dump_json(exclude={"sdk_http_response"}),
            "response-run.jsonl": jsonl(
                [line for c in before for line in content_lines(c)]
                + content_lines(answer, response.usage_metadata)
            ),
        },
    )
    return chat_files, response_files


GENAI_STOPS = [
    'seq("T[add], A, A")',
    "tool(div, executed)",
    "consecutive_errors(1)",
    "no_tool_calls",
    "max_model_calls(1)",
    "max_turns(2)",
    "tokens(60)",
]


@pytest.mark.parametrize("stop", GENAI_STOPS)
def test_a_genai_chats_history_stops_as_its_contents(genai_runs, stop):
    *saved, messages = genai_runs[0]
    replay = read_alike(stop, dict.fromkeys(saved, "gemini"), messages)
    assert replay["recorded_steps"] == 4


@pytest.mark.parametrize("stop", GENAI_STOPS)
def test_a_generate_content_response_stops_as_the_calls_it_holds(genai_runs, stop):
    response, messages = genai_runs[1]
    replay = read_alike(stop, {response: "gemini"}, messages)
    assert replay["recorded_steps"] == 4
    # The response's usage is its own call's (the last).
    assert replay["recorded_tokens"] == 62


def test_a_damaged_event_is_an_error_naming_its_line(adk_run, tmp_path):
    events = [json.loads(line) for line in adk_run["events.jsonl"].read_text().splitlines()]
    events[3]["content"]["parts"][1] = {"hologram": {"name": "add"}}
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text(jsonl(events))
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(damaged)
    assert replay["error"].startswith("line 4: "), replay
    assert '"content": part 2 of 3: a part of a kind not known (hologram;' in replay["error"]
    assert "format gemini (detected)" in replay["error"], replay
