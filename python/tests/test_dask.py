"""doneseq.dask on a real Dask cluster: a LocalCluster of two worker processes (the
monitor travels to them by pickle, the transcripts are read there), whose summaries
and totals must be the CLI's over the same corpus."""

from __future__ import annotations

import dask.bag as db
import pytest
from corpus_tools import CONFIG, cli_corpus, write_config, write_corpus
from dask.distributed import Client, LocalCluster, get_task_stream

import doneseq
from doneseq.dask import CorpusResult, check_corpus, summaries


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def test_a_corpus_on_a_cluster_is_the_clis(tmp_path, client):
    paths = write_corpus(tmp_path, 300)
    expected_runs, expected_total = cli_corpus(write_config(tmp_path), paths)
    monitor = doneseq.Monitor.from_config(CONFIG)
    with get_task_stream(client) as stream:
        result = check_corpus(monitor, paths, partition_size=23)
    assert isinstance(result, CorpusResult)
    assert result.runs == expected_runs
    assert result.aggregate == expected_total
    assert expected_total["errors"] == 1 and expected_total["runs"] == len(paths)
    # The runs were checked by the cluster's workers, a task per partition.
    checked = [t for t in stream.data if "_check_partition" in t["key"][0]]
    partitions = -(-len(paths) // 23)
    assert {t["key"][1] for t in checked} == set(range(partitions)), stream.data[:3]
    assert {t["worker"] for t in checked} <= set(client.scheduler_info()["workers"])


def test_only_the_totals_come_back_when_the_runs_are_not_wanted(tmp_path, client):
    paths = write_corpus(tmp_path, 120, seed=11)
    _, expected_total = cli_corpus(write_config(tmp_path), paths)
    monitor = doneseq.Monitor.from_config(CONFIG)
    for npartitions in (1, 4, 17):
        result = check_corpus(monitor, paths, npartitions=npartitions, runs=False)
        assert result.runs is None
        assert result.aggregate == expected_total, npartitions


def test_summaries_are_a_bag_to_compose_with_dask(tmp_path, client):
    paths = write_corpus(tmp_path, 60, seed=3)
    monitor = doneseq.Monitor.from_config(CONFIG)
    bag = summaries(monitor, paths, npartitions=5)
    assert isinstance(bag, db.Bag)
    early = bag.filter(lambda run: run["early"]).pluck("path").compute()
    expected = [run["path"] for run in monitor.check_files(paths) if run["early"]]
    assert early == expected and early


def test_an_empty_corpus_and_a_bad_format(client):
    monitor = doneseq.Monitor.from_config(CONFIG)
    result = check_corpus(monitor, [])
    assert result.runs == [] and result.aggregate == doneseq.aggregate([])
    with pytest.raises(doneseq.ConfigError, match="unknown format 'jsonll'"):
        check_corpus(monitor, ["a.jsonl"], format="jsonll")
