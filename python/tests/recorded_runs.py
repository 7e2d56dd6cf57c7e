"""What the frameworks' replay tests share: a run the framework recorded, read back
by doneseq's transcript reader (``Monitor.check_file``) in every way it can be, says
the same each way, and stops where the live adapter stopped the same script."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def replayed(monitor: Any, logs: Mapping[Path, str]) -> dict[str, Any]:
    """``monitor.check_file`` of each log (a path, and the format it is written in),
    with the format detected and with it named: the same summary every time, which
    is returned (its ``path`` left out)."""
    replays = []
    for path, format in logs.items():
        for named in ("auto", format):
            replay = monitor.check_file(path, format=named)
            assert "error" not in replay and "warning" not in replay, replay
            del replay["path"]
            replays.append(replay)
    assert all(replay == replays[0] for replay in replays)
    return replays[0]


def assert_stops_as_live(replay: Mapping[str, Any], live: Any) -> None:
    """The replay stopped where the live run did (``live``, its ``Outcome``, or
    ``None`` where it did not stop): the same verdict, after as many steps (the
    outcome's ``at`` counts steps from 0), with the same answer and condition."""
    if live is None:
        assert replay["kind"] is None
        return
    assert (replay["kind"], replay["steps"], replay["answer"], replay["fired"]) == (
        live.kind,
        live.at + 1,
        live.answer,
        live.condition,
    )
