"""The agno transcript format against real Agno runs: an agent of Agno's own OpenAI
model, its OpenAI client (the real SDK) answered offline by an httpx mock transport,
with Agno's JSON database, run twice in one session (the second run given the first
as history). What Agno keeps of the session (each run's messages, one a line; the
runs' ``to_dict()``; the session's ``to_dict()`` with its runs; the database's rows of
runs, as Agno's JSON database wrote them and as a query of its SQLite database gives
them) must stop, whatever the stop rule, where the run written as
doneseq's JSONL stops: lines made from the test's own script (the model's turns) and
from what Agno's tool hook saw (the prompts, each tool's result). And a team's
session, read from the database's rows, is the team's run."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from agno.agent import Agent
from agno.db.base import BaseDb
from agno.db.json import JsonDb
from agno.db.sqlite import SqliteDb
from agno.models.openai import OpenAIChat
from agno.team import Team
from agno.tools import tool
from recorded_runs import completion, model_line, read_alike, replayed, write_text

import doneseq

PROMPTS = ["Add 2 and 3, then divide 1 by 0.", "And twice the sum? Report it."]


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def divide(a: int, b: int) -> float:
    """Divides a by b."""
    return a / b


@tool(stop_after_tool_call=True)
def report(text: str) -> str:
    """Reports the answer; the run stops after it."""
    return f"Reported: {text}"


# Each model turn: its text, its tool calls (id, name, arguments) and its usage
# (input and output tokens). The first run ends with an answer; the second with the
# report tool, after which Agno stops the run.
SCRIPT: list[dict[str, Any]] = [
    {
        "text": "Computing.",
        "calls": [("call_1", "add", {"a": 2, "b": 3}), ("call_2", "divide", {"a": 1, "b": 0})],
        "usage": (61, 22),
    },
    {"text": "The sum is 5; 1/0 failed.", "usage": (97, 12)},
    {"calls": [("call_3", "add", {"a": 5, "b": 5})], "usage": (120, 9)},
    {"calls": [("call_4", "report", {"text": "10"})], "usage": (140, 8)},
]
# The turns of the first run.
FIRST_RUN = 2


def run_session(db: BaseDb) -> tuple[Agent, list[Any], list[Any], list[Any]]:
    """The two runs of the agent in one session, stored in Agno's database ``db``: the
    agent, the runs, the run as doneseq's JSONL lines, and the requests the model was
    sent."""
    turns = iter(SCRIPT)
    requests: list[Any] = []
    lines: list[Any] = []

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(json.loads(request.content))
        turn = next(turns)
        lines.append(model_line(turn.get("text") or "", turn.get("calls", []), turn["usage"]))
        return httpx.Response(200, json=completion(turn))

    def seen(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        # Agno's tool hook: each tool's result (or its failure) as Agno runs it.
        line: dict[str, Any] = {"role": "tool", "tool_name": function_name}
        lines.append(line)
        try:
            result = function_call(**arguments)
        except Exception as e:
            line["content"] = line["error"] = str(e)
            raise
        line["content"] = str(result)
        if function_name == "report":
            line["stop"] = True
        return result

    client = httpx.Client(transport=httpx.MockTransport(answer))
    agent = Agent(
        model=OpenAIChat(id="gpt-4o", api_key="offline", http_client=client),
        tools=[add, divide, report],
        tool_hooks=[seen],
        instructions="Be brief.",
        db=db,
        session_id="s1",
        add_history_to_context=True,
    )
    runs = []
    for prompt in PROMPTS:
        lines.append({"role": "user", "content": prompt})
        runs.append(agent.run(prompt))
    assert next(turns, None) is None
    return agent, runs, lines, requests


def write_lines(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The session's records, each written to a file as Agno gives it, and doneseq's
    JSONL of the session."""
    directory = tmp_path_factory.mktemp("agno")
    agent, runs, lines, requests = run_session(JsonDb(db_path=str(directory / "db")))
    # The same session stored in Agno's SQLite database: its runs as the documented
    # query gives them (the top-level runs' data, one a line, in their order).
    sqlite = directory / "agno.db"
    run_session(SqliteDb(db_file=str(sqlite)))
    with closing(sqlite3.connect(sqlite)) as db:
        query = (
            "select run_data from agno_runs where session_id = 's1' "
            "and parent_run_id is null order by created_at, run_index"
        )
        sql_runs = [row[0] for row in db.execute(query)]
    assert len(sql_runs) == len(PROMPTS)
    # The tool calls in the order the script made them, and the hook's lines in order
    # of the calls (the hook gave no call id: the script's calls give them).
    calls = [call for turn in SCRIPT for call in turn.get("calls", [])]
    results = [line for line in lines if line["role"] == "tool"]
    assert [r["tool_name"] for r in results] == [name for _, name, _ in calls]
    for (call_id, _, _), result in zip(calls, results):
        result["tool_call_id"] = call_id
    # (Agno's run content joins every text the model gave in the run.)
    assert str(runs[0].content).endswith(SCRIPT[FIRST_RUN - 1]["text"])
    # The second run was given the first as history (its messages repeat it, marked
    # from_history); the last request holds the report's call, after which the run
    # stopped (no model call after the report's result).
    second = [m.to_dict() for m in runs[1].messages]
    assert any(m.get("from_history") for m in second)
    assert any(m.get("stop_after_tool_call") for m in second)
    assert len(requests) == len(SCRIPT)
    session = agent.get_session(session_id="s1")
    assert session is not None and len(session.runs or []) == len(PROMPTS)
    rows = directory / "db" / "agno_runs.json"
    assert len(json.loads(rows.read_text(encoding="utf-8"))) == len(PROMPTS)
    return {
        "messages": write_lines(
            directory / "messages.jsonl", [m.to_dict() for r in runs for m in r.messages]
        ),
        "dumped messages": write_lines(
            directory / "dumped.jsonl",
            [m.model_dump(mode="json") for r in runs for m in r.messages],
        ),
        "runs": write_json(directory / "runs.json", [r.to_dict() for r in runs]),
        "session": write_json(directory / "session.json", session.to_dict()),
        "rows": rows,
        "sqlite runs": write_text(
            directory / "sqlite-runs.jsonl", "".join(r + "\n" for r in sql_runs)
        ),
        "run": write_lines(directory / "run.jsonl", lines),
    }


