"""doneseq.rlm_code against rlm-code itself: its registry, its ActionResult and
PolicyContext, and its own policies and FINAL functions run beside doneseq's faces
on rlm-code's documented examples."""

from __future__ import annotations

import json
from typing import Any

import pytest
import rlm_code_runs
from framework_table import assert_listed
from recorded_runs import gathered, read_alike
from rlm_code.rlm import termination as rlm
from rlm_code.rlm.policies.base import ActionResult, PolicyContext
from rlm_code.rlm.policies.registry import PolicyRegistry

import doneseq
import doneseq.rlm_code as ours
from doneseq.rlm_code import DoneseqTerminationPolicy


def code(output: str, **metadata: Any) -> ActionResult:
    return ActionResult(action_type="code", success=True, output=output, metadata=metadata)


def reward(value: float) -> PolicyContext:
    return PolicyContext(metrics={"last_reward": value})


def theirs(name: str, config: dict[str, Any] | None = None) -> Any:
    return PolicyRegistry.get_termination(name, config)


def test_the_registry_builds_doneseq_policies():
    policy = PolicyRegistry.get_termination("doneseq", {"sequences": ["F"], "stop": "reward(0.8)"})
    assert isinstance(policy, DoneseqTerminationPolicy)
    assert policy.should_terminate(code("working"), reward(0.1)) == (False, None)
    assert policy.should_terminate(code("FINAL('42')"), PolicyContext()) == (True, "42")
    for name in ours.BUILTIN_NAMES:
        assert isinstance(
            PolicyRegistry.get_termination(f"doneseq_{name}"), DoneseqTerminationPolicy
        )
    with pytest.raises(doneseq.ConfigError):
        PolicyRegistry.get_termination("doneseq_reward_threshold", {"bogus": 1})


def test_a_failure_streak_is_a_failed_outcome_and_reset_starts_over():
    # (The decisions beside rlm-code's are in the table below.)
    us = ours.policy("reward_threshold")
    got = [us.should_terminate(code("bad"), reward(-0.1)) for _ in range(3)]
    assert got == [(False, None), (False, None), (True, None)]
    assert us.outcome is not None and us.outcome.kind == "failed"
    us.reset()
    assert us.should_terminate(code("again"), reward(0.5)) == (False, None)


def test_a_doneseq_policy_runs_an_episode_with_budgets_and_sequences():
    policy = DoneseqTerminationPolicy({"stop": "tokens(100) | consecutive_errors(2) | final"})
    assert policy.should_terminate(
        ActionResult(action_type="code", success=True, output="x", tokens_used=60),
        PolicyContext(),
    ) == (False, None)
    assert policy.should_terminate(
        ActionResult(action_type="code", success=True, output="y", tokens_used=60),
        PolicyContext(),
    ) == (True, None)
    assert policy.outcome is not None
    assert (policy.outcome.kind, policy.outcome.condition) == ("exhausted", "tokens(100)")
    policy.reset()
    failed = ActionResult(action_type="code", success=False, output="", error="NameError")
    assert policy.should_terminate(failed, PolicyContext()) == (False, None)
    assert policy.should_terminate(failed, PolicyContext()) == (True, None)
    assert policy.outcome is not None and policy.outcome.kind == "failed"


DETECTIONS = [
    "After computing, the answer is FINAL('42')",
    'FINAL("Paris")',
    "FINAL_VAR(result)",
    "FINAL_VAR('total')",
    "no signal here",
    "",
]


def test_detect_final_in_text_beside_rlm_codes():
    for text in DETECTIONS:
        expected = rlm.detect_final_in_text(text)
        got = ours.detect_final_in_text(text)
        assert isinstance(got, rlm.FinalDetection)
        assert (got.detected, got.final_type, got.content) == (
            expected.detected,
            expected.final_type,
            expected.content,
        ), text
    # Different: a call followed by more text on its line (rlm-code's unquoted
    # pattern needs the line to end at the call's `)`).
    assert rlm.detect_final_in_text("FINAL(f(x)) is the answer").detected is False
    assert ours.detect_final_in_text("FINAL(f(x)) is the answer").content == "f(x)"


