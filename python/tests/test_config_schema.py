"""The committed JSON Schema of configuration files (schema/doneseq.schema.json, what
``doneseq schema`` prints) accepts every example configuration of the repository, and
refuses what the parser refuses."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schema" / "doneseq.schema.json").read_text(encoding="utf-8"))


def examples() -> list[Path]:
    found = sorted((ROOT / "examples").glob("*.config.json"))
    found += sorted((ROOT / "examples").glob("*.toml"))
    return found


def load(path: Path):
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)


def test_there_are_examples():
    assert len(examples()) >= 3


@pytest.mark.parametrize("path", examples(), ids=lambda p: p.name)
def test_every_example_configuration_validates(path):
    jsonschema.validate(load(path), SCHEMA)


@pytest.mark.parametrize(
    "config",
    [
        {"max_turn": 3},
        {"stop": {"type": "max_turns", "limit": 3}},
        {"stop": {"type": "nope"}},
        {"done_sequences": "T, A"},
        {"stop": {"type": "tool", "when": "done"}},
    ],
)
def test_what_the_parser_refuses_the_schema_refuses(config):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(config, SCHEMA)
