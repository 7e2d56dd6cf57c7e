"""The FINAL answer protocol from Python: detection in text and code, code blocks,
answer formatting, and rlm-code's policy names as stop conditions."""

from __future__ import annotations

import pytest

import doneseq
from doneseq import _native as native


def test_detection_in_text_and_in_code():
    found = native.detect_final_in_text("After computing, the answer is FINAL('42')")
    assert (found["detected"], found["final_type"], found["content"]) == (True, "direct", "42")
    assert found["span"] == [31, 42]
    assert native.detect_final_in_text("FINAL_VAR(result)")["final_type"] == "variable"
    assert native.detect_final_in_text("no answer here")["detected"] is False
    # In code, a call inside a comment or a string is not a signal.
    assert native.detect_final_in_code("# FINAL('x')\ny = 1")["detected"] is False
    assert native.detect_final_in_code("FINAL(f(x))")["content"] == "f(x)"


def test_code_blocks_and_formatting():
    text = "Run this:\n```python\nprint(1)\n```\nand\n```repl\nFINAL(x)\n```\n```json\n{}\n```\n"
    # Blocks tagged python or the language, in order; other tags are never code.
    assert native.extract_code_blocks(text) == ["print(1)"]
    assert native.extract_code_blocks(text, "repl") == ["print(1)", "FINAL(x)"]
    assert native.format_final_answer("Paris") == "Paris"
    assert native.format_final_answer({"answer": 42}) == "42"
    with pytest.raises(doneseq.DoneseqError):
        native.format_final_answer(object())


def test_rlm_code_policy_names_become_conditions():
    assert native.rlm_policy("final_pattern") == "final"
    assert native.rlm_policy("reward_threshold", {"min_reward_threshold": 0.8}) == "reward(0.8)"
    condition = native.rlm_policy("confidence", {"confidence_threshold": 0.9})
    assert doneseq.parse_stop(condition) == condition
    with pytest.raises(doneseq.ConfigError) as caught:
        native.rlm_policy("nope")
    assert "unknown termination policy" in str(caught.value)
    with pytest.raises(doneseq.ConfigError):
        native.rlm_policy("reward_threshold", {"bogus": 1})
