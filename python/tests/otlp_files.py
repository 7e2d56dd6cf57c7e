"""What the OpenTelemetry tests write of a traced run: its spans as an OTLP JSON
export (by OpenTelemetry's own encoder), and its own messages as doneseq's JSONL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToJson
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans


def recorded(
    tmp_path_factory: pytest.TempPathFactory, name: str, spans: Any, lines: list[Any]
) -> tuple[Path, Path]:
    """A run, written: its spans as an OTLP export, and its messages (``lines``) as
    doneseq's JSONL."""
    directory = tmp_path_factory.mktemp(name)
    trace, messages = directory / "trace.json", directory / "messages.jsonl"
    trace.write_text(MessageToJson(encode_spans(spans)))
    messages.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return trace, messages
