"""What the frameworks' replay tests share: a run the framework recorded, read back
by doneseq's transcript reader (``Monitor.check_file``) in every way it can be, says
the same each way, and stops where the live adapter stopped the same script."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import doneseq


def replayed(monitor: Any, logs: Mapping[Path, str]) -> dict[str, Any]:
    """``monitor.check_file`` of each log (a path, and the format it is written in),
    with the format detected and with it named: the same summary every time, which
    is returned (its ``path`` left out)."""
    replays = []
    for path, format in logs.items():
        for named in ("auto", format):
            replay = monitor.check_file(path, format=named)
            assert "error" not in replay and "warning" not in replay, replay
            del replay["path"]
            replays.append(replay)
    assert all(replay == replays[0] for replay in replays)
    return replays[0]


def assert_stops_as_live(replay: Mapping[str, Any], live: Any) -> None:
    """The replay stopped where the live run did (``live``, its ``Outcome``, or
    ``None`` where it did not stop): the same verdict, after as many steps (the
    outcome's ``at`` counts steps from 0), with the same answer and condition."""
    if live is None:
        assert replay["kind"] is None
        return
    assert (replay["kind"], replay["steps"], replay["answer"], replay["fired"]) == (
        live.kind,
        live.at + 1,
        live.answer,
        live.condition,
    )


def model_line(text: str, calls: list[tuple[str, str, Any]], usage: tuple[int, int]) -> Any:
    """A model's turn as a line of doneseq's JSONL: its text, its calls (id, name,
    arguments) and its usage (input and output tokens)."""
    return {
        "role": "llm",
        "content": text,
        "tool_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in calls],
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def read_alike(stop: str, saved: Mapping[Path, str], messages: Path) -> dict[str, Any]:
    """A run saved some way (each path with its format) stops under ``stop`` as its
    messages written as doneseq's JSONL (``messages``) do: the same verdict, after
    as many steps, with the same answer and condition, every step and token counted
    alike. The summary, for the caller's own checks."""
    monitor = doneseq.Monitor(stop=stop)
    from_saved = replayed(monitor, saved)
    from_messages = replayed(monitor, {messages: "jsonl"})
    keys = ("kind", "steps", "answer", "fired", "recorded_steps", "recorded_tokens")
    for key in keys:
        assert from_saved[key] == from_messages[key], key
    return from_saved


def assert_reads_as_its_messages(run: tuple[Path, Path], stop: str) -> None:
    """A run's trace (the first path), read by ``otel``, stops as its messages (the
    second, doneseq's JSONL) do, every step (the turn of two calls, their two results,
    the answer) and token counted alike."""
    trace, messages = run
    assert read_alike(stop, {trace: "otel"}, messages)["recorded_steps"] == 4


def completion(turn: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAI Chat Completions response of a scripted model turn: its ``text``, its
    ``calls`` (id, name, arguments) and its ``usage`` (input and output tokens; 10 and
    2 where the turn gives none), as an offline transport answers the real SDK."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.get("text")}
    if turn.get("calls"):
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in turn["calls"]
        ]
    usage = turn.get("usage", (10, 2))
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if turn.get("calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        },
    }


class Streamed(bytes):
    """An answer of ``scripted_server``'s sent as it is, as server-sent events (what
    an SDK that streams its calls reads)."""


@contextmanager
def scripted_server(
    answer: Callable[[Any], Any],
) -> Iterator[tuple[str, list[Any]]]:
    """A server on the loopback interface that answers each JSON request posted to it
    with ``answer(request)``, as JSON (or as events, where it is ``Streamed``), for a
    framework's real SDK to reach offline: its address (``http://127.0.0.1:<port>``)
    and the requests, in order."""
    requests: list[Any] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            request = json.loads(body)
            requests.append(request)
            answered = answer(request)
            streamed = isinstance(answered, Streamed)
            reply = answered if streamed else json.dumps(answered).encode()
            self.send_response(200)
            self.send_header(
                "Content-Type", "text/event-stream" if streamed else "application/json"
            )
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", requests
    finally:
        server.shutdown()


def gathered(log: Path) -> Path:
    """A JSONL log as one indented JSON array (``jq -s .``), written beside it."""
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    path = log.with_suffix(".json")
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return path


def assert_damage_names_its_line(
    log: Path, marker: str, old: str, new: str, directory: Path
) -> None:
    """``log`` with ``old`` replaced by ``new`` in its first line that holds ``marker``
    (written in ``directory``) is an error that names that line."""
    lines = log.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if marker in line)
    assert old in lines[at], lines[at]
    lines[at] = lines[at].replace(old, new, 1)
    broken = write_text(directory / "broken.jsonl", "\n".join(lines) + "\n")
    replay = doneseq.Monitor(stop="max_turns(100)").check_file(broken)
    assert f"line {at + 1}" in replay["error"], replay


def write_text(path: Path, text: str) -> Path:
    """``text`` written to ``path`` (UTF-8), which is returned."""
    path.write_text(text, encoding="utf-8")
    return path
