"""The pydantic-ai transcript format against real Pydantic AI runs: the message
history a run writes (``all_messages_json()``, a JSON array; and the same one message
a line) must stop, whatever the stop rule, where the run's messages written part by
part as doneseq's JSONL stop. The runs are of Pydantic AI's function model (offline):
a model that thinks, calls tools (one with arguments that fail validation, one that
asks for a retry), gives an output its validator refuses, then the output; and a
second run, given the first's history, whose text the validator refuses first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, ImageUrl, ModelRetry
from pydantic_ai.messages import ModelResponse, TextPart, ThinkingPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.usage import RequestUsage
from pydantic_ai_lines import doneseq_lines
from recorded_runs import read_alike

import doneseq


class Answer(BaseModel):
    value: int


def response(*parts: Any, tokens: tuple[int, int]) -> ModelResponse:
    return ModelResponse(
        parts=list(parts), usage=RequestUsage(input_tokens=tokens[0], output_tokens=tokens[1])
    )


SCRIPT = [
    response(
        ThinkingPart(content="I should add them."),
        TextPart("Let me compute."),
        ToolCallPart("add", {"a": 2, "b": 3}, tool_call_id="call_1"),
        tokens=(52, 14),
    ),
    response(ToolCallPart("add", '{"a": "two"}', tool_call_id="call_2"), tokens=(71, 9)),
    response(ToolCallPart("lookup", {"key": "b"}, tool_call_id="call_3"), tokens=(120, 8)),
    response(ToolCallPart("final_result", {"value": -5}, tool_call_id="call_4"), tokens=(131, 10)),
    response(ToolCallPart("final_result", {"value": 5}, tool_call_id="call_5"), tokens=(150, 10)),
    response(TextPart("I don't know."), tokens=(170, 5)),
    response(TextPart("I added 2 and 3."), tokens=(190, 7)),
]


def run_twice() -> Any:
    """The two runs (the second given the first's history): the second's result,
    which holds the history of both."""
    script = iter(SCRIPT)
    agent = Agent(
        FunctionModel(lambda messages, info: next(script)),
        output_type=[Answer, str],
        system_prompt="You add numbers.",
        instructions="Be brief.",
    )

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Adds two numbers."""
        return a + b

    @agent.tool_plain
    def lookup(key: str) -> str:
        """Looks a value up."""
        raise ModelRetry(f"no value for {key}")

    @agent.output_validator
    def positive(output: Answer | str) -> Answer | str:
        if isinstance(output, Answer) and output.value < 0:
            raise ModelRetry("the sum of two positive numbers is positive")
        if isinstance(output, str) and "know" in output:
            raise ModelRetry("say how you got it")
        return output

    first = agent.run_sync("What is 2 + 3?")
    assert first.output == Answer(value=5)
    second = agent.run_sync(
        ["How did you get it?", ImageUrl("https://example.com/sum.png")],
        message_history=first.all_messages(),
    )
    assert second.output == "I added 2 and 3."
    assert next(script, None) is None
    return second


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, str]:
    """The run's history as Pydantic AI writes it (an array), the same one message a
    line, and the run as doneseq's JSONL: each path with its format."""
    result = run_twice()
    messages = result.all_messages()
    kinds = {p.part_kind for m in messages for p in m.parts}
    # Every part the format maps differently is in the run.
    assert kinds == {
        "system-prompt",
        "user-prompt",
        "thinking",
        "text",
        "tool-call",
        "tool-return",
        "retry-feedback",
    }
    outcomes = {p.outcome for m in messages for p in m.parts if p.part_kind == "tool-return"}
    assert outcomes == {"success", "retried"}
    directory = tmp_path_factory.mktemp("pydantic-ai")
    history, lines, jsonl = (directory / n for n in ("history.json", "lines.jsonl", "run.jsonl"))
    history.write_bytes(result.all_messages_json())
    elements = json.loads(result.all_messages_json())
    lines.write_text("".join(json.dumps(m) + "\n" for m in elements))
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in doneseq_lines(messages)))
    return {history: "pydantic-ai", lines: "pydantic-ai", jsonl: "jsonl"}


STOPS = [
    'seq("T[final_result]")',
    'seq("T[add], A, T[add], A")',
    'seq("L, E")',
    "tool(final_result, executed)",
    "tool(lookup, executed)",
    "consecutive_errors(2)",
    "consecutive_errors(3)",
    "no_tool_calls",
    "max_model_calls(3)",
    "max_turns(6)",
    "tokens(400)",
    "loop(repeats=2)",
    "final | done_signal",
]


@pytest.mark.parametrize("stop", STOPS)
def test_the_history_stops_as_the_runs_messages(run, stop):
    [history, lines, jsonl] = run
    replay = read_alike(stop, {history: "pydantic-ai", lines: "pydantic-ai"}, jsonl)
    # Every model turn, tool return, feedback and the second prompt is a step; the
    # system prompt, the instructions and the task are not.
    assert replay["recorded_steps"] == 14
    tokens = sum(r.usage.input_tokens + r.usage.output_tokens for r in SCRIPT)
    assert replay["recorded_tokens"] == tokens


def test_a_damaged_history_is_an_error_naming_its_line_and_part(run, tmp_path):
    history = next(iter(run))
    elements = json.loads(history.read_text())
    del elements[3]["parts"][0]["tool_name"]
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(json.dumps(m) + "\n" for m in elements))
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(damaged)
    assert replay["error"].startswith("line 4: "), replay
    assert 'part 1 of 1 ("tool-call") has no "tool_name"' in replay["error"], replay
    assert "format pydantic-ai (detected)" in replay["error"], replay
