"""Per-message cost of doneseq from Python, beside Langroid's own matching.

Run in the Langroid virtualenv that scripts/test makes (it has the package and
Langroid):  .venv-langroid/bin/python python/bench/observe.py

The workload is the Rust bench's (benches/observe.rs): a 6-message cycle of a
tool-using agent, and K done sequences from five templates (two of them content
regexes) that never match, so every sequence is evaluated on every message.

1. ``Run.observe(dict)`` at K = 1, 100 and 1000.
2. Langroid's ``Task.done()`` on the same messages and sequences (its sequence
   matching, with the string signal off), at K = 1 and 100.
3. ``DoneseqTask.done()`` against ``Task.done()`` per run-loop step, at K = 1 and 100.

Prints one line per measurement: nanoseconds or microseconds per message (the best
of five repetitions).
"""

from __future__ import annotations

import time
from typing import Any, Callable

import tiktoken
import tiktoken.registry

# Offline: Langroid loads this encoding at import.
tiktoken.registry.ENCODINGS["cl100k_base"] = tiktoken.Encoding(
    name="cl100k_base",
    pat_str=r"\S+|\s+",
    mergeable_ranks={bytes([i]): i for i in range(256)},
    special_tokens={"<|endoftext|>": 256},
)

import langroid as lr  # noqa: E402
from langroid.agent.chat_document import ChatDocMetaData, ChatDocument  # noqa: E402
from langroid.agent.task import TaskConfig  # noqa: E402
from langroid.language_models.mock_lm import MockLMConfig  # noqa: E402
from langroid.mytypes import Entity  # noqa: E402

import doneseq  # noqa: E402
from doneseq.langroid import DoneseqTask, DoneseqTaskConfig  # noqa: E402


def templates(k: int) -> list[str]:
    out = []
    for i in range(k):
        out.append(
            [
                f"T[tool_{i}], A",
                f"C[\\bstopword_{i}\\b]",
                f"L, T[tool_{i}], A, L",
                f"T, A, C[finished_{i}]",
                "U, L, L",
            ][i % 5]
        )
    return out


CYCLE: list[dict[str, Any]] = [
    {"role": "assistant", "content": "Let me think about the numbers involved here."},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"name": "calculator", "arguments": '{"expression": "6*7"}'}],
    },
    {"role": "tool", "content": "42"},
    {"role": "user", "content": "Thanks, now look up the capital of France."},
    {"role": "assistant", "content": "", "tool_calls": [{"name": "search", "arguments": "{}"}]},
    {"role": "tool", "content": "Paris"},
]


def best(per_call: Callable[[int], float]) -> float:
    return min(per_call(i) for i in range(5))


def bench_observe(k: int, n: int = 200_000) -> float:
    monitor = doneseq.Monitor(done_sequences=templates(k), recognize_string_signals=False)
    run = monitor.start()
    messages = CYCLE

    def once(_: int) -> float:
        start = time.perf_counter()
        for i in range(n):
            run.observe(messages[i % 6])
        return (time.perf_counter() - start) / n

    return best(once)


class CalculatorTool(lr.ToolMessage):
    request: str = "calculator"
    purpose: str = "To compute an <expression>."
    expression: str


class SearchTool(lr.ToolMessage):
    request: str = "search"
    purpose: str = "To search for <query>."
    query: str = ""


def langroid_cycle() -> list[tuple[ChatDocument, Entity]]:
    def doc(content: str, sender: Entity) -> ChatDocument:
        return ChatDocument(content=content, metadata=ChatDocMetaData(sender=sender))

    return [
        (doc(CYCLE[0]["content"], Entity.LLM), Entity.LLM),
        (doc(CalculatorTool(expression="6*7").to_json(), Entity.LLM), Entity.LLM),
        (doc("42", Entity.AGENT), Entity.AGENT),
        (doc(CYCLE[3]["content"], Entity.USER), Entity.USER),
        (doc(SearchTool(query="x").to_json(), Entity.LLM), Entity.LLM),
        (doc("Paris", Entity.AGENT), Entity.AGENT),
    ]


def agent() -> lr.ChatAgent:
    a = lr.ChatAgent(lr.ChatAgentConfig(llm=MockLMConfig()))
    a.enable_message([CalculatorTool, SearchTool])
    return a


def bench_done(task: Any, n: int) -> float:
    cycle = langroid_cycle()

    def once(_: int) -> float:
        start = time.perf_counter()
        for i in range(n):
            msg, sender = cycle[i % 6]
            task.pending_message = msg
            task._last_responder = sender
            task.response_sequence.append(msg)
            if len(task.response_sequence) > 64:
                del task.response_sequence[:32]
            task.done()
        return (time.perf_counter() - start) / n

    return best(once)


def main() -> None:
    for k in (1, 100, 1000):
        print(f"doneseq Run.observe(dict), K = {k}: {bench_observe(k) * 1e9:.0f} ns")
    for k, n in ((1, 20_000), (100, 400)):
        plain = lr.Task(
            agent(),
            interactive=False,
            config=TaskConfig(done_sequences=templates(k), recognize_string_signals=False),
        )
        plain.init("go")
        ours = DoneseqTask(
            agent(),
            interactive=False,
            config=DoneseqTaskConfig(done_sequences=templates(k), recognize_string_signals=False),
        )
        ours.init("go")
        t_plain = bench_done(plain, n)
        t_ours = bench_done(ours, n)
        print(f"Langroid Task.done(), K = {k}: {t_plain * 1e6:.1f} us")
        print(f"DoneseqTask.done(), K = {k}: {t_ours * 1e6:.1f} us")


if __name__ == "__main__":
    main()
