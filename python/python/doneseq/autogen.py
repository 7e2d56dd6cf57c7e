"""doneseq for AutoGen AgentChat: a ``TerminationCondition`` decided by doneseq.

``DoneseqTermination`` plugs into any AutoGen team (``RoundRobinGroupChat``,
``SelectorGroupChat``, ...) where a termination condition goes, and composes with
AutoGen's own conditions by ``&`` and ``|``::

    from autogen_agentchat.conditions import MaxMessageTermination
    from doneseq.autogen import DoneseqTermination

    done = DoneseqTermination(done_sequences=["T[search], A, L"], stop="tokens(20000)")
    team = RoundRobinGroupChat([agent], termination_condition=done | MaxMessageTermination(30))

How AutoGen's messages become doneseq's steps:

- a ``ToolCallRequestEvent`` is a model message with its tool calls (names, arguments,
  call ids) and the usage of the model call;
- a ``ToolCallExecutionEvent`` is one agent message per result, its ``call_id`` as the
  message's ``tool_call_id``, and an ``is_error`` result an error;
- a chat message (``TextMessage``, ``ToolCallSummaryMessage``, ``HandoffMessage``,
  ``StopMessage``, structured and multimodal messages) is a user message when its
  ``source`` is ``"user"`` (the task), a model message otherwise, with its
  ``to_model_text()`` as content, its ``source`` as the responder and its
  ``models_usage`` as usage; a ``StopMessage`` is a stop message and a
  ``HandoffMessage`` a handoff to its ``target`` (``stop_message``, ``handoff([...])``);
- other agent events (thoughts, streaming chunks, memory queries, speaker
  selections, code generation and execution) are not steps of the run.

The task message is a step like any other (``input="steps"``, AutoGen's counting:
its conditions see the task message and ``MaxMessageTermination`` counts it), unless
the caller passes another ``input``.

The team resets its termination condition after every stop; the condition keeps the
last outcome (``outcome``) across that reset, so a caller can read why the run ended.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

try:
    from autogen_agentchat.base import TerminatedException, TerminationCondition
    from autogen_agentchat.messages import (
        BaseAgentEvent,
        BaseChatMessage,
        HandoffMessage,
        StopMessage,
        ToolCallExecutionEvent,
        ToolCallRequestEvent,
    )
    from autogen_core import Component
except ImportError as e:  # pragma: no cover - exercised without the framework
    raise ImportError(
        "doneseq.autogen needs AutoGen AgentChat: "
        "pip install autogen-agentchat==0.7.5 autogen-ext==0.7.5"
    ) from e

from pydantic import BaseModel

from doneseq._native import Monitor, Outcome, Run

__all__ = ["DoneseqTermination", "DoneseqTerminationConfig", "to_messages"]

#: The source AutoGen gives the task's messages.
TASK_SOURCE = "user"


class DoneseqTerminationConfig(BaseModel):
    """The serialized form of a ``DoneseqTermination`` (``dump_component()``)."""

    done_sequences: list[Union[str, dict[str, Any]]] = []
    stop: Optional[Union[str, dict[str, Any]]] = None
    options: dict[str, Any] = {}


def _usage(message: Union[BaseAgentEvent, BaseChatMessage]) -> Optional[dict[str, int]]:
    usage = getattr(message, "models_usage", None)
    if usage is None:
        return None
    return {"input_tokens": usage.prompt_tokens, "output_tokens": usage.completion_tokens}


def to_messages(message: Union[BaseAgentEvent, BaseChatMessage]) -> list[dict[str, Any]]:
    """The doneseq messages (dicts) one AutoGen message or event stands for: none for
    an event that is not a step, several for the results of several tool calls."""
    usage = _usage(message)
    if isinstance(message, ToolCallRequestEvent):
        out: dict[str, Any] = {
            "role": "assistant",
            "content": "",
            "name": message.source,
            "tool_calls": [
                {"id": call.id, "name": call.name, "arguments": call.arguments}
                for call in message.content
            ],
        }
        if usage is not None:
            out["usage"] = usage
        return [out]
    if isinstance(message, ToolCallExecutionEvent):
        results = []
        for result in message.content:
            step: dict[str, Any] = {
                "role": "tool",
                "content": result.content,
                "name": message.source,
            }
            if result.name:
                step["tool_name"] = result.name
            if result.call_id:
                step["tool_call_id"] = result.call_id
            if result.is_error:
                step["error"] = result.content or f"tool {result.name} failed"
            results.append(step)
        return results
    if isinstance(message, BaseChatMessage):
        role = "user" if message.source == TASK_SOURCE else "assistant"
        out = {"role": role, "content": message.to_model_text(), "name": message.source}
        if isinstance(message, StopMessage):
            out["stop"] = True
        elif isinstance(message, HandoffMessage) and message.target:
            out["handoff"] = message.target
        if usage is not None:
            out["usage"] = usage
        return [out]
    return []


class DoneseqTermination(TerminationCondition, Component[DoneseqTerminationConfig]):
    """An AutoGen termination condition decided by doneseq: done sequences, Langroid's
    task options and a stop condition, compiled once.

    Arguments are those of ``doneseq.Monitor``: ``done_sequences`` (DSL text or
    Langroid's objects), ``stop`` (an expression or its object form) and Langroid's
    options (``max_turns``, ``done_if_tool``, ...). The run stops when doneseq's verdict
    does; the ``StopMessage`` says its kind and what fired, and ``outcome`` holds the
    whole ``doneseq.Outcome``.
    """

    component_config_schema = DoneseqTerminationConfig
    component_provider_override = "doneseq.autogen.DoneseqTermination"

    def __init__(
        self,
        done_sequences: Optional[Sequence[Union[str, Mapping[str, Any]]]] = None,
        stop: Optional[Union[str, Mapping[str, Any]]] = None,
        **options: Any,
    ) -> None:
        # AutoGen's counting unless the caller says otherwise: the task message is a
        # message its termination conditions see.
        self._monitor = Monitor(
            done_sequences=done_sequences, stop=stop, **{"input": "steps", **options}
        )
        self._config = DoneseqTerminationConfig(
            done_sequences=self._monitor.done_sequences,
            stop=dict(stop) if isinstance(stop, Mapping) else stop,
            options=dict(options),
        )
        self._run: Run = self._monitor.start()
        self._terminated = False
        self._outcome: Optional[Outcome] = None

    @property
    def monitor(self) -> Monitor:
        """The compiled stop rules."""
        return self._monitor

    @property
    def terminated(self) -> bool:
        return self._terminated

    @property
    def outcome(self) -> Optional[Outcome]:
        """The outcome of the latest stop, kept across ``reset()``; ``None`` before one."""
        return self._outcome

    async def __call__(
        self, messages: Sequence[Union[BaseAgentEvent, BaseChatMessage]]
    ) -> Optional[StopMessage]:
        if self._terminated:
            raise TerminatedException("Termination condition has already been reached")
        for message in messages:
            for step in to_messages(message):
                outcome = self._run.observe(step)
                if outcome is not None:
                    self._terminated = True
                    self._outcome = outcome
                    return StopMessage(content=_describe(outcome), source="DoneseqTermination")
        return None

    async def reset(self) -> None:
        """Starts a new run; the latest outcome stays readable."""
        self._run = self._monitor.start()
        self._terminated = False

    def _to_config(self) -> DoneseqTerminationConfig:
        return self._config.model_copy(deep=True)

    @classmethod
    def _from_config(cls, config: DoneseqTerminationConfig) -> DoneseqTermination:
        return cls(done_sequences=config.done_sequences, stop=config.stop, **config.options)


def _describe(outcome: Outcome) -> str:
    """The stop message's text: the kind, what fired and where."""
    if outcome.sequence is not None:
        name = f" {outcome.sequence_name!r}" if outcome.sequence_name else ""
        what = f"done sequence {outcome.sequence}{name}"
    elif outcome.condition is not None:
        what = outcome.condition
    else:
        what = outcome.reason
    return f"doneseq: {outcome.kind} at step {outcome.at}: {what}"
