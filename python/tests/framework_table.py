"""What the per-framework tables share: a row that differs from its framework on
purpose names the README line that says so and why, and that line must exist.

Each adapter's test file holds a table of the framework's stop semantics beside
doneseq's: a row runs the real framework and doneseq on the same script and the
two must end in the same place, unless the row names a difference."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_section(title: str) -> str:
    """The README's section ``## <title>``, up to the next section."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def assert_listed(section: str, difference: str) -> None:
    """The difference is written in the README's section, as one of its lines."""
    body = " ".join(readme_section(section).split())
    assert " ".join(difference.split()) in body, (
        f"the difference {difference!r} is not listed under {section!r} in the README"
    )