def test_detect_final_in_code_beside_rlm_codes():
    for source in ["x = 1\nFINAL(x)", "FINAL_VAR('answer')", "print('hi')"]:
        expected = rlm.detect_final_in_code(source)
        got = ours.detect_final_in_code(source)
        assert (got.detected, got.final_type) == (expected.detected, expected.final_type)
    # Fixed: a call in a comment or a string is not a signal.
    assert rlm.detect_final_in_code("# FINAL(x)").detected is True
    assert ours.detect_final_in_code("# FINAL(x)").detected is False


def test_the_other_functions_beside_rlm_codes():
    response = (
        "Let me analyze the data.\n\n```python\nresult = sum(data)\nprint(result)\n```\n\n"
        "And then finalize:\n\n```repl\nFINAL(result)\n```\n"
    )
    assert ours.extract_code_blocks(response) == rlm.extract_code_blocks(response)
    assert ours.extract_code_blocks("```\nx = 1\n```") == rlm.extract_code_blocks("```\nx = 1\n```")
    for answer in ["Paris", 42, {"answer": "B"}]:
        assert ours.format_final_answer(answer) == rlm.format_final_answer(answer), answer
    namespace = {"total": 7}
    assert ours.resolve_final_var("total", namespace) == rlm.resolve_final_var("total", namespace)
    with pytest.raises(KeyError) as caught:
        ours.resolve_final_var("nope", namespace)
    assert "Available variables: ['total']" in str(caught.value)


# rlm-code's termination policies beside doneseq's, one table: each row is an episode
# (its steps' ActionResults and PolicyContexts) given to rlm-code's policy from its own
# registry and to doneseq's policy of the same name and configuration; the decisions
# must be the same at every step, unless the row names its line under "Differences
# from the other frameworks" in the README (and then they must differ).

Step = tuple[ActionResult, PolicyContext]
CONTEXT = PolicyContext(variables={"result": 4950})


def final(output: str) -> ActionResult:
    return ActionResult(action_type="final", success=True, output=output)


def failed() -> ActionResult:
    return ActionResult(action_type="code", success=False, output="", error="NameError")


RLM_TABLE: dict[str, tuple[str, dict[str, Any], list[Step], str | None]] = {
    "final_pattern: FINAL('42') in text": (
        "final_pattern",
        {},
        [(code("working"), PolicyContext()), (code("the answer is FINAL('42')"), CONTEXT)],
        None,
    ),
    "final_pattern: FINAL_VAR of a variable": (
        "final_pattern",
        {},
        [(code("FINAL_VAR('result')"), CONTEXT)],
        None,
    ),
    "final_pattern: a final action": (
        "final_pattern",
        {},
        [(code("x = 1"), PolicyContext()), (final("the answer is 7"), PolicyContext())],
        None,
    ),
    "final_pattern: no signal": (
        "final_pattern",
        {},
        [(code("no answer yet"), PolicyContext()), (code("print(1)"), PolicyContext())],
        None,
    ),
    "final_pattern: nested parentheses": (
        "final_pattern",
        {},
        [(code("FINAL(f(x))"), PolicyContext())],
        "`FINAL(f(x))` is `f(x)`",
    ),
    "final_pattern: FINAL_VAR of a missing variable": (
        "final_pattern",
        {},
        [(code("FINAL_VAR('missing')"), PolicyContext())],
        "a `FINAL_VAR` of a missing variable is not final",
    ),
    "reward_threshold: the cumulative reward reaches 0.8": (
        "reward_threshold",
        {"min_reward_threshold": 0.8},
        [(code(f"step {r}"), reward(r)) for r in (0.4, 0.3, 0.2)],
        None,
    ),
    "reward_threshold: a final action first": (
        "reward_threshold",
        {"min_reward_threshold": 0.5, "require_final_action": True},
        [(code("a"), reward(0.6)), (final("done"), reward(0.1))],
        None,
    ),
    "reward_threshold: two negative rewards, a streak of 3": (
        "reward_threshold",
        {},
        [(code("bad"), reward(-0.1)), (code("bad"), reward(-0.2)), (code("ok"), reward(0.1))],
        None,
    ),
    "reward_threshold: three negative rewards": (
        "reward_threshold",
        {},
        [(code("bad"), reward(-0.1)) for _ in range(3)],
        "a stop that is not an answer (a failure streak, a budget) gives no answer",
    ),
    "confidence: 0.85 after the minimum steps": (
        "confidence",
        {"confidence_threshold": 0.85},
        [
            (code(o, confidence=c), PolicyContext(step=i))
            for i, (o, c) in enumerate([("42", 0.99), ("...", 0.1), ("...", 0.1), ("42", 0.99)])
        ],
        None,
    ),
    "confidence: a lower threshold, no minimum": (
        "confidence",
        {"confidence_threshold": 0.5, "min_steps_before_termination": 0},
        [
            (code("a", confidence=0.4), PolicyContext(step=0)),
            (
                code("b", confidence=0.6),
                PolicyContext(step=1),
            ),
        ],
        None,
    ),
    "composite: the final pattern or the reward": (
        "composite",
        {},
        [(code("working"), reward(0.5)), (code("FINAL('x')"), reward(0.1))],
        None,
    ),
    "composite: the reward first": (
        "composite",
        {"policies": ["reward_threshold", "final_pattern"]},
        [(code("a"), reward(0.5)), (code("b"), reward(0.6))],
        None,
    ),
}


