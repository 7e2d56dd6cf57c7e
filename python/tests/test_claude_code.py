"""The claude-code format against Claude Code itself: the Claude Agent SDK runs the
Claude Code CLI it bundles (offline, against a scripted Anthropic API), and the
session log Claude Code writes is replayed against the run as the SDK showed it."""

from __future__ import annotations

import json

import claude_code_runs
import pytest
from claude_code_runs import SCRIPT
from recorded_runs import assert_damage_names_its_line, gathered, read_alike

import doneseq


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> claude_code_runs.Run:
    return claude_code_runs.run(tmp_path_factory.mktemp("session"))


STOPS = [
    "max_turns(3)",
    "max_model_calls(2)",
    "max_model_calls(4)",
    "tokens(200)",
    "tokens(output=60)",
    "tool(mcp__calc__search)",
    "tool(mcp__calc__weather, executed)",
    "tool(mcp__calc__weather, finished)",
    "consecutive_errors(1)",
    'seq("T[mcp__calc__calculator], A")',
    'text("Paris", from=[llm])',
    "no_tool_calls",
]


@pytest.mark.parametrize("stop", STOPS)
def test_a_session_log_stops_as_the_run(session, stop):
    replay = read_alike(
        stop, {session.log: "claude-code", gathered(session.log): "claude-code"}, session.messages
    )
    # Five model turns (one of two calls), four results and the second prompt are
    # steps; the first prompt is the task's input.
    assert replay["recorded_steps"] == 10
    assert replay["recorded_tokens"] == sum(i + o for turn in SCRIPT for i, o in [turn.usage])


def test_a_turn_written_a_block_a_record_is_one_message(session):
    # Claude Code wrote the first turn as three records (thinking, text, call) and the
    # second as two (a call each): one model call each, with the turn's usage once.
    records = [json.loads(line) for line in session.log.read_text().splitlines()]
    ids = [r["message"]["id"] for r in records if r.get("type") == "assistant"]
    assert ids.count("msg_01") == 3 and ids.count("msg_02") == 2, ids
    replay = doneseq.Monitor(stop="max_model_calls(2)").check_file(session.log)
    assert (replay["kind"], replay["steps"]) == ("exhausted", 3), replay
    tokens = doneseq.Monitor(stop="tokens(input=158)").check_file(session.log)
    assert (tokens["kind"], tokens["steps"]) == ("exhausted", 3), tokens


def test_the_failed_call_is_an_error_as_claude_code_recorded_it(session):
    replay = doneseq.Monitor(stop="consecutive_errors(1)").check_file(session.log)
    # The fifth step: the turn of two calls, the search's result, the weather's.
    assert (replay["kind"], replay["steps"]) == ("failed", 5), replay
    # The SDK saw the weather tool fail (its hook), and so does the log.
    assert '"error"' in session.messages.read_text().splitlines()[5]


def test_the_sdks_totals_are_the_logs(session):
    # Each prompt's ResultMessage totals the tokens its model calls reported: the
    # replay counts the log's turns to the same sum (each turn's usage once).
    assert [r.subtype for r in session.results] == ["success", "success"]
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    totals = [sum(r.usage[k] for k in keys) + r.usage["output_tokens"] for r in session.results]
    replay = doneseq.Monitor(stop="max_turns(100)").check_file(session.log)
    assert replay["recorded_tokens"] == sum(totals), (replay, totals)
    # The partial answer of a stop at the third model call is that call's text.
    replay = doneseq.Monitor(stop="max_model_calls(3)").check_file(session.log)
    assert replay["answer"] == SCRIPT[2].text, replay


def test_a_run_stopped_by_max_turns_ends_where_max_model_calls_stops(tmp_path):
    # The SDK's max_turns=2 stops Claude Code after its second model call (whose
    # calls it ran first): max_model_calls(2) stops the log at that call.
    stopped = claude_code_runs.run(tmp_path, max_turns=2, prompts=claude_code_runs.PROMPTS[:1])
    assert [r.subtype for r in stopped.results] == ["error_max_turns"]
    replay = doneseq.Monitor(stop="max_model_calls(2)").check_file(stopped.log)
    everything = doneseq.Monitor(stop="max_turns(100)").check_file(stopped.log)
    # The two turns and the three results: the stop is the second turn, two results
    # before the log's end.
    assert everything["recorded_steps"] == 5, everything
    assert (replay["kind"], replay["steps"]) == ("exhausted", 3), replay


def test_a_damaged_record_names_its_line(session, tmp_path):
    marker, old, new = '"type":"assistant"', '"role":"assistant"', '"role":7'
    assert_damage_names_its_line(session.log, marker, old, new, tmp_path)


def test_a_sub_agents_log_is_its_own_loop(tmp_path):
    # The model delegates to a sub-agent (Claude Code's Agent tool, in the
    # foreground): Claude Code keeps the sub-agent's records in a log of its own
    # (every record `isSidechain`), beside its metadata.
    run = claude_code_runs.run(
        tmp_path,
        prompts=["Ask a sub-agent what 17 times 23, plus 4, is."],
        script=claude_code_runs.DELEGATING,
        sub_agent=claude_code_runs.SUB_AGENT,
    )
    names = sorted(path.suffixes[-1] for path in run.sub_agents)
    assert names == [".json", ".jsonl"], run.sub_agents
    (log,) = [path for path in run.sub_agents if path.suffix == ".jsonl"]
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert all(r.get("isSidechain") for r in records if r.get("type") in ("user", "assistant"))
    # The session: the call of the Agent tool, its result (the sub-agent's answer),
    # the answer; the sub-agent's log: its prompt (its input), its answer.
    session = read_alike("tool(Agent, executed)", {run.log: "claude-code"}, run.messages)
    assert (session["kind"], session["steps"], session["recorded_steps"]) == ("done", 2, 3)
    assert "395" in session["answer"], session
    monitor = doneseq.Monitor(stop="no_tool_calls")
    sub = monitor.check_file(log, format="claude-code")
    assert (sub["kind"], sub["steps"], sub["answer"]) == ("done", 1, "395"), sub
    assert sub["recorded_tokens"] == sum(claude_code_runs.SUB_AGENT[0].usage)
    # Its metadata is no transcript: read, it gives no message and no error.
    (meta,) = [path for path in run.sub_agents if path.suffix == ".json"]
    read = monitor.check_file(meta)
    assert "error" not in read and read["recorded_steps"] == 0, read
