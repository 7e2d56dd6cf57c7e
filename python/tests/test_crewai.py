"""The crewai transcript format against real CrewAI runs: a crew of two agents of
CrewAI's own OpenAI LLM, its OpenAI client (the real SDK) answered offline by a
scripted server on the loopback interface (``recorded_runs.scripted_server``), run
twice: with the model's native tool calls, and with CrewAI's ReAct prompt (the LLM
taken for one without native calls: the model writes ``Action:`` and ``Action
Input:``, CrewAI appends the tool's ``Observation:``). What CrewAI keeps of each run
(the crew's output, its tasks' outputs one a line and in a JSON array, an agent's own
output) must stop, whatever the stop rule, where the run written as doneseq's JSONL
stops: lines made from the test's own script (the model's turns), the prompts as the
model received them, and the tools' own record of each call (its result, and whether
it raised)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from recorded_runs import completion, read_alike, scripted_server, write_text

import doneseq

# CrewAI reports to its own services unless told not to; these runs are offline.
os.environ.update(
    CREWAI_DISABLE_TELEMETRY="true",
    CREWAI_TRACING_ENABLED="false",
    OTEL_SDK_DISABLED="true",
)

from crewai import LLM, Agent, Crew, Task
from crewai.tools import tool

# What each tool did, in the order they ran: (name, arguments, result, raised).
RAN: list[tuple[str, dict[str, Any], str, bool]] = []


def recorded(name: str, arguments: dict[str, Any], run: Any) -> Any:
    try:
        result = run()
    except Exception as e:
        RAN.append((name, arguments, str(e), True))
        raise
    RAN.append((name, arguments, str(result), False))
    return result


@tool("add")
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return recorded("add", {"a": a, "b": b}, lambda: a + b)


@tool("divide")
def divide(a: int, b: int) -> float:
    """Divides a by b."""
    return recorded("divide", {"a": a, "b": b}, lambda: a / b)


# Each model turn: the agent whose turn it is, its text, its native tool calls (id,
# name, arguments); in the ReAct run, the answer CrewAI takes from a final answer.
NATIVE: list[dict[str, Any]] = [
    {
        "agent": "Analyst",
        "calls": [("call_1", "add", {"a": 2, "b": 3}), ("call_2", "divide", {"a": 1, "b": 0})],
    },
    {"agent": "Analyst", "text": "The sum is 5; 1/0 failed."},
    {"agent": "Writer", "calls": [("call_3", "add", {"a": 5, "b": 5})]},
    {"agent": "Writer", "text": "Twice 5 is 10."},
]
REACT: list[dict[str, Any]] = [
    {"agent": "Analyst", "text": 'Thought: add first\nAction: add\nAction Input: {"a": 2, "b": 3}'},
    {
        "agent": "Analyst",
        "text": 'Thought: now divide\nAction: divide\nAction Input: {"a": 1, "b": 0}',
    },
    {
        "agent": "Analyst",
        "text": "Thought: I know\nFinal Answer: The sum is 5; 1/0 failed.",
        "answer": "The sum is 5; 1/0 failed.",
    },
    {"agent": "Writer", "text": 'Thought: twice\nAction: add\nAction Input: {"a": 5, "b": 5}'},
    {
        "agent": "Writer",
        "text": "Thought: done\nFinal Answer: Twice 5 is 10.",
        "answer": "Twice 5 is 10.",
    },
]


def agents(llm: Any) -> tuple[Any, Any]:
    """The crew's two agents, of ``llm``."""
    analyst = Agent(
        role="Analyst",
        goal="Compute exactly.",
        backstory="You check arithmetic.",
        tools=[add, divide],
        llm=llm,
    )
    writer = Agent(
        role="Writer",
        goal="Answer in one sentence.",
        backstory="You write short answers.",
        tools=[add],
        llm=llm,
    )
    return analyst, writer


