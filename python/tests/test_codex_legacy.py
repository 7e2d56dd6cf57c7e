"""The codex format against an older Codex CLI (0.133.0), whose rollouts give a model
call's usage only in the ``token_count`` event after the call's outputs, as the logs
most Codex users already have do: the tests of ``test_codex.py`` (imported, so
collected here too), run against it, and what sets its rollouts apart."""

from __future__ import annotations

import json
from pathlib import Path

import codex_cli_bin
from test_codex import (  # noqa: F401  (the fixture and the tests, collected here)
    run,
    test_a_damaged_record_names_its_line,
    test_a_rollout_stops_as_the_run,
    test_the_failed_command_is_an_error_as_codex_showed_it,
    test_the_tokens_are_codexs_own_total,
)


def test_this_codex_gives_usage_in_its_events_only(run):  # noqa: F811
    package = Path(codex_cli_bin.__file__).parent / "codex-package.json"
    assert json.loads(package.read_text(encoding="utf-8"))["version"] == "0.133.0"
    records = [json.loads(line) for line in run.log.read_text(encoding="utf-8").splitlines()]
    assert "token_usage_record" not in {r["type"] for r in records}
    # A token count after each call: the first two after the calls' outputs.
    kinds = [
        r["payload"]["type"] if r["type"] in ("event_msg", "response_item") else r["type"]
        for r in records
    ]
    counts = [i for i, kind in enumerate(kinds) if kind == "token_count"]
    outputs = [i for i, kind in enumerate(kinds) if kind == "function_call_output"]
    assert len(counts) == 3 and counts[0] > outputs[0] and counts[1] > outputs[-1], kinds
