"""doneseq.locus against locus itself: real ``Agent.run_sync`` loops with a tool, on
a scripted model written to locus's public model interface (``complete`` and
``stream`` returning locus's ``ModelResponse``)."""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest
from framework_table import assert_listed
from locus.agent import Agent
from locus.core.messages import Message, ToolCall
from locus.core.termination import (
    MaxIterations,
    NoToolCalls,
    TextMention,
    TokenLimit,
    ToolCalled,
)
from locus.memory.backends.file import FileCheckpointer
from locus.models.base import ModelResponse
from locus.tools.decorator import tool
from recorded_runs import assert_stops_as_live, read_alike, write_text

import doneseq
import doneseq.locus
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


# locus's termination conditions beside their doneseq twins: each row runs locus's loop
# twice on the same script, ended once by locus's condition and once by doneseq's (each
# or'ed with the same MaxIterations cap), and the two runs must make the same model
# calls and send the same summaries. A row that differs on purpose names its line
# under "Differences from the other frameworks" in the README, and must differ.

FAILING_SCRIPT = [
    Message.assistant(
        "trying", tool_calls=[ToolCall(id="c1", name="send_summary", arguments={"txt": "x"})]
    ),
    Message.assistant("giving up"),
]

LOCUS_TABLE: dict[str, tuple[Callable[[], Any], str, list[Message], str | None]] = {
    "MaxIterations(1)": (lambda: MaxIterations(1), "max_model_calls(1)", script(), None),
    "MaxIterations(2)": (lambda: MaxIterations(2), "max_model_calls(2)", script(), None),
    "TokenLimit(15)": (lambda: TokenLimit(15), "tokens(15)", script(), None),
    "TokenLimit(30)": (lambda: TokenLimit(30), "tokens(30)", script(), None),
    "TokenLimit(31)": (lambda: TokenLimit(31), "tokens(31)", script(), None),
    'TextMention("again")': (
        lambda: TextMention("again"),
        'text("(?i)again", from=[llm])',
        script(),
        None,
    ),
    'TextMention("AGAIN")': (
        lambda: TextMention("AGAIN"),
        'text("(?i)AGAIN", from=[llm])',
        script(),
        None,
    ),
    'TextMention("Again", case_sensitive=True)': (
        lambda: TextMention("Again", case_sensitive=True),
        'text("Again", from=[llm])',
        script(),
        None,
    ),
    'TextMention("sent"), a tool result': (
        lambda: TextMention("sent"),
        'text("(?i)sent", from=[llm])',
        script(),
        None,
    ),
    'TextMention("sent") as text("(?i)sent")': (
        lambda: TextMention("sent"),
        'text("(?i)sent")',
        script(),
        "reads every step's text, a tool's result too",
    ),
    'ToolCalled("send_summary")': (
        lambda: ToolCalled("send_summary"),
        "tool(send_summary, finished)",
        script(),
        None,
    ),
    'ToolCalled("send_summary"), a failed call': (
        lambda: ToolCalled("send_summary"),
        "tool(send_summary, finished)",
        FAILING_SCRIPT,
        None,
    ),
    "NoToolCalls()": (lambda: NoToolCalls(), "no_tool_calls", script(), None),
    'MaxIterations(2) | TextMention("thinking")': (
        lambda: MaxIterations(2) | TextMention("thinking"),
        'max_model_calls(2) | text("(?i)thinking", from=[llm])',
        script(),
        None,
    ),
    'TokenLimit(30) & TextMention("again")': (
        lambda: TokenLimit(30) & TextMention("again"),
        'tokens(30) & text("(?i)again", from=[llm])',
        script(),
        None,
    ),
}


@pytest.mark.parametrize("row", list(LOCUS_TABLE))
def test_locus_table(row):
    theirs_condition, stop, replies, difference = LOCUS_TABLE[row]
    theirs_model = ScriptedModel(list(replies))
    run(theirs_condition() | MaxIterations(5), theirs_model)
    theirs_sent = list(SENT)
    SENT.clear()
    done = DoneseqCondition(stop=stop)
    ours_model = ScriptedModel(list(replies))
    run(done | MaxIterations(5), ours_model)
    ours = (ours_model.calls, list(SENT))
    if difference is None:
        assert ours == (theirs_model.calls, theirs_sent)
    else:
        assert ours != (theirs_model.calls, theirs_sent)
        assert_listed("Differences from the other frameworks", difference)


