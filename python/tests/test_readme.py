"""The README's Python examples run, and print what their comments say. (Blocks
fenced as ``py`` are excerpts of a framework's set-up, run by that adapter's tests.)"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_python_examples():
    assert len(python_blocks()) >= 1


def test_each_example_prints_what_its_comments_say():
    for block in python_blocks():
        expected = [
            line.split("#", 1)[1].strip()
            for line in block.splitlines()
            if line.lstrip().startswith("print(") and "#" in line
        ]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(README), "exec"), {})
        assert out.getvalue().splitlines() == expected, block
