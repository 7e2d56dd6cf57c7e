"""The llamaindex transcript format against real LlamaIndex runs: a FunctionAgent of
LlamaIndex's own OpenAI LLM, its OpenAI client (the real SDK) answered offline by an
httpx mock transport, run twice in one context (its memory keeps the conversation).
What LlamaIndex keeps of the run (the memory's messages, ``model_dump()`` one a line
and in a JSON array; a SimpleChatStore holding them, as it persists; a
ChatMemoryBuffer's ``to_dict()``) must stop, whatever the stop rule, where the run
written as doneseq's JSONL stops: lines made from the test's own script (the model's
turns) and from the agent's own events (each tool's result)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
from llama_index.core.llms import ChatMessage
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.storage.chat_store import SimpleChatStore
from llama_index.core.workflow import Context
from llama_index.llms.openai import OpenAI
from recorded_runs import completion, read_alike, write_text

import doneseq

PROMPTS = ["Add 2 and 3, then divide 1 by 0.", "And twice the sum?"]


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def divide(a: int, b: int) -> float:
    """Divides a by b."""
    return a / b


# Each model turn: its text and its tool calls (id, name, arguments).
SCRIPT: list[dict[str, Any]] = [
    {
        "text": "Computing.",
        "calls": [("call_1", "add", {"a": 2, "b": 3}), ("call_2", "divide", {"a": 1, "b": 0})],
    },
    {"text": "The sum is 5; 1/0 failed."},
    {"calls": [("call_3", "add", {"a": 5, "b": 5})]},
    {"text": "Twice 5 is 10."},
]


async def run_agent() -> tuple[list[ChatMessage], list[Any]]:
    """The two runs of the agent in one context: the messages its memory kept, and the
    run as doneseq's JSONL lines (LlamaIndex keeps no usage in its messages, and no
    word of a tool's failure: the lines hold neither)."""
    turns = iter(SCRIPT)
    lines: list[Any] = []

    def answer(request: httpx.Request) -> httpx.Response:
        turn = next(turns)
        lines.append(
            {
                "role": "llm",
                "content": turn.get("text") or "",
                "tool_calls": [
                    {"id": i, "name": n, "arguments": a} for i, n, a in turn.get("calls", [])
                ],
            }
        )
        return httpx.Response(200, json=completion(turn))

    transport = httpx.MockTransport(answer)
    llm = OpenAI(
        model="gpt-4o",
        api_key="offline",
        http_client=httpx.Client(transport=transport),
        async_http_client=httpx.AsyncClient(transport=transport),
    )
    agent = FunctionAgent(tools=[add, divide], llm=llm, streaming=False)
    ctx = Context(agent)
    for prompt in PROMPTS:
        lines.append({"role": "user", "content": prompt})
        handler = agent.run(prompt, ctx=ctx)
        async for event in handler.stream_events():
            # The agent's own event for each tool's result.
            if isinstance(event, ToolCallResult):
                lines.append(
                    {
                        "role": "tool",
                        "tool_call_id": event.tool_id,
                        "content": event.tool_output.content,
                    }
                )
        await handler
    assert next(turns, None) is None
    memory = await ctx.store.get("memory")
    return await memory.aget_all(), lines


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The memory's messages, each way LlamaIndex writes them, and doneseq's JSONL."""
    directory = tmp_path_factory.mktemp("llamaindex")
    messages, lines = asyncio.run(run_agent())
    dumped = [m.model_dump(mode="json") for m in messages]
    blocks = {b["block_type"] for m in dumped for b in m["blocks"]}
    assert blocks == {"text", "tool_call"}
    store = SimpleChatStore()
    store.set_messages("s1", messages)
    store.persist(str(directory / "store.json"))
    memory = ChatMemoryBuffer.from_defaults(chat_store=store, chat_store_key="s1")
    return {
        "lines": write_text(
            directory / "memory.jsonl", "".join(json.dumps(m) + "\n" for m in dumped)
        ),
        "array": write_text(directory / "memory.json", json.dumps(dumped, indent=2)),
        "store": directory / "store.json",
        "buffer": write_text(directory / "buffer.json", json.dumps(memory.to_dict())),
        "run": write_text(
            directory / "run.jsonl",
            "".join(json.dumps(line) + "\n" for line in in_call_order(lines)),
        ),
    }


def in_call_order(lines: list[Any]) -> list[Any]:
    """The lines with each model turn's results after it in its calls' order (the
    agent's events for one turn's calls may come in any order)."""
    results = {line["tool_call_id"]: line for line in lines if line["role"] == "tool"}
    ordered: list[Any] = []
    for line in lines:
        if line["role"] == "tool":
            continue
        ordered.append(line)
        ordered.extend(results[call["id"]] for call in line.get("tool_calls", []))
    return ordered


STOPS = [
    'seq("T[add], A, T[divide]")',
    'seq("L, U")',
    "tool(divide, executed)",
    "tool(add, executed)",
    "no_tool_calls",
    "max_model_calls(2)",
    "max_model_calls(3)",
    "max_turns(5)",
    "loop(repeats=2)",
    'text("failed")',
    "final | done_signal",
]

# Every model turn, tool result and the second prompt is a step; the first prompt
# (the task's input) is not.
STEPS = len(SCRIPT) + 3 + 1


@pytest.mark.parametrize("stop", STOPS)
def test_llamaindexs_memory_stops_as_the_run(run, stop):
    saved = {
        run["lines"]: "llamaindex",
        run["array"]: "llamaindex",
        run["store"]: "llamaindex",
        run["buffer"]: "llamaindex",
    }
    replay = read_alike(stop, saved, run["run"])
    assert replay["recorded_steps"] == STEPS


def test_a_damaged_message_is_an_error_naming_its_line_and_block(run, tmp_path):
    messages = [json.loads(line) for line in run["lines"].read_text().splitlines()]
    messages[1]["blocks"][1]["block_type"] = "telepathy"
    damaged = write_text(
        tmp_path / "damaged.jsonl", "".join(json.dumps(m) + "\n" for m in messages)
    )
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(damaged)
    assert replay["error"].startswith("line 2: "), replay
    assert 'block 1 has an unknown type "telepathy"' in replay["error"], replay
    assert "format llamaindex (detected)" in replay["error"], replay


def test_a_store_of_two_conversations_is_refused(run, tmp_path):
    store = json.loads(run["store"].read_text(encoding="utf-8"))
    store["store"]["s2"] = store["store"]["s1"]
    two = write_text(tmp_path / "two.json", json.dumps(store))
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(two)
    assert "a LlamaIndex chat store of 2 conversations" in replay["error"], replay