STOPS = [
    'seq("T[add], A, T[divide]")',
    'seq("L, U")',
    "tool(divide, executed)",
    "tool(report, executed)",
    "stop_message",
    "consecutive_errors(1)",
    "no_tool_calls",
    "max_model_calls(2)",
    "max_model_calls(3)",
    "max_turns(6)",
    "tokens(200)",
    "loop(repeats=2)",
    "final | done_signal",
]

# Every model turn, tool result and the second prompt is a step; the first prompt
# (the task's input) and the system prompts are not.
STEPS = len(SCRIPT) + 4 + 1
TOKENS = sum(sum(turn["usage"]) for turn in SCRIPT)


@pytest.mark.parametrize("stop", STOPS)
def test_agnos_records_of_a_session_stop_as_the_session(run, stop):
    saved = {
        run["messages"]: "agno",
        run["dumped messages"]: "agno",
        run["runs"]: "agno",
        run["session"]: "agno",
        run["rows"]: "agno",
        run["sqlite runs"]: "agno",
    }
    replay = read_alike(stop, saved, run["run"])
    assert (replay["recorded_steps"], replay["recorded_tokens"]) == (STEPS, TOKENS)


def test_the_report_tool_stops_the_run_as_agno_did(run):
    replay = doneseq.Monitor(stop="stop_message").check_file(run["rows"])
    assert (replay["kind"], replay["steps"], replay["recorded_steps"]) == ("done", STEPS, STEPS)


def test_a_damaged_message_is_an_error_naming_its_line(run, tmp_path):
    messages = [json.loads(line) for line in run["messages"].read_text().splitlines()]
    messages[2]["role"] = "robot"
    damaged = write_lines(tmp_path / "damaged.jsonl", messages)
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(damaged)
    assert replay["error"].startswith("line 3: "), replay
    assert 'an Agno message of role "robot"' in replay["error"], replay
    assert "format agno (detected)" in replay["error"], replay


def test_runs_of_two_sessions_are_refused(run, tmp_path):
    rows = json.loads(run["rows"].read_text(encoding="utf-8"))
    rows[1]["session_id"] = rows[1]["run_data"]["session_id"] = "s2"
    mixed = write_json(tmp_path / "mixed.json", rows)
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(mixed)
    assert 'a run of session "s2" after runs of session "s1"' in replay["error"], replay


def test_a_teams_session_is_the_teams_run(tmp_path):
    # A team of one member, run once: Agno's database keeps the member's run (its
    # parent_run_id the team's) and the team's; the session read from the rows is
    # the team's run (its delegation's call and result stand for the member's run),
    # which the team's own run, read alone, is too.
    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        tools = {t["function"]["name"] for t in body.get("tools", [])}
        answered = any(m.get("role") == "tool" for m in body["messages"])
        if answered:
            turn: dict[str, Any] = {"text": "It is 5.", "usage": (30, 4)}
        elif "delegate_task_to_member" in tools:
            task = {"member_id": "adder", "task": "Add 2 and 3."}
            turn = {"calls": [("d1", "delegate_task_to_member", task)], "usage": (50, 9)}
        else:
            turn = {"calls": [("c1", "add", {"a": 2, "b": 3})], "usage": (20, 7)}
        return httpx.Response(200, json=completion(turn))

    def model() -> OpenAIChat:
        client = httpx.Client(transport=httpx.MockTransport(answer))
        return OpenAIChat(id="gpt-4o", api_key="offline", http_client=client)

    db = JsonDb(db_path=str(tmp_path / "db"))
    adder = Agent(name="adder", id="adder", model=model(), tools=[add], db=db)
    team = Team(members=[adder], model=model(), db=db, session_id="t1")
    result = team.run("Add 2 and 3.")
    rows = json.loads((tmp_path / "db" / "agno_runs.json").read_text(encoding="utf-8"))
    assert [row["parent_run_id"] is not None for row in rows] == [True, False]
    team_run = write_json(tmp_path / "team-run.json", result.to_dict())
    member_run = write_json(tmp_path / "member-run.json", rows[0]["run_data"])
    monitor = doneseq.Monitor(stop="max_turns(50)")
    session = replayed(monitor, {tmp_path / "db" / "agno_runs.json": "agno", team_run: "agno"})
    # The team's turns: the delegation, its result, the answer.
    assert (session["recorded_steps"], session["recorded_tokens"]) == (3, 50 + 9 + 30 + 4)
    member = replayed(monitor, {member_run: "agno"})
    assert (member["recorded_steps"], member["recorded_tokens"]) == (3, 20 + 7 + 30 + 4)
