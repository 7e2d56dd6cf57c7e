"""The OpenTelemetry reader against Langfuse's SDK: a loop of chat completions
(``chat_loop``) through its OpenAI integration, its tool and its agent decorated with
``@observe``, and with its model a function decorated as a generation; and a LangGraph
agent (``langgraph_agent``) traced by its LangChain integration. The SDK's spans, as
its span processor exports them, are written as OTLP JSON by OpenTelemetry's own
encoder; each trace must read to its run's own messages, whatever the stop rule, usage
included."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import chat_loop
import httpx2
import langgraph_agent
import pytest
from langfuse import Langfuse, observe
from langfuse.langchain import CallbackHandler
from langfuse.openai import OpenAI
from openai.types.chat import ChatCompletion
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otlp_files import recorded
from recorded_runs import assert_reads_as_its_messages

import doneseq


@pytest.fixture(scope="module")
def langfuse() -> Any:
    """Langfuse's client, its spans kept in memory (its own tracer provider, its span
    processor exporting there, not to a Langfuse server), and where."""
    kept = InMemorySpanExporter()
    client = Langfuse(
        public_key="pk-lf-offline",
        secret_key="sk-lf-offline",
        base_url="http://127.0.0.1:9",
        tracer_provider=TracerProvider(),
        span_exporter=kept,
    )
    yield client, kept
    client.shutdown()


@pytest.fixture(scope="module")
def langfuse_run(langfuse: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The chat loop through Langfuse's OpenAI integration, its tool and agent
    decorated: the OTLP export, and the run's messages as doneseq's JSONL."""
    client, kept = langfuse
    kept.clear()
    openai = OpenAI(api_key="offline", http_client=httpx2.Client(transport=chat_loop.transport()))

    @observe(as_type="tool", name="search")
    def search(query: str) -> str:
        return f"results for {query}"

    @observe(as_type="agent", name="research")
    def research() -> list[Any]:
        return chat_loop.run(openai, search)

    lines = research()
    client.flush()
    spans = kept.get_finished_spans()
    types = [s.attributes.get("langfuse.observation.type") for s in spans]
    assert sorted(types) == ["agent", "generation", "generation", "tool", "tool"]
    return recorded(tmp_path_factory, "langfuse", spans, lines)


@pytest.fixture(scope="module")
def decorated_run(langfuse: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The chat loop whose model is a function decorated with
    ``@observe(as_type="generation")`` (its input the function's arguments, its output
    the message it returns, its usage set on it): the OTLP export, and the run's
    messages as doneseq's JSONL."""
    client, kept = langfuse
    kept.clear()
    answered = itertools.count()

    @observe(as_type="generation")
    def complete(model: str, messages: list[Any]) -> Any:
        n = next(answered)
        tokens_in, tokens_out = chat_loop.USAGE[n]
        client.update_current_generation(usage_details={"input": tokens_in, "output": tokens_out})
        return ChatCompletion.model_validate(chat_loop.completion(n)).choices[0].message

    def create(model: str, messages: list[Any]) -> Any:
        """The client's call, its answer the decorated function's message."""
        message = complete(model=model, messages=messages)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)])

    model = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))

    @observe(as_type="tool", name="search")
    def search(query: str) -> str:
        return f"results for {query}"

    lines = chat_loop.run(model, search)
    client.flush()
    spans = kept.get_finished_spans()
    types = [s.attributes.get("langfuse.observation.type") for s in spans]
    assert sorted(types) == ["generation", "generation", "tool", "tool"]
    inputs = [s.attributes.get("langfuse.observation.input") for s in spans]
    assert all('"kwargs"' in i for i, t in zip(inputs, types) if t == "generation")
    return recorded(tmp_path_factory, "decorated", spans, lines)


@pytest.fixture(scope="module")
def langgraph_run(langfuse: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The LangGraph agent, traced by Langfuse's LangChain integration (its callback
    handler): the OTLP export, and the run's messages as doneseq's JSONL."""
    client, kept = langfuse
    kept.clear()
    messages = langgraph_agent.run({"callbacks": [CallbackHandler()]})
    client.flush()
    spans = kept.get_finished_spans()
    types = {s.attributes.get("langfuse.observation.type") for s in spans}
    # Its graph's nodes are chains (its model's node an agent), its calls generations
    # whose messages' calls are LangChain's, its tools' outputs LangChain's messages.
    assert types == {"chain", "agent", "generation", "tool"}
    return recorded(tmp_path_factory, "langgraph", spans, langgraph_agent.lines(messages))


STOPS = [
    'seq("T[search], A")',
    'seq("T[search], A, A, L")',
    'seq("C[results for b]")',
    "tool(search, executed)",
    "no_tool_calls",
    "max_model_calls(1)",
    "max_turns(2)",
    "tokens(20)",
]


@pytest.mark.parametrize("stop", STOPS)
def test_langfuses_trace_reads_as_its_messages(langfuse_run, stop):
    assert_reads_as_its_messages(langfuse_run, stop)


@pytest.mark.parametrize("stop", STOPS)
def test_langfuses_trace_of_a_decorated_model_reads_as_its_messages(decorated_run, stop):
    assert_reads_as_its_messages(decorated_run, stop)


@pytest.mark.parametrize("stop", STOPS)
def test_langfuses_trace_of_a_langgraph_agent_reads_as_its_messages(langgraph_run, stop):
    assert_reads_as_its_messages(langgraph_run, stop)


def test_langfuses_agent_is_the_responder(langfuse_run):
    trace, _ = langfuse_run
    replay = doneseq.Monitor(stop='seq("T[search]@research")').check_file(trace, format="otel")
    assert (replay["kind"], replay["steps"]) == ("done", 1)
