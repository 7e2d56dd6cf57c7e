"""Inspect AI runs for the replay tests: an eval whose ``basic_agent`` solves each
sample with a scripted model (Inspect's own ``mockllm``, offline) and a real tool, and
the same run written as doneseq's JSONL from the script (what the model said, what the
tool answered), to replay both alike."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import basic_agent
from inspect_ai.tool import Tool, ToolError, tool

CONTINUE = "Please proceed to the next step using your best judgement."
"""What ``basic_agent`` tells the model after an answer without a tool call."""


@tool
def add() -> Tool:
    async def execute(x: int, y: int) -> str:
        """Adds two numbers.

        Args:
            x: The first.
            y: The second.
        """
        if x < 0:
            raise ToolError("negative numbers are not allowed")
        return str(x + y)

    return execute


@tool
def boom() -> Tool:
    async def execute() -> str:
        """Fails, as a tool with a bug does."""
        raise RuntimeError("the tool crashed")

    return execute


@dataclass
class Turn:
    """A scripted model turn: its text, its call (a tool and its arguments, or none)
    and its usage (input and output tokens)."""

    text: str
    call: tuple[str, dict[str, Any]] | None
    usage: tuple[int, int]


SCRIPTS: dict[str, list[Turn]] = {
    # A call, a call the tool refuses, an answer without a call, the submission.
    "solved": [
        Turn("", ("add", {"x": 1, "y": 2}), (100, 10)),
        Turn("", ("add", {"x": -1, "y": 2}), (120, 11)),
        Turn("Let me think.", None, (140, 5)),
        Turn("", ("submit", {"answer": "3"}), (160, 12)),
    ],
    # A call of a tool that raises: the sample ends on its error.
    "crashed": [Turn("", ("boom", {}), (90, 7))],
}

RESULTS = {"add": lambda x, y: str(x + y), "submit": lambda answer: answer}


def output(turn: Turn) -> ModelOutput:
    if turn.call is None:
        out = ModelOutput.from_content("mockllm/model", turn.text)
    else:
        out = ModelOutput.for_tool_call("mockllm/model", *turn.call)
        out.choices[0].message.content = turn.text
    out.usage = ModelUsage(
        input_tokens=turn.usage[0], output_tokens=turn.usage[1], total_tokens=sum(turn.usage)
    )
    return out


@dataclass
class Run:
    """One sample's run: its log as Inspect wrote it (``.eval`` and JSON) and its
    messages as doneseq's JSONL, written from the script."""

    kind: str
    eval_log: Path
    json_log: Path
    messages: Path


def run(directory: Path, kind: str) -> Run:
    """Inspect's run of the script ``kind`` (one sample), logged both ways."""
    logs = {f: log(directory / f, [kind], f) for f in ("eval", "json")}
    messages = directory / "messages.jsonl"
    lines = expected(SCRIPTS[kind])
    messages.write_text("".join(json.dumps(m) + "\n" for m in lines), "utf-8")
    return Run(kind, logs["eval"], logs["json"], messages)


def log(directory: Path, kinds: list[str], log_format: str = "eval") -> Path:
    """The log of an eval of a sample a script of ``kinds``, in turn (one at a time,
    so that each sample's model answers with its script)."""
    task = Task(
        dataset=[Sample(input="What is 1+2?", target="3", id=kind) for kind in kinds],
        solver=basic_agent(tools=[add(), boom()]),
        scorer=includes(),
    )
    outputs = [output(turn) for kind in kinds for turn in SCRIPTS[kind]]
    written = eval(
        task,
        model=get_model("mockllm/model", custom_outputs=outputs),
        log_dir=str(directory),
        log_format=log_format,
        display="none",
        fail_on_error=False,
        max_samples=1,
    )[0]
    return Path(written.location)


def expected(script: list[Turn]) -> list[dict[str, Any]]:
    """The run the script makes, as doneseq's JSONL."""
    lines: list[dict[str, Any]] = [
        {"role": "system", "content": "basic_agent's prompt"},
        {"role": "user", "content": "What is 1+2?"},
    ]
    for i, turn in enumerate(script):
        model: dict[str, Any] = {
            "role": "llm",
            "content": turn.text,
            "usage": {"input_tokens": turn.usage[0], "output_tokens": turn.usage[1]},
        }
        if turn.call is None:
            lines += [model, {"role": "user", "content": CONTINUE}]
            continue
        name, arguments = turn.call
        model["tool_calls"] = [{"id": f"call-{i}", "name": name, "arguments": arguments}]
        lines.append(model)
        if name == "boom":
            # The sample's error, its last message.
            lines.append({"role": "agent", "content": "", "error": "the tool crashed"})
            continue
        result: dict[str, Any] = {"role": "agent", "tool_call_id": f"call-{i}"}
        if arguments.get("x", 0) < 0:
            result |= {"content": "", "error": "refused"}
        else:
            result["content"] = RESULTS[name](**arguments)
        lines.append(result)
    return lines


