"""doneseq.rlm_code against rlm-code itself: its registry, its ActionResult and
PolicyContext, and its own policies and FINAL functions run beside doneseq's faces
on rlm-code's documented examples."""

from __future__ import annotations

from typing import Any

import pytest
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


def test_final_pattern_beside_rlm_codes():
    context = PolicyContext(variables={"result": 4950})
    cases = [
        ("After computing, the answer is FINAL('42')", PolicyContext()),
        ("FINAL_VAR('result')", context),
        ("no answer yet", PolicyContext()),
    ]
    for output, ctx in cases:
        expected = theirs("final_pattern").should_terminate(code(output), ctx)
        got = PolicyRegistry.get_termination("doneseq_final_pattern").should_terminate(
            code(output), ctx
        )
        assert got == expected, output
    final = ActionResult(action_type="final", success=True, output="the answer is 7")
    assert ours.policy("final_pattern").should_terminate(final, PolicyContext()) == (
        True,
        "the answer is 7",
    )
    # Fixed: nested parentheses (rlm-code's regex stops at the first `)`).
    nested = code("FINAL(f(x))")
    assert theirs("final_pattern").should_terminate(nested, PolicyContext()) == (True, "f(x")
    assert ours.policy("final_pattern").should_terminate(nested, PolicyContext()) == (
        True,
        "f(x)",
    )
    # Fixed: a variable that does not exist is not final (rlm-code answers its name).
    missing = code("FINAL_VAR('missing')")
    assert theirs("final_pattern").should_terminate(missing, PolicyContext()) == (True, "missing")
    assert ours.policy("final_pattern").should_terminate(missing, PolicyContext()) == (False, None)


def test_reward_threshold_beside_rlm_codes():
    rewards = [0.4, 0.5]
    for name in ("reward_threshold", "doneseq_reward_threshold"):
        policy = PolicyRegistry.get_termination(name, {"min_reward_threshold": 0.8})
        got = [policy.should_terminate(code(f"step {r}"), reward(r)) for r in rewards]
        assert got == [(False, None), (True, "step 0.5")], name
    # Three negative rewards: both stop; rlm-code's "answer" is a status sentence,
    # doneseq gives none and says why in the outcome.
    them = theirs("reward_threshold")
    us = ours.policy("reward_threshold")
    theirs_got = [them.should_terminate(code("bad"), reward(-0.1)) for _ in range(3)]
    ours_got = [us.should_terminate(code("bad"), reward(-0.1)) for _ in range(3)]
    assert theirs_got[-1] == (True, "Terminated due to 3 consecutive failures")
    assert ours_got == [(False, None), (False, None), (True, None)]
    assert us.outcome is not None and us.outcome.kind == "failed"
    # reset() starts a new episode.
    us.reset()
    assert us.should_terminate(code("again"), reward(0.5)) == (False, None)


def test_confidence_beside_rlm_codes():
    # rlm-code counts steps with context.step; doneseq counts calls: the same here.
    steps = [("42", 0.99), ("...", 0.1), ("...", 0.1), ("42", 0.99)]
    them = theirs("confidence", {"confidence_threshold": 0.85})
    us = ours.policy("confidence", {"confidence_threshold": 0.85})
    for i, (output, confidence) in enumerate(steps):
        result = code(output, confidence=confidence)
        assert us.should_terminate(result, PolicyContext()) == them.should_terminate(
            result, PolicyContext(step=i)
        ), i


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
