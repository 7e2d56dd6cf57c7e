"""The OpenTelemetry reader against Langfuse's SDK: a loop of chat completions
(``chat_loop``) through its OpenAI integration, its tool and its agent decorated with
``@observe``; the SDK's spans, as its span processor exports them, written as OTLP
JSON by OpenTelemetry's own encoder. The trace must read to the run's own messages,
whatever the stop rule, usage included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chat_loop
import httpx2
import pytest
from google.protobuf.json_format import MessageToJson
from langfuse import Langfuse, observe
from langfuse.openai import OpenAI
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from recorded_runs import assert_reads_as_its_messages

import doneseq


@pytest.fixture(scope="module")
def langfuse_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The run, traced by Langfuse's SDK: its OTLP export, and the run's messages as
    doneseq's JSONL."""
    kept = InMemorySpanExporter()
    # Its own provider, its processor exporting to memory, not to a Langfuse server.
    langfuse = Langfuse(
        public_key="pk-lf-offline",
        secret_key="sk-lf-offline",
        base_url="http://127.0.0.1:9",
        tracer_provider=TracerProvider(),
        span_exporter=kept,
    )
    client = OpenAI(api_key="offline", http_client=httpx2.Client(transport=chat_loop.transport()))

    @observe(as_type="tool", name="search")
    def search(query: str) -> str:
        return f"results for {query}"

    @observe(as_type="agent", name="research")
    def research() -> list[Any]:
        return chat_loop.run(client, search)

    try:
        lines = research()
        langfuse.flush()
    finally:
        langfuse.shutdown()
    spans = kept.get_finished_spans()
    types = [s.attributes.get("langfuse.observation.type") for s in spans]
    assert sorted(types) == ["agent", "generation", "generation", "tool", "tool"]
    directory = tmp_path_factory.mktemp("langfuse")
    trace, messages = directory / "trace.json", directory / "messages.jsonl"
    trace.write_text(MessageToJson(encode_spans(spans)))
    messages.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return trace, messages


@pytest.mark.parametrize(
    "stop",
    [
        'seq("T[search], A")',
        'seq("T[search], A, A, L")',
        'seq("C[results for b]")',
        "tool(search, executed)",
        "no_tool_calls",
        "max_model_calls(1)",
        "max_turns(2)",
        "tokens(20)",
    ],
)
def test_langfuses_trace_reads_as_its_messages(langfuse_run, stop):
    assert_reads_as_its_messages(langfuse_run, stop)


def test_langfuses_agent_is_the_responder(langfuse_run):
    trace, _ = langfuse_run
    replay = doneseq.Monitor(stop='seq("T[search]@research")').check_file(trace, format="otel")
    assert (replay["kind"], replay["steps"]) == ("done", 1)