@pytest.mark.parametrize("row", list(RLM_TABLE))
def test_rlm_codes_table(row):
    name, config, steps, difference = RLM_TABLE[row]
    them = theirs(name, dict(config))
    us = PolicyRegistry.get_termination(f"doneseq_{name}", dict(config))
    assert isinstance(us, DoneseqTerminationPolicy)
    theirs_got = [them.should_terminate(result, context) for result, context in steps]
    # doneseq counts steps itself (rlm-code reads PolicyContext.step).
    ours_got = [us.should_terminate(result, context) for result, context in steps]
    if difference is None:
        assert ours_got == theirs_got
    else:
        assert ours_got != theirs_got
        assert_listed("Differences from the other frameworks", difference)


@pytest.mark.parametrize(
    "name, config, difference",
    [
        (
            "reward_threshold",
            {"bogus": 1},
            "a configuration key a policy does not have is an error (rlm-code ignores it)",
        ),
        (
            "composite",
            {"policies": ["final_pattern", "no_such_policy"]},
            "an unknown policy name in a composite (rlm-code skips it)",
        ),
    ],
)
def test_rlm_codes_table_of_refusals(name, config, difference):
    assert theirs(name, dict(config)) is not None
    with pytest.raises(doneseq.ConfigError):
        PolicyRegistry.get_termination(f"doneseq_{name}", dict(config))
    assert_listed("Differences from the other frameworks", difference)


# The rlm-code transcript format against rlm-code's runner: a run's log (as rlm-code
# writes it, one event a line, and as ``jq -s .`` gathers it) must stop, whatever the
# stop rule, where the same run written as doneseq's JSONL from the runner's own step
# events stops.

GENERIC_SCRIPT = [
    ('{"action": "run_python", "code": "print(6*7)", "rationale": "compute it"}', (101, 20)),
    ('{"action": "run_python", "code": "raise ValueError(\'no\')"}', (130, 18)),
    ('{"action": "final", "final_response": "42", "done": true}', (160, 12)),
]

PURE_SCRIPT = [
    ("Let me compute it.\n```repl\nanswer = 6*7\nprint(answer)\n```", (300, 25)),
    ("The REPL printed it.\nFINAL_VAR(answer)", (340, 9)),
]


@pytest.fixture(scope="module")
def generic_run(tmp_path_factory: pytest.TempPathFactory):
    return rlm_code_runs.run("generic", GENERIC_SCRIPT, tmp_path_factory.mktemp("generic"))


