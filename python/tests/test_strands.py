"""The bedrock and otel transcript formats against real Strands Agents runs: an agent
of Strands' own Bedrock model, its Bedrock client answered offline by botocore's
Stubber (which checks each response against the Converse API's model). What Strands
keeps of the run (``agent.messages``, written whole and one message a line; the
messages its FileSessionManager saved, one a line and as its files joined; the
snapshots its SnapshotSessionManager saved), the last Converse call it made
(the request, which holds the whole conversation and the system prompt, then the
response), and the run's OpenTelemetry trace as Strands records it (by default, and
with the latest GenAI conventions opted in), exported by OpenTelemetry's own OTLP
encoder, must stop, whatever the stop rule, where the run written as doneseq's JSONL
stops: lines made from the test's own script (the model's turns) and from what
Strands' hooks saw (the prompts, each tool's result)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import strands.telemetry.tracer
from botocore.stub import Stubber
from google.protobuf.json_format import MessageToJson
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from recorded_runs import model_line, read_alike, write_text
from strands import Agent, tool
from strands.hooks import AfterModelCallEvent, AfterToolCallEvent
from strands.models.bedrock import BedrockModel
from strands.session.file_session_manager import FileSessionManager
from strands.session.snapshot_session_manager import SnapshotSessionManager
from strands.storage.local_file_storage import LocalFileStorage
from strands.tools.executors import SequentialToolExecutor

import doneseq

# Strands traces every run with the global tracer provider: its spans kept here.
SPANS = InMemorySpanExporter()
PROVIDER = TracerProvider()
PROVIDER.add_span_processor(SimpleSpanProcessor(SPANS))
trace.set_tracer_provider(PROVIDER)

SYSTEM = "Be brief."
PROMPTS = ["Add 2 and 3, divide 1 by 0, then look up the answer.", "And twice the sum?"]

# Each model turn: its reasoning (not its answer), its text, its tool uses (id, name,
# input), its stop reason and its usage (input and output tokens).
SCRIPT: list[dict[str, Any]] = [
    {
        "reasoning": "I add first.",
        "text": "Computing.",
        "calls": [
            ("tooluse_1", "add", {"a": 2, "b": 3}),
            ("tooluse_2", "divide", {"a": 1, "b": 0}),
        ],
        "usage": (61, 22),
    },
    {"calls": [("tooluse_3", "lookup", {"key": "answer"})], "usage": (97, 20)},
    {"text": "The sum is 5; 1/0 failed; the answer is 42.", "usage": (130, 12)},
    {"calls": [("tooluse_4", "add", {"a": 5, "b": 5})], "usage": (150, 9)},
    {"text": "Twice 5 is 10.", "usage": (170, 6)},
]


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


@tool
def lookup(key: str) -> dict[str, Any]:
    """Looks a value up (its result is JSON).

    Args:
        key: the key
    """
    return {"status": "success", "content": [{"json": {"key": key, "value": 42}}]}


def response(turn: dict[str, Any]) -> dict[str, Any]:
    """The Converse response of a scripted turn."""
    content: list[dict[str, Any]] = []
    if "reasoning" in turn:
        reasoning = {"reasoningText": {"text": turn["reasoning"], "signature": "sig"}}
        content.append({"reasoningContent": reasoning})
    if "text" in turn:
        content.append({"text": turn["text"]})
    for call_id, name, arguments in turn.get("calls", []):
        content.append({"toolUse": {"toolUseId": call_id, "name": name, "input": arguments}})
    tokens = turn["usage"]
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "tool_use" if turn.get("calls") else "end_turn",
        "usage": {"inputTokens": tokens[0], "outputTokens": tokens[1], "totalTokens": sum(tokens)},
        "metrics": {"latencyMs": 5},
    }


def result_text(result: dict[str, Any]) -> str:
    """A tool result's text as doneseq reads it: its blocks' texts, JSON compact."""
    texts = []
    for block in result["content"]:
        if "text" in block:
            texts.append(block["text"])
        else:
            texts.append(json.dumps(block["json"], separators=(",", ":")))
    return "\n".join(texts)


def run_agent(
    conventions: str = "", session: Path | None = None, snapshots: Path | None = None
) -> tuple[Agent, list[dict[str, Any]], list[dict[str, Any]], list[Any], str]:
    """The two invocations of the agent: the agent, the Converse requests it sent, the
    responses it was given, the run as doneseq's JSONL lines, and its trace as an OTLP
    JSON export, recorded by the GenAI conventions ``conventions`` opts in to
    (``OTEL_SEMCONV_STABILITY_OPT_IN``, which Strands reads when it makes its tracer).
    With ``session`` a directory, Strands' FileSessionManager saves the run there; with
    ``snapshots`` one, its SnapshotSessionManager (the latest snapshot, and an immutable
    one after each invocation)."""
    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = conventions
    # Strands makes its tracer once per process and keeps it: made again here, it
    # reads the conventions asked for.
    strands.telemetry.tracer._tracer_instance = None
    SPANS.clear()
    # botocore signs nothing the Stubber answers, but wants credentials to exist.
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    model = BedrockModel(
        model_id="us.anthropic.claude-sonnet-4-5", streaming=False, region_name="us-east-1"
    )
    stubber = Stubber(model.client)
    responses = [response(turn) for turn in SCRIPT]
    for answer in responses:
        stubber.add_response("converse", answer)
    requests: list[dict[str, Any]] = []

    def sent(params: dict[str, Any], **_: Any) -> None:
        requests.append(json.loads(json.dumps(params, default=str)))

    model.client.meta.events.register("provide-client-params.bedrock-runtime.Converse", sent)
    lines: list[Any] = []
    turns = iter(SCRIPT)

    def called(event: AfterModelCallEvent) -> None:
        # The turn the model was scripted to give: its text, calls and usage.
        turn = next(turns)
        lines.append(model_line(turn.get("text", ""), turn.get("calls", []), turn["usage"]))

    def ran(event: AfterToolCallEvent) -> None:
        result = event.result
        line = {
            "role": "tool",
            "tool_call_id": result["toolUseId"],
            "content": result_text(result),
        }
        if result["status"] == "error":
            line["error"] = line["content"]
        lines.append(line)

    agent = Agent(
        model=model,
        tools=[add, divide, lookup],
        system_prompt=SYSTEM,
        callback_handler=None,
        tool_executor=SequentialToolExecutor(),
        session_manager=(
            FileSessionManager(session_id="s1", storage_dir=str(session))
            if session
            else SnapshotSessionManager(
                "s1", storage=LocalFileStorage(str(snapshots)), snapshot_trigger=every_invocation
            )
            if snapshots
            else None
        ),
    )
    agent.add_hook(called, AfterModelCallEvent)
    agent.add_hook(ran, AfterToolCallEvent)
    with stubber:
        for prompt in PROMPTS:
            lines.append({"role": "user", "content": prompt})
            result = agent(prompt)
            assert str(result).strip() == lines[-1]["content"]
        stubber.assert_no_pending_responses()
    assert next(turns, None) is None
    spans = SPANS.get_finished_spans()
    assert {span.name for span in spans} >= {
        "chat",
        "execute_tool add",
        "invoke_agent Strands Agents",
    }
    return agent, requests, responses, lines, MessageToJson(encode_spans(spans))


def every_invocation(**_: Any) -> bool:
    """A snapshot trigger: an immutable snapshot after every invocation."""
    return True


def write_lines(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The run's records, each written to a file: Strands' messages (whole, and one a
    line), the last Converse call (its request and response), its traces (the same
    script run again for the latest conventions), and doneseq's JSONL of the run
    (without and with the system prompt, which only a request and a trace hold)."""
    directory = tmp_path_factory.mktemp("strands")
    agent, requests, responses, lines, spans = run_agent(session=directory / "sessions")
    try:
        latest_spans = run_agent("gen_ai_latest_experimental", snapshots=directory / "snaps")[-1]
    finally:
        os.environ.pop("OTEL_SEMCONV_STABILITY_OPT_IN")
        strands.telemetry.tracer._tracer_instance = None
    # By default Strands records each message as an event; with the latest conventions
    # opted in, each call's messages as the attributes of one event of its own.
    assert "gen_ai.choice" in spans and "gen_ai.choice" not in latest_spans
    assert "gen_ai.client.inference.operation.details" in latest_spans
    messages = agent.messages
    blocks = {key for m in messages for block in m["content"] for key in block}
    assert blocks == {"text", "toolUse", "toolResult", "reasoningContent"}
    statuses = {
        b["toolResult"]["status"] for m in messages for b in m["content"] if "toolResult" in b
    }
    assert statuses == {"success", "error"}
    # The last request holds the whole conversation but the last answer.
    assert len(requests) == len(SCRIPT)
    assert len(requests[-1]["messages"]) == len(messages) - 1
    assert requests[-1]["system"] == [{"text": SYSTEM}]
    # The session's saved messages, a file each: one a line, in their ids' order.
    saved = sorted(
        (directory / "sessions").glob("session_s1/agents/*/messages/message_*.json"),
        key=lambda p: int(p.stem.removeprefix("message_")),
    )
    assert len(saved) == len(messages)
    # The snapshots of the second run (the same script): the latest, and one after each
    # invocation (their ids are ordered by time).
    snapshots = directory / "snaps/session/s1/scopes/agent/default/snapshots"
    history = sorted((snapshots / "immutable_history").glob("snapshot_*.json"))
    assert len(history) == len(PROMPTS)
    # The run as doneseq's JSONL up to the end of the first invocation (its answer).
    first = lines.index({"role": "user", "content": PROMPTS[1]})
    whole = directory / "messages.json"
    whole.write_text(json.dumps(messages, indent=2), encoding="utf-8")
    return {
        "whole": whole,
        "lines": write_lines(directory / "messages.jsonl", messages),
        "session": write_lines(
            directory / "session.jsonl", [json.loads(p.read_text(encoding="utf-8")) for p in saved]
        ),
        # The saved files as they are, one after another (as `cat` joins them).
        "session files": write_text(
            directory / "session-files.json", "".join(p.read_text(encoding="utf-8") for p in saved)
        ),
        "snapshot": snapshots / "snapshot_latest.json",
        "first snapshot": history[0],
        "call": write_lines(directory / "call.jsonl", [requests[-1], responses[-1]]),
        "trace": write_text(directory / "trace.json", spans),
        "latest trace": write_text(directory / "trace-latest.json", latest_spans),
        "run with system": write_lines(
            directory / "run-system.jsonl", [{"role": "system", "content": SYSTEM}, *lines]
        ),
        "run": write_lines(directory / "run.jsonl", lines),
        "first invocation with system": write_lines(
            directory / "first-system.jsonl",
            [{"role": "system", "content": SYSTEM}, *lines[:first]],
        ),
        # A request's messages carry no usage: only the last call's is known.
        "run as called": write_lines(
            directory / "run-called.jsonl",
            [{"role": "system", "content": SYSTEM}, *without_usage(lines[:-1]), lines[-1]],
        ),
    }


