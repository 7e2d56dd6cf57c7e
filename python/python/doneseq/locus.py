"""doneseq for locus (``locus-sdk``): a composable ``TerminationCondition``.

``DoneseqCondition`` goes where locus takes a termination condition
(``Agent(termination=...)``) and composes with locus's own conditions by ``&`` and
``|``::

    from locus.agent import Agent
    from locus.core.termination import MaxIterations
    from doneseq.locus import DoneseqCondition

    done = DoneseqCondition(done_sequences=["T[send_summary], A"], stop="loop")
    agent = Agent(model=model, tools=[send_summary], termination=done | MaxIterations(10))

locus calls ``check(state, ...)`` before each model call, and ``reset()`` when a run
starts. On each check the condition observes the messages of ``state.messages`` it
has not seen yet, in order: an assistant message is a model step (its text, its tool
calls with names, arguments and ids, and the tokens the run used since the last
check), a tool message an agent step (its ``tool_call_id``, its tool's name, also as
the responder, and its error if the tool failed: locus keeps a failure in the state's
``tool_executions``, its tool message empty). The run's input is not a step: the
system and user messages before the first assistant message. When doneseq stops the
run, ``check`` answers ``(True, "doneseq:<kind>:<what fired>")`` and ``outcome`` holds
the whole outcome.

A model reply without tool calls ends locus's loop before another check, so that
reply is not observed: stop conditions see the steps that lead to a model call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

try:
    from locus.core.messages import Message as LocusMessage
    from locus.core.termination import TerminationCondition
except ImportError as e:  # pragma: no cover - exercised without the framework
    raise ImportError("doneseq.locus needs locus: pip install locus-sdk==0.2.0") from e

from doneseq._native import Monitor, Outcome, Run

__all__ = ["DoneseqCondition", "to_message", "tool_errors"]


def to_message(message: LocusMessage, errors: Optional[Mapping[str, str]] = None) -> dict[str, Any]:
    """The doneseq message a locus message stands for; ``errors`` the failures of the
    run's tool calls by call id (``tool_errors(state)``), where locus records them."""
    role = message.role.value if hasattr(message.role, "value") else str(message.role)
    out: dict[str, Any] = {"role": role, "content": message.content or ""}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": call.id, "name": call.name, "arguments": json.dumps(call.arguments)}
            for call in message.tool_calls
        ]
    if message.tool_call_id:
        out["tool_call_id"] = message.tool_call_id
    if role == "tool":
        if message.name:
            # The tool answers (OpenAI's `name` on a tool's message), as a transcript
            # of locus's state reads it.
            out["name"] = out["tool_name"] = message.name
        # Where locus keeps a failure (a replay of its state reads it there too; a
        # message's metadata is not read by either).
        error = (errors or {}).get(message.tool_call_id or "")
        if error:
            out["error"] = error
    return out


def tool_errors(state: Any) -> dict[str, str]:
    """The failures of a run's tool calls by call id, from the state's
    ``tool_executions`` (locus's tool message of a failed call holds no text and no
    error)."""
    return {
        execution.tool_call_id: execution.error
        for execution in getattr(state, "tool_executions", ()) or ()
        if getattr(execution, "error", None)
    }


def _describe(outcome: Outcome) -> str:
    if outcome.sequence is not None:
        what = f"sequence {outcome.sequence_name or outcome.sequence}"
    else:
        what = outcome.condition or outcome.reason
    return f"doneseq:{outcome.kind}:{what}"


class DoneseqCondition(TerminationCondition):
    """A locus termination condition decided by doneseq. Arguments are those of
    ``doneseq.Monitor``: ``done_sequences``, ``stop`` and Langroid's options."""

    def __init__(
        self,
        done_sequences: Optional[Sequence[Union[str, Mapping[str, Any]]]] = None,
        stop: Optional[Union[str, Mapping[str, Any]]] = None,
        **options: Any,
    ) -> None:
        self.monitor = Monitor(done_sequences=done_sequences, stop=stop, **options)
        self._start()

    def _start(self) -> None:
        self._run: Run = self.monitor.start()
        self._seen = 0
        self._input_over = False
        self._tokens = (0, 0)
        self._outcome: Optional[Outcome] = None

    @property
    def outcome(self) -> Optional[Outcome]:
        """Why doneseq stopped the current (or latest) run; ``None`` if it did not."""
        return self._outcome

    def reset(self) -> None:
        """A new run: nothing seen yet."""
        self._start()

    def check(self, state: Any, **context: Any) -> tuple[bool, Optional[str]]:
        if self._outcome is not None:
            return True, _describe(self._outcome)
        messages = list(state.messages)
        if len(messages) < self._seen:  # a new run that locus did not reset us for
            self._start()
        tokens = (
            int(getattr(state, "prompt_tokens_used", 0) or 0),
            int(getattr(state, "completion_tokens_used", 0) or 0),
        )
        usage = (tokens[0] - self._tokens[0], tokens[1] - self._tokens[1])
        self._tokens = tokens
        errors = tool_errors(state)
        for message in messages[self._seen :]:
            self._seen += 1
            step = to_message(message, errors)
            if not self._input_over:
                if step["role"] != "assistant":
                    continue
                self._input_over = True
            if step["role"] == "assistant" and (usage[0] > 0 or usage[1] > 0):
                step["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]}
                usage = (0, 0)
            outcome = self._run.observe(step)
            if outcome is not None:
                self._outcome = outcome
                self._seen = len(messages)
                return True, _describe(outcome)
        return False, None
