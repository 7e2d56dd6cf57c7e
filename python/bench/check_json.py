"""The whole `doneseq check --json` per message, beside Langroid's own matching, in one run.

Run in the Langroid virtualenv that scripts/test makes, from the repository's root:

    cargo build --release && .venv-langroid/bin/python python/bench/check_json.py

The workload is the Rust bench's (benches/observe.rs) and observe.py's: a 6-message
cycle of a tool-using agent, K done sequences from five templates (two of them content
regexes) that never match, so every sequence is evaluated on every message.

1. Langroid's matching alone: what its ``Task.done()`` runs for the done sequences (the
   message chain, then ``_matches_sequence_with_current`` for each sequence), per
   message, at K = 1, 100 and 1000.
2. ``doneseq check --json`` (the release binary: process start, compiling the
   sequences, reading the transcript, matching and writing every row) on a transcript
   of the same cycle, divided by its messages; and ``--summary`` (no rows) beside it.

Prints one line per measurement (the best of three runs) and the ratios.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# observe.py makes Langroid's tokenizer offline before importing Langroid: take
# Langroid from it.
from observe import CYCLE, TaskConfig, agent, langroid_cycle, lr, templates

ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("DONESEQ_BIN", ROOT / "target" / "release" / "doneseq"))


def langroid_matching(k: int, n: int) -> float:
    """Seconds per message of Langroid's done-sequence matching, as done() runs it."""
    task = lr.Task(
        agent(),
        interactive=False,
        config=TaskConfig(done_sequences=templates(k), recognize_string_signals=False),
    )
    task.init("go")
    cycle = langroid_cycle()
    sequences = task._parsed_done_sequences
    assert sequences is not None and len(sequences) == k

    def once() -> float:
        start = time.perf_counter()
        for i in range(n):
            msg, sender = cycle[i % 6]
            task.response_sequence.append(msg)
            if len(task.response_sequence) > 64:
                del task.response_sequence[:32]
            chain = task._get_message_chain(msg)
            for sequence in sequences:
                if task._matches_sequence_with_current(chain, sequence, msg, sender):
                    raise AssertionError("the workload's sequences never match")
        return (time.perf_counter() - start) / n

    return min(once() for _ in range(3))


def doneseq_check(k: int, transcript: Path, messages: int, mode: str) -> float:
    """Seconds per message of the whole `doneseq check` in `mode`."""
    config = transcript.with_name(f"k{k}.json")
    config.write_text(
        json.dumps({"done_sequences": templates(k), "recognize_string_signals": False})
    )
    command = [str(BINARY), "check", mode, "--config", str(config), str(transcript)]

    def once() -> float:
        start = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} exited with {done.returncode}")
        return elapsed / messages

    return min(once() for _ in range(3))


def main() -> None:
    if not BINARY.is_file():
        raise SystemExit(f"{BINARY} is missing: run `cargo build --release` first")
    messages = 600_000
    with tempfile.TemporaryDirectory() as tmp:
        transcript = Path(tmp) / "cycle.jsonl"
        lines = [json.dumps(m) for m in CYCLE]
        with transcript.open("w") as out:
            for i in range(messages):
                out.write(lines[i % 6] + "\n")
        for k, n in ((1, 20_000), (100, 400), (1000, 40)):
            langroid = langroid_matching(k, n)
            rows = doneseq_check(k, transcript, messages, "--json")
            summary = doneseq_check(k, transcript, messages, "--summary")
            print(
                f"K = {k}: Langroid's matching {langroid * 1e6:.1f} us; "
                f"check --json {rows * 1e9:.0f} ns ({langroid / rows:,.0f}x); "
                f"check --summary {summary * 1e9:.0f} ns ({langroid / summary:,.0f}x)"
            )


if __name__ == "__main__":
    main()
