"""Types of the Rust extension module (re-exported by ``doneseq``)."""

from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from typing import Any

def parse_sequence(text: str) -> str:
    """Parses a done sequence; its canonical text. Raises ``DslError``."""

def parse_stop(text: str) -> str:
    """Parses a stop expression; its canonical text. Raises ``StopExprError``."""

def sequence_object(text: str) -> dict[str, Any]:
    """A done sequence in Langroid's object form (``name``, ``events``)."""

def _message_debug(message: Any, fast: bool) -> str | None:
    """Test support: the message a dict reads as (its Rust ``Debug`` text), by the fast
    path (``None`` where it leaves the dict to the schema) or by the schema (raises
    ``MessageError`` where the schema refuses it)."""

def detect_final_in_text(text: str) -> dict[str, Any]:
    """A FINAL/FINAL_VAR/SUBMIT call in model text, with rlm-code's field names."""

def detect_final_in_code(code: str) -> dict[str, Any]:
    """The same in Python code (comments and strings do not count)."""

def extract_code_blocks(text: str, language: str = "python") -> list[str]:
    """The fenced code blocks of ``text`` in ``language`` (or untagged)."""

def format_final_answer(value: Any) -> str:
    """A final answer value as text, as rlm-code formats it."""

def aggregate(runs: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The totals of run summaries (as ``Monitor.check_file`` gives them): ``runs``,
    ``errors``, ``done``, ``exhausted``, ``stuck``, ``failed``, ``cancelled``,
    ``never_stopped``, ``stopped_early``, ``steps_to_stop``, ``tokens_to_stop``,
    ``steps_saved``, ``tokens_saved``. Raises ``SummaryError``."""

def merge_aggregates(parts: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The sum of totals (as ``aggregate`` gives them): a corpus's totals from its
    parts'. Raises ``SummaryError``."""

def rlm_policy(name: str, config: Mapping[str, Any] | None = None) -> str:
    """rlm-code's termination policy ``name`` as a stop condition (canonical text)."""

class Monitor:
    """A task's stop rules, compiled once; immutable and shared across threads."""

    def __init__(
        self,
        done_sequences: Sequence[str | Mapping[str, Any]] | None = None,
        stop: str | Mapping[str, Any] | None = None,
        **options: Any,
    ) -> None: ...
    @staticmethod
    def from_config(config: Mapping[str, Any] | str | PathLike[str]) -> Monitor: ...
    def start(self) -> Run: ...
    def resume(self, checkpoint: str) -> Run: ...
    def lint(self, tools: list[str] | None = None) -> list[dict[str, Any]]: ...
    @property
    def done_sequences(self) -> list[str]: ...
    @property
    def lowered(self) -> str: ...
    @property
    def config(self) -> dict[str, Any]:
        """The configuration it was compiled from (``from_config`` reads it back)."""
    def check_file(self, path: str | PathLike[str], format: str = "auto") -> dict[str, Any]:
        """Checks a recorded run to its end: a line of ``doneseq check --json`` over a
        corpus (``path``, ``kind``, ``at``, ``fired``, ``answer``, ``steps``,
        ``tokens``, ``recorded_steps``, ``recorded_tokens``, ``early``, and ``error``
        or ``warning`` when there are any). An unreadable transcript gives its
        ``error``; one that holds no message, a ``warning`` saying so (an Inspect AI
        eval log of several samples, several runs, an ``error``: ``check_files`` reads
        each); an unknown format raises ``ConfigError``."""
    def check_files(
        self,
        paths: Iterable[str | PathLike[str]],
        format: str = "auto",
        parallel: bool = True,
    ) -> list[dict[str, Any]]:
        """``check_file`` of every path, on all cores (``parallel``) or one after the
        other, in the order of ``paths``; an Inspect AI eval log (``.eval``, or JSON of
        several samples) is a run a sample (its ``path`` ``<log>#<id>_epoch_<n>``), in
        the log's order."""
    @staticmethod
    def _from_json(config: str) -> Monitor: ...

class Run:
    """One run of a task."""

    def observe(self, message: Mapping[str, Any], /) -> Outcome | None:
        """Observes one message; the outcome if the run stops here."""
    def peek(self, message: Mapping[str, Any]) -> Outcome | None:
        """What ``observe`` would say, without changing the run."""
    @property
    def steps(self) -> int: ...
    @property
    def pattern_overruns(self) -> int:
        """How many messages a ``C[...]`` pattern with look-around or backreferences
        could not be decided on (past its backtracking limit; taken as no match)."""
    @property
    def pattern_overrun(self) -> tuple[int, str] | None:
        """The first such message's step and the pattern as written."""
    def explain(self) -> list[dict[str, Any]]: ...
    def explain_stop(self) -> dict[str, Any] | None: ...
    def to_json(self) -> str: ...

class Outcome:
    """Why and where a run stopped. Frozen."""

    @property
    def kind(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def sequence(self) -> int | None: ...
    @property
    def sequence_name(self) -> str | None: ...
    @property
    def condition(self) -> str | None: ...
    @property
    def path(self) -> list[int] | None: ...
    @property
    def at(self) -> int: ...
    @property
    def matched(self) -> tuple[int, int] | None: ...
    @property
    def answer(self) -> str | None: ...
    @property
    def answer_value(self) -> Any: ...
    @property
    def answer_source(self) -> str | None: ...
    @property
    def conditions(self) -> list[dict[str, Any]]: ...
    @property
    def fired(self) -> list[dict[str, Any]]: ...
    def to_dict(self) -> dict[str, Any]: ...
