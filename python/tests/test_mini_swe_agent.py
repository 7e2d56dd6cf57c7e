"""The mini-swe-agent format against mini-swe-agent itself: its ``DefaultAgent`` runs
a task (offline, against a scripted Chat Completions API through LiteLLM; its commands
run for real), with a tool-calling model and with a text-based one, and the
trajectory it saves is replayed against the run as it gave it to the model."""

from __future__ import annotations

import json

import mini_swe_agent_runs
import pytest
from mini_swe_agent_runs import FIRST, SCRIPTS
from recorded_runs import assert_damage_names_its_line, read_alike

import doneseq

KINDS = ["first"] if FIRST else ["toolcall", "responses", "textbased"]
"""The scripts run: mini-swe-agent 1's model is text-based."""

TEXTBASED = ("textbased", "first")


@pytest.fixture(scope="module", params=KINDS)
def run(request, tmp_path_factory: pytest.TempPathFactory) -> mini_swe_agent_runs.Run:
    return mini_swe_agent_runs.run(tmp_path_factory.mktemp(request.param), request.param)


STOPS = [
    "max_turns(3)",
    "max_model_calls(2)",
    "tokens(200)",
    "tokens(output=40)",
    "tool(bash)",
    "tool(bash, executed)",
    "tool(bash, finished)",
    "consecutive_errors(1)",
    'seq("T[bash], A")',
    'text("capital", from=[llm])',
    "stop_message",
    "no_tool_calls",
]


@pytest.mark.parametrize("stop", STOPS)
def test_a_trajectory_stops_as_the_run(run, stop):
    replay = read_alike(stop, {run.trajectory: "mini-swe-agent"}, run.messages)
    script = SCRIPTS[run.kind]
    textbased = run.kind in TEXTBASED
    # Every model call (the refused one too), each command's output, what
    # mini-swe-agent told the model when it refused a reply, and the submission are
    # steps; the system message and the task are not.
    outputs = sum(len(turn.commands) for turn in script[:-1] if turn.parses(textbased))
    assert replay["recorded_steps"] == len(script) + outputs + 1 + 1
    assert replay["recorded_tokens"] == sum(i + o for turn in script for i, o in [turn.usage])


def test_the_submission_is_the_answer(run):
    assert run.result["exit_status"] == "Submitted"
    replay = doneseq.Monitor(stop="stop_message").check_file(run.trajectory)
    assert (replay["kind"], replay["answer"]) == ("done", run.result["submission"]), replay
    assert replay["steps"] == replay["recorded_steps"]


def test_model_calls_are_mini_swe_agents_own_count(run):
    info = json.loads(run.trajectory.read_text(encoding="utf-8"))["info"]
    calls = info["model_stats"]["api_calls"]
    assert calls == len(SCRIPTS[run.kind])
    exhausted = doneseq.Monitor(stop=f"max_model_calls({calls})").check_file(run.trajectory)
    assert exhausted["kind"] == "exhausted", exhausted
    more = doneseq.Monitor(stop=f"max_model_calls({calls + 1}) | tool(nothing)")
    assert more.check_file(run.trajectory)["kind"] is None


@pytest.mark.parametrize("kind", KINDS)
def test_its_step_limit_stops_where_max_model_calls_does(kind, tmp_path):
    # mini-swe-agent's step limit counts its model calls, the one whose reply it
    # refused too: with a limit of 2 it stops after the refused reply.
    limited = mini_swe_agent_runs.run(tmp_path, kind, step_limit=2)
    assert limited.result["exit_status"] == "LimitsExceeded"
    saved = {limited.trajectory: "mini-swe-agent"}
    replay = read_alike("max_model_calls(2)", saved, limited.messages)
    # The limit's exit is not a message: the run ends with the refusal's message.
    assert (replay["kind"], replay["steps"], replay["recorded_steps"]) == ("exhausted", 3, 4)
    unlimited = doneseq.Monitor(stop="max_model_calls(3)").check_file(limited.trajectory)
    assert unlimited["kind"] is None, unlimited


def test_the_failed_command_is_an_error(run):
    replay = doneseq.Monitor(stop="consecutive_errors(1)").check_file(run.trajectory)
    # The call, its output, the refused reply and what the model was told, the call
    # of the failing command (with another before it, for the tool-calling model),
    # then the failing one's output.
    steps = 6 if run.kind in TEXTBASED else 7
    assert (replay["kind"], replay["steps"]) == ("failed", steps), replay


def test_a_damaged_message_names_its_line(run, tmp_path):
    marker = old = '"role": "system"'
    assert_damage_names_its_line(run.trajectory, marker, old, '"role": 7', tmp_path)