def run_crew(
    script: list[dict[str, Any]], react: bool, log: Path | None = None
) -> tuple[Any, list[Any]]:
    """The crew's run: CrewAI's output, and the run as doneseq's JSONL lines (and
    CrewAI's output log at ``log``, if given)."""
    RAN.clear()
    turns = iter(script)
    with scripted_server(lambda _request: completion(next(turns))) as (address, requests):
        llm = LLM(model="gpt-4o", api_key="offline", base_url=f"{address}/v1")
        if react:
            # An LLM without native calls: CrewAI prompts for its ReAct format.
            llm.supports_function_calling = lambda: False  # type: ignore[method-assign]
        analyst, writer = agents(llm)
        tasks = [
            Task(
                description="Add 2 and 3, then divide 1 by 0.",
                expected_output="the results",
                agent=analyst,
            ),
            Task(description="And twice the sum?", expected_output="a number", agent=writer),
        ]
        crew = Crew(agents=[analyst, writer], tasks=tasks)
        if log is not None:
            crew.output_log_file = str(log)
        output = crew.kickoff()
    assert next(turns, None) is None
    return output, lines_of(script, requests, react)


def attempts() -> Iterator[tuple[str, dict[str, Any], str, bool]]:
    """Each call's run as the tool recorded it: where CrewAI ran a tool again after
    it raised (its ReAct loop retries a call), its last attempt."""
    calls: list[tuple[str, dict[str, Any], str, bool]] = []
    for attempt in RAN:
        again = calls and calls[-1][3] and calls[-1][:2] == attempt[:2]
        if again:
            calls[-1] = attempt
        else:
            calls.append(attempt)
    return iter(calls)


def lines_of(
    script: list[dict[str, Any]], requests: list[dict[str, Any]], react: bool
) -> list[Any]:
    """The run as doneseq's JSONL: before each model turn, the prompts its request
    added (a task's system and user messages, CrewAI's prompts between turns); the
    turn (its text, or, for a final answer in the ReAct run, the answer; its calls,
    native or written); after a turn that called tools, each tool's result as the
    tool recorded it. CrewAI keeps no token usage in its messages: none is written."""
    lines: list[Any] = []
    ran = attempts()
    seen: list[Any] = []
    for turn, request in zip(script, requests):
        messages = request["messages"]
        new = messages[len(seen) :] if messages[: len(seen)] == seen else messages
        lines.extend(
            {"role": m["role"], "content": m["content"]}
            for m in new
            if m["role"] in ("system", "user")
        )
        seen = messages
        calls = list(turn.get("calls", []))
        if react and "answer" not in turn:
            action = turn["text"].split("\nAction: ")[1]
            name, arguments = action.split("\nAction Input: ")
            calls = [(None, name, json.loads(arguments))]
        text = turn.get("answer", turn.get("text", ""))
        lines.append(
            {
                "role": "llm",
                "responder": turn["agent"],
                "content": text,
                "tool_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in calls],
            }
        )
        for call_id, name, arguments in calls:
            tool_name, tool_arguments, result, raised = next(ran)
            assert (tool_name, tool_arguments) == (name, arguments)
            line: dict[str, Any] = {
                "role": "tool",
                "responder": name,
                "tool_name": name,
                "content": result,
            }
            if call_id is not None:
                line["tool_call_id"] = call_id
            if raised:
                line["error"] = result
            lines.append(line)
    assert next(ran, None) is None
    return lines


def saved(directory: Path, output: Any, lines: list[Any]) -> dict[str, Path]:
    """A run's output, each way CrewAI gives it, and doneseq's JSONL."""
    tasks = json.loads(output.model_dump_json())["tasks_output"]
    return {
        "crew": write_text(directory / "crew.json", output.model_dump_json(indent=2)),
        "tasks": write_text(directory / "tasks.jsonl", one_a_line(tasks)),
        "list": write_text(directory / "tasks.json", json.dumps(tasks)),
        "run": write_text(directory / "run.jsonl", one_a_line(lines)),
    }


def one_a_line(values: list[Any]) -> str:
    return "".join(json.dumps(value) + "\n" for value in values)


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("native")
    output, lines = run_crew(NATIVE, react=False, log=directory / "log.json")
    failures = [f.tool_name for t in output.tasks_output for f in t.tool_failures]
    assert failures == ["divide"]
    return {**saved(directory, output, lines), "log": directory / "log.json"}