def write_examples(examples: Path, fixtures: Path) -> None:
    """The samples the Rust tests read: ``inspect.eval`` (both scripts' samples, as
    Inspect writes a log: zstd) and ``inspect-log.json`` (the solved one's log as
    JSON) in ``examples``; in ``fixtures``, the same ``.eval`` with its samples
    compressed as Inspect's earlier releases did (deflate) and as its current ones do
    past 200 MiB (zstd, several frames), and both samples' log as JSON."""
    import shutil
    import tempfile
    import zipfile

    import zstandard

    with tempfile.TemporaryDirectory() as scratch:
        both = log(Path(scratch) / "eval", sorted(SCRIPTS))
        shutil.copy(both, examples / "inspect.eval")
        shutil.copy(log(Path(scratch) / "json", ["solved"], "json"), examples / "inspect-log.json")
        two = log(Path(scratch) / "two", sorted(SCRIPTS), "json")
        shutil.copy(two, fixtures / "inspect-log-two.json")
    with zipfile.ZipFile(examples / "inspect.eval") as source:
        members = [(info.filename, source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(fixtures / "inspect-deflate.eval", "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in members:
            out.writestr(name, data)
    frames = [
        (name, data, b"".join(zstandard.ZstdCompressor().compress(p) for p in halves(data)))
        for name, data in members
    ]
    (fixtures / "inspect-frames.eval").write_bytes(zip_of(frames, method=93))


def halves(data: bytes) -> tuple[bytes, bytes]:
    return data[: len(data) // 2], data[len(data) // 2 :]


def zip_of(members: list[tuple[str, bytes, bytes]], method: int) -> bytes:
    """A zip archive of ``members`` (each its name, its data and the data compressed
    by ``method``), written field by field: Python's zipfile writes no zstd before
    3.14."""
    import struct
    import zlib

    body, directory = b"", b""
    for name, data, packed in members:
        fields = (method, 0, 0, zlib.crc32(data), len(packed), len(data), len(name.encode()))
        local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 63, 0, *fields, 0)
        directory += struct.pack(
            "<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, 0, *fields, 0, 0, 0, 0, 0, len(body)
        )
        directory += name.encode()
        body += local + name.encode() + packed
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(directory), len(body), 0
    )
    return body + directory + end


if __name__ == "__main__":
    import sys

    write_examples(Path(sys.argv[1]), Path(sys.argv[2]))


def write_bench_cycle(path: Path) -> None:
    """The benchmarks' conversation (a question; a model turn with text and a call of
    a calculator, its result; a call of a search, its result; the answer) as Inspect
    logs it: the sample, compact, on one line, as a ``.eval`` log keeps it."""
    import tempfile

    from inspect_ai.log import read_eval_log
    from inspect_ai.solver import generate, use_tools

    @tool
    def calculator() -> Tool:
        async def execute(expression: str) -> str:
            """Evaluates an arithmetic expression.

            Args:
                expression: The expression.
            """
            return "395"

        return execute

    @tool
    def search() -> Tool:
        async def execute(query: str) -> str:
            """Searches the web.

            Args:
                query: The query.
            """
            return "Paris is the capital and most populous city of France."

        return execute

    script = [
        Turn("Let me compute that.", ("calculator", {"expression": "17 * 23 + 4"}), (61, 22)),
        Turn("", ("search", {"query": "capital of France"}), (97, 20)),
        Turn("17 times 23, plus 4, is 395, and the capital of France is Paris.", None, (130, 12)),
    ]
    question = "What is 17 times 23, plus 4? Then find the capital of France."
    task = Task(
        dataset=[Sample(input=question, id="cycle")],
        solver=[use_tools([calculator(), search()]), generate(tool_calls="loop")],
    )
    with tempfile.TemporaryDirectory() as scratch:
        written = eval(
            task,
            model=get_model("mockllm/model", custom_outputs=[output(t) for t in script]),
            log_dir=scratch,
            display="none",
        )[0]
        log = read_eval_log(written.location)
    assert log.samples is not None
    path.write_text(log.samples[0].model_dump_json() + "\n", "utf-8")
