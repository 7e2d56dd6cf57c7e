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
"""

from doneseq._errors import (
    ConfigError,
    DoneseqError,
    DslError,
    MessageError,
    StateError,
    StopExprError,
)
from doneseq._native import (
    Monitor,
    Outcome,
    Run,
    parse_sequence,
    parse_stop,
    sequence_object,
)

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
    "parse_sequence",
    "parse_stop",
    "sequence_object",
]