@pytest.fixture(scope="module")
def react(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    output, lines = run_crew(REACT, react=True)
    # CrewAI's ReAct loop keeps the calls in the model's text, and not its final
    # answers: the reader's two rules are needed.
    messages = [m for t in output.tasks_output for m in t.messages]
    assert not any(m.get("tool_calls") for m in messages)
    said = [m["content"] for m in messages if m["role"] == "assistant"]
    assert all("\nAction: " in text for text in said), said
    assert not any(t.raw in text for t in output.tasks_output for text in said)
    return saved(tmp_path_factory.mktemp("react"), output, lines)


STOPS = [
    'seq("T[add], A")',
    'seq("T[divide], A")',
    "tool(divide, executed)",
    "tool(divide, finished)",
    "tool(add, executed)",
    'tool(add, args={"a": 5})',
    "consecutive_errors(1)",
    "no_tool_calls",
    'response(["@Writer"])',
    'text("failed", from=[llm])',
    "max_model_calls(3)",
    "max_turns(6)",
    "final | done_signal",
]


@pytest.mark.parametrize("mode", ["native", "react"])
@pytest.mark.parametrize("stop", STOPS)
def test_crewais_outputs_stop_as_the_run(request, mode, stop):
    run = request.getfixturevalue(mode)
    outputs = {run["crew"]: "crewai", run["tasks"]: "crewai", run["list"]: "crewai"}
    read_alike(stop, outputs, run["run"])


def test_the_react_run_has_crewais_prompt_after_each_result(native, react):
    # The ReAct run has CrewAI's prompt after each tool's result (three more steps),
    # and a model turn for each call (one more: the native run's first turn calls two
    # tools at once).
    monitor = doneseq.Monitor(stop="max_turns(100)")
    native_steps = monitor.check_file(native["crew"])["recorded_steps"]
    react_steps = monitor.check_file(react["crew"])["recorded_steps"]
    assert (native_steps, react_steps) == (8, 12)


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The analyst's own run (``Agent.kickoff()``, no crew): its ``LiteAgentOutput``,
    and the run as doneseq's JSONL."""
    RAN.clear()
    script = NATIVE[:2]
    turns = iter(script)
    with scripted_server(lambda _request: completion(next(turns))) as (address, requests):
        llm = LLM(model="gpt-4o", api_key="offline", base_url=f"{address}/v1")
        analyst, _ = agents(llm)
        output = analyst.kickoff("Add 2 and 3, then divide 1 by 0.")
    assert next(turns, None) is None
    assert type(output).__name__ == "LiteAgentOutput"
    directory = tmp_path_factory.mktemp("own")
    return {
        "output": write_text(directory / "agent.json", output.model_dump_json(indent=2)),
        "run": write_text(directory / "run.jsonl", one_a_line(lines_of(script, requests, False))),
    }


@pytest.mark.parametrize("stop", STOPS)
def test_an_agents_own_run_stops_as_the_run(own, stop):
    read_alike(stop, {own["output"]: "crewai"}, own["run"])


def test_a_damaged_message_is_an_error_naming_its_task_and_message(native, tmp_path):
    crew = json.loads(native["crew"].read_text())
    crew["tasks_output"][1]["messages"][2]["role"] = "oracle"
    damaged = write_text(tmp_path / "damaged.json", json.dumps(crew, indent=2))
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(damaged)
    assert "element 2 of 2: element 3 of 5: unknown role 'oracle'" in replay["error"], replay
    assert "format crewai (detected)" in replay["error"], replay


def test_crewais_output_log_is_refused_with_what_to_read_instead(native):
    # The crew's `output_log_file`: each task's status and output, no messages.
    entries = json.loads(native["log"].read_text())
    assert [e["status"] for e in entries] == ["started", "completed"] * 2
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(native["log"])
    assert "a CrewAI output log (output_log_file) holds each task's status" in replay["error"]
    assert "format crewai (detected)" in replay["error"], replay
