"""The OpenTelemetry reader against real instrumentations: OpenLLMetry's OpenAI
Agents instrumentation (the GenAI semantic conventions) and OpenInference's (Arize
Phoenix's conventions) tracing the same real run of the Agents SDK, whose model
answers offline through the OpenAI client's own HTTP transport, each one's spans
exported as OTLP JSON by OpenTelemetry's own encoder. Each trace must read to the run
the SDK's own item list (``to_input_list()``) reads to, whatever the stop rule, with
the token usage the items do not carry. And Pydantic AI's own instrumentation (what
Logfire shows) of a run of its function model, OpenInference's LangChain
instrumentation of a LangGraph agent, and OpenTelemetry's own instrumentation of the
OpenAI client (its spans, its log records, or both), each read to the run's own
messages."""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chat_loop
import httpx2
import langgraph_agent
import pytest
from agents import Agent, OpenAIResponsesModel, Runner, function_tool
from chat_loop import transport
from google.protobuf.json_format import MessageToJson
from openai import AsyncOpenAI, OpenAI
from openinference.instrumentation.langchain import LangChainInstrumentor
from openinference.instrumentation.openai import (
    OpenAIInstrumentor as OpenInferenceOpenAIInstrumentor,
)
from openinference.instrumentation.openai_agents import (
    OpenAIAgentsInstrumentor as OpenInferenceInstrumentor,
)
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.instrumentation.openai import (
    OpenAIInstrumentor as OpenLLMetryOpenAIInstrumentor,
)
from opentelemetry.instrumentation.openai_agents import (
    OpenAIAgentsInstrumentor as OpenLLMetryInstrumentor,
)
from opentelemetry.instrumentation.openai_v2 import (
    OpenAIInstrumentor as OpenTelemetryOpenAIInstrumentor,
)
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otlp_files import recorded
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai_lines import doneseq_lines
from recorded_runs import assert_reads_as_its_messages, replayed

import doneseq


def kept_spans() -> tuple[InMemorySpanExporter, TracerProvider]:
    """A tracer provider whose spans are kept in memory, and where."""
    kept = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(kept))
    return kept, provider


def exporter(*instrumented: tuple[Any, dict[str, Any]]) -> InMemorySpanExporter:
    """The spans the instrumentors make (each given with its options), kept in
    memory: each convention traces to its own provider."""
    kept, provider = kept_spans()
    for instrumentor, options in instrumented:
        instrumentor.instrument(tracer_provider=provider, **options)
    return kept


# Both conventions trace every run, each by its instrumentation of the SDK and of its
# OpenAI client: each model call recorded twice, the client's span under the SDK's.
# (OpenInference's of the SDK would replace the SDK's other trace processors unless
# told not to.)
EXPORTERS = {
    "genai": exporter((OpenLLMetryInstrumentor(), {}), (OpenLLMetryOpenAIInstrumentor(), {})),
    "openinference": exporter(
        (OpenInferenceInstrumentor(), {"exclusive_processor": False}),
        (OpenInferenceOpenAIInstrumentor(), {}),
    ),
}
# The client instrumentations' spans: left out, each convention's trace is the SDK's
# alone.
CLIENT_SCOPES = {"opentelemetry.instrumentation.openai.v1", "openinference.instrumentation.openai"}


@function_tool
def search(query: str) -> str:
    """Searches the web."""
    return f"results for {query}"


def call(n: int, query: str) -> dict[str, Any]:
    arguments = json.dumps({"query": query})
    return {
        "type": "function_call",
        "id": f"fc_{n}",
        "call_id": f"c{n}",
        "name": "search",
        "arguments": arguments,
        "status": "completed",
    }


def text(n: int, content: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"msg_{n}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": content, "annotations": []}],
    }


@dataclass(frozen=True)
class Script:
    """The model's responses (the output items of each call), how many steps the run
    has, and at which of them ``tokens(40)`` runs out (15 tokens after the first
    call, 41 after the second)."""

    outputs: list[list[dict[str, Any]]]
    steps: int
    exhausted_at: int