def without_usage(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in line.items() if k != "usage"} for line in lines]


STOPS = [
    'seq("T[add], A, T[divide]")',
    'seq("T[lookup], A")',
    'seq("L, U")',
    "tool(divide, executed)",
    "tool(lookup, executed)",
    "consecutive_errors(1)",
    "consecutive_errors(2)",
    "no_tool_calls",
    "max_model_calls(2)",
    "max_model_calls(4)",
    "max_turns(7)",
    "tokens(300)",
    "loop(repeats=2)",
    "final | done_signal",
]

# Every model turn, tool result and the second prompt is a step; the first prompt
# (the task's input) and the system prompt are not.
STEPS = len(SCRIPT) + 4 + 1
TOKENS = sum(sum(turn["usage"]) for turn in SCRIPT)


@pytest.mark.parametrize("stop", STOPS)
def test_strands_messages_stop_as_the_run(run, stop):
    saved = {
        run["whole"]: "bedrock",
        run["lines"]: "bedrock",
        run["session"]: "bedrock",
        run["session files"]: "bedrock",
    }
    replay = read_alike(stop, saved, run["run"])
    assert (replay["recorded_steps"], replay["recorded_tokens"]) == (STEPS, TOKENS)


@pytest.mark.parametrize("stop", STOPS)
def test_the_agents_snapshots_stop_as_the_run(run, stop):
    # The latest snapshot holds the whole run and the system prompt; the first
    # immutable one, the run up to the first invocation's answer.
    replay = read_alike(stop, {run["snapshot"]: "bedrock"}, run["run with system"])
    assert (replay["recorded_steps"], replay["recorded_tokens"]) == (STEPS, TOKENS)
    first = read_alike(
        stop, {run["first snapshot"]: "bedrock"}, run["first invocation with system"]
    )
    assert first["recorded_steps"] == 6


