"""doneseq for Langroid: a ``Task`` whose done sequences and stop condition doneseq
decides.

``DoneseqTask`` is a ``langroid.Task`` subclass configured by ``DoneseqTaskConfig``, a
``TaskConfig`` with one more field, ``stop`` (a stop expression such as
``"tokens(20000) | loop"`` or its object form)::

    import langroid as lr
    from doneseq.langroid import DoneseqTask, DoneseqTaskConfig

    config = DoneseqTaskConfig(done_sequences=["T[calculator], A"], stop="max_turns(20)")
    task = DoneseqTask(agent, interactive=False, config=config)
    result = task.run("What is 6*7?")
    task.outcome  # why it stopped: Outcome(kind="done", reason="sequence", ...)

What decides what:

- doneseq decides the done sequences (every value Langroid accepts: DSL text and
  ``DoneSequence`` objects, plus doneseq's extensions such as ``!``, ``&``, ``{n}``,
  ``F`` and ``E``) and the stop condition, over the messages of the run loop: each new
  pending message once, as Langroid's ``response_sequence`` holds them. The message
  given to ``run()`` is the task's input, not a step, as in Langroid.
- Langroid's own ``done()`` decides everything else, unchanged: kill, ``done_if_tool``,
  the ``DONE`` string and ``DoneTool``/``AgentDoneTool``/``FinalResultTool``, stalled
  steps, cost and token limits, the user quitting, ``done_if_response`` and
  ``done_if_no_response``; ``max_turns``/``turns`` stay Langroid's run-loop limits.
- ``valid()`` asks ``done(result, r)`` whether a candidate response would end the task:
  doneseq answers that with ``Run.peek``, a what-if that changes nothing, so a
  candidate that Langroid then discards is never counted.
- Each ``run()``/``run_async()`` starts a clean doneseq run (Langroid keeps its
  ``response_sequence`` across runs of one task), and ``clone()`` gives a
  ``DoneseqTask``.

``T[name]`` resolves as Langroid resolves it when the task is built, with the agent's
enabled tools: a request name stays; otherwise the first tool class, in the order the
tools were enabled, whose class name equals it gives its request name; otherwise the
name is taken as written.

A message becomes a doneseq step from its sender entity (the LLM, the agent, the user;
for a sub-task's result, the sub-task's sender, and the sub-task's name as the
responder), its tools as ``agent.try_get_tool_messages(msg, all_tools=True)`` finds
them (tool JSON in the content, OpenAI tool calls, function calls), its content, and
its token usage. Stops map to Langroid's status codes: done to ``DONE``, a turn budget
to ``MAX_TURNS``, a token budget to ``MAX_TOKENS``, a time budget to ``TIMEOUT``, a
loop to ``INF_LOOP``, another stuck stop to ``STALLED``, a failure to ``ERROR`` and a
cancel to ``KILL``.

Runs already made replay from the log Langroid writes of each task
(``logs/<task>.tsv``), read as the task's ``response_sequence``::

    monitor = doneseq.Monitor(done_sequences=["T[calculator], A"])
    monitor.check_file("logs/calc.tsv")  # {"kind": "done", "steps": ..., ...}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Optional, Union

try:
    from langroid.agent.chat_agent import ChatAgent
    from langroid.agent.chat_document import ChatDocument, StatusCode
    from langroid.agent.done_sequence_parser import DoneSequence as LangroidDoneSequence
    from langroid.agent.task import Task, TaskConfig
    from langroid.mytypes import Entity
except ImportError as e:  # pragma: no cover - exercised without the framework
    raise ImportError("doneseq.langroid needs Langroid: pip install langroid==0.69.16") from e

from doneseq._native import Monitor, Outcome, Run, sequence_object

__all__ = ["DoneseqTask", "DoneseqTaskConfig", "resolve_tool_names", "to_message"]


class DoneseqTaskConfig(TaskConfig):
    """Langroid's ``TaskConfig`` with doneseq's ``stop`` condition; its
    ``done_sequences`` are decided by doneseq (and may use doneseq's extensions)."""

    stop: Optional[Union[str, dict[str, Any]]] = None


_ROLES = {Entity.LLM: "llm", Entity.AGENT: "agent", Entity.USER: "user", Entity.SYSTEM: "system"}


def _langroid_sequence(sequence: LangroidDoneSequence) -> dict[str, Any]:
    """A Langroid ``DoneSequence`` object in doneseq's object form."""
    events = []
    for event in sequence.events:
        tool_name = event.tool_name
        if tool_name is None and event.tool_class is not None:
            tool_name = event.tool_class.default_value("request")
        out: dict[str, Any] = {"event_type": event.event_type.value}
        if tool_name is not None:
            out["tool_name"] = tool_name
        if event.content_pattern is not None:
            out["content_pattern"] = event.content_pattern
        if event.sender:
            out["responder"] = event.sender
        events.append(out)
    return {"name": sequence.name or None, "events": events}


def resolve_tool_names(sequence: dict[str, Any], tools: Mapping[str, Any]) -> dict[str, Any]:
    """``T[name]`` as Langroid resolves it with ``tools`` (request name to tool class,
    in the order the tools were enabled): a request name stays; otherwise the first
    class whose ``__name__`` equals the name gives its request name; otherwise the
    name stays as written."""

    def resolve(event: dict[str, Any]) -> dict[str, Any]:
        name = event.get("tool_name")
        if name is None or name in tools:
            return event
        for request, cls in tools.items():
            if getattr(cls, "__name__", None) == name:
                return {**event, "tool_name": request}
        return event

    events = [
        [resolve(e) for e in element] if isinstance(element, list) else resolve(element)
        for element in sequence["events"]
    ]
    return {**sequence, "events": events}


def _tool_calls(agent: ChatAgent, msg: ChatDocument) -> list[dict[str, Any]]:
    calls = []
    for tool in agent.try_get_tool_messages(msg, all_tools=True):
        arguments = tool.model_dump(mode="json", exclude={"request", "purpose", "id"})
        call: dict[str, Any] = {"name": tool.request, "arguments": json.dumps(arguments)}
        if getattr(tool, "id", ""):
            call["id"] = tool.id
        calls.append(call)
    return calls


def to_message(agent: ChatAgent, msg: ChatDocument, responder: Any = None) -> dict[str, Any]:
    """The doneseq message a Langroid ``ChatDocument`` stands for, from ``responder``
    (an entity or a sub-task; the message's sender when ``None``)."""
    sender = msg.metadata.sender
    name: Optional[str] = None
    if isinstance(responder, Task):
        name = responder.name or None
    elif isinstance(responder, Entity):
        sender = responder
    out: dict[str, Any] = {
        "role": _ROLES.get(sender, "user"),
        "content": msg.content or "",
    }
    if name:
        out["responder"] = name
    calls = _tool_calls(agent, msg)
    if calls:
        out["tool_calls"] = calls
    if msg.metadata.oai_tool_id:
        out["tool_call_id"] = msg.metadata.oai_tool_id
    usage = msg.metadata.usage
    if usage is not None and (usage.prompt_tokens or usage.completion_tokens):
        out["usage"] = {
            "input_tokens": usage.prompt_tokens,
            "output_tokens": usage.completion_tokens,
        }
    return out


def _status(outcome: Outcome) -> StatusCode:
    """Langroid's status code for a doneseq stop."""
    if outcome.kind == "done":
        return StatusCode.DONE
    if outcome.kind == "cancelled":
        return StatusCode.KILL
    if outcome.kind == "failed":
        return StatusCode.ERROR
    leading = next((c for c in outcome.conditions if c["kind"] == outcome.kind), None)
    condition = leading["id"] if leading else ""
    if outcome.kind == "exhausted":
        return {
            "tokens": StatusCode.MAX_TOKENS,
            "timeout": StatusCode.TIMEOUT,
        }.get(condition, StatusCode.MAX_TURNS)
    return StatusCode.INF_LOOP if condition == "loop" else StatusCode.STALLED


class DoneseqTask(Task):
    """A Langroid ``Task`` whose done sequences and stop condition doneseq decides
    (see the module's documentation). It takes ``Task``'s arguments; pass a
    ``DoneseqTaskConfig`` as ``config`` for ``stop``."""

    def __init__(self, agent: Optional[ChatAgent] = None, *args: Any, **kwargs: Any) -> None:
        given = kwargs.get("config")
        config = given if isinstance(given, TaskConfig) else DoneseqTaskConfig()
        sequences = list(config.done_sequences or [])
        stop = getattr(config, "stop", None)
        # Langroid must not parse the sequences (doneseq's extensions are not its
        # syntax) nor match them: doneseq does.
        kwargs["config"] = config.model_copy(update={"done_sequences": None})
        super().__init__(agent, *args, **kwargs)
        self.config = config
        tools: Mapping[str, Any] = getattr(self.agent, "llm_tools_map", {}) or {}
        objects = [
            resolve_tool_names(
                _langroid_sequence(s)
                if isinstance(s, LangroidDoneSequence)
                else sequence_object(s),
                tools,
            )
            for s in sequences
        ]
        self._doneseq_monitor = Monitor(
            done_sequences=objects,
            stop=stop,
            # Langroid's own done() decides the DONE string and done_if_tool.
            recognize_string_signals=False,
            # What is observed is Langroid's response_sequence: every message a step
            # (the task's input is never observed, see init()), even a user's first.
            input="marked",
        )
        self._doneseq_run: Run = self._doneseq_monitor.start()
        self._doneseq_seen: Optional[str] = None
        self._doneseq_outcome: Optional[Outcome] = None

    @property
    def monitor(self) -> Monitor:
        """The compiled done sequences and stop condition."""
        return self._doneseq_monitor

    @property
    def outcome(self) -> Optional[Outcome]:
        """Why doneseq stopped the latest run; ``None`` if it did not (Langroid's own
        ``done()`` ended it, or it has not ended)."""
        return self._doneseq_outcome

    def init(self, msg: Union[str, ChatDocument, None] = None) -> Optional[ChatDocument]:
        """Starts a run: a clean doneseq run, then Langroid's own start."""
        self._doneseq_run = self._doneseq_monitor.start()
        self._doneseq_outcome = None
        pending = super().init(msg)
        # The task's input is not a step: when the first step gives nothing, Langroid
        # appends the input to its response_sequence, where a "U" then matches the
        # caller's own message; doneseq never observes it.
        self._doneseq_seen = None if pending is None else pending.id()
        return pending

    def done(self, result: Optional[ChatDocument] = None, r: Any = None) -> tuple[bool, StatusCode]:
        outcome = self._doneseq_decide(result, r)
        if outcome is None:
            # Langroid's own rules, the kill switch first.
            return super().done(result, r)
        # A kill wins over doneseq's stop, as over every other rule. (Checked only
        # here: Langroid's kill check is a cache lookup that costs more than the
        # whole of doneseq's step.)
        if self._is_kill():
            return (True, StatusCode.KILL)
        return (True, _status(outcome))

    def _doneseq_decide(self, result: Optional[ChatDocument], r: Any) -> Optional[Outcome]:
        if self._doneseq_outcome is not None:
            return self._doneseq_outcome
        if result is not None:
            # valid()'s what-if: a candidate response, not yet a step.
            if result is self.pending_message and result.id() == self._doneseq_seen:
                return None
            return self._doneseq_run.peek(to_message(self.agent, result, r))
        pending = self.pending_message
        # The run loop: each new pending message once (Langroid appends it to its
        # response_sequence the same way).
        if pending is None or pending.id() == self._doneseq_seen:
            return None
        self._doneseq_seen = pending.id()
        responder = self._last_responder if self._last_responder is not None else None
        outcome = self._doneseq_run.observe(to_message(self.agent, pending, responder))
        if outcome is not None:
            self._doneseq_outcome = outcome
        return outcome

    def clone(self, i: int) -> DoneseqTask:
        """A copy of this task with a new agent, as ``Task.clone`` (which builds a
        plain ``Task``), keeping doneseq's configuration."""
        assert isinstance(self.agent, ChatAgent), "Task clone only works for ChatAgent"
        agent: ChatAgent = self.agent.clone(i)
        return DoneseqTask(
            agent,
            name=self.name + f"-{i}",
            llm_delegate=self.llm_delegate,
            single_round=self.single_round,
            system_message=self.agent.system_message,
            user_message=self.agent.user_message,
            restart=self.restart,
            default_human_response=self.default_human_response,
            interactive=self.interactive,
            erase_substeps=self.erase_substeps,
            allow_null_result=self.allow_null_result,
            max_stalled_steps=self.max_stalled_steps,
            done_if_no_response=[Entity(s) for s in self.done_if_no_response],
            done_if_response=[Entity(s) for s in self.done_if_response],
            default_return_type=self.default_return_type,
            config=self.config,
        )
