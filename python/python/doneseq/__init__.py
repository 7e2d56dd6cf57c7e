"""doneseq: decide when an LLM agent's loop is done.

Done sequences (Langroid's DSL, with fixes and extensions), ``FINAL()`` answers and
composable stop conditions, compiled once in Rust and checked at every message::

    import doneseq

    monitor = doneseq.Monitor(done_sequences=["T[calculator], A"], stop="max_turns(10)")
    run = monitor.start()
    for message in messages:
        outcome = run.observe(message)
        if outcome is not None:
            print(outcome.kind, outcome.answer)
            break

Recorded runs are checked as ``doneseq check`` checks a corpus:
``monitor.check_files(paths)`` gives each run's summary, ``doneseq.aggregate`` their
totals, ``doneseq.merge_aggregates`` the sum of the totals of parts; ``doneseq.dask``
maps the check over a corpus on a Dask cluster.
"""

from doneseq._errors import (
    ConfigError,
    DoneseqError,
    DslError,
    MessageError,
    StateError,
    StopExprError,
    SummaryError,
)
from doneseq._native import (
    Monitor,
    Outcome,
    Run,
    aggregate,
    merge_aggregates,
    parse_sequence,
    parse_stop,
    sequence_object,
)


def _monitor_from_json(config: str) -> Monitor:
    """A monitor from its configuration's JSON text: what unpickling a ``Monitor``
    calls (a module-level function, so that pickle finds it by name)."""
    return Monitor._from_json(config)


__all__ = [
    "ConfigError",
    "DoneseqError",
    "DslError",
    "MessageError",
    "Monitor",
    "Outcome",
    "Run",
    "StateError",
    "StopExprError",
    "SummaryError",
    "aggregate",
    "merge_aggregates",
    "parse_sequence",
    "parse_stop",
    "sequence_object",
]
