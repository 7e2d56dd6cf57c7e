"""Recorded runs checked from Python: ``Monitor.check_file``/``check_files`` give
the CLI's corpus lines, ``aggregate`` and ``merge_aggregates`` its totals however
the corpus is split, and a monitor pickles as its configuration."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from corpus_tools import CONFIG, cli_corpus, write_config, write_corpus

import doneseq


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    directory = tmp_path_factory.mktemp("corpus")
    return directory, write_corpus(directory, 80)


def test_check_files_gives_the_clis_lines_and_totals(corpus):
    directory, paths = corpus
    expected_runs, expected_total = cli_corpus(write_config(directory), paths)
    monitor = doneseq.Monitor.from_config(CONFIG)
    runs = monitor.check_files(paths)
    assert runs == expected_runs
    assert doneseq.aggregate(runs) == expected_total
    assert monitor.check_files(paths, parallel=False) == runs
    assert [monitor.check_file(Path(p)) for p in paths] == runs
    kinds = {run["kind"] for run in runs}
    assert {"done", "exhausted", None} <= kinds, kinds
    bad = runs[-1]
    assert bad["path"].endswith("run-bad.jsonl") and "line 3" in bad["error"], bad
    assert expected_total["errors"] == 1 and expected_total["stopped_early"] > 0


def test_totals_of_parts_merge_into_the_whole(corpus):
    _, paths = corpus
    runs = doneseq.Monitor.from_config(CONFIG).check_files(paths)
    whole = doneseq.aggregate(runs)
    for parts in (1, 2, 5, len(runs)):
        size = -(-len(runs) // parts)
        chunks = [runs[i : i + size] for i in range(0, len(runs), size)]
        assert doneseq.merge_aggregates(doneseq.aggregate(c) for c in chunks) == whole
    assert doneseq.merge_aggregates([]) == doneseq.aggregate([])
    assert doneseq.aggregate([])["runs"] == 0


def test_a_monitor_pickles_as_its_configuration(corpus):
    _, paths = corpus
    monitor = doneseq.Monitor(
        ["named: T[search], A", "C[give up]"],
        stop="final | text('(?i)sorry') & max_turns(3)",
        tool_classes={"SearchTool": "search"},
        max_turns=9,
    )
    copy = pickle.loads(pickle.dumps(monitor))
    assert copy is not monitor
    assert copy.lowered == monitor.lowered
    assert copy.done_sequences == monitor.done_sequences == ["named: T[search], A", "C[give up]"]
    assert copy.config == monitor.config
    assert doneseq.Monitor.from_config(monitor.config).lowered == monitor.lowered
    assert copy.check_files(paths) == monitor.check_files(paths)


def test_a_missing_file_is_a_summary_with_its_error(tmp_path):
    monitor = doneseq.Monitor.from_config(CONFIG)
    run = monitor.check_file(tmp_path / "nowhere.jsonl")
    assert run["error"].startswith("cannot open"), run
    assert run["kind"] is None and run["steps"] == 0
    assert doneseq.aggregate([run])["errors"] == 1


def test_bad_arguments_are_clear_errors(corpus):
    _, paths = corpus
    monitor = doneseq.Monitor.from_config(CONFIG)
    with pytest.raises(doneseq.ConfigError, match="unknown format 'jsonll'"):
        monitor.check_file(paths[0], format="jsonll")
    with pytest.raises(TypeError, match="not one string"):
        monitor.check_files(paths[0])
    with pytest.raises(TypeError, match=r"paths\[1\] is a str or os\.PathLike path, not int"):
        monitor.check_files([paths[0], 3])
    with pytest.raises(TypeError, match=r"path is a str or os\.PathLike path, not NoneType"):
        monitor.check_file(None)
    run = monitor.check_file(paths[0])
    with pytest.raises(doneseq.SummaryError, match="not one dict"):
        doneseq.aggregate(run)
    with pytest.raises(doneseq.SummaryError, match=r"runs\[1\]: .*stpes"):
        doneseq.aggregate([run, {**run, "stpes": 1}])
    with pytest.raises(doneseq.SummaryError, match=r"runs\[0\]: .*finished"):
        doneseq.aggregate([{**run, "kind": "finished"}])
    with pytest.raises(doneseq.SummaryError, match=r"parts\[0\]: .*nuns"):
        doneseq.merge_aggregates([{"nuns": 1}])
    with pytest.raises(TypeError, match="iterable of dicts"):
        doneseq.aggregate(5)
    assert isinstance(doneseq.SummaryError("x"), ValueError)
