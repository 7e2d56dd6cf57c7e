"""doneseq.rlm_code against rlm-code itself: its registry, its ActionResult and
PolicyContext, and its own policies and FINAL functions run beside doneseq's faces
on rlm-code's documented examples."""

from __future__ import annotations

from typing import Any

import pytest
from framework_table import assert_listed
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