@pytest.mark.parametrize("stop", STOPS)
def test_the_last_converse_call_stops_as_the_run(run, stop):
    # The request's messages and the response's answer: the whole run, and its
    # system prompt; the tokens are the last call's only.
    replay = read_alike(stop, {run["call"]: "bedrock"}, run["run as called"])
    assert (replay["recorded_steps"], replay["recorded_tokens"]) == (
        STEPS,
        sum(SCRIPT[-1]["usage"]),
    )


@pytest.mark.parametrize("stop", STOPS)
def test_the_runs_trace_stops_as_the_run(run, stop):
    # Each chat span's input repeats the conversation: its new messages, then its
    # answer (with the call's usage); each tool span a tool's result.
    traces = {run["trace"]: "otel", run["latest trace"]: "otel"}
    replay = read_alike(stop, traces, run["run with system"])
    assert (replay["recorded_steps"], replay["recorded_tokens"]) == (STEPS, TOKENS)


def test_a_damaged_message_is_an_error_naming_its_line_and_block(run, tmp_path):
    messages = json.loads(run["whole"].read_text(encoding="utf-8"))
    del messages[1]["content"][3]["toolUse"]["name"]
    damaged = write_lines(tmp_path / "damaged.jsonl", messages)
    replay = doneseq.Monitor(stop="max_turns(50)").check_file(damaged)
    assert replay["error"].startswith("line 2: "), replay
    assert 'content block 4 of 4: a toolUse with no "name"' in replay["error"], replay
    assert "format bedrock (detected)" in replay["error"], replay
