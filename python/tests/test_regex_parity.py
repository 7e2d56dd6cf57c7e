"""C[...] means what Python's ``re.search(pattern, content, re.IGNORECASE)`` means
(what Langroid runs): each pattern and text of the table, matched by doneseq and by
Python's own ``re`` here, must agree."""

from __future__ import annotations

import re

import pytest

import doneseq

# Python warns about `[[` (a possible nested set); it is what the table tests.
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")

PATTERNS = [
    "done",
    r"\bDONE\b",
    "^DONE$",
    "DONE$",
    r"end\Z",
    r"\<b\>",
    "[[:alpha:]]",
    "[a&&b]",
    "[a~~b]",
    "a{ 1 }",
    "a{2,3}",
    "a{,2}b",
    "{done}",
    "(?#note)ok",
    "bitti",
    "[i]",
    "[h-j]x",
    "[^i]",
    "(?-i:Exit)",
    "(?m)^done$",
    "quit|bye",
    r"\d+ items",
    "[]a]",
    "a*?b",
]

TEXTS = [
    "done",
    "DONE\n",
    "DONE\nmore",
    "We are DONE.",
    "the end",
    "<b>",
    "a<b>c",
    "[",
    ":",
    "alpha]",
    "&",
    "~",
    "a{ 1 }",
    "aa",
    "aab",
    "b",
    "{done}",
    "ok",
    "B\u0130TT\u0130",
    "b\u0131tt\u0131",
    "BITTI",
    "\u0131",
    "\u0130x",
    "exit",
    "Exit",
    "line\ndone\nnext",
    "Bye now",
    "3 items",
    "]",
    "aab",
]


def doneseq_matches(pattern: str, text: str) -> bool:
    monitor = doneseq.Monitor(done_sequences=[f"C[{pattern}]"], recognize_string_signals=False)
    return monitor.start().observe({"role": "assistant", "content": text}) is not None


@pytest.mark.parametrize("pattern", PATTERNS)
def test_c_patterns_match_as_pythons_re(pattern):
    disagree = [
        text
        for text in TEXTS
        if doneseq_matches(pattern, text) != (re.search(pattern, text, re.IGNORECASE) is not None)
    ]
    assert disagree == [], f"C[{pattern}] disagrees with Python's re on {disagree!r}"


def test_a_possessive_quantifier_is_refused_with_its_position():
    with pytest.raises(doneseq.DslError) as caught:
        doneseq.parse_sequence("C[a++]")
    assert caught.value.kind == "invalid_regex"
    assert caught.value.span == (4, 5)
    assert "possessive" in str(caught.value)
