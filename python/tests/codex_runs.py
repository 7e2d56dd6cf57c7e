"""Real Codex CLI runs for the codex format's tests: the Codex CLI (the binary
OpenAI's Python SDK pins, ``openai-codex-cli-bin``) run by ``codex exec``, offline,
against a scripted OpenAI Responses API on the loopback interface (streamed, as Codex
asks for it), its commands run for real; its rollout as Codex writes it, and the same
run written as doneseq's JSONL from what Codex showed while it ran (``codex exec
--json``'s events: each command, its exit code) and what it sent the model (its
instructions and context, each command's output as the next request gave it), by the
mapping the format documents.

``python codex_runs.py OUT`` writes a run's rollout to ``OUT`` (how
``examples/formats/codex-rollout.jsonl`` was made)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import codex_cli_bin
from recorded_runs import Streamed, scripted_server

CODEX = Path(codex_cli_bin.__file__).parent / "bin" / "codex"


@dataclass
class Turn:
    """A scripted model call: its reasoning summary, its text, its commands (call id,
    command line), the tokens it reports (input, output)."""

    usage: tuple[int, int]
    text: str = ""
    commands: list[tuple[str, str]] = field(default_factory=list)
    reasoning: str = ""

    def items(self, index: int) -> list[dict[str, Any]]:
        """The call's output items, as the Responses API gives them."""
        items: list[dict[str, Any]] = []
        if self.reasoning:
            summary = [{"type": "summary_text", "text": self.reasoning}]
            items.append({"type": "reasoning", "id": f"rs_{index}", "summary": summary})
        if self.text:
            content = [{"type": "output_text", "text": self.text, "annotations": []}]
            items.append(
                {"type": "message", "id": f"msg_{index}", "role": "assistant", "content": content}
            )
        for call_id, command in self.commands:
            arguments = json.dumps({"cmd": command})
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_{call_id}",
                    "call_id": call_id,
                    "name": "exec_command",
                    "arguments": arguments,
                }
            )
        return items


PROMPT = "What is 17 times 23, plus 4? Then find the capital of France."

SCRIPT = [
    Turn(
        (61, 22),
        reasoning="The arithmetic first.",
        text="Let me compute that.",
        commands=[("call_1", "echo $((17 * 23 + 4))")],
    ),
    Turn(
        (97, 20),
        commands=[
            ("call_2", "echo Paris is the capital of France."),
            ("call_3", "echo the weather service is down >&2; exit 3"),
        ],
    ),
    Turn((130, 12), text="17 times 23, plus 4, is 395, and the capital of France is Paris."),
]
"""The model's calls, in order: the second runs two commands at once, the second of
which fails."""


def events(turn: Turn, index: int) -> bytes:
    """The call as the Responses API streams it (server-sent events): the response
    created, each item done, the response completed with its usage."""
    items = turn.items(index)
    response = {"id": f"resp_{index}", "object": "response", "status": "in_progress"}
    stream: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response, "output": []}}
    ]
    for i, item in enumerate(items):
        stream.append({"type": "response.output_item.done", "output_index": i, "item": item})
    usage = {
        "input_tokens": turn.usage[0],
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": turn.usage[1],
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": sum(turn.usage),
    }
    completed = {**response, "status": "completed", "output": items, "usage": usage}
    stream.append({"type": "response.completed", "response": completed})
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in stream).encode()


class Model:
    """The scripted API: each request is the next call of the script."""

    def __init__(self, script: list[Turn]) -> None:
        self.script = script
        self.calls = 0

    def answer(self, request: dict[str, Any]) -> Streamed:
        assert request.get("stream"), f"an unstreamed request: {request}"
        index = self.calls
        self.calls += 1
        return Streamed(events(self.script[index], index))


CONFIG = """\
model = "gpt-5"
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.scripted]
name = "scripted"
base_url = "{url}/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
"""


@dataclass
class Run:
    """A rollout as Codex wrote it, the same run as doneseq's JSONL, and Codex's
    events (``--json``)."""

    log: Path
    messages: Path
    events: list[dict[str, Any]]


def run(directory: Path, script: list[Turn] = SCRIPT, prompt: str = PROMPT) -> Run:
    """``codex exec`` of ``prompt`` (its home, config and sessions in ``directory``)."""
    home, work = directory / "home", directory / "work"
    home.mkdir()
    work.mkdir()
    model = Model(script)
    with scripted_server(model.answer) as (url, requests):
        (home / "config.toml").write_text(CONFIG.format(url=url), encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "CODEX_HOME": str(home),
            "OPENAI_API_KEY": "sk-offline",
        }
        done = subprocess.run(
            [str(CODEX), "exec", "--json", "--skip-git-repo-check", prompt],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert model.calls == len(script), (model.calls, done.stderr)
    shown = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    (log,) = (home / "sessions").glob("*/*/*/rollout-*.jsonl")
    messages = directory / "messages.jsonl"
    lines = written(script, prompt, requests, shown)
    text = "".join(json.dumps(line) + "\n" for line in lines)
    messages.write_text(text, encoding="utf-8")
    return Run(log, messages, shown)


def written(
    script: list[Turn], prompt: str, requests: list[Any], shown: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The run as doneseq's JSONL: what Codex gave the model before the prompt (its
    first request's developer and user messages: instructions, context) and the
    prompt; each call of the script (its text, its commands as calls of
    ``exec_command``, its usage); each command's output as the next request gave it to
    the model, failed where Codex showed its command fail."""
    lines: list[dict[str, Any]] = []
    for item in requests[0]["input"]:
        role = {"developer": "system", "system": "system", "user": "user"}[item["role"]]
        text = "\n".join(part["text"] for part in item["content"])
        lines.append({"role": role, "content": text})
    assert lines[-1]["content"] == prompt, lines[-1]
    outputs = {
        item["call_id"]: item["output"]
        for request in requests
        for item in request["input"]
        if item.get("type") == "function_call_output"
    }
    commands = [
        e["item"]
        for e in shown
        if e["type"] == "item.completed" and e["item"]["type"] == "command_execution"
    ]
    for turn in script:
        lines.append(
            {
                "role": "llm",
                "content": turn.text,
                "tool_calls": [
                    {"id": i, "name": "exec_command", "arguments": {"cmd": c}}
                    for i, c in turn.commands
                ],
                "usage": {"input_tokens": turn.usage[0], "output_tokens": turn.usage[1]},
            }
        )
        for call_id, command in turn.commands:
            (ran,) = [c for c in commands if command in c["command"]]
            line = {"role": "agent", "tool_call_id": call_id, "content": outputs[call_id]}
            if ran["status"] == "failed":
                line["error"] = outputs[call_id]
            lines.append(line)
    return lines


if __name__ == "__main__":
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        made = run(Path(scratch))
        shutil.copy(made.log, sys.argv[1])
