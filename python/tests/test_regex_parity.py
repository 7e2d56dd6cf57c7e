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
    # Look-around, backreferences, atomic groups, possessive quantifiers (Python
    # 3.11), `$` followed by more, octal escapes.
    r"(?<!NOT )\bAPPROVED\b",
    r"(?<=final answer: )\d+",
    r"done(?!\?)",
    r"(?=.*bye)ok",
    r"\b(\w+) \1\b",
    r"(?P<q>['\x22]).*?(?P=q)",
    r"(?>a+)b",
    r"a++a",
    r"a*+b",
    r"(a|b)\1",
    "(?<=[i\u0131])x",
    "[\u0131]x",
    "\\\u0130x",
    "[^\u0131]x",
    r"(?<![a-z])end",
    r"^DONE$\n",
    r"DONE$(?=\n)",
    r"(DONE$)",
    r"\101\012?",
    r"[\1-\7]",
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
    "Approved.",
    "NOT approved",
    "not approved, but approved",
    "Final answer: 42",
    "answer: 42",
    "done?",
    "Done? done!",
    "ok, bye",
    "bye, ok",
    "the the end",
    "The THE end",
    "the then",
    "say 'ok'",
    "say 'ok\"",
    "aa",
    "aaa",
    "abba",
    "\u0131x",
    "\u0130x",
    "Ix",
    "weekend",
    "the end",
    "DONE",
    "DONE\n\n",
    "A\n",
    "\x03",
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


REFUSED = [
    "(a)\\2",
    "(a\\1)",
    "\\1(a)",
    "(?P=x)(?P<x>a)",
    "(?<=a|bc)x",
    "(?<=a{1,2})x",
    "[\\8]",
    "\\777",
]


@pytest.mark.parametrize("pattern", REFUSED)
def test_what_python_refuses_is_refused_with_its_position(pattern):
    with pytest.raises(re.error):
        re.compile(pattern, re.IGNORECASE)
    with pytest.raises(doneseq.DslError) as caught:
        doneseq.parse_sequence(f"C[{pattern}]")
    assert caught.value.kind == "invalid_regex"
    start, end = caught.value.span
    assert 2 <= start < end <= 2 + len(pattern), caught.value.span


def test_a_search_past_the_backtracking_limit_is_reported():
    monitor = doneseq.Monitor(done_sequences=[r"C[^(a|a)*\1$]"], recognize_string_signals=False)
    run = monitor.start()
    assert run.observe({"role": "assistant", "content": "a" * 40 + "b"}) is None
    assert run.pattern_overruns == 1
    assert run.pattern_overrun == (0, r"^(a|a)*\1$")


# Random patterns over the syntax where the two engines could part: each pattern is
# compiled by Python's `re` and by doneseq; where both accept it they must agree on
# every text, and doneseq refuses only what Python refuses, a `]` or `[` that would
# end or open `C[...]`'s brackets otherwise (the DSL's own rule), or a repeated
# zero-width item (a look-around, with a message saying what to write; an empty
# group in a pattern that needs backtracking).
ATOMS = [
    "(",
    ")",
    "(?:",
    "(?P<n>",
    "(?P=n)",
    "(?<=",
    "(?<!",
    "(?=",
    "(?!",
    "(?>",
    "[",
    "]",
    "\\",
    "1",
    "2",
    "0",
    "^",
    "$",
    "*",
    "+",
    "?",
    "{2}",
    "{1,2}",
    "|",
    "a",
    "b",
    "\u0131",
    "\\b",
    "\\w",
    ".",
    "-",
    "\\n",
    "x",
]
FUZZ_TEXTS = ["", "a", "ab", "aab\n", "ba1", "\u0131a b", "xx", "a\n", "bab", "aaaaab", "b a"]


def test_random_patterns_agree_with_pythons_re():
    import random

    rnd = random.Random(20261125)
    compared = 0
    for _ in range(8000):
        pattern = "".join(rnd.choice(ATOMS) for _ in range(rnd.randint(1, 8)))
        try:
            python = re.compile(pattern, re.IGNORECASE)
        except re.error:
            python = None
        try:
            monitor = doneseq.Monitor(
                done_sequences=[f"C[{pattern}]"], recognize_string_signals=False
            )
        except doneseq.DslError as err:
            if python is not None:
                brackets = "[" in pattern or "]" in pattern
                # A repeated zero-width item: a look-around (with a message), or an
                # empty group in a pattern that needs backtracking.
                repeated_zero_width = (
                    "look-around" in str(err) and "repetition" in str(err)
                ) or "Target of repeat operator is invalid" in str(err)
                assert brackets or repeated_zero_width, (pattern, str(err))
            continue
        # `\x{..}` (and `\u{..}`, `\p{..}`) are the regex crate's, accepted on purpose.
        extension = "\\x{" in pattern
        assert python is not None or extension, f"C[{pattern}] is accepted where Python refuses it"
        if python is None:
            continue
        compared += 1
        for text in FUZZ_TEXTS:
            ours = monitor.start().observe({"role": "assistant", "content": text}) is not None
            assert ours == (python.search(text) is not None), (pattern, text)
    assert compared > 1000
