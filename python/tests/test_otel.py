"""The OpenTelemetry reader against real instrumentations: OpenLLMetry's OpenAI
Agents instrumentation (the GenAI semantic conventions) and OpenInference's (Arize
Phoenix's conventions) tracing the same real run of the Agents SDK, whose model
answers offline through the OpenAI client's own HTTP transport, each one's spans
exported as OTLP JSON by OpenTelemetry's own encoder. Each trace must read to the run
the SDK's own item list (``to_input_list()``) reads to, whatever the stop rule, with
the token usage the items do not carry."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from agents import Agent, OpenAIResponsesModel, Runner, function_tool
from google.protobuf.json_format import MessageToJson
from openai import AsyncOpenAI
from openinference.instrumentation.openai import (
    OpenAIInstrumentor as OpenInferenceOpenAIInstrumentor,
)
from openinference.instrumentation.openai_agents import (
    OpenAIAgentsInstrumentor as OpenInferenceInstrumentor,
)
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.instrumentation.openai_agents import (
    OpenAIAgentsInstrumentor as OpenLLMetryInstrumentor,
)
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from recorded_runs import replayed

import doneseq


def exporter(*instrumented: tuple[Any, dict[str, Any]]) -> InMemorySpanExporter:
    """The spans the instrumentors make (each given with its options), kept in
    memory: each convention traces to its own provider."""
    kept = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(kept))
    for instrumentor, options in instrumented:
        instrumentor.instrument(tracer_provider=provider, **options)
    return kept


# Both conventions trace every run. OpenInference's instrumentation of the SDK (which
# would replace the SDK's other trace processors unless told not to) and of its
# OpenAI client: each model call recorded twice, the client's span under the SDK's.
EXPORTERS = {
    "genai": exporter((OpenLLMetryInstrumentor(), {})),
    "openinference": exporter(
        (OpenInferenceInstrumentor(), {"exclusive_processor": False}),
        (OpenInferenceOpenAIInstrumentor(), {}),
    ),
}
CLIENT_SCOPE = "openinference.instrumentation.openai"


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


# The model's three responses: two searches, then its answer; each with its usage.
OUTPUTS = [[call(1, "a")], [call(2, "b")], [text(3, "The answer is B.")]]
USAGE = [(10, 5), (20, 6), (30, 7)]


def model() -> OpenAIResponsesModel:
    """The Responses API model of the SDK, its HTTP answered from ``OUTPUTS``."""
    requests: list[Any] = []

    def handler(request: Any) -> Any:
        requests.append(request)
        n = len(requests)
        tokens_in, tokens_out = USAGE[n - 1]
        return httpx2.Response(
            200,
            json={
                "id": f"resp_{n}",
                "object": "response",
                "created_at": 1732492800,
                "model": "gpt-4o",
                "status": "completed",
                "output": OUTPUTS[n - 1],
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


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One traced run: its OTLP export by each instrumentation, and its item list."""
    for kept in EXPORTERS.values():
        kept.clear()
    agent = Agent(name="research", model=model(), tools=[search])
    result = asyncio.run(Runner.run(agent, "Find it"))
    assert result.final_output == "The answer is B."
    directory = tmp_path_factory.mktemp("otel")
    logs = {"items": directory / "items.json"}
    logs["items"].write_text(json.dumps(result.to_input_list()))
    genai = EXPORTERS["genai"].get_finished_spans()
    both = EXPORTERS["openinference"].get_finished_spans()
    sdk = [s for s in both if s.instrumentation_scope.name != CLIENT_SCOPE]
    traces = {"genai": genai, "openinference": sdk, "openinference-and-client": both}
    for name, spans in traces.items():
        logs[name] = directory / f"{name}.json"
        logs[name].write_text(MessageToJson(encode_spans(spans)))

    def values(spans: Any, key: str) -> set[Any]:
        return {s.attributes.get(key) for s in spans}

    # Each in its own conventions: OpenInference's traces are read by its own.
    assert values(genai, "gen_ai.operation.name") >= {"chat", "execute_tool"}
    assert values(sdk, "openinference.span.kind") >= {"LLM", "TOOL", "AGENT"}
    assert values(both, "gen_ai.operation.name") == {None}
    # With the client's instrumentation, each of the 3 model calls is 2 LLM spans.
    llm = [s for s in both if s.attributes.get("openinference.span.kind") == "LLM"]
    assert (len(llm), len([s for s in llm if s in sdk])) == (6, 3)
    return logs


@pytest.fixture(params=["genai", "openinference", "openinference-and-client"])
def logs(request: pytest.FixtureRequest, run: dict[str, Path]) -> tuple[Path, Path]:
    """One instrumentation's trace of the run, and the run's item list."""
    return run[request.param], run["items"]


@pytest.mark.parametrize(
    "stop",
    [
        'seq("T[search], A")',
        'seq("T[search], A, T[search], A, L")',
        "tool(search, executed)",
        "no_tool_calls",
        "max_model_calls(2)",
        "max_turns(4)",
        "loop(repeats=2)",
    ],
)
def test_the_trace_reads_as_the_runs_items(logs, stop):
    trace, items = logs
    monitor = doneseq.Monitor(stop=stop)
    from_trace = replayed(monitor, {trace: "otel"})
    from_items = replayed(monitor, {items: "openai-responses"})
    # Every step once (a later call's input repeats the conversation, and writes
    # the first call's tool call with another id), the same verdict at the same step.
    for key in ("kind", "steps", "answer", "fired", "recorded_steps"):
        assert from_trace[key] == from_items[key], key
    assert from_trace["recorded_steps"] == 5


def test_the_trace_carries_the_token_usage(logs):
    trace, items = logs
    monitor = doneseq.Monitor(stop="tokens(40)")
    from_trace = replayed(monitor, {trace: "otel"})
    assert from_trace["recorded_tokens"] == sum(i + o for i, o in USAGE)
    # 15 after the first call, 41 after the second: the run's third step.
    assert (from_trace["kind"], from_trace["steps"]) == ("exhausted", 3)
    # The item list has no usage: the budget never runs out there.
    assert replayed(monitor, {items: "openai-responses"})["kind"] is None
