"""Real Claude Code runs for the claude-code format's tests: the Claude Agent SDK
running the Claude Code CLI it bundles, offline, against a scripted Anthropic
Messages API on the loopback interface (streamed, as Claude Code asks for it), with
in-process MCP tools; its session log as Claude Code writes it, and the same run
written as doneseq's JSONL from what the SDK showed while it ran (its messages, and
its ``PostToolUseFailure`` hook for the calls that failed), by the mapping the format
documents.

``python claude_code_runs.py OUT`` writes a run's session log to ``OUT`` (how
``examples/formats/claude-code-session.jsonl`` was made)."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    ResultMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    create_sdk_mcp_server,
    tool,
)
from recorded_runs import Streamed, scripted_server

SERVER = "calc"
"""The MCP server of the tools: Claude Code names a tool ``mcp__calc__<name>``."""


def named(name: str) -> str:
    return f"mcp__{SERVER}__{name}"


@dataclass
class Turn:
    """A scripted model turn: its thinking, its text, its calls (id, tool, input), the
    tokens it reports (input, output)."""

    usage: tuple[int, int]
    text: str = ""
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    thinking: str = ""


PROMPTS = ["What is 17 times 23, plus 4? Then find the capital of France.", "And twice that?"]
"""The user's two prompts, one session."""

SCRIPT = [
    Turn(
        (61, 22),
        thinking="The calculator first.",
        text="Let me compute that.",
        calls=[("toolu_01", named("calculator"), {"expression": "17 * 23 + 4"})],
    ),
    Turn(
        (97, 20),
        calls=[
            ("toolu_02", named("search"), {"query": "capital of France"}),
            ("toolu_03", named("weather"), {"city": "Paris"}),
        ],
    ),
    Turn((130, 12), text="17 times 23, plus 4, is 395, and the capital of France is Paris."),
    Turn((150, 18), calls=[("toolu_04", named("calculator"), {"expression": "395 * 2"})]),
    Turn((170, 8), text="Twice that is 790."),
]
"""The model's turns, in order over both prompts (the first prompt's three, the
second's two): the second turn calls two tools at once, one of which raises."""


@tool("calculator", "Evaluates an arithmetic expression.", {"expression": str})
async def calculator(args: dict[str, Any]) -> dict[str, Any]:
    value = {"17 * 23 + 4": 395, "395 * 2": 790}[args["expression"]]
    return {"content": [{"type": "text", "text": str(value)}]}


@tool("search", "Searches the web.", {"query": str})
async def search(args: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": "Paris is the capital of France."}]}


@tool("weather", "Gives a city's weather.", {"city": str})
async def weather(args: dict[str, Any]) -> dict[str, Any]:
    raise RuntimeError("the weather service is down")


def events(turn: Turn, index: int, model: str) -> bytes:
    """The turn as Anthropic's Messages API streams it (server-sent events)."""
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if turn.thinking:
        blocks.append(
            (
                {"type": "thinking", "thinking": ""},
                [
                    {"type": "thinking_delta", "thinking": turn.thinking},
                    {"type": "signature_delta", "signature": "c2ln"},
                ],
            )
        )
    if turn.text:
        blocks.append(({"type": "text", "text": ""}, [{"type": "text_delta", "text": turn.text}]))
    for id, name, input in turn.calls:
        blocks.append(
            (
                {"type": "tool_use", "id": id, "name": name, "input": {}},
                [{"type": "input_json_delta", "partial_json": json.dumps(input)}],
            )
        )
    start = {
        "id": message_id(index),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": turn.usage[0], "output_tokens": 1},
    }
    stream = [("message_start", {"type": "message_start", "message": start})]
    for i, (block, deltas) in enumerate(blocks):
        opened = {"type": "content_block_start", "index": i, "content_block": block}
        stream.append(("content_block_start", opened))
        for delta in deltas:
            stream.append(
                ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta})
            )
        stream.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    stop_reason = "tool_use" if turn.calls else "end_turn"
    stream.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": turn.usage[1]},
            },
        )
    )
    stream.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in stream).encode()


def message_id(index: int) -> str:
    return f"msg_{index + 1:02d}"


SUB_PROMPT = "Compute 17 * 23 + 4 and say only the result."
"""What the delegating script asks its sub-agent."""

DELEGATING = [
    Turn(
        (40, 30),
        text="I will ask a sub-agent.",
        calls=[
            (
                "toolu_21",
                "Agent",
                {
                    "description": "Compute",
                    "prompt": SUB_PROMPT,
                    "subagent_type": "general-purpose",
                    "run_in_background": False,
                },
            )
        ],
    ),
    Turn((90, 9), text="The sub-agent says 395."),
]
"""A session whose model delegates to a sub-agent (Claude Code's `Agent` tool, run in
the foreground: its answer is the tool's result), then answers."""

SUB_AGENT = [Turn((25, 3), text="395")]
"""The sub-agent's model: it answers at once."""


def scripted(script: list[Turn], sub_agent: list[Turn] | None = None) -> Any:
    """The scripted API: the turn a request asks for is the one after the assistant
    messages it holds (over all the prompts of a session), of ``sub_agent`` where the
    request's first message is the sub-agent's prompt. A request without tools
    (Claude Code's own small calls) is answered with a short text not in the script."""

    def answer(request: dict[str, Any]) -> Streamed:
        model = request.get("model", "claude-sonnet-4-5")
        assert request.get("stream"), f"an unstreamed request: {request}"
        if not request.get("tools"):
            return Streamed(events(Turn((5, 2), text="A title"), 99, model))
        index = sum(1 for m in request["messages"] if m["role"] == "assistant")
        if sub_agent is not None and SUB_PROMPT in json.dumps(request["messages"][0]):
            return Streamed(events(sub_agent[index], 50 + index, model))
        return Streamed(events(script[index], index, model))

    return answer


