"""doneseq.openai_agents against the OpenAI Agents SDK itself: real ``Runner.run``s
of an ``Agent`` with a function tool, on the SDK's own offline ``ScriptedModel``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, Usage, function_tool
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

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