ANSWER = text(3, "The answer is B.")
SCRIPTS = {
    # Two searches, one a turn, then the answer.
    "a call a turn": Script([[call(1, "a")], [call(2, "b")], [ANSWER]], steps=5, exhausted_at=3),
    # Two searches in one turn, which instrumentations write as two output messages.
    "two calls in a turn": Script(
        [[call(1, "a"), call(2, "b")], [ANSWER]], steps=4, exhausted_at=4
    ),
}
# Each call's usage, in order.
USAGE = [(10, 5), (20, 6), (30, 7)]
RESPONSE_IDS = itertools.count(1)


def model(outputs: list[list[dict[str, Any]]]) -> OpenAIResponsesModel:
    """The Responses API model of the SDK, its HTTP answered from ``outputs``."""
    requests: list[Any] = []

    def handler(request: Any) -> Any:
        requests.append(request)
        n = len(requests)
        tokens_in, tokens_out = USAGE[n - 1]
        return httpx2.Response(
            200,
            json={
                # Unique across runs: OpenLLMetry's client instrumentation keeps each
                # response's data by its id, and traces no response it has seen.
                "id": f"resp_{next(RESPONSE_IDS)}",
                "object": "response",
                "created_at": 1732492800,
                "model": "gpt-4o",
                "status": "completed",
                "output": outputs[n - 1],
                "parallel_tool_calls": True,
                "tool_choice": "auto",
                "tools": [],
                "usage": {
                    "input_tokens": tokens_in,
                    "output_tokens": tokens_out,
                    "total_tokens": tokens_in + tokens_out,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens_details": {"reasoning_tokens": 0},
                },
            },
        )

    transport = httpx2.MockTransport(handler)
    client = AsyncOpenAI(api_key="offline", http_client=httpx2.AsyncClient(transport=transport))
    return OpenAIResponsesModel(model="gpt-4o", openai_client=client)


@pytest.fixture(scope="module", params=list(SCRIPTS))
def run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Script, dict[str, Path]]:
    """One traced run of a script: its OTLP export by each instrumentation (and by
    each with its client's), and its item list."""
    script = SCRIPTS[request.param]
    for kept in EXPORTERS.values():
        kept.clear()
    agent = Agent(name="research", model=model(script.outputs), tools=[search])
    result = asyncio.run(Runner.run(agent, "Find it"))
    assert result.final_output == "The answer is B."
    directory = tmp_path_factory.mktemp("otel")
    logs = {"items": directory / "items.json"}
    logs["items"].write_text(json.dumps(result.to_input_list()))
    for name, kept in EXPORTERS.items():
        both = kept.get_finished_spans()
        sdk = [s for s in both if s.instrumentation_scope.name not in CLIENT_SCOPES]
        for trace, spans in ((name, sdk), (f"{name}-and-client", both)):
            logs[trace] = directory / f"{trace}.json"
            logs[trace].write_text(MessageToJson(encode_spans(spans)))
        # With the client's instrumentation, each model call is 2 chat spans.
        chats = [s for s in both if chat(s)]
        calls = len(script.outputs)
        assert (len(chats), len([s for s in chats if s in sdk])) == (2 * calls, calls), name

    def values(name: str, key: str) -> set[Any]:
        return {s.attributes.get(key) for s in EXPORTERS[name].get_finished_spans()}

    # Each in its own conventions: OpenInference's traces are read by its own.
    assert values("genai", "gen_ai.operation.name") >= {"chat", "execute_tool"}
    assert values("openinference", "openinference.span.kind") >= {"LLM", "TOOL", "AGENT"}
    assert values("openinference", "gen_ai.operation.name") == {None}
    return script, logs


def chat(span: Any) -> bool:
    """Whether ``span`` is a model call, in either convention."""
    attributes = span.attributes
    kind = attributes.get("openinference.span.kind")
    return attributes.get("gen_ai.operation.name") == "chat" or kind == "LLM"


