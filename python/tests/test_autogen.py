"""doneseq.autogen against AutoGen AgentChat itself: real AssistantAgents in a
RoundRobinGroupChat, driven offline by autogen-ext's ReplayChatCompletionClient."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Callable, Optional

import pytest
from autogen_agentchat.agents import AssistantAgent, BaseChatAgent
from autogen_agentchat.base import Response, TaskResult, TerminationCondition
from autogen_agentchat.conditions import (
    FunctionCallTermination,
    HandoffTermination,
    MaxMessageTermination,
    SourceMatchTermination,
    StopMessageTermination,
    TextMentionTermination,
    TextMessageTermination,
    TokenUsageTermination,
)
from autogen_agentchat.messages import (
    BaseChatMessage,
    StopMessage,
    TextMessage,
    ToolCallSummaryMessage,
)
from autogen_agentchat.teams import RoundRobinGroupChat
from autogen_core import CancellationToken, FunctionCall
from autogen_core.models import CreateResult, ModelFamily, RequestUsage
from autogen_ext.models.replay import ReplayChatCompletionClient
from framework_table import assert_listed
from recorded_runs import assert_stops_as_live, replayed

import doneseq
from doneseq.autogen import DoneseqTermination

MODEL_INFO: Any = {
    "vision": False,
    "function_calling": True,
    "json_output": False,
    "family": ModelFamily.UNKNOWN,
    "structured_output": False,
}


def calculator(expression: str) -> str:
    """Evaluates an arithmetic expression."""
    if expression == "1/0":
        raise ZeroDivisionError("division by zero")
    return str(eval(expression, {"__builtins__": {}}, {}))


def call(expression: str, call_id: str = "c1") -> CreateResult:
    return CreateResult(
        finish_reason="function_calls",
        content=[
            FunctionCall(
                id=call_id, name="calculator", arguments=f'{{"expression": "{expression}"}}'
            )
        ],
        usage=RequestUsage(prompt_tokens=10, completion_tokens=5),
        cached=False,
    )


SCRIPT: list[Any] = [call("6*7"), "The answer is 42.", "Anything else?", "Bye.", "Bye again."]


def team(termination: TerminationCondition, script: list[Any] = SCRIPT) -> RoundRobinGroupChat:
    client = ReplayChatCompletionClient(list(script), model_info=MODEL_INFO)
    agent = AssistantAgent("assistant", model_client=client, tools=[calculator])
    return RoundRobinGroupChat([agent], termination_condition=termination)


def run(t: RoundRobinGroupChat, task: str = "What is 6*7?") -> TaskResult:
    return asyncio.run(t.run(task=task))


def test_a_done_sequence_ends_the_team_after_the_tool_round():
    done = DoneseqTermination(done_sequences=["calc: T[calculator], A"])
    result = run(team(done | MaxMessageTermination(4)))
    kinds = [type(m).__name__ for m in result.messages]
    assert kinds == [
        "TextMessage",
        "ToolCallRequestEvent",
        "ToolCallExecutionEvent",
        "ToolCallSummaryMessage",
    ]
    assert result.stop_reason == "doneseq: done at step 2: done sequence 0 'calc'"
    outcome = done.outcome
    assert outcome is not None
    assert (outcome.kind, outcome.sequence_name, outcome.answer) == ("done", "calc", "42")
    # The task message is step 0, the request step 1, the tool's result step 2.
    assert outcome.matched == (1, 2)
    # AutoGen alone, with its message budget, goes on talking after the answer.
    plain = run(team(MaxMessageTermination(4)))
    assert len(plain.messages) > len(result.messages)
    assert plain.stop_reason is not None and "Maximum number of messages" in plain.stop_reason


def test_tool_results_keep_their_call_ids_and_errors():
    done = DoneseqTermination(stop="consecutive_errors(1)")
    result = run(team(done | MaxMessageTermination(6), [call("1/0"), "It failed.", "Bye."]))
    outcome = done.outcome
    assert outcome is not None
    assert (outcome.kind, outcome.condition, outcome.at) == ("failed", "consecutive_errors(1)", 2)
    assert result.stop_reason is not None and result.stop_reason.startswith("doneseq: failed")
    # tool(calculator, executed) needs the result's call id to match the request's.
    done = DoneseqTermination(stop="tool(calculator, executed)")
    run(team(done | MaxMessageTermination(6)))
    assert done.outcome is not None and (done.outcome.condition, done.outcome.at) == (
        "tool(calculator, executed)",
        2,
    )


def test_usage_from_model_calls_counts_against_a_token_budget():
    done = DoneseqTermination(stop="tokens(12)")
    run(team(done | MaxMessageTermination(6)))
    outcome = done.outcome
    assert outcome is not None
    assert (outcome.kind, outcome.condition) == ("exhausted", "tokens(12)")
    leading = next(c for c in outcome.conditions if c["text"] == "tokens(12)")
    assert leading["evidence"]["total"] >= 12


def test_a_final_answer_in_the_models_text():
    done = DoneseqTermination(stop="final")
    result = run(team(done | MaxMessageTermination(8), ["Thinking.", "FINAL('Paris')", "More."]))
    assert done.outcome is not None and done.outcome.answer == "Paris"
    assert result.messages[-1].to_model_text() == "FINAL('Paris')"


def test_composes_with_autogens_own_conditions():
    # `|`: AutoGen's message budget wins before doneseq's much larger one.
    done = DoneseqTermination(stop="max_turns(100)")
    result = run(team(done | MaxMessageTermination(2)))
    assert result.stop_reason is not None and "Maximum number of messages" in result.stop_reason
    assert done.outcome is None
    # `&`: both must hold; doneseq's sequence fires first, AutoGen's mention later.
    done = DoneseqTermination(done_sequences=["T[calculator], A"])
    both = done & TextMentionTermination("Bye.")
    result = run(team(both | MaxMessageTermination(8)))
    assert result.stop_reason is not None
    assert "doneseq: done" in result.stop_reason and "Bye." in result.stop_reason
    assert result.messages[-1].to_model_text() == "Bye."


def test_the_team_resets_it_and_the_outcome_stays():
    done = DoneseqTermination(done_sequences=["T[calculator], A"])
    t = team(done | MaxMessageTermination(10), [call("6*7"), call("2*3", "c2"), "ok"])
    outcomes = []

    async def two_tasks() -> TaskResult:
        await t.run(task="What is 6*7?")
        outcomes.append(done.outcome)
        # The team reset the condition after the stop: a new task starts a clean run.
        assert not done.terminated
        return await t.run(task="And 2*3?")

    second = asyncio.run(two_tasks())
    first = outcomes[0]
    assert first is not None and first.answer == "42"
    assert isinstance(second.messages[-1], ToolCallSummaryMessage)
    assert done.outcome is not None and (done.outcome.answer, done.outcome.at) == ("6", 2)
    assert done.outcome is not first


def test_dump_and_load_component():
    done = DoneseqTermination(
        done_sequences=["calc: TOOL[calculator], agent"], stop="max_turns(9)", max_turns=20
    )
    model = done.dump_component()
    assert model.provider == "doneseq.autogen.DoneseqTermination"
    assert model.config == {
        "done_sequences": ["calc: T[calculator], A"],
        "stop": "max_turns(9)",
        "options": {"max_turns": 20},
    }
    loaded = TerminationCondition.load_component(model)
    assert isinstance(loaded, DoneseqTermination)
    assert loaded.monitor.lowered == done.monitor.lowered
    result = run(team(loaded | MaxMessageTermination(6)))
    assert loaded.outcome is not None and loaded.outcome.sequence_name == "calc"
    assert result.stop_reason is not None and result.stop_reason.startswith("doneseq: done")


def test_bad_configuration_is_a_doneseq_error():
    with pytest.raises(doneseq.DslError):
        DoneseqTermination(done_sequences=["T A"])
    with pytest.raises(doneseq.StopExprError):
        DoneseqTermination(stop="max_turn(3)")
    with pytest.raises(doneseq.ConfigError):
        DoneseqTermination(max_turn=3)


def test_stop_and_handoff_messages_keep_their_kinds():
    from autogen_agentchat.messages import HandoffMessage, StopMessage, TextMessage

    from doneseq.autogen import to_messages

    stop = to_messages(StopMessage(content="TERMINATE", source="assistant"))
    assert stop == [
        {"role": "assistant", "content": "TERMINATE", "name": "assistant", "stop": True}
    ]
    handoff = to_messages(HandoffMessage(content="over", source="assistant", target="user"))
    assert handoff[0]["handoff"] == "user"
    # A tool result carries its tool's name, so it counts without its request in view.
    from autogen_agentchat.messages import ToolCallExecutionEvent
    from autogen_core.models import FunctionExecutionResult

    results = to_messages(
        ToolCallExecutionEvent(
            content=[FunctionExecutionResult(content="42", name="calculator", call_id="c9")],
            source="assistant",
        )
    )
    assert results[0]["tool_name"] == "calculator"
    later = DoneseqTermination(stop="tool(calculator, executed)")
    assert (
        asyncio.run(
            later(
                [
                    ToolCallExecutionEvent(
                        content=[
                            FunctionExecutionResult(content="42", name="calculator", call_id="c9")
                        ],
                        source="assistant",
                    )
                ]
            )
        )
        is not None
    )
    # AutoGen's own conditions, as doneseq conditions, on AutoGen's messages.
    done = DoneseqTermination(stop="handoff(user) | stop_message | max_messages(3)")

    async def feed() -> list:
        outcomes = []
        for message in [
            TextMessage(content="task", source="user"),
            HandoffMessage(content="over", source="assistant", target="user"),
        ]:
            outcomes.append(await done([message]))
        return outcomes

    first, second = asyncio.run(feed())
    assert first is None and second is not None
    assert done.outcome is not None and done.outcome.condition == "handoff([user])"


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_max_messages_counts_as_autogen_counts(n):
    # The adapter counts as AutoGen does (the task message is a message), so
    # doneseq's max_messages(n) ends the team where MaxMessageTermination(n) does.
    theirs = run(team(MaxMessageTermination(n)))
    done = DoneseqTermination(stop=f"max_messages({n})")
    ours = run(team(done | MaxMessageTermination(50)))
    assert done.outcome is not None and done.outcome.kind == "exhausted"
    assert [type(m).__name__ for m in ours.messages] == [type(m).__name__ for m in theirs.messages]
    # Counted as a chat log (the task message is the task's input), it ends one
    # message later.
    later = DoneseqTermination(stop=f"max_messages({n})", input="leading")
    longer = run(team(later | MaxMessageTermination(50)))
    assert len(longer.messages) > len(ours.messages)


# AutoGen's built-in termination conditions beside their doneseq twins. Each row runs a
# real team twice on the same script, ended once by AutoGen's condition and once by
# doneseq's (each capped by the same message budget), and the two conversations must be
# the same message for message. A row that differs on purpose names its line under
# "Differences from the other frameworks" in the README, and must differ.

CAP = 12
LONG: list[Any] = [call("6*7"), "The answer is 42.", "Anything else?", "Bye.", "Bye again."] + [
    f"Still here ({i})." for i in range(8)
]
FAILING: list[Any] = [call("1/0"), "It failed.", "Bye."] + [f"Waiting ({i})." for i in range(8)]
HANDOFF: list[Any] = [
    "Let me ask.",
    CreateResult(
        finish_reason="function_calls",
        content=[FunctionCall(id="h1", name="transfer_to_user", arguments="{}")],
        usage=RequestUsage(prompt_tokens=10, completion_tokens=3),
        cached=False,
    ),
] + [f"Back ({i})." for i in range(CAP)]


class Stopper(BaseChatAgent):
    """An agent that says "go on" and, at its second turn, sends a StopMessage."""

    def __init__(self) -> None:
        super().__init__("stopper", "Stops the conversation at its second turn.")
        self.turns = 0

    @property
    def produced_message_types(self) -> Sequence[type[BaseChatMessage]]:
        return (TextMessage, StopMessage)

    async def on_messages(
        self, messages: Sequence[BaseChatMessage], cancellation_token: CancellationToken
    ) -> Response:
        self.turns += 1
        if self.turns == 2:
            return Response(chat_message=StopMessage(content="That will do.", source=self.name))
        return Response(chat_message=TextMessage(content="Go on.", source=self.name))

    async def on_reset(self, cancellation_token: CancellationToken) -> None:
        self.turns = 0


def table_team(termination: TerminationCondition, script: str) -> RoundRobinGroupChat:
    lines = {"long": LONG, "failing": FAILING, "handoff": HANDOFF, "stopper": LONG}[script]
    client = ReplayChatCompletionClient(list(lines), model_info=MODEL_INFO)
    agent = AssistantAgent(
        "assistant",
        model_client=client,
        tools=[calculator],
        handoffs=["user"] if script == "handoff" else None,
    )
    agents: list[Any] = [agent, Stopper()] if script == "stopper" else [agent]
    return RoundRobinGroupChat(agents, termination_condition=termination)


def conversation(result: TaskResult) -> list[tuple[str, str, str]]:
    return [(type(m).__name__, m.source, m.to_text()) for m in result.messages]


Row = tuple[Callable[[], TerminationCondition], str, str, Optional[str]]
AUTOGEN_TABLE: dict[str, Row] = {
    "MaxMessageTermination(3)": (lambda: MaxMessageTermination(3), "max_messages(3)", "long", None),
    "MaxMessageTermination(2, include_agent_event=True)": (
        lambda: MaxMessageTermination(2, include_agent_event=True),
        "max_messages(2, events=true)",
        "long",
        None,
    ),
    "MaxMessageTermination(5, include_agent_event=True)": (
        lambda: MaxMessageTermination(5, include_agent_event=True),
        "max_messages(5, events=true)",
        "long",
        None,
    ),
    'TextMentionTermination("42")': (
        lambda: TextMentionTermination("42"),
        'text("42")',
        "long",
        None,
    ),
    'TextMentionTermination("Bye")': (
        lambda: TextMentionTermination("Bye"),
        'text("Bye")',
        "long",
        None,
    ),
    'TextMentionTermination("6*7"), the task message': (
        lambda: TextMentionTermination("6*7"),
        r'text("6\\*7")',
        "long",
        None,
    ),
    'TextMentionTermination("Go on", sources=["stopper"])': (
        lambda: TextMentionTermination("Go on", sources=["stopper"]),
        'text("Go on", from=[@stopper])',
        "stopper",
        None,
    ),
    'TextMentionTermination("answer", sources=["stopper"])': (
        lambda: TextMentionTermination("answer", sources=["stopper"]),
        'text("answer", from=[@stopper])',
        "stopper",
        None,
    ),
    'TextMentionTermination("calculator"), in a tool call': (
        lambda: TextMentionTermination("calculator"),
        'text("calculator")',
        "long",
        "`TextMentionTermination` also reads the text AutoGen gives tool-call events",
    ),
    "TokenUsageTermination(max_total_token=15)": (
        lambda: TokenUsageTermination(max_total_token=15),
        "tokens(15)",
        "long",
        None,
    ),
    "TokenUsageTermination(max_total_token=40)": (
        lambda: TokenUsageTermination(max_total_token=40),
        "tokens(40)",
        "long",
        None,
    ),
    "TokenUsageTermination(max_prompt_token=30)": (
        lambda: TokenUsageTermination(max_prompt_token=30),
        "tokens(input=30)",
        "long",
        None,
    ),
    "TokenUsageTermination(max_completion_token=12)": (
        lambda: TokenUsageTermination(max_completion_token=12),
        "tokens(output=12)",
        "long",
        None,
    ),
    'HandoffTermination("user")': (
        lambda: HandoffTermination("user"),
        "handoff([user])",
        "handoff",
        None,
    ),
    'HandoffTermination("critic"), another target': (
        lambda: HandoffTermination("critic"),
        "handoff([critic])",
        "handoff",
        None,
    ),
    "StopMessageTermination()": (lambda: StopMessageTermination(), "stop_message", "stopper", None),
    'FunctionCallTermination("calculator")': (
        lambda: FunctionCallTermination("calculator"),
        "tool(calculator, finished)",
        "long",
        None,
    ),
    'FunctionCallTermination("calculator"), a failed call': (
        lambda: FunctionCallTermination("calculator"),
        "tool(calculator, finished)",
        "failing",
        None,
    ),
    'FunctionCallTermination("calculator") as tool(calculator, executed), a failed call': (
        lambda: FunctionCallTermination("calculator"),
        "tool(calculator, executed)",
        "failing",
        "`tool(x, executed)` fires on a successful result only",
    ),
    'SourceMatchTermination(["stopper"])': (
        lambda: SourceMatchTermination(["stopper"]),
        "response([@stopper])",
        "stopper",
        None,
    ),
    'SourceMatchTermination(["assistant"])': (
        lambda: SourceMatchTermination(["assistant"]),
        "response([@assistant])",
        "long",
        None,
    ),
    'TextMessageTermination("assistant")': (
        lambda: TextMessageTermination("assistant"),
        "no_tool_calls",
        "long",
        "`no_tool_calls` also fires on a `ToolCallSummaryMessage`",
    ),
    'MaxMessageTermination(3) | TextMentionTermination("42")': (
        lambda: MaxMessageTermination(3) | TextMentionTermination("42"),
        'max_messages(3) | text("42")',
        "long",
        None,
    ),
    'TextMentionTermination("42") & MaxMessageTermination(7)': (
        lambda: TextMentionTermination("42") & MaxMessageTermination(7),
        'text("42") & max_messages(7)',
        "long",
        None,
    ),
    'TextMentionTermination("Bye") & FunctionCallTermination("calculator")': (
        lambda: TextMentionTermination("Bye") & FunctionCallTermination("calculator"),
        'text("Bye") & tool(calculator, finished)',
        "long",
        None,
    ),
}


@pytest.mark.parametrize("row", list(AUTOGEN_TABLE))
def test_autogens_table(row):
    theirs_condition, stop, script, difference = AUTOGEN_TABLE[row]
    theirs = run(table_team(theirs_condition() | MaxMessageTermination(CAP), script))
    done = DoneseqTermination(stop=stop)
    ours = run(table_team(done | MaxMessageTermination(CAP), script))
    # Either AutoGen's condition ended its run or the cap did; doneseq's fired exactly
    # when AutoGen's did.
    assert theirs.stop_reason is not None
    fired = f"Maximum number of messages {CAP} reached" not in theirs.stop_reason
    if difference is None:
        assert conversation(ours) == conversation(theirs)
        assert (done.outcome is not None) == fired
    else:
        assert conversation(ours) != conversation(theirs)
        assert_listed("Differences from the other frameworks", difference)


# The team's own log, replayed: for each row of the table, the recorded run (the team
# with the cap alone, its messages as AutoGen writes them: `model_dump_json()` one a
# line, and the `TaskResult`) read back by doneseq's transcript reader (`check_file`,
# the format detected and named) stops where the live condition stopped the team: the
# same verdict, after as many steps, with the same answer and the same condition.


@pytest.mark.parametrize("row", list(AUTOGEN_TABLE))
def test_the_teams_own_log_replays_to_the_live_verdict(row, tmp_path):
    _, stop, script, _ = AUTOGEN_TABLE[row]
    done = DoneseqTermination(stop=stop)
    run(table_team(done | MaxMessageTermination(CAP), script))
    live = done.outcome
    recorded = run(table_team(MaxMessageTermination(CAP), script))
    lines = tmp_path / "messages.jsonl"
    lines.write_text("".join(m.model_dump_json() + "\n" for m in recorded.messages))
    document = tmp_path / "task_result.json"
    document.write_text(recorded.model_dump_json(indent=2))
    replay = replayed(done.monitor, {lines: "autogen", document: "autogen"})
    assert replay["recorded_steps"] == len(recorded.messages)
    # The task message is a step (AutoGen's counting), live and replayed.
    assert_stops_as_live(replay, live)
