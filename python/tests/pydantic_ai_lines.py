"""Pydantic AI's messages of a run written as doneseq's JSONL, part by part, for the
tests that read the same run another way (its message history, its trace) and must
stop where these lines stop."""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryFeedbackPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from recorded_runs import model_line


def doneseq_lines(messages: list[ModelMessage]) -> list[dict[str, Any]]:
    """Each request part a line (a prompt, a tool's return, Pydantic AI's feedback on
    an output it refused), each response a line (its texts, its calls, its usage; its
    thoughts are not its answer), a request's instructions a system line where they
    change. A part this function does not know fails the test that meets it."""
    lines: list[dict[str, Any]] = []
    instructions = None
    for message in messages:
        if isinstance(message, ModelResponse):
            texts = [p.content for p in message.parts if isinstance(p, TextPart)]
            calls = [
                (p.tool_call_id, p.tool_name, p.args_as_dict())
                for p in message.parts
                if isinstance(p, ToolCallPart)
            ]
            thoughts = [p for p in message.parts if isinstance(p, ThinkingPart)]
            assert len(texts) + len(calls) + len(thoughts) == len(message.parts), message
            usage = (message.usage.input_tokens, message.usage.output_tokens)
            lines.append(model_line("\n".join(texts), calls, usage))
            continue
        if message.instructions and message.instructions != instructions:
            instructions = message.instructions
            lines.append({"role": "system", "content": instructions})
        for part in message.parts:
            lines.append(request_line(part))
    return lines


def request_line(part: Any) -> dict[str, Any]:
    """One request part as a line."""
    if isinstance(part, SystemPromptPart):
        return {"role": "system", "content": part.content}
    if isinstance(part, UserPromptPart):
        content = part.content
        if not isinstance(content, str):
            content = "\n".join(item for item in content if isinstance(item, str))
        return {"role": "user", "content": content}
    if isinstance(part, ToolReturnPart):
        line = {
            "role": "agent",
            "content": part.model_response_str(),
            "tool_call_id": part.tool_call_id,
            "tool_name": part.tool_name,
        }
        if part.outcome != "success":
            line["error"] = line["content"]
        return line
    if isinstance(part, RetryFeedbackPart):
        assert isinstance(part.content, str), part
        return {"role": "agent", "content": part.content, "error": part.content}
    raise AssertionError(f"a part this test does not convert: {part!r}")
