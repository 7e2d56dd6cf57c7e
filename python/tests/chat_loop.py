"""A loop of chat completions that the OpenTelemetry tests trace (by OpenTelemetry's
own OpenAI instrumentation, by Langfuse's SDK): the model, answering offline through
the OpenAI client's own HTTP transport, says a text and asks two searches in a turn,
then answers; each search's result goes back to it."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import httpx2
from recorded_runs import model_line

ANSWERS = [
    {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": "search", "arguments": json.dumps({"query": q})},
            }
            for n, q in ((1, "a"), (2, "b"))
        ],
    },
    {"role": "assistant", "content": "The answer is B."},
]
# Each call's usage (input and output tokens), in order.
USAGE = [(10, 5), (20, 6)]


def completion(n: int) -> dict[str, Any]:
    """The ``n``-th call's ``chat.completion`` object (from 0): ``ANSWERS[n]``, with
    ``USAGE[n]``."""
    tokens_in, tokens_out = USAGE[n]
    message = ANSWERS[n]
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1732492800,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        },
    }


def transport() -> httpx2.MockTransport:
    """An HTTP transport whose chat completions answer ``ANSWERS`` in turn, with
    ``USAGE``."""
    answered = itertools.count()
    return httpx2.MockTransport(
        lambda request: httpx2.Response(200, json=completion(next(answered)))
    )


def run(client: Any, search: Callable[..., str]) -> list[Any]:
    """The loop, through ``client`` (an OpenAI client on ``transport()``), each search
    by ``search``: the run's messages as doneseq's JSONL lines."""
    messages: list[Any] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Find it"},
    ]
    lines: list[Any] = [dict(m) for m in messages]
    for usage in USAGE:
        completion = client.chat.completions.create(model="gpt-4o", messages=messages)
        answer = completion.choices[0].message
        messages.append(answer.model_dump(exclude_none=True))
        calls = [
            (c.id, c.function.name, json.loads(c.function.arguments))
            for c in answer.tool_calls or []
        ]
        lines.append(model_line(answer.content or "", calls, usage))
        for call_id, _, arguments in calls:
            result = search(**arguments)
            messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
            lines.append({"role": "agent", "content": result, "tool_call_id": call_id})
    assert messages[-1]["content"] == "The answer is B."
    return lines
