"""The smolagents transcript format against real smolagents runs: a run's memory
(``agent.memory.get_full_steps()`` as a JSON array, ``get_succinct_steps()`` one a
line) must stop, whatever the stop rule, where the same steps written one by one as
doneseq's JSONL stop. The runs are of scripted models (offline): a ToolCallingAgent
that plans, calls a tool twice in a step, calls a tool that raises, and answers; a
CodeAgent whose code calls the tools (the second call raises) and answers with a
dict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from recorded_runs import read_alike
from smolagents import CodeAgent, Model, ToolCallingAgent, tool
from smolagents.memory import ActionStep, PlanningStep, TaskStep
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    TokenUsage,
)

import doneseq


@tool
def add(a: int, b: int) -> int:
    """Adds two numbers.

    Args:
        a: the first
        b: the second
    """
    return a + b


@tool
def divide(a: int, b: int) -> float:
    """Divides a by b.

    Args:
        a: the dividend
        b: the divisor
    """
    return a / b


def call(id: str, name: str, **args: Any) -> ChatMessageToolCall:
    function = ChatMessageToolCallFunction(name=name, arguments=args)
    return ChatMessageToolCall(id=id, type="function", function=function)


def reply(content: str | None, *calls: ChatMessageToolCall, tokens: tuple[int, int]) -> ChatMessage:
    usage = TokenUsage(input_tokens=tokens[0], output_tokens=tokens[1])
    return ChatMessage(
        role="assistant", content=content, tool_calls=list(calls) or None, token_usage=usage
    )


class Scripted(Model):
    """A model that answers from a script."""

    def __init__(self, script: list[ChatMessage]) -> None:
        super().__init__(model_id="scripted")
        self.script = script

    def generate(self, messages: Any, **kwargs: Any) -> ChatMessage:
        return self.script.pop(0)


TOOL_SCRIPT = [
    ("1. Add 2 and 3.\n2. Divide 1 by 0.\n3. Answer.", [], (25, 14)),
    ("Adding both pairs.", [call("c1", "add", a=2, b=3), call("c2", "add", a=1, b=1)], (120, 22)),
    (None, [call("c3", "divide", a=1, b=0)], (160, 11)),
    (None, [call("c4", "final_answer", answer="5, and 1 / 0 is undefined.")], (210, 17)),
]

CODE_SCRIPT = [
    ("Thought: add first.\n<code>\nprint(add(2, 3))\n</code>", [], (40, 12)),
    ("Thought: now divide.\n<code>\nprint(divide(1, 0))\n</code>", [], (60, 10)),
    ("Thought: done.\n<code>\nfinal_answer({'sum': 5, 'quotient': None})\n</code>", [], (80, 15)),
]


def text(content: Any) -> str | None:
    """A model's output as text: a string, or its text blocks joined."""
    if content is None or isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text")