@pytest.fixture(params=["genai", "genai-and-client", "openinference", "openinference-and-client"])
def logs(
    request: pytest.FixtureRequest, run: tuple[Script, dict[str, Path]]
) -> tuple[Script, Path, Path]:
    """The run's script, one instrumentation's trace of it, and its item list."""
    script, logs = run
    return script, logs[request.param], logs["items"]


STOPS = [
    'seq("T[search], A")',
    'seq("T[search], A, T[search], A, L")',
    "tool(search, executed)",
    "no_tool_calls",
    "max_model_calls(2)",
    "max_turns(4)",
    "loop(repeats=2)",
]


@pytest.mark.parametrize("stop", STOPS)
def test_the_trace_reads_as_the_runs_items(logs, stop):
    script, trace, items = logs
    monitor = doneseq.Monitor(stop=stop)
    from_trace = replayed(monitor, {trace: "otel"})
    from_items = replayed(monitor, {items: "openai-responses"})
    # Every step once (a later call's input repeats the conversation, and writes
    # the first call's tool call with another id), the same verdict at the same step.
    for key in ("kind", "steps", "answer", "fired", "recorded_steps"):
        assert from_trace[key] == from_items[key], key
    assert from_trace["recorded_steps"] == script.steps


def test_the_trace_carries_the_token_usage(logs):
    script, trace, items = logs
    monitor = doneseq.Monitor(stop="tokens(40)")
    from_trace = replayed(monitor, {trace: "otel"})
    calls = len(script.outputs)
    assert from_trace["recorded_tokens"] == sum(i + o for i, o in USAGE[:calls])
    assert (from_trace["kind"], from_trace["steps"]) == ("exhausted", script.exhausted_at)
    # The item list has no usage: the budget never runs out there.
    assert replayed(monitor, {items: "openai-responses"})["kind"] is None


@pytest.fixture(scope="module")
def pydantic_ai_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A Pydantic AI run (its function model: a text and two searches in a turn, then
    the answer), traced by its own instrumentation: the OTLP export, and the run's
    messages as doneseq's JSONL."""
    kept, provider = kept_spans()
    responses = iter(
        [
            ModelResponse(
                parts=[
                    TextPart("Let me look."),
                    ToolCallPart("search", {"query": "a"}, tool_call_id="c1"),
                    ToolCallPart("search", {"query": "b"}, tool_call_id="c2"),
                ]
            ),
            ModelResponse(parts=[TextPart("The answer is B.")]),
        ]
    )
    agent = PydanticAgent(
        FunctionModel(lambda messages, info: next(responses)),
        name="research",
        instructions="Be brief.",
    )
    agent.instrument = InstrumentationSettings(tracer_provider=provider)

    @agent.tool_plain
    def search(query: str) -> str:
        """Searches the web."""
        return f"results for {query}"

    result = agent.run_sync("Find it")
    assert result.output == "The answer is B."
    spans = kept.get_finished_spans()
    assert {s.attributes.get("gen_ai.operation.name") for s in spans} >= {"chat", "execute_tool"}
    return recorded(tmp_path_factory, "pydantic-ai", spans, doneseq_lines(result.all_messages()))


@pytest.mark.parametrize("stop", [*STOPS, "tokens(60)"])
def test_pydantic_ais_trace_reads_as_its_messages(pydantic_ai_run, stop):
    assert_reads_as_its_messages(pydantic_ai_run, stop)


@pytest.fixture(scope="module")
def langgraph_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A LangGraph ReAct agent's run (a text and two searches in a turn, then the
    answer), traced by OpenInference's LangChain instrumentation: the OTLP export,
    and the run's messages as doneseq's JSONL."""
    kept, provider = kept_spans()
    LangChainInstrumentor().instrument(tracer_provider=provider)
    try:
        messages = langgraph_agent.run()
    finally:
        LangChainInstrumentor().uninstrument()
    spans = kept.get_finished_spans()
    kinds = {s.attributes.get("openinference.span.kind") for s in spans}
    assert kinds >= {"LLM", "TOOL", "CHAIN"}
    return recorded(tmp_path_factory, "langgraph", spans, langgraph_agent.lines(messages))


@pytest.mark.parametrize("stop", [*STOPS, "tokens(20)", 'seq("C[results for b]")'])
def test_langgraphs_trace_reads_as_its_messages(langgraph_run, stop):
    assert_reads_as_its_messages(langgraph_run, stop)


# OpenTelemetry's own instrumentation of the OpenAI client, with no framework above it:
# each call a trace of its own; the messages on the spans (SPAN_ONLY), in log records
# (EVENT_ONLY: one a call, the trace's spans without them), or both.


def export_line(message: Any) -> str:
    """An OTLP export as one line of JSON, as the Collector's file exporter writes it."""
    return json.dumps(json.loads(MessageToJson(message))) + "\n"


