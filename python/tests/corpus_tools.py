"""What the corpus tests share: a corpus of recorded runs written to a directory, a
configuration, and what ``doneseq check --json`` (the CLI, the reference) prints
over them."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

CONFIG = {
    "done_sequences": ["T[search], A"],
    "stop": "final | max_turns(6) | tokens(2000)",
}


def _transcript(rng: random.Random) -> str:
    """An input, then model answers, tool calls and results, some with ``FINAL(...)``,
    each model step with its token usage."""
    lines = [{"role": "user", "content": "the task"}]
    for step in range(rng.randrange(12)):
        tokens = rng.randrange(500)
        choice = rng.randrange(6)
        if choice == 0:
            line: dict[str, Any] = {
                "role": "llm",
                "content": "",
                "tool_calls": [{"name": "search"}],
                "usage": {"input_tokens": tokens, "output_tokens": 3},
            }
        elif choice == 1:
            line = {"role": "tool", "content": f"result {step}"}
        elif choice == 2:
            line = {
                "role": "llm",
                "content": f"FINAL(answer {step})",
                "usage": {"input_tokens": tokens, "output_tokens": 9},
            }
        elif choice == 3:
            line = {"role": "user", "content": f"go on {step}"}
        else:
            line = {
                "role": "llm",
                "content": f"thinking {step}",
                "usage": {"input_tokens": tokens, "output_tokens": 5},
            }
        lines.append(line)
    return "".join(json.dumps(line) + "\n" for line in lines)


def write_corpus(directory: Path, runs: int, seed: int = 7) -> list[str]:
    """``runs`` transcripts, then one whose third line is not JSON; their paths,
    sorted (as the CLI orders a corpus)."""
    rng = random.Random(seed)
    paths = []
    for i in range(runs):
        path = directory / f"run-{i:04}.jsonl"
        path.write_text(_transcript(rng), encoding="utf-8")
        paths.append(str(path))
    bad = directory / "run-bad.jsonl"
    bad.write_text(
        '{"role": "user", "content": "x"}\n{"role": "llm", "content": "y"}\nnot json\n',
        encoding="utf-8",
    )
    paths.append(str(bad))
    return sorted(paths)


def write_config(directory: Path) -> Path:
    path = directory / "config.json"
    path.write_text(json.dumps(CONFIG), encoding="utf-8")
    return path


def cli() -> str:
    """The ``doneseq`` binary: ``DONESEQ_BIN`` (which the test script sets to the one
    ``cargo test`` built), else built here."""
    exe = os.environ.get("DONESEQ_BIN")
    if exe:
        return exe
    subprocess.run(["cargo", "build", "--quiet", "--bin", "doneseq"], cwd=ROOT, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return str(target / "debug" / "doneseq")


def cli_corpus(config: Path, paths: list[str]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """What ``doneseq check --json --config CONFIG PATH...`` prints: each run's line
    and the totals."""
    out = subprocess.run(
        [cli(), "check", "--json", "--config", str(config), *paths],
        capture_output=True,
        text=True,
    )
    # Exit 1: some transcript could not be read (the corpus has one such).
    assert out.returncode in (0, 1), out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines and "aggregate" in lines[-1], out.stdout[-500:]
    return lines[:-1], lines[-1]["aggregate"]
