"""A LangGraph ReAct agent that the OpenTelemetry tests trace (by OpenInference's
LangChain instrumentation, by Langfuse's LangChain integration): LangChain's fake chat
model says a text and asks two searches in a turn, then answers."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.prebuilt import create_react_agent
from recorded_runs import model_line

# Each call's usage (input and output tokens), in order.
USAGE = [(10, 5), (20, 6)]


class ToolCallingFake(GenericFakeChatModel):
    """LangChain's fake chat model, its answers given, with tools bound (which the
    ReAct agent asks for)."""

    def bind_tools(self, tools: Any, **options: Any) -> Any:
        return self


def run(config: Any = None) -> list[Any]:
    """The agent's run (``config`` its runnable config: callbacks, ...): its
    messages."""
    calls = [
        {"name": "search", "args": {"query": "a"}, "id": "c1"},
        {"name": "search", "args": {"query": "b"}, "id": "c2"},
    ]
    usage = [{"input_tokens": i, "output_tokens": o, "total_tokens": i + o} for i, o in USAGE]
    answers = [
        AIMessage(content="Let me look.", tool_calls=calls, usage_metadata=usage[0]),
        AIMessage(content="The answer is B.", usage_metadata=usage[1]),
    ]

    @tool
    def search(query: str) -> str:
        """Searches the web."""
        return f"results for {query}"

    model = ToolCallingFake(messages=iter(answers))
    agent = create_react_agent(model, [search], prompt="Be brief.", name="research")
    result = agent.invoke({"messages": [("user", "Find it")]}, config=config)
    assert result["messages"][-1].content == "The answer is B."
    return result["messages"]


def lines(messages: list[Any]) -> list[Any]:
    """LangChain's messages of a run as doneseq's JSONL (a message this test does not
    know fails it): a model's turn names its agent (the message's ``name``), a tool's
    result its tool, failed when its status is ``error``."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            out.append({"role": "system", "content": message.content})
        elif isinstance(message, HumanMessage):
            out.append({"role": "user", "content": message.content})
        elif isinstance(message, AIMessage):
            usage = message.usage_metadata or {}
            calls = [(c["id"], c["name"], c["args"]) for c in message.tool_calls]
            tokens = (usage.get("input_tokens", 0), usage.get("output_tokens", 0))
            line = model_line(text(message.content), calls, tokens)
            if message.name:
                line["responder"] = message.name
            out.append(line)
        elif isinstance(message, ToolMessage):
            line = {
                "role": "agent",
                "content": text(message.content),
                "tool_call_id": message.tool_call_id,
                "tool_name": message.name,
            }
            if message.status == "error":
                line["error"] = line["content"]
            out.append(line)
        else:
            raise AssertionError(f"a message this test does not convert: {message!r}")
    return out


def text(content: str | list[Any]) -> str:
    """A message's text: its content, or its text blocks' joined by newlines."""
    if isinstance(content, str):
        return content
    texts = [b if isinstance(b, str) else b.get("text") for b in content]
    return "\n".join(t for t in texts if isinstance(t, str))
