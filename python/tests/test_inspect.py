"""The inspect format against Inspect AI itself: its ``basic_agent`` solves a sample
(offline: Inspect's scripted ``mockllm`` model, real tools), and the log Inspect writes,
``.eval`` and JSON, is replayed against the run as the script made it."""

from __future__ import annotations

import inspect_runs
import pytest
from inspect_ai.log import read_eval_log
from inspect_runs import SCRIPTS
from recorded_runs import read_alike

import doneseq


@pytest.fixture(scope="module", params=sorted(SCRIPTS))
def run(request, tmp_path_factory: pytest.TempPathFactory) -> inspect_runs.Run:
    return inspect_runs.run(tmp_path_factory.mktemp(request.param), request.param)


STOPS = [
    "max_turns(3)",
    "max_model_calls(2)",
    "tokens(200)",
    "tokens(output=15)",
    "tool(add)",
    "tool(add, executed)",
    "tool(submit, finished)",
    "consecutive_errors(1)",
    'seq("T[add], A")',
    "no_tool_calls",
    'text("think", from=[llm])',
]


@pytest.mark.parametrize("stop", STOPS)
def test_a_log_stops_as_the_run(run, stop):
    logs = {run.eval_log: "inspect", run.json_log: "inspect"}
    replay = read_alike(stop, logs, run.messages)
    script = SCRIPTS[run.kind]
    # Every model call, each call's result (or the sample's error), and what
    # basic_agent told the model after an answer without a call are steps.
    assert replay["recorded_steps"] == 2 * len(script)
    assert replay["recorded_tokens"] == sum(sum(turn.usage) for turn in script)


def test_usage_is_inspects_own(run):
    log = read_eval_log(str(run.eval_log))
    assert log.samples is not None
    usage = log.samples[0].model_usage["mockllm/model"]
    replay = doneseq.Monitor(stop="tool(nothing)").check_file(run.eval_log)
    assert replay["recorded_tokens"] == usage.total_tokens


def test_the_submission_is_a_call_and_its_result(run):
    replay = doneseq.Monitor(stop="tool(submit, executed)").check_file(run.eval_log)
    if run.kind == "solved":
        assert (replay["kind"], replay["answer"]) == ("done", "3"), replay
        assert replay["steps"] == replay["recorded_steps"]
    else:
        assert replay["kind"] is None, replay


def test_a_tools_failure_and_a_samples_error_are_errors(run):
    log = read_eval_log(str(run.eval_log))
    assert log.samples is not None
    sample = log.samples[0]
    replay = doneseq.Monitor(stop="consecutive_errors(1)").check_file(run.eval_log)
    assert replay["kind"] == "failed", replay
    if run.kind == "crashed":
        assert sample.error is not None
        assert replay["steps"] == replay["recorded_steps"] == 2
    else:
        assert sample.error is None
        # The refused call's result, the fourth step.
        assert replay["steps"] == 4


def test_a_logs_samples_are_each_a_run(tmp_path):
    # One log of both scripts' samples (.eval, and JSON): a corpus of two runs, each
    # as its own log.
    kinds = sorted(SCRIPTS)
    both = [inspect_runs.log(tmp_path / f, kinds, f) for f in ("eval", "json")]
    alone = [inspect_runs.run(tmp_path / kind, kind).eval_log for kind in kinds]
    for stop in STOPS:
        monitor = doneseq.Monitor(stop=stop)
        expected = [monitor.check_file(log) for log in alone]
        for log in both:
            for parallel in (True, False):
                runs = monitor.check_files([log], parallel=parallel)
                assert [r["path"] for r in runs] == [f"{log}#{k}_epoch_1" for k in kinds]
                assert [{**r, "path": ""} for r in runs] == [{**r, "path": ""} for r in expected]
    for log in both:
        whole = doneseq.Monitor(stop="max_turns(3)").check_file(log)
        assert "2 samples" in whole["error"], whole
