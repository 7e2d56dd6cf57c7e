"""Microsoft Agent Framework runs for the replay tests: its ``Agent`` answers with a
scripted model (a chat client of the test's own, offline: the framework's function
invocation runs the real tools), its history kept every way the framework keeps it,
and the same run written as doneseq's JSONL from the script, to replay both alike."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_framework import (
    Agent,
    AgentResponse,
    BaseChatClient,
    ChatResponse,
    Content,
    FileHistoryProvider,
    Message,
    tool,
)
from agent_framework._tools import FunctionInvocationLayer
from agent_framework.observability import ChatTelemetryLayer, enable_instrumentation

QUESTION = "What is 1+2?"


@tool
def add(x: int, y: int) -> str:
    """Adds two numbers."""
    if x < 0:
        raise ValueError("negative numbers are not allowed")
    return str(x + y)


@dataclass
class Turn:
    """A scripted model turn: its texts (each a content item), its call (an id, a
    tool, its arguments as an object or a string of JSON, or none), its usage (input
    and output tokens)."""

    texts: list[str]
    call: tuple[str, str, dict[str, Any] | str] | None
    usage: tuple[int, int]


SCRIPT = [
    # A call; a call the tool refuses (it raises); an answer of two texts.
    Turn(["Let me add."], ("c1", "add", {"x": 1, "y": 2}), (10, 3)),
    Turn([], ("c2", "add", '{"x": -1, "y": 2}'), (20, 4)),
    Turn(["The sum is 3.", "Done."], None, (30, 5)),
]

RESULTS = {"c1": "3"}
"""What each call the tool answers gives (the others raise)."""


class Scripted:
    """A chat client's model: each request answered with the script's next turn (its
    usage the turn's). Mixed into a client of the framework's layers, whose function
    invocation calls the tools."""

    def __init__(self, script: Sequence[Turn]) -> None:
        super().__init__()
        self.script = list(script)

    async def _next(self) -> ChatResponse:
        turn = self.script.pop(0)
        contents = [Content.from_text(text) for text in turn.texts]
        if turn.call is not None:
            call_id, name, arguments = turn.call
            contents.append(Content.from_function_call(call_id, name, arguments=arguments))
        usage = {
            "input_token_count": turn.usage[0],
            "output_token_count": turn.usage[1],
            "total_token_count": sum(turn.usage),
        }
        return ChatResponse(
            messages=[Message("assistant", contents)], usage_details=usage, finish_reason="stop"
        )

    def _inner_get_response(self, **kwargs: Any) -> Any:
        # (The request's messages, options and streaming are not the script's.)
        return self._next()


class ScriptedClient(Scripted, FunctionInvocationLayer, BaseChatClient):  # type: ignore[misc]
    """The scripted model with the framework's function invocation."""


class TracedClient(Scripted, FunctionInvocationLayer, ChatTelemetryLayer, BaseChatClient):  # type: ignore[misc]
    """The scripted model with the framework's function invocation and its telemetry
    of each model call (a `chat` span), as the framework's own clients have."""


@dataclass
class Run:
    """One run, kept every way: the ``FileHistoryProvider``'s history file, the
    session (its state keeping the history), the history as a JSON list, the
    agent's response; and the run as doneseq's JSONL, with the user's question (as
    the history) and without it, its usage on the last model message (as the
    response)."""

    history: Path
    session: Path
    listed: Path
    response: Path
    messages: Path
    response_messages: Path
    agent_response: AgentResponse


def run(directory: Path) -> Run:
    """The agent's run of the script, kept every way."""
    return asyncio.run(_run(directory))


async def _run(directory: Path) -> Run:
    store = directory / "history"
    history = FileHistoryProvider(store)
    agent = Agent(
        client=ScriptedClient(SCRIPT),
        instructions="You add.",
        tools=[add],
        context_providers=[history],
        name="adder",
    )
    session = agent.create_session(session_id="run")
    response = await agent.run(QUESTION, session=session)
    # The default history (in the session's state), of the same script.
    remembered = Agent(client=ScriptedClient(SCRIPT), tools=[add], name="adder")
    in_memory = remembered.create_session(session_id="run")
    await remembered.run(QUESTION, session=in_memory)
    paths = {
        "session": directory / "session.json",
        "listed": directory / "messages.json",
        "response": directory / "response.json",
    }
    kept = in_memory.to_dict()
    paths["session"].write_text(json.dumps(kept), "utf-8")
    listed = kept["state"]["in_memory"]["messages"]
    paths["listed"].write_text(json.dumps(listed, indent=2), "utf-8")
    paths["response"].write_text(response.to_json(), "utf-8")
    lines = expected()
    messages = directory / "expected.jsonl"
    messages.write_text("".join(json.dumps(m) + "\n" for m in lines), "utf-8")
    # The response's messages: the question not among them, the run's usage on the
    # last model message.
    answered = [dict(m) for m in lines[1:]]
    answered[-1]["usage"] = {
        "input_tokens": sum(t.usage[0] for t in SCRIPT),
        "output_tokens": sum(t.usage[1] for t in SCRIPT),
    }
    response_messages = directory / "expected-response.jsonl"
    response_messages.write_text("".join(json.dumps(m) + "\n" for m in answered), "utf-8")
    return Run(
        history=store / "run.jsonl",
        session=paths["session"],
        listed=paths["listed"],
        response=paths["response"],
        messages=messages,
        response_messages=response_messages,
        agent_response=response,
    )


def expected() -> list[dict[str, Any]]:
    """The run the script makes, as doneseq's JSONL: the question, each model turn
    (its texts joined by a space, as ``Message.text`` joins them), each call's
    result (a refused call's failed)."""
    lines: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    for turn in SCRIPT:
        model: dict[str, Any] = {
            "role": "llm",
            "content": " ".join(turn.texts),
            "responder": "adder",
        }
        if turn.call is None:
            lines.append(model)
            continue
        call_id, name, arguments = turn.call
        model["tool_calls"] = [{"id": call_id, "name": name, "arguments": arguments}]
        lines.append(model)
        result: dict[str, Any] = {"role": "agent", "tool_call_id": call_id, "responder": "adder"}
        if call_id in RESULTS:
            result["content"] = RESULTS[call_id]
        else:
            result |= {"content": "Error: Function failed.", "error": "Error: Function failed."}
        lines.append(result)
    return lines


def write_examples(examples: Path) -> None:
    """The run's history file and response, as the README's examples of the format
    (``examples/formats/``): ``python -c 'import agent_framework_runs as r, pathlib;
    r.write_examples(pathlib.Path("../../examples/formats"))'`` from ``python/tests``."""
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        kept = run(Path(directory))
        shutil.copy(kept.history, examples / "agent-framework-history.jsonl")
        shutil.copy(kept.response, examples / "agent-framework-response.json")


def write_bench_cycle(path: Path) -> None:
    """The benchmarks' conversation (a question; a model turn with text and a call of
    a calculator, its result; a call of a search, its result; the answer) as the
    framework's ``FileHistoryProvider`` keeps it: a message a line (no usage: the
    framework keeps none in its messages)."""
    import tempfile

    @tool
    def calculator(expression: str) -> str:
        """Evaluates an arithmetic expression."""
        return "395"

    @tool
    def search(query: str) -> str:
        """Searches the web."""
        return "Paris is the capital and most populous city of France."

    script = [
        Turn(
            ["Let me compute that."],
            ("call_1", "calculator", {"expression": "17 * 23 + 4"}),
            (61, 22),
        ),
        Turn([], ("call_2", "search", {"query": "capital of France"}), (97, 20)),
        Turn(["17 times 23, plus 4, is 395, and the capital of France is Paris."], None, (130, 12)),
    ]
    question = "What is 17 times 23, plus 4? Then find the capital of France."

    async def cycle(directory: Path) -> None:
        agent = Agent(
            client=ScriptedClient(script),
            tools=[calculator, search],
            context_providers=[FileHistoryProvider(directory)],
        )
        await agent.run(question, session=agent.create_session(session_id="cycle"))

    with tempfile.TemporaryDirectory() as scratch:
        asyncio.run(cycle(Path(scratch)))
        shutil.copy(Path(scratch) / "cycle.jsonl", path)


def traced(directory: Path) -> tuple[Path, Path]:
    """The agent's run of the script traced by the framework's own instrumentation
    (its messages recorded: ``enable_sensitive_data``), exported by OpenTelemetry's
    OTLP encoder as JSON; and the run as doneseq's JSONL, each model turn with its
    call's usage (a `chat` span's), its texts joined by a newline (the trace keeps
    them as a message's parts)."""
    from google.protobuf.json_format import MessageToJson
    from opentelemetry import trace as otel_trace
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    enable_instrumentation(enable_sensitive_data=True)

    async def run() -> None:
        agent = Agent(client=TracedClient(SCRIPT), tools=[add], name="adder")
        await agent.run(QUESTION, session=agent.create_session(session_id="traced"))

    otel_trace.set_tracer_provider(provider)
    asyncio.run(run())
    spans = exporter.get_finished_spans()
    trace = directory / "trace.json"
    trace.write_text(MessageToJson(encode_spans(spans)), "utf-8")
    lines = expected()
    for line, turn in zip([m for m in lines if m["role"] == "llm"], SCRIPT, strict=True):
        line["content"] = "\n".join(turn.texts)
        line["usage"] = {"input_tokens": turn.usage[0], "output_tokens": turn.usage[1]}
    messages = directory / "expected-trace.jsonl"
    messages.write_text("".join(json.dumps(m) + "\n" for m in lines), "utf-8")
    return trace, messages
