"""The agent-framework format against Microsoft Agent Framework itself: its ``Agent``
runs a scripted model (a chat client of the test's, offline) with a real tool, and
the history it keeps (its ``FileHistoryProvider``'s file, a session's state, a list of
messages) and its response are replayed against the run as the script made it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import agent_framework_runs
import pytest
from agent_framework import Agent, FileHistoryProvider, Message
from agent_framework_runs import SCRIPT
from recorded_runs import read_alike

import doneseq

# The history file's provider is marked experimental: it warns on each use.
pytestmark = pytest.mark.filterwarnings("ignore:\\[FILE_HISTORY\\]")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> agent_framework_runs.Run:
    return agent_framework_runs.run(tmp_path_factory.mktemp("agent_framework"))


STOPS = [
    "max_turns(2)",
    "max_model_calls(2)",
    "tool(add)",
    "tool(add, executed)",
    "consecutive_errors(1)",
    'seq("T[add], A")',
    'seq("A, T[add], A")',
    "no_tool_calls",
    'text("sum is 3. Done", from=[llm])',
    'text("3", from=[agent])',
]


@pytest.mark.parametrize("stop", STOPS)
def test_the_history_stops_as_the_run(run, stop):
    kept = {
        run.history: "agent-framework",
        run.session: "agent-framework",
        run.listed: "agent-framework",
    }
    replay = read_alike(stop, kept, run.messages)
    # Each model turn, each call's result (the question is the task's input).
    assert replay["recorded_steps"] == len(SCRIPT) + 2
    # The history keeps no usage.
    assert replay["recorded_tokens"] == 0


@pytest.mark.parametrize("stop", [*STOPS, "tokens(60)", "tokens(output=12)"])
def test_the_response_stops_as_the_run(run, stop):
    replay = read_alike(stop, {run.response: "agent-framework"}, run.response_messages)
    assert replay["recorded_steps"] == len(SCRIPT) + 2


def test_usage_is_the_frameworks_own(run):
    usage = run.agent_response.usage_details
    assert usage is not None
    replay = doneseq.Monitor(stop="tool(nothing)").check_file(run.response)
    assert replay["recorded_tokens"] == usage["total_token_count"] == 72


def test_texts_are_joined_as_the_framework_joins_them(run):
    last = run.agent_response.messages[-1]
    assert last.text == "The sum is 3. Done."
    replay = doneseq.Monitor(stop=f'text("{last.text}", from=[llm])').check_file(run.history)
    assert replay["kind"] == "done", replay
    assert replay["steps"] == replay["recorded_steps"]


def test_a_raising_tool_is_a_failed_result(run):
    lines = [json.loads(line) for line in run.history.read_text("utf-8").splitlines()]
    failed = [c for m in lines for c in m["contents"] if c.get("exception")]
    assert [c["call_id"] for c in failed] == ["c2"]
    replay = doneseq.Monitor(stop="consecutive_errors(1)").check_file(run.history)
    # The refused call's result, the fourth step.
    assert (replay["kind"], replay["steps"]) == ("failed", 4), replay


def test_messages_round_trip_through_the_framework(run):
    # What the reader read is what the framework reads back: each line a Message.
    lines = run.history.read_text("utf-8").splitlines()
    messages = [Message.from_dict(json.loads(line)) for line in lines]
    assert [m.role for m in messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    replay = doneseq.Monitor(stop="max_turns(100)").check_file(run.history)
    assert replay["recorded_steps"] == len(messages) - 1


def test_a_session_without_its_history_says_where_it_is(run, tmp_path):
    kept = json.loads(run.session.read_text("utf-8"))
    kept["state"] = {"file_history": {}}
    path = tmp_path / "session.json"
    path.write_text(json.dumps(kept), "utf-8")
    replay = doneseq.Monitor(stop="max_turns(3)").check_file(path)
    assert "FileHistoryProvider" in replay["error"], replay
    assert "run.jsonl" in replay["error"], replay


def test_a_messagepack_history_is_named_as_such(tmp_path):
    # The provider's other serialization: binary records, not read; the error says
    # what the file is and what to do.
    async def keep() -> None:
        agent = Agent(
            client=agent_framework_runs.ScriptedClient(SCRIPT),
            tools=[agent_framework_runs.add],
            context_providers=[FileHistoryProvider(tmp_path, serialization_format="msgpack")],
        )
        await agent.run(
            agent_framework_runs.QUESTION, session=agent.create_session(session_id="run")
        )

    asyncio.run(keep())
    replay = doneseq.Monitor(stop="max_turns(3)").check_file(tmp_path / "run.msgpack")
    assert "MessagePack (an Agent Framework FileHistoryProvider's" in replay["error"], replay


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return agent_framework_runs.traced(tmp_path_factory.mktemp("agent_framework_trace"))


# The texts of a model turn are a message's parts in the trace, joined by a newline.
TRACE_STOPS = [
    *(stop for stop in STOPS if not stop.startswith('text("sum')),
    'text("sum is 3.\\nDone", from=[llm])',
    "tokens(60)",
    "tokens(output=7)",
]


@pytest.mark.parametrize("stop", TRACE_STOPS)
def test_the_frameworks_own_trace_stops_as_the_run(trace, stop):
    # Its telemetry's spans (a chat span a model call, with its usage; an
    # execute_tool span a call, failed where it raised; the invoke_agent span),
    # read by the otel format.
    spans, messages = trace
    replay = read_alike(stop, {spans: "otel"}, messages)
    assert replay["recorded_steps"] == len(SCRIPT) + 2
    # Each call's own usage, the agent's total not counted again.
    assert replay["recorded_tokens"] == sum(sum(turn.usage) for turn in SCRIPT)
