"""doneseq for the OpenAI Agents SDK: end an agent run when doneseq says it is done.

The SDK lets a third party end a run early in one public place: the agent's
``tool_use_behavior``, a function called after each turn's tools ran. ``DoneseqStop``
gives that function and the ``RunHooks`` that show it the model's turns::

    from agents import Agent, Runner
    from doneseq.openai_agents import DoneseqStop, Stopped

    stop = DoneseqStop(done_sequences=["T[search], A, T[search], A"], stop="tokens(20000)")
    agent = Agent(name="research", tools=[search], tool_use_behavior=stop.tool_use_behavior)
    try:
        result = await Runner.run(agent, "Find ...", hooks=stop.hooks)
    except Stopped as stopped:
        stopped.outcome  # a budget ran out, a loop, a failure: no final output invented

How the run becomes doneseq's steps: each model response (``on_llm_end``) is one model
message, with its text, its function calls (name, arguments, call id) and its token
usage; each tool result (``tool_use_behavior``) is one agent message with the call's
id. The run's input is not a step (as the SDK's ``max_turns`` counts model calls).
Each ``Runner.run`` starts a fresh doneseq run: the state is kept per run context.

When doneseq stops the run:

- kind ``done`` after tools ran: the run ends with the outcome's answer as its final
  output (``ToolsToFinalOutputResult``);
- kind ``done`` on a model response with tool calls: the tools run (the SDK runs them
  before asking ``tool_use_behavior``), then the run ends as above;
- any other kind (``exhausted``, ``stuck``, ``failed``, ``cancelled``): ``Stopped`` is
  raised with the outcome, at once from the model response's hook, or after the
  tools ran; no final output is invented.

What the SDK does not allow: a model reply without tool calls always ends the run (it
is the final output), and no public hook can end a run at a text reply that doneseq
would not call done, nor continue one the SDK ends. ``outcome`` still says what
doneseq saw.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

try:
    from agents import RunContextWrapper, RunHooks
    from agents.agent import ToolsToFinalOutputResult
    from agents.items import ModelResponse
    from agents.tool import FunctionToolResult
except ImportError as e:  # pragma: no cover - exercised without the framework
    raise ImportError(
        "doneseq.openai_agents needs the OpenAI Agents SDK: pip install openai-agents==0.24.0"
    ) from e

from doneseq._native import Monitor, Outcome, Run

__all__ = ["DoneseqHooks", "DoneseqStop", "Stopped", "response_message"]


class Stopped(Exception):
    """doneseq stopped the run with another kind than ``done``: a budget, a loop, a
    failure or a cancel. ``outcome`` says which and why."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(f"doneseq stopped the run: {outcome.kind} ({outcome.reason})")
        self.outcome = outcome


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)


def response_message(response: ModelResponse, agent_name: Optional[str] = None) -> dict[str, Any]:
    """The doneseq message one model response stands for: its text, its function
    calls and its usage."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for item in response.output:
        kind = _field(item, "type")
        if kind == "message":
            for part in _field(item, "content") or []:
                part_kind = _field(part, "type")
                if part_kind == "output_text":
                    texts.append(_field(part, "text") or "")
                elif part_kind == "refusal":
                    texts.append(_field(part, "refusal") or "")
        elif kind == "function_call":
            call: dict[str, Any] = {
                "name": _field(item, "name"),
                "arguments": _field(item, "arguments") or "",
            }
            if _field(item, "call_id"):
                call["id"] = _field(item, "call_id")
            calls.append(call)
    message: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts)}
    if agent_name:
        message["name"] = agent_name
    if calls:
        message["tool_calls"] = calls
    usage = response.usage
    if usage is not None and (usage.input_tokens or usage.output_tokens):
        message["usage"] = {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
        }
    return message


def _result_message(result: FunctionToolResult) -> dict[str, Any]:
    output = result.output
    content = output if isinstance(output, str) else json.dumps(output, default=str)
    message: dict[str, Any] = {"role": "tool", "content": content}
    raw = getattr(result.run_item, "raw_item", None)
    call_id = _field(raw, "call_id") if raw is not None else None
    if call_id:
        message["tool_call_id"] = call_id
    return message


class _RunState:
    """One SDK run's doneseq run, and a stop seen in a model response whose tools
    are still to run."""

    def __init__(self, monitor: Monitor) -> None:
        self.run: Run = monitor.start()
        self.pending: Optional[Outcome] = None


class DoneseqStop:
    """doneseq's stop rules for Agents SDK runs. Give the agent
    ``tool_use_behavior=stop.tool_use_behavior`` and the run ``hooks=stop.hooks``.

    Arguments are those of ``doneseq.Monitor``: ``done_sequences``, ``stop`` and
    Langroid's options."""

    def __init__(
        self,
        done_sequences: Optional[Sequence[Union[str, Mapping[str, Any]]]] = None,
        stop: Optional[Union[str, Mapping[str, Any]]] = None,
        **options: Any,
    ) -> None:
        self.monitor = Monitor(done_sequences=done_sequences, stop=stop, **options)
        self._runs: weakref.WeakKeyDictionary[Any, _RunState] = weakref.WeakKeyDictionary()
        self._outcome: Optional[Outcome] = None
        self.hooks = DoneseqHooks(self)

    @property
    def outcome(self) -> Optional[Outcome]:
        """The outcome of the latest run that doneseq stopped; ``None`` if none did."""
        return self._outcome

    def _state(self, context: RunContextWrapper[Any]) -> _RunState:
        state = self._runs.get(context)
        if state is None:
            state = _RunState(self.monitor)
            self._runs[context] = state
        return state

    def _stopped(self, outcome: Outcome) -> None:
        self._outcome = outcome

    def observe_response(
        self, context: RunContextWrapper[Any], response: ModelResponse, agent_name: str
    ) -> None:
        """Observes one model response (called by the hooks)."""
        state = self._state(context)
        if state.pending is not None:
            return
        message = response_message(response, agent_name)
        outcome = state.run.observe(message)
        if outcome is None:
            return
        self._stopped(outcome)
        if outcome.kind != "done":
            raise Stopped(outcome)
        state.pending = outcome

    def tool_use_behavior(
        self, context: RunContextWrapper[Any], results: list[FunctionToolResult]
    ) -> ToolsToFinalOutputResult:
        """The agent's ``tool_use_behavior``: observes the turn's tool results; ends the
        run when doneseq stops it."""
        state = self._state(context)
        outcome = state.pending
        for result in results:
            if outcome is not None:
                break
            outcome = state.run.observe(_result_message(result))
        if outcome is None:
            return ToolsToFinalOutputResult(is_final_output=False, final_output=None)
        self._stopped(outcome)
        if outcome.kind != "done":
            raise Stopped(outcome)
        return ToolsToFinalOutputResult(is_final_output=True, final_output=outcome.answer)


class DoneseqHooks(RunHooks[Any]):
    """The run hooks of a ``DoneseqStop``: each model response is a step."""

    def __init__(self, stop: DoneseqStop) -> None:
        self._stop = stop

    async def on_llm_end(self, context: RunContextWrapper[Any], agent: Any, response: Any) -> None:
        self._stop.observe_response(context, response, getattr(agent, "name", ""))
