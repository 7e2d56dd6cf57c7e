"""doneseq.openai_agents against the OpenAI Agents SDK itself: real ``Runner.run``s
of an ``Agent`` with a function tool, on the SDK's own offline ``ScriptedModel``."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable

import pytest
from agents import (
    Agent,
    MaxTurnsExceeded,
    RunConfig,
    Runner,
    StopAtTools,
    Usage,
    function_tool,
)
from agents.models.chatcmpl_converter import Converter
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from framework_table import assert_listed
from recorded_runs import assert_stops_as_live, replayed

import doneseq
from doneseq.openai_agents import DoneseqStop, Stopped

SEARCHES: list[str] = []


@function_tool
def search(query: str) -> str:
    """Searches the web."""
    SEARCHES.append(query)
    return f"results for {query}"


def script() -> list[ModelStep]:
    return [
        ModelStep(
            output=[function_call("search", {"query": "a"}, call_id="c1")],
            usage=Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15),
        ),
        ModelStep(output=[function_call("search", {"query": "b"}, call_id="c2")]),
        ModelStep(output=[assistant_message("The answer is B.")]),
    ]


def run(stop: DoneseqStop | None, model: ScriptedModel, task: str = "Find it") -> Any:
    agent = Agent(
        name="research",
        model=model,
        tools=[search],
        **({"tool_use_behavior": stop.tool_use_behavior} if stop else {}),
    )
    config = RunConfig(tracing_disabled=True)
    hooks = {"hooks": stop.hooks} if stop else {}
    return asyncio.run(Runner.run(agent, task, run_config=config, **hooks))


@pytest.fixture(autouse=True)
def _clear_searches():
    SEARCHES.clear()


def test_a_done_sequence_ends_the_run_with_its_answer():
    stop = DoneseqStop(done_sequences=["T[search], A"])
    model = ScriptedModel(script())
    result = run(stop, model)
    assert result.final_output == "results for a"
    assert stop.outcome is not None
    # The input is not a step: the model's call is step 0, the tool's result step 1.
    assert (stop.outcome.kind, stop.outcome.matched) == ("done", (0, 1))
    assert model.remaining_steps == 2
    # The SDK alone goes on to the model's text reply.
    plain = ScriptedModel(script())
    assert run(None, plain).final_output == "The answer is B."
    assert plain.remaining_steps == 0


def test_a_budget_raises_stopped_before_the_tools_run():
    stop = DoneseqStop(stop="tokens(12)")
    with pytest.raises(Stopped) as caught:
        run(stop, ScriptedModel(script()))
    outcome = caught.value.outcome
    assert (outcome.kind, outcome.condition, outcome.at) == ("exhausted", "tokens(12)", 0)
    assert SEARCHES == []
    assert stop.outcome is outcome


def test_tool_results_keep_their_call_ids():
    stop = DoneseqStop(stop="tool(search, executed)")
    result = run(stop, ScriptedModel(script()))
    assert stop.outcome is not None
    assert (stop.outcome.condition, stop.outcome.at) == ("tool(search, executed)", 1)
    assert result.final_output == "results for a"


def test_a_stop_on_the_request_lets_the_tools_run_then_ends():
    stop = DoneseqStop(stop="tool(search)")
    result = run(stop, ScriptedModel(script()))
    assert stop.outcome is not None and stop.outcome.at == 0
    assert SEARCHES == ["a"]
    assert result.final_output == stop.outcome.answer


def test_a_final_answer_in_the_models_text_is_seen():
    stop = DoneseqStop(stop="final")
    model = ScriptedModel([ModelStep(output=[assistant_message("FINAL('Paris')")])])
    result = run(stop, model)
    # The SDK ends the run at a text reply with that text; doneseq saw its answer.
    assert result.final_output == "FINAL('Paris')"
    assert stop.outcome is not None and stop.outcome.answer == "Paris"


def test_each_run_starts_fresh():
    stop = DoneseqStop(done_sequences=["T[search], A"])
    model = ScriptedModel(script() + script())
    first = run(stop, model)
    second = run(stop, model, "Again")
    assert first.final_output == "results for a"
    # A second call and result: had the first run's steps been kept, the sequence
    # would have matched at steps 2..3.
    assert second.final_output == "results for b"
    assert stop.outcome is not None and stop.outcome.matched == (0, 1)


def test_bad_configuration_is_a_doneseq_error():
    with pytest.raises(doneseq.DslError):
        DoneseqStop(done_sequences=["T A"])
    with pytest.raises(doneseq.StopExprError):
        DoneseqStop(stop="tokens(")


# The SDK's ways to end a run beside their doneseq twins: each row runs the same script
# twice, ended once by the SDK's own setting (``tool_use_behavior``, ``max_turns``) and
# once by doneseq's, and compares the final output (or the exception's kind), the model
# calls made and the tools run. A row that differs on purpose names its line under
# "Differences from the other frameworks" in the README, and must differ.


def long_script() -> list[ModelStep]:
    return [
        ModelStep(output=[function_call("search", {"query": q}, call_id=f"c{q}")]) for q in "abcd"
    ] + [ModelStep(output=[assistant_message("The answer is D.")])]


def parallel_script() -> list[ModelStep]:
    calls = [function_call("search", {"query": q}, call_id=f"c{q}") for q in "xy"]
    return [ModelStep(output=calls), ModelStep(output=[assistant_message("Both.")])]


SDK = dict[str, Any]  # the SDK's settings: tool_use_behavior, max_turns
SDK_TABLE: dict[str, tuple[SDK, str, Callable[[], list[ModelStep]], str | None]] = {
    "the default: a text reply ends the run": ({}, "no_tool_calls", long_script, None),
    '"stop_on_first_tool"': (
        {"tool_use_behavior": "stop_on_first_tool"},
        "tool(when=finished)",
        long_script,
        None,
    ),
    '"stop_on_first_tool", two calls in a turn': (
        {"tool_use_behavior": "stop_on_first_tool"},
        "tool(when=finished)",
        parallel_script,
        None,
    ),
    'StopAtTools(["search"])': (
        {"tool_use_behavior": StopAtTools(stop_at_tool_names=["search"])},
        "tool(search, finished)",
        long_script,
        None,
    ),
    'StopAtTools(["other"])': (
        {"tool_use_behavior": StopAtTools(stop_at_tool_names=["other"])},
        "tool(other, finished)",
        long_script,
        None,
    ),
    "max_turns=2": (
        {"max_turns": 2},
        "max_model_calls(2)",
        long_script,
        "`max_model_calls(n)` stops at the nth model response, before its tools run",
    ),
    "max_turns=5, the fifth reply is text": (
        {"max_turns": 5},
        "max_model_calls(5)",
        long_script,
        "raises `Stopped` even when that response is the final text",
    ),
    "max_turns=6, enough": ({"max_turns": 6}, "max_model_calls(6)", long_script, None),
}


def sdk_end(
    behavior: Any, hooks: Any, max_turns: int, steps: list[ModelStep]
) -> tuple[Any, int, list[str]]:
    """How a run ends: the final output or the exception's class, the model calls
    left unmade and the tools run."""
    SEARCHES.clear()
    model = ScriptedModel(steps)
    agent = Agent(
        name="research",
        model=model,
        tools=[search],
        **({"tool_use_behavior": behavior} if behavior is not None else {}),
    )
    config = RunConfig(tracing_disabled=True)
    extra = {"hooks": hooks} if hooks is not None else {}
    try:
        result = asyncio.run(
            Runner.run(agent, "Find it", run_config=config, max_turns=max_turns, **extra)
        )
        end: Any = result.final_output
    except (MaxTurnsExceeded, Stopped) as stopped:
        end = "stopped: a budget"
        if isinstance(stopped, Stopped):
            assert stopped.outcome.kind == "exhausted"
    return end, model.remaining_steps, list(SEARCHES)


@pytest.mark.parametrize("row", list(SDK_TABLE))
def test_the_sdks_table(row):
    settings, stop, steps, difference = SDK_TABLE[row]
    theirs = sdk_end(
        settings.get("tool_use_behavior"), None, settings.get("max_turns", 10), steps()
    )
    ours_stop = DoneseqStop(stop=stop)
    ours = sdk_end(ours_stop.tool_use_behavior, ours_stop.hooks, 10, steps())
    if difference is None:
        assert ours == theirs
    else:
        assert ours != theirs
        assert_listed("Differences from the other frameworks", difference)


# The run's own log, replayed: a run of the SDK alone, its items as the SDK gives them
# (`to_input_list()`, written as one JSON array and as one item a line) and as the
# SDK's Chat Completions model sends them (its converter's messages, as a request and
# one a line), read back by doneseq's transcript reader (`check_file`, the format
# detected and named), stops where the live `DoneseqStop` stopped the same script:
# the same verdict, after as many steps, with the same answer and the same condition.
# (Neither carries token usage, so no budget of tokens is among these.)
REPLAYED: dict[str, tuple[str, Callable[[], list[ModelStep]]]] = {
    **{row: (stop, steps) for row, (_, stop, steps, _) in SDK_TABLE.items()},
    "a done sequence": ('seq("T[search], A")', script),
    "a done sequence, two calls in a turn": ('seq("T[search], A")', parallel_script),
    "a tool's result": ("tool(search, executed)", script),
    "a request": ("tool(search)", long_script),
    "a final answer": (
        "final",
        lambda: [ModelStep(output=[assistant_message("FINAL('Paris')")])],
    ),
    "a budget of turns": ("max_turns(3)", long_script),
    "a budget of messages, events counted": ("max_messages(4, events=true)", long_script),
}


def live_outcome(stop: DoneseqStop, steps: list[ModelStep]) -> Any:
    """The outcome of the script's run with ``stop``, or ``None``."""
    try:
        run(stop, ScriptedModel(steps))
    except Stopped as stopped:
        return stopped.outcome
    return stop.outcome


@pytest.mark.parametrize("row", list(REPLAYED))
def test_the_runs_own_log_replays_to_the_live_verdict(row, tmp_path):
    stop_text, steps = REPLAYED[row]
    stop = DoneseqStop(stop=stop_text)
    live = live_outcome(stop, steps())
    items = run(None, ScriptedModel(steps())).to_input_list()
    messages = Converter.items_to_messages(items)
    logs = {}
    for name, format, text in [
        ("items.json", "openai-responses", json.dumps(items, indent=2)),
        ("items.jsonl", "openai-responses", "".join(json.dumps(i) + "\n" for i in items)),
        ("request.json", "openai", json.dumps({"model": "gpt-4o", "messages": messages})),
        ("messages.jsonl", "openai", "".join(json.dumps(m) + "\n" for m in messages)),
    ]:
        path = tmp_path / name
        path.write_text(text)
        logs[path] = format
    # The run's input is not a step, live or replayed.
    assert_stops_as_live(replayed(stop.monitor, logs), live)