@pytest.fixture(scope="module")
def pure_run(tmp_path_factory: pytest.TempPathFactory):
    return rlm_code_runs.run(
        "pure_rlm", PURE_SCRIPT, tmp_path_factory.mktemp("pure"), context="6 and 7"
    )


RUN_STOPS = [
    "stop_message",
    "final",
    "tool(final)",
    "tool(run_python, executed)",
    'seq("T[run_python], A")',
    "consecutive_errors(1)",
    "reward(1.5)",
    "reward(0.5, negative_streak=1)",
    "tokens(250)",
    "max_model_calls(2)",
]


@pytest.mark.parametrize("stop", RUN_STOPS)
def test_a_generic_runs_log_stops_as_its_steps(generic_run, stop):
    log, messages, watcher = generic_run
    saved = {log: "rlm-code", gathered(log): "rlm-code"}
    replay = read_alike(stop, saved, messages)
    # Three turns, their three results and the run's end are steps; the task is not.
    assert replay["recorded_steps"] == 7
    assert replay["recorded_tokens"] == sum(i + o for _, (i, o) in GENERIC_SCRIPT)
    rewards = [step["reward"] for step in watcher.steps]
    assert rewards[0] > 0 > rewards[1], rewards  # the raise is punished: a negative streak


@pytest.mark.parametrize("stop", RUN_STOPS)
def test_a_pure_rlm_runs_log_stops_as_its_steps(pure_run, stop):
    log, messages, _ = pure_run
    replay = read_alike(stop, {log: "rlm-code", gathered(log): "rlm-code"}, messages)
    assert replay["recorded_steps"] == 5
    assert replay["recorded_tokens"] == sum(i + o for _, (i, o) in PURE_SCRIPT)


def test_a_runs_end_is_rlm_codes_answer(generic_run, pure_run):
    for log, _, watcher in (generic_run, pure_run):
        assert watcher.result.completed and watcher.result.final_response == "42"
        replay = doneseq.Monitor(stop="stop_message").check_file(log)
        assert (replay["kind"], replay["answer"]) == ("done", "42"), replay
    # The Pure RLM planner's FINAL_VAR is its turn's (the variable, resolved by
    # rlm-code's REPL: its value is the run's end).
    replay = doneseq.Monitor(stop="final").check_file(pure_run[0])
    assert (replay["kind"], replay["steps"], replay["answer"]) == ("done", 3, "answer")


def test_a_damaged_event_is_an_error_naming_its_line(generic_run, tmp_path):
    events = [json.loads(line) for line in generic_run[0].read_text().splitlines()]
    del events[1]["observation"]
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(json.dumps(e) + "\n" for e in events))
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(damaged)
    assert replay["error"].startswith("line 2: "), replay
    assert 'an rlm-code step has no "observation"' in replay["error"], replay
    assert "format rlm-code (detected)" in replay["error"], replay


@pytest.mark.parametrize(
    "stop", ["max_model_calls(2)", "reward(0.5)", "reward(1.5)", "reward(0.5, negative_streak=1)"]
)
def test_a_log_stops_at_the_action_a_policy_stops_at(generic_run, stop):
    # The README's claim: these count a logged step's two messages as a policy counts
    # its one. The policy is shown each action's result, as rlm-code's policies are.
    log, _, watcher = generic_run
    policy = DoneseqTerminationPolicy({"stop": stop})
    live = None
    for action, step in enumerate(watcher.steps, start=1):
        seen = step["observation"]
        result = ActionResult(
            action_type=step["action"]["action"],
            success=seen.get("success", True) is not False and not seen.get("error"),
            output=seen.get("stdout") or "",
            error=seen.get("error") or None,
        )
        if policy.should_terminate(result, PolicyContext(metrics={"last_reward": step["reward"]}))[
            0
        ]:
            live = action
            break
    replay = doneseq.Monitor(stop=stop).check_file(log)
    # The task is no step: a log's step n is the action of its messages 2n - 1, 2n.
    assert live is not None and replay["kind"] is not None, (live, replay)
    assert (replay["steps"] + 1) // 2 == live, (live, replay)