def test_a_failed_tool_call_is_an_error_step():
    # locus's tool message of a failed call is empty; the failure is in the state's
    # tool_executions, where the condition reads it.
    done = DoneseqCondition(stop="consecutive_errors(1)")
    model = ScriptedModel(FAILING_SCRIPT)
    result = run(done | MaxIterations(5), model)
    assert done.outcome is not None and done.outcome.kind == "failed"
    assert model.calls == 1 and SENT == []
    failed = result.state.tool_executions[0]
    assert failed.error and doneseq.locus.tool_errors(result.state) == {"c1": failed.error}
    # A failed call did not do the job: `executed` waits, `finished` does not.
    executed = DoneseqCondition(stop="tool(send_summary, executed)")
    model = ScriptedModel(FAILING_SCRIPT)
    run(executed | MaxIterations(5), model)
    assert executed.outcome is None and model.calls == 2


# The locus transcript format against locus's own records of a run: its
# FileCheckpointer's checkpoint, the state's to_checkpoint() and the AgentResult's
# model_dump_json() must stop, whatever the stop rule, where the run's messages as
# the live condition sees them (``to_message``) stop, written as doneseq's JSONL.


@tool
def calculator(expression: str) -> str:
    """Evaluates an arithmetic expression."""
    return {"6*7": "42"}[expression]


@tool
def divide(a: int, b: int) -> float:
    """Divides a by b."""
    return a / b


CALC_SCRIPT = [
    Message.assistant(
        "Let me compute.",
        tool_calls=[ToolCall(id="c1", name="calculator", arguments={"expression": "6*7"})],
    ),
    Message.assistant(
        None, tool_calls=[ToolCall(id="c2", name="divide", arguments={"a": 1, "b": 0})]
    ),
    Message.assistant("42."),
]


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    directory = tmp_path_factory.mktemp("locus_run")
    agent = Agent(
        model=ScriptedModel(list(CALC_SCRIPT)),
        tools=[calculator, divide],
        checkpointer=FileCheckpointer(directory / "checkpoints"),
        system_prompt="You are careful.",
    )
    result = agent.run_sync("What is 6*7?", thread_id="t1")
    [checkpoint] = (directory / "checkpoints" / "t1").glob("*.json")
    errors = doneseq.locus.tool_errors(result.state)
    lines = [doneseq.locus.to_message(m, errors) for m in result.state.messages]
    return {
        "checkpoint": checkpoint,
        "state": write_text(directory / "state.json", json.dumps(result.state.to_checkpoint())),
        "result": write_text(directory / "result.json", result.model_dump_json(indent=2)),
        "messages": write_text(
            directory / "run.jsonl", "".join(json.dumps(line) + "\n" for line in lines)
        ),
        "errors": errors,
    }


SAVED_STOPS = [
    "consecutive_errors(1)",
    "tool(divide)",
    "tool(divide, executed)",
    "tool(calculator, executed)",
    'seq("T[calculator], A")',
    'seq("A@divide")',
    "max_model_calls(2)",
    "no_tool_calls",
    "max_turns(3)",
]


@pytest.mark.parametrize("stop", SAVED_STOPS)
def test_locus_records_of_a_run_stop_as_its_messages(saved, stop):
    records = {saved[name]: "locus" for name in ("checkpoint", "state", "result")}
    replay = read_alike(stop, records, saved["messages"])
    # Three replies and two tool results are steps; the system and user prompts not.
    assert replay["recorded_steps"] == 5
    assert list(saved["errors"]) == ["c2"]


@pytest.mark.parametrize("stop", ["consecutive_errors(1)", 'seq("T[calculator], A")'])
def test_a_saved_run_stops_where_the_live_condition_stopped(saved, stop):
    replay = doneseq.Monitor(stop=stop).check_file(saved["checkpoint"])
    done = DoneseqCondition(stop=stop)
    model = ScriptedModel(list(CALC_SCRIPT))
    agent = Agent(model=model, tools=[calculator, divide], termination=done | MaxIterations(5))
    agent.run_sync("What is 6*7?")
    assert_stops_as_live(replay, done.outcome)
