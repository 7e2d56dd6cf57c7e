"""The exceptions doneseq raises. Every one is a ``DoneseqError``, a ``ValueError``."""

from __future__ import annotations


class DoneseqError(ValueError):
    """Bad input to doneseq: DSL text, a stop expression, a message, a configuration
    or a checkpoint."""


class _TextError(DoneseqError):
    """An error at a position of a text: ``str(err)`` draws the line with a caret."""

    kind: str
    span: tuple[int, int]
    byte_span: tuple[int, int]
    input: str
    index: int | None

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        span: tuple[int, int],
        byte_span: tuple[int, int],
        input: str,
        index: int | None = None,
    ) -> None:
        super().__init__(message)
        #: A stable machine name of what went wrong, e.g. ``"unknown_event"``.
        self.kind = kind
        #: ``(start, end)`` in characters of ``input``: ``input[start:end]`` is the fault.
        self.span = span
        #: The same span in UTF-8 bytes, as the Rust core reports it.
        self.byte_span = byte_span
        #: The text that was parsed.
        self.input = input
        #: Which entry of a list it was, if it came from a list.
        self.index = index


class DslError(_TextError):
    """A done sequence that did not parse."""


class StopExprError(_TextError):
    """A stop expression that did not parse, or a stop condition that is invalid."""


class MessageError(DoneseqError):
    """A message dict that is not a message: an unknown key, a bad role, a value of
    the wrong type."""


class ConfigError(DoneseqError):
    """A configuration that could not be read or compiled."""


class StateError(DoneseqError):
    """A checkpoint that this monitor cannot resume."""


class SummaryError(DoneseqError):
    """A run summary or totals dict that is not one: an unknown key, a bad kind, a
    value of the wrong type."""


__all__ = [
    "ConfigError",
    "DoneseqError",
    "DslError",
    "MessageError",
    "StateError",
    "StopExprError",
    "SummaryError",
]
