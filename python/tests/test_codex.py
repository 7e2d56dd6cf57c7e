"""The codex format against Codex itself: the Codex CLI runs a prompt (offline,
against a scripted Responses API; its commands run for real), and the rollout Codex
writes is replayed against the run as Codex showed it and as it gave it to the
model."""

from __future__ import annotations

import codex_runs
import pytest
from codex_runs import SCRIPT
from recorded_runs import assert_damage_names_its_line, gathered, read_alike

import doneseq


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> codex_runs.Run:
    return codex_runs.run(tmp_path_factory.mktemp("codex"))


STOPS = [
    "max_turns(3)",
    "max_model_calls(2)",
    "tokens(200)",
    "tokens(output=40)",
    "tool(exec_command)",
    "tool(exec_command, executed)",
    "tool(exec_command, finished)",
    "consecutive_errors(1)",
    'seq("T[exec_command], A")',
    'text("Paris", from=[llm])',
    'text("exited with code 3")',
    "no_tool_calls",
]


@pytest.mark.parametrize("stop", STOPS)
def test_a_rollout_stops_as_the_run(run, stop):
    replay = read_alike(stop, {run.log: "codex", gathered(run.log): "codex"}, run.messages)
    # Three model calls (one of two commands) and the commands' three outputs are
    # steps; Codex's instructions, its context and the prompt are not.
    assert replay["recorded_steps"] == 6
    assert replay["recorded_tokens"] == sum(i + o for turn in SCRIPT for i, o in [turn.usage])


def test_the_tokens_are_codexs_own_total(run):
    # Codex shows its user the turn's usage, the sum of its model calls'.
    (completed,) = [e for e in run.events if e["type"] == "turn.completed"]
    total = completed["usage"]["input_tokens"] + completed["usage"]["output_tokens"]
    replay = doneseq.Monitor(stop="max_turns(100)").check_file(run.log)
    assert replay["recorded_tokens"] == total, (replay, completed)
    # Each call's usage is its own turn's: the second call reaches 158 input tokens.
    tokens = doneseq.Monitor(stop="tokens(input=158)").check_file(run.log)
    assert (tokens["kind"], tokens["steps"]) == ("exhausted", 3), tokens


def test_the_failed_command_is_an_error_as_codex_showed_it(run):
    failed = [
        e["item"]
        for e in run.events
        if e["type"] == "item.completed" and e["item"].get("status") == "failed"
    ]
    assert [item["exit_code"] for item in failed] == [3], failed
    replay = doneseq.Monitor(stop="consecutive_errors(1)").check_file(run.log)
    # The fifth step: the first call, its output, the call of two commands, the first
    # one's output, the second's.
    assert (replay["kind"], replay["steps"]) == ("failed", 5), replay


def test_a_damaged_record_names_its_line(run, tmp_path):
    marker, old, new = '"function_call_output"', '"call_id":"', '"call_id":7,"x":"'
    assert_damage_names_its_line(run.log, marker, old, new, tmp_path)
