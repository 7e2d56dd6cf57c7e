"""doneseq.locus against locus itself: real ``Agent.run_sync`` loops with a tool, on
a scripted model written to locus's public model interface (``complete`` and
``stream`` returning locus's ``ModelResponse``)."""

from __future__ import annotations

from typing import Any

import pytest
from locus.agent import Agent
from locus.core.messages import Message, ToolCall
from locus.core.termination import MaxIterations, TextMention
from locus.models.base import ModelResponse
from locus.tools.decorator import tool

import doneseq
from doneseq.locus import DoneseqCondition

SENT: list[str] = []


@tool
def send_summary(text: str) -> str:
    """Sends the summary."""
    SENT.append(text)
    return "sent"


class ScriptedModel:
    """A model for locus's loop that answers from a script, 10 + 5 tokens a call."""

    def __init__(self, replies: list[Message]) -> None:
        self.replies = list(replies)
        self.calls = 0

    async def complete(
        self, messages: list[Message], tools: Any = None, **kwargs: Any
    ) -> ModelResponse:
        self.calls += 1
        reply = self.replies.pop(0) if self.replies else Message.assistant("(script ended)")
        return ModelResponse(message=reply, usage={"prompt_tokens": 10, "completion_tokens": 5})

    async def stream(self, messages: list[Message], tools: Any = None, **kwargs: Any) -> Any:
        raise NotImplementedError("the tests run complete()")
        yield  # an async generator, as locus's protocol has it


def call(text: str, call_id: str, say: str = "") -> Message:
    return Message.assistant(
        say, tool_calls=[ToolCall(id=call_id, name="send_summary", arguments={"text": text})]
    )


def script() -> list[Message]:
    return [call("a", "c1", "thinking"), call("b", "c2", "again"), Message.assistant("DONE.")]


def run(termination: Any, model: ScriptedModel, prompt: str = "Summarise") -> Any:
    agent = Agent(model=model, tools=[send_summary], termination=termination)
    return agent.run_sync(prompt)


@pytest.fixture(autouse=True)
def _clear():
    SENT.clear()


def test_a_done_sequence_stops_the_loop_after_the_first_summary():
    done = DoneseqCondition(done_sequences=["T[send_summary], A"])
    model = ScriptedModel(script())
    run(done | MaxIterations(10), model)
    assert done.outcome is not None
    # The input (system prompt, user prompt) is not a step: the call is step 0.
    assert (done.outcome.kind, done.outcome.matched, done.outcome.answer) == (
        "done",
        (0, 1),
        "sent",
    )
    assert model.calls == 1 and SENT == ["a"]
    # locus alone runs the whole script.
    plain = ScriptedModel(script())
    run(MaxIterations(10), plain)
    assert plain.calls == 3


def test_composes_with_locus_conditions():
    # `|`: locus's MaxIterations(1) stops first; doneseq never fired.
    done = DoneseqCondition(done_sequences=["T[send_summary], A, T[send_summary], A"])
    model = ScriptedModel(script())
    run(done | MaxIterations(1), model)
    assert done.outcome is None and model.calls == 1
    # `&`: both must hold at one check.
    SENT.clear()
    done = DoneseqCondition(stop="tool(send_summary, executed)")
    model = ScriptedModel(script())
    run(done & TextMention("again"), model)
    assert done.outcome is not None and done.outcome.condition == "tool(send_summary, executed)"
    assert model.calls == 2 and SENT == ["a", "b"]


def test_token_usage_reaches_a_budget():
    done = DoneseqCondition(stop="tokens(30)")
    model = ScriptedModel(script())
    run(done | MaxIterations(10), model)
    assert done.outcome is not None
    assert (done.outcome.kind, done.outcome.condition) == ("exhausted", "tokens(30)")
    assert model.calls == 2


def test_each_run_starts_clean():
    done = DoneseqCondition(done_sequences=["T[send_summary], A"])
    agent = Agent(model=ScriptedModel(script() + script()), tools=[send_summary], termination=done)
    agent.run_sync("First")
    first = done.outcome
    agent.run_sync("Second")
    assert first is not None and done.outcome is not None
    assert done.outcome is not first
    assert done.outcome.matched == (0, 1)


def test_bad_configuration_is_a_doneseq_error():
    with pytest.raises(doneseq.DslError):
        DoneseqCondition(done_sequences=["T A"])
    with pytest.raises(doneseq.StopExprError):
        DoneseqCondition(stop="loop(")
