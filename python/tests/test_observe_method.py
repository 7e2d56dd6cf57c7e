"""``Run.observe`` is a method of one positional argument, defined by hand (CPython's
``METH_O``) so that a call builds no tuple of arguments: it behaves as the other
methods do (a signature ``inspect`` reads, type errors, the outcome), and its texts
are read the same whether Python keeps them as ASCII, as wider characters, or in a
subclass of ``str``."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Iterator

import pytest

import doneseq
from doneseq import _native


@pytest.fixture(autouse=True, params=[True, False], ids=["utf8-borrowed", "utf8-encoded"])
def utf8_reading(request: pytest.FixtureRequest) -> Iterator[None]:
    # Texts borrowed from the strings (CPython 3.10 on) and encoded into bytes (3.9's
    # way, taken here on this interpreter): every test both ways.
    _native._borrow_utf8(request.param)
    yield
    _native._borrow_utf8(True)


def test_its_signature_and_docstring() -> None:
    run = doneseq.Monitor(done_sequences=["L"]).start()
    assert str(inspect.signature(run.observe)) == "(message, /)"
    assert str(inspect.signature(doneseq.Run.observe)) == "(self, message, /)"
    assert doneseq.Run.observe.__doc__.startswith("Observes one message")


def test_wrong_calls_are_type_errors() -> None:
    run = doneseq.Monitor(done_sequences=["L"]).start()
    with pytest.raises(TypeError, match="exactly one argument"):
        run.observe()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        run.observe({"role": "user"}, {"role": "user"})  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        run.observe(message={"role": "user"})  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="doesn't apply"):
        doneseq.Run.observe(object(), {"role": "user"})  # type: ignore[arg-type]
    with pytest.raises(doneseq.MessageError, match="not int"):
        run.observe(3)  # type: ignore[arg-type]
    assert run.steps == 0


def test_it_observes_and_stops() -> None:
    run = doneseq.Monitor(done_sequences=["T[calc], A"]).start()
    call = {"role": "assistant", "content": "", "tool_calls": [{"name": "calc"}]}
    assert run.observe(call) is None
    outcome = run.observe({"role": "tool", "content": "42"})
    assert outcome is not None and outcome.kind == "done" and outcome.at == 1
    assert run.steps == 2


class Text(str):
    """A subclass of str: its text is the str's."""


@pytest.mark.parametrize(
    "content",
    [
        "plain ascii",
        "latin-1: café",
        "bmp: 中文 ☕",
        "astral: 😀 𝄞",
        "",
        Text("quit now"),
        Text("é"),
    ],
)
def test_texts_of_every_width_read_the_same_on_both_paths(content: str) -> None:
    message = {"role": "assistant", "content": content, "name": Text("Bot")}
    fast = _native._message_debug(message, True)
    assert fast is not None
    assert fast == _native._message_debug(message, False)
    monitor = doneseq.Monitor(done_sequences=["C[quit]", "C[é]", "C[😀]"])
    outcome = monitor.start().observe(message)
    expected = any(word in content for word in ("quit", "é", "😀"))
    assert (outcome is not None) == expected


def test_runs_on_threads() -> None:
    # One run per thread, sharing the monitor: each sees its own messages.
    monitor = doneseq.Monitor(done_sequences=["L, L, L"])
    results: list[int] = []

    def work() -> None:
        run = monitor.start()
        stops = 0
        for _ in range(3000):
            stops += run.observe({"role": "assistant", "content": "x"}) is not None
        results.append(stops)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 and all(r > 0 for r in results)
