"""The langchain transcript format against a real LangGraph agent: its run's messages
saved each way LangChain saves them (``messages_to_dict()``, each message's
``model_dump()`` a line, ``dumpd()`` of the messages and of the whole state) must
stop, whatever the stop rule, where the same messages written one by one as doneseq's
JSONL stop. The agent (LangGraph's ReAct agent, named, with LangChain's fake chat
model, offline) is given a system prompt, calls a calculator twice in a turn (the
second call's tool fails), answers a turn in Anthropic's content blocks, and
answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.load import dumpd
from langchain_core.messages import AIMessage, SystemMessage, messages_to_dict
from langchain_core.tools import tool
from langgraph.prebuilt import ToolNode, create_react_agent
from langgraph_agent import ToolCallingFake, lines
from recorded_runs import read_alike

import doneseq

# Each model turn's usage (input and output tokens), in order.
USAGE = [(30, 12), (50, 9), (70, 4)]


def usage(n: int) -> dict[str, int]:
    i, o = USAGE[n]
    return {"input_tokens": i, "output_tokens": o, "total_tokens": i + o}


def answers() -> list[AIMessage]:
    search = {"name": "search", "args": {"query": "answer"}, "id": "c3"}
    return [
        AIMessage(
            content="Let me compute.",
            tool_calls=[
                {"name": "calculator", "args": {"expression": "6*7"}, "id": "c1"},
                {"name": "calculator", "args": {"expression": "1/0"}, "id": "c2"},
            ],
            usage_metadata=usage(0),
        ),
        AIMessage(
            content=[
                {"type": "text", "text": "Searching."},
                {"type": "tool_use", "id": "c3", "name": "search", "input": search["args"]},
            ],
            tool_calls=[search],
            usage_metadata=usage(1),
        ),
        AIMessage(content="42 it is.", usage_metadata=usage(2)),
    ]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The run's messages saved each way (the first ``messages_to_dict()``), and as
    doneseq's JSONL (the last)."""

    @tool
    def calculator(expression: str) -> str:
        """Evaluates arithmetic."""
        return str(eval(expression, {"__builtins__": {}}))

    @tool
    def search(query: str) -> str:
        """Searches the web."""
        return f"results for {query}"

    tools = ToolNode([calculator, search], handle_tool_errors=True)
    agent = create_react_agent(ToolCallingFake(messages=iter(answers())), tools, name="research")
    state = agent.invoke(
        {"messages": [SystemMessage("You compute."), ("user", "What is 6*7 and 1/0?")]}
    )
    messages = state["messages"]
    assert [m.type for m in messages] == [
        "system", "human", "ai", "tool", "tool", "ai", "tool", "ai",
    ]  # fmt: skip
    assert [getattr(m, "status", None) for m in messages[3:5]] == ["success", "error"]
    assert {m.name for m in messages if m.type == "ai"} == {"research"}
    directory = tmp_path_factory.mktemp("langchain")
    files = {
        "to_dict.json": json.dumps(messages_to_dict(messages), indent=1),
        "dump.jsonl": "".join(json.dumps(m.model_dump()) + "\n" for m in messages),
        "dumpd.json": json.dumps([dumpd(m) for m in messages]),
        "state.json": json.dumps(dumpd(state)),
        "run.jsonl": "".join(json.dumps(line) + "\n" for line in lines(messages)),
    }
    for name, text in files.items():
        (directory / name).write_text(text)
    return [directory / name for name in files]


STOPS = [
    'seq("T[calculator], A, A, T[search]")',
    'seq("T[search], A")',
    "tool(search, executed)",
    "tool(calculator, executed)",
    "consecutive_errors(1)",
    "no_tool_calls",
    "max_model_calls(2)",
    "max_turns(3)",
    "tokens(100)",
    "loop(repeats=2)",
]


@pytest.mark.parametrize("stop", STOPS)
def test_every_way_langchain_saves_the_run_stops_as_its_messages(run, stop):
    *saved, jsonl = run
    replay = read_alike(stop, dict.fromkeys(saved, "langchain"), jsonl)
    # The three model turns and three tool results are steps; the system prompt and
    # the task are not.
    assert replay["recorded_steps"] == 6
    assert replay["recorded_tokens"] == sum(i + o for i, o in USAGE)


def test_a_damaged_message_is_an_error_naming_its_line(run, tmp_path):
    records: list[Any] = json.loads(run[0].read_text())
    records[5]["data"]["content"][1] = {"type": "telepathy"}
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(json.dumps(r) + "\n" for r in records))
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(damaged)
    assert replay["error"].startswith("line 6: "), replay
    assert 'content block 2 has an unknown type "telepathy"' in replay["error"], replay
    assert "format langchain (detected)" in replay["error"], replay