@pytest.fixture(scope="module", params=["SPAN_ONLY", "EVENT_ONLY", "SPAN_AND_EVENT"])
def client_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, dict[str, Path]]:
    """A loop of chat completions (a text and two searches in a turn, each search's
    result, then the answer), traced with the content mode ``request.param``: the
    trace's export, the logs', both in either order, and the run's messages as
    doneseq's JSONL."""
    mode = request.param
    spans, tracer_provider = kept_spans()
    records, logger_provider = InMemoryLogRecordExporter(), LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(records))
    instrumentor = OpenTelemetryOpenAIInstrumentor()
    with pytest.MonkeyPatch.context() as env:
        # Read when instrumented and at each call.
        env.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", mode)
        instrumentor.instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)
        try:
            client = OpenAI(api_key="offline", http_client=httpx2.Client(transport=transport()))
            lines = chat_loop.run(client, lambda query: f"results for {query}")
        finally:
            instrumentor.uninstrument()
    chats = spans.get_finished_spans()
    assert len(chats) == 2 and len({s.context.trace_id for s in chats}) == 2
    on_spans = all("gen_ai.input.messages" in s.attributes for s in chats)
    assert on_spans == (mode != "EVENT_ONLY")
    assert (len(records.get_finished_logs()) == 2) == (mode != "SPAN_ONLY")
    directory = tmp_path_factory.mktemp(f"client-{mode}")
    trace = export_line(encode_spans(chats))
    logs = export_line(encode_logs(records.get_finished_logs()))
    written = {
        "trace": trace,
        "logs": logs,
        "trace-then-logs": trace + logs,
        "logs-then-trace": logs + trace,
        "messages": "".join(json.dumps(line) + "\n" for line in lines),
    }
    paths = {name: directory / f"{name}.jsonl" for name in written}
    for name, text in written.items():
        paths[name].write_text(text)
    return mode, paths


# What each content mode records and the reader reads: the spans, the log records, or
# both (each call read once, whichever comes first).
READABLE = {
    "SPAN_ONLY": ["trace"],
    "EVENT_ONLY": ["logs", "trace-then-logs", "logs-then-trace"],
    "SPAN_AND_EVENT": ["trace", "logs", "trace-then-logs", "logs-then-trace"],
}


@pytest.mark.parametrize("stop", [*STOPS, "tokens(40)"])
def test_the_client_instrumentations_record_reads_as_the_run(client_run, stop):
    mode, paths = client_run
    monitor = doneseq.Monitor(stop=stop)
    from_messages = replayed(monitor, {paths["messages"]: "jsonl"})
    assert from_messages["recorded_steps"] == 4
    for name in READABLE[mode]:
        from_record = replayed(monitor, {paths[name]: "otel"})
        keys = ("kind", "steps", "answer", "fired", "recorded_steps", "recorded_tokens")
        for key in keys:
            assert from_record[key] == from_messages[key], (name, key)


def test_a_trace_without_the_messages_says_where_they_are(client_run):
    mode, paths = client_run
    replay = doneseq.Monitor(stop="max_turns(9)").check_file(paths["trace"], format="otel")
    if mode == "EVENT_ONLY":
        assert "none of the transcript's 2 chat spans carries its messages" in replay["error"]
        assert "the export of logs" in replay["error"]
    else:
        assert "error" not in replay, replay