def answer(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def lines(steps: list[Any]) -> list[dict[str, Any]]:
    """A run's memory steps as doneseq's JSONL (a step this test does not know fails
    it): a task the user's; a plan the model's; an action step the model's turn (its
    calls, the model's message's where the step's are empty) and its observations, or
    its error, as the agent's message (the call's where it made one), failed with the
    error; the final answer's step ends with a stop, its answer the result."""
    out: list[dict[str, Any]] = []
    for step in steps:
        if isinstance(step, TaskStep):
            out.append({"role": "user", "content": step.task})
        elif isinstance(step, PlanningStep):
            usage = step.token_usage
            out.append({"role": "llm", "content": step.plan, "usage": {
                "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            }})  # fmt: skip
        elif isinstance(step, ActionStep):
            calls = [(c.id, c.name, c.arguments) for c in step.tool_calls or []]
            if not calls and step.model_output_message and step.model_output_message.tool_calls:
                calls = [(c.id, c.function.name, c.function.arguments)
                         for c in step.model_output_message.tool_calls]  # fmt: skip
            usage = step.token_usage
            out.append({
                "role": "llm",
                "content": text(step.model_output) or "",
                "tool_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in calls],
                "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
            })  # fmt: skip
            error = str(step.error.message) if step.error else None
            result = step.observations if step.observations is not None else error
            if step.is_final_answer and step.action_output is not None:
                result = answer(step.action_output)
            if result is None:
                continue
            line: dict[str, Any] = {"role": "agent", "content": result}
            if len(calls) == 1:
                line["tool_call_id"], line["tool_name"] = calls[0][0], calls[0][1]
            if error is not None:
                line["error"] = error
            if step.is_final_answer:
                line["stop"] = True
            out.append(line)
        else:
            raise AssertionError(f"a step this test does not convert: {step!r}")
    return out


def run(agent_class: type, script: list[Any], directory: Path, **options: Any) -> list[Path]:
    """The agent's run saved as smolagents saves it (the full steps, the succinct ones
    a line), and as doneseq's JSONL (last)."""
    model = Scripted([reply(content, *calls, tokens=tokens) for content, calls, tokens in script])
    agent = agent_class(tools=[add, divide], model=model, max_steps=6, verbosity_level=0, **options)
    agent.run("Add 2 and 3, then divide 1 by 0.")
    assert not model.script, "the run did not take every scripted reply"
    steps = agent.memory.steps
    assert [type(s).__name__ for s in steps if not isinstance(s, TaskStep)][-1] == "ActionStep"
    assert any(isinstance(s, ActionStep) and s.error for s in steps)
    assert steps[-1].is_final_answer
    files = {
        "full.json": json.dumps(agent.memory.get_full_steps(), indent=1),
        "succinct.jsonl": "".join(json.dumps(s) + "\n" for s in agent.memory.get_succinct_steps()),
        "run.jsonl": "".join(json.dumps(line) + "\n" for line in lines(steps)),
    }
    for name, content in files.items():
        (directory / name).write_text(content)
    return [directory / name for name in files]


@pytest.fixture(scope="module")
def tool_run(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    directory = tmp_path_factory.mktemp("tool_calling")
    return run(ToolCallingAgent, TOOL_SCRIPT, directory, planning_interval=10)


@pytest.fixture(scope="module")
def code_run(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return run(CodeAgent, CODE_SCRIPT, tmp_path_factory.mktemp("code"))


TOOL_STOPS = [
    'seq("T[add], A")',
    'seq("T[divide], A")',
    "tool(divide)",
    "tool(divide, finished)",
    "tool(divide, executed)",
    "consecutive_errors(1)",
    "stop_message",
    "no_tool_calls",
    "max_model_calls(2)",
    "max_turns(3)",
    "tokens(200)",
    "loop(repeats=2)",
]


@pytest.mark.parametrize("stop", TOOL_STOPS)
def test_a_tool_calling_agents_memory_stops_as_its_steps(tool_run, stop):
    *saved, messages = tool_run
    replay = read_alike(stop, dict.fromkeys(saved, "smolagents"), messages)
    # The plan, three model turns and their three results are steps; the task is not.
    assert replay["recorded_steps"] == 7
    assert replay["recorded_tokens"] == sum(i + o for _, _, (i, o) in TOOL_SCRIPT)


CODE_STOPS = [
    "tool(python_interpreter, executed)",
    "consecutive_errors(1)",
    "stop_message",
    "max_turns(2)",
    "tokens(80)",
    'seq("C[Execution logs]")',
]


@pytest.mark.parametrize("stop", CODE_STOPS)
def test_a_code_agents_memory_stops_as_its_steps(code_run, stop):
    *saved, messages = code_run
    replay = read_alike(stop, dict.fromkeys(saved, "smolagents"), messages)
    assert replay["recorded_steps"] == 6
    assert replay["recorded_tokens"] == sum(i + o for _, _, (i, o) in CODE_SCRIPT)


def test_the_final_answer_is_the_stop_and_its_answer(code_run):
    replay = doneseq.Monitor(stop="stop_message").check_file(code_run[0])
    assert (replay["kind"], replay["steps"]) == ("done", 6)
    assert json.loads(replay["answer"]) == {"sum": 5, "quotient": None}


def test_a_damaged_step_is_an_error_naming_its_line(tool_run, tmp_path):
    steps = [json.loads(line) for line in tool_run[1].read_text().splitlines()]
    steps[2]["model_output"] = 7
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(json.dumps(s) + "\n" for s in steps))
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(damaged)
    assert replay["error"].startswith("line 3: "), replay
    assert "neither a text nor a list of content blocks" in replay["error"], replay
    assert "format smolagents (detected)" in replay["error"], replay
