"""A corpus too large for one machine, checked on a Dask cluster: a map over its runs
and a sum of their totals, scheduled by Dask (``pip install "doneseq[dask]"``).

Each partition of the paths is checked by ``Monitor.check_files`` on a worker (one
after the other: Dask spreads the partitions over the workers' threads), the monitor
shipped by pickle (it pickles as its configuration, compiled again on the worker).
The totals are summed on the cluster, partition by partition, so that only they come
back when the runs themselves are not wanted::

    from dask.distributed import Client
    import doneseq
    from doneseq.dask import check_corpus

    client = Client("scheduler:8786")  # or LocalCluster(): any Dask scheduler
    monitor = doneseq.Monitor.from_config("stop.toml")
    result = check_corpus(monitor, paths, partition_size=100)
    print(result.aggregate["stopped_early"], "runs cut before their answer")

The workers read the paths themselves: they must see the same files (a shared file
system), as the machines of a Dask cluster usually do.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

try:
    import dask.bag as db
except ImportError as e:  # pragma: no cover - exercised without Dask
    raise ImportError('doneseq.dask needs Dask: pip install "dask[distributed]==2026.8.0"') from e

from doneseq._native import Monitor, aggregate, merge_aggregates

__all__ = ["CorpusResult", "check_corpus", "summaries"]


@dataclass(frozen=True)
class CorpusResult:
    """What a stop rule does to a corpus: each run's summary (in the order of the
    paths; ``None`` when not asked for) and the totals, as ``doneseq check --json``
    prints them over the same paths."""

    runs: list[dict[str, Any]] | None
    aggregate: dict[str, int]


def _check_partition(paths: Iterable[str], monitor: Monitor, format: str) -> list[dict[str, Any]]:
    # One after the other: the worker's other threads check other partitions.
    return monitor.check_files(list(paths), format, parallel=False)


def summaries(
    monitor: Monitor,
    paths: Iterable[str | os.PathLike[str]],
    *,
    format: str = "auto",
    partition_size: int | None = None,
    npartitions: int | None = None,
) -> db.Bag:
    """The runs' summaries as a lazy Dask bag (one dict per path, in order), to
    filter, group or write out with Dask's own operations before computing."""
    names = [os.fspath(path) for path in paths]
    # An unknown format is a ConfigError here, not on every worker.
    monitor.check_files([], format)
    if partition_size is None and npartitions is None:
        npartitions = max(1, min(len(names), 100))
    bag = db.from_sequence(names, partition_size=partition_size, npartitions=npartitions)
    return bag.map_partitions(_check_partition, monitor, format)


def check_corpus(
    monitor: Monitor,
    paths: Iterable[str | os.PathLike[str]],
    *,
    format: str = "auto",
    partition_size: int | None = None,
    npartitions: int | None = None,
    runs: bool = True,
) -> CorpusResult:
    """Checks every transcript of ``paths`` on the current Dask scheduler (a
    ``distributed.Client``'s cluster if one is active): each run's summary and the
    totals. With ``runs=False`` only the totals come back from the workers.

    An unreadable transcript is a summary with its ``error`` (counted in the totals'
    ``errors``); the other runs are still checked."""
    bag = summaries(
        monitor,
        paths,
        format=format,
        partition_size=partition_size,
        npartitions=npartitions,
    )
    if not runs:
        # Summed on the cluster: each partition's totals, then the parts' sum.
        return CorpusResult(
            runs=None, aggregate=bag.reduction(aggregate, merge_aggregates).compute()
        )
    # The runs come back anyway: their totals are summed here, rather than the graph
    # holding a second branch over the same partitions.
    checked = bag.compute()
    return CorpusResult(runs=checked, aggregate=aggregate(checked))