@dataclass
class Run:
    """A session's log as Claude Code wrote it, the same run as doneseq's JSONL, what
    the SDK reported at each prompt's end, and its sub-agents' files (their logs and
    metadata)."""

    log: Path
    messages: Path
    results: list[ResultMessage]
    sub_agents: list[Path]


def run(
    directory: Path,
    max_turns: int | None = None,
    prompts: list[str] = PROMPTS,
    script: list[Turn] = SCRIPT,
    sub_agent: list[Turn] | None = None,
) -> Run:
    """The prompts in one session of Claude Code (its config in ``directory``), its
    model answering by ``script`` (a sub-agent's by ``sub_agent``)."""
    return asyncio.run(session(directory, max_turns, prompts, script, sub_agent))


async def session(
    directory: Path,
    max_turns: int | None,
    prompts: list[str],
    script: list[Turn],
    sub_agent: list[Turn] | None,
) -> Run:
    home, work = directory / "home", directory / "work"
    home.mkdir()
    work.mkdir()
    failed: set[str] = set()
    with scripted_server(scripted(script, sub_agent)) as (url, _):
        settings = options(url, home, work, failed, max_turns)
        recorder = await converse(settings, prompts, Recorder(failed, script))
    (log,) = (home / "projects").glob("*/*.jsonl")
    sub_agents = sorted((home / "projects").glob("*/*/subagents/*"))
    messages = directory / "messages.jsonl"
    text = "".join(json.dumps(line) + "\n" for line in recorder.lines)
    messages.write_text(text, encoding="utf-8")
    return Run(log, messages, recorder.results, sub_agents)


def options(
    url: str, home: Path, work: Path, failed: set[str], max_turns: int | None
) -> ClaudeAgentOptions:
    """The SDK's options: Claude Code reaching the scripted API at ``url``, its config
    in ``home``, the tools, and a hook that adds each failed call's id to ``failed``."""

    async def on_failure(data: Any, tool_use_id: str | None, _: Any) -> dict[str, Any]:
        failed.add(data["tool_use_id"])
        return {}

    return ClaudeAgentOptions(
        env={
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "sk-ant-offline",
            "CLAUDE_CONFIG_DIR": str(home),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        },
        mcp_servers={SERVER: create_sdk_mcp_server(SERVER, tools=[calculator, search, weather])},
        allowed_tools=[*(named(n) for n in ("calculator", "search", "weather")), "Agent"],
        hooks={"PostToolUseFailure": [HookMatcher(hooks=[on_failure])]},
        max_turns=max_turns,
        cwd=str(work),
        model="claude-sonnet-4-5",
    )


async def converse(options: ClaudeAgentOptions, prompts: list[str], recorder: Recorder) -> Recorder:
    """The prompts in one session, what the SDK showed recorded."""
    async with ClaudeSDKClient(options=options) as client:
        for prompt in prompts:
            await client.query(prompt)
            recorder.lines.append({"role": "user", "content": prompt})
            async for message in client.receive_response():
                recorder.see(message)
    return recorder


class Recorder:
    """The run as the SDK shows it, written as doneseq's JSONL: a model turn (the
    SDK's assistant messages of one message id: their text blocks joined, their
    calls, the turn's usage as the script gave it), each tool's result (failed where
    the SDK's ``PostToolUseFailure`` hook saw its call fail), and each prompt's
    ``ResultMessage``."""

    def __init__(self, failed: set[str], script: list[Turn]) -> None:
        self.failed = failed
        self.script = script
        self.lines: list[dict[str, Any]] = []
        self.results: list[ResultMessage] = []
        self.turn: dict[str, Any] | None = None
        self.turn_id: str | None = None

    def see(self, message: Any) -> None:
        if getattr(message, "parent_tool_use_id", None):
            return  # a sub-agent's: its own loop, its answer the tool's result
        if isinstance(message, AssistantMessage):
            self.assistant(message)
        elif isinstance(message, UserMessage) and isinstance(message.content, list):
            self.turn = None
            for block in message.content:
                assert isinstance(block, ToolResultBlock), block
                self.lines.append(result_line(block, self.failed))
        elif isinstance(message, ResultMessage):
            self.results.append(message)

    def assistant(self, message: AssistantMessage) -> None:
        if self.turn is None or message.message_id != self.turn_id:
            self.turn_id = message.message_id
            index = int(str(message.message_id).removeprefix("msg_")) - 1
            usage = self.script[index].usage
            self.turn = {
                "role": "llm",
                "content": "",
                "tool_calls": [],
                "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
            }
            self.lines.append(self.turn)
        for block in message.content:
            if isinstance(block, TextBlock):
                joined = self.turn["content"]
                self.turn["content"] = f"{joined}\n{block.text}" if joined else block.text
            elif isinstance(block, ToolUseBlock):
                call = {"id": block.id, "name": block.name, "arguments": block.input}
                self.turn["tool_calls"].append(call)


def result_line(block: ToolResultBlock, failed: set[str]) -> dict[str, Any]:
    """A tool's result as doneseq's JSONL: its text (the result's text blocks joined),
    failed where the SDK's hook saw the call fail."""
    content = block.content
    if isinstance(content, list):
        content = "\n".join(part["text"] for part in content if part.get("type") == "text")
    line: dict[str, Any] = {"role": "agent", "tool_call_id": block.tool_use_id, "content": content}
    if block.tool_use_id in failed:
        line["error"] = content
    return line


if __name__ == "__main__":
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        made = run(Path(scratch))
        shutil.copy(made.log, sys.argv[1])
