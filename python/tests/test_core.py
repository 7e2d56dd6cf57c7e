"""The core API of the Python package: parsing, errors with character spans, the
monitor and its runs, outcomes, checkpoints, threads, and hostile input."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

import doneseq

CALC = [
    {"role": "user", "content": "What is 6*7?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "calculator", "arguments": '{"e": "6*7"}'},
            }
        ],
    },
    {"role": "tool", "content": "42", "tool_call_id": "c1"},
    {"role": "assistant", "content": "The answer is 42."},
]


def first_stop(run: doneseq.Run, messages):
    for i, message in enumerate(messages):
        outcome = run.observe(message)
        if outcome is not None:
            return i, outcome
    return None


def test_parse_sequence_gives_the_canonical_text():
    assert doneseq.parse_sequence("TOOL[calculator], agent") == "T[calculator], A"
    assert doneseq.parse_sequence("name: L & C[done]") == "name: L & C[done]"


def test_parse_stop_gives_the_canonical_text():
    assert doneseq.parse_stop("max_turns( 10 ) | final") == "max_turns(10) | final"


def test_dsl_errors_have_character_spans_on_non_ascii_text():
    with pytest.raises(doneseq.DslError) as caught:
        doneseq.parse_sequence("C[café] A")
    err = caught.value
    assert isinstance(err, doneseq.DoneseqError) and isinstance(err, ValueError)
    assert err.kind == "unexpected"
    assert err.input == "C[café] A"
    # 'é' is two bytes: the character span and the byte span differ by one.
    assert err.span == (8, 9) and err.byte_span == (9, 10)
    assert err.input[err.span[0] : err.span[1]] == "A"
    assert err.input.encode()[err.byte_span[0] : err.byte_span[1]] == b"A"
    assert err.index is None
    # str() is the caret rendering, the caret under the 'A'.
    lines = str(err).splitlines()
    assert lines[0].startswith("error: expected ',' or '&'")
    assert lines[2] == "1 | C[café] A"
    assert lines[3] == "  |         ^"


def test_stop_expression_errors_are_typed():
    with pytest.raises(doneseq.StopExprError) as caught:
        doneseq.parse_stop("max_turn(10)")
    err = caught.value
    assert err.kind == "unknown_condition"
    assert err.span == (0, 8)
    assert "did you mean 'max_turns'?" in str(err)


def test_a_bad_entry_of_a_list_names_its_index():
    with pytest.raises(doneseq.DslError) as caught:
        doneseq.Monitor(done_sequences=["T, A", "L,, ü X"])
    err = caught.value
    assert err.index == 1
    assert err.input == "L,, ü X"
    assert str(err).startswith("entry 1: error:")


def test_a_done_sequence_stops_the_run_with_its_answer():
    monitor = doneseq.Monitor(done_sequences=["calc: T[calculator], A"])
    stop = first_stop(monitor.start(), CALC)
    assert stop is not None
    at, outcome = stop
    assert at == 2
    # The question is the task's input, not a step: the request is step 0.
    assert (outcome.kind, outcome.reason, outcome.at) == ("done", "sequence", 1)
    assert (outcome.sequence, outcome.sequence_name) == (0, "calc")
    assert outcome.matched == (0, 1)
    # Every message a step (AutoGen's counting): one later.
    monitor = doneseq.Monitor(done_sequences=["calc: T[calculator], A"], input="steps")
    stop = first_stop(monitor.start(), CALC)
    assert stop is not None and (stop[1].at, stop[1].matched) == (2, (1, 2))
    assert (outcome.answer, outcome.answer_source) == ("42", "message")
    assert outcome.condition is None
    assert outcome.fired == [{"sequence": 0, "matched": {"start": 0, "end": 1}}]
    assert "kind='done'" in repr(outcome) or 'kind="done"' in repr(outcome)


def test_a_stop_condition_reports_its_text_path_and_evidence():
    monitor = doneseq.Monitor(stop="final | max_turns(2)", recognize_string_signals=False)
    _, outcome = first_stop(monitor.start(), CALC)
    assert (outcome.kind, outcome.reason, outcome.condition) == (
        "exhausted",
        "condition",
        "max_turns(2)",
    )
    assert outcome.path == [1]
    leading = next(c for c in outcome.conditions if c["text"] == "max_turns(2)")
    assert leading["evidence"] == {"type": "turns", "taken": 2, "limit": 2}
    assert leading["detail"] == "turns 2/2"
    # Not done: the answer is the latest model text, marked partial (here, none yet).
    assert outcome.answer_source in (None, "partial")


def test_final_answers_and_the_objects_dict_form():
    monitor = doneseq.Monitor(stop="final")
    run = monitor.start()
    assert run.observe({"role": "assistant", "content": "thinking"}) is None
    outcome = run.observe({"role": "assistant", "content": "FINAL('Paris')"})
    assert (outcome.kind, outcome.answer, outcome.answer_source) == ("done", "Paris", "final")
    assert outcome.answer_value == "Paris"
    d = outcome.to_dict()
    assert d["kind"] == "done" and d["answer"] == {"text": "Paris", "source": "final"}
    assert d["reason"]["type"] == "condition"
    json.dumps(d)  # plain values only


def test_outcomes_are_frozen():
    monitor = doneseq.Monitor(stop="max_turns(1)")
    outcome = monitor.start().observe({"role": "assistant", "content": "hi"})
    with pytest.raises(AttributeError):
        outcome.kind = "done"  # type: ignore[misc]


def test_messages_in_our_shape_and_in_openais():
    monitor = doneseq.Monitor(stop="tool(search)")
    ours = {"role": "assistant", "tool_calls": [{"name": "search", "arguments": {"q": "x"}}]}
    theirs = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "search", "arguments": "{}"}}
        ],
    }
    for message in (ours, theirs):
        outcome = monitor.start().observe(message)
        assert outcome is not None and outcome.condition == "tool(search)"


def test_every_message_field_is_read():
    monitor = doneseq.Monitor(stop="tokens(10) | reward(1.0) | consecutive_errors(2)")
    run = monitor.start()
    message = {
        "role": "assistant",
        "content": "x",
        "name": "Bot",
        "usage": {"prompt_tokens": 2, "completion_tokens": 3, "total_tokens": 5},
        "confidence": 0.5,
        "reward": 0.25,
        "metrics": {"score": 1.5},
        "elapsed_ms": 10,
        "metadata": {"anything": [1, 2, {"a": None}]},
    }
    assert run.observe(message) is None
    outcome = run.observe({**message, "error": "boom"})
    outcome = outcome or run.observe({**message, "error": "boom"})
    assert outcome is not None
    texts = [c["text"] for c in outcome.conditions]
    assert "tokens(10)" in texts


def test_bad_messages_raise_message_errors():
    run = doneseq.Monitor(stop="final").start()
    bad = [
        ({"role": "user", "text": "hi"}, "unknown field `text`"),
        ({"role": "robot", "content": "hi"}, "robot"),
        ({"content": "hi"}, "missing field `role`"),
        ({"role": "user", "content": 3}, "expected a string, null or a list of content parts"),
        ({"role": "user", "no_response": True, "content": "x"}, "no_response"),
        ("not a dict", "a message is a dict"),
        ({"role": "user", "content": b"bytes"}, "bytes"),
        ({"role": "user", 1: "x"}, "keys are strings"),
    ]
    for message, needle in bad:
        with pytest.raises(doneseq.MessageError) as caught:
            run.observe(message)  # type: ignore[arg-type]
        assert needle in str(caught.value), (message, str(caught.value))


def test_options_and_config_files(tmp_path):
    monitor = doneseq.Monitor(done_if_tool=True, max_turns=3)
    assert monitor.lowered == "tool | done_signal | max_turns(3) | cancelled"
    with pytest.raises(doneseq.ConfigError) as caught:
        doneseq.Monitor(max_turn=3)
    assert "max_turn" in str(caught.value)
    config = {"done_sequences": ["T[calculator], A"], "max_turns": 5, "stop": "final"}
    from_dict = doneseq.Monitor.from_config(config)
    (tmp_path / "c.json").write_text(json.dumps(config))
    (tmp_path / "c.toml").write_text(
        'done_sequences = ["T[calculator], A"]\nmax_turns = 5\nstop = "final"\n'
    )
    (tmp_path / "c.yaml").write_text(
        'done_sequences: ["T[calculator], A"]\nmax_turns: 5\nstop: final\n'
    )
    for name in ("c.json", "c.toml", "c.yaml"):
        assert doneseq.Monitor.from_config(tmp_path / name).lowered == from_dict.lowered
    assert doneseq.Monitor.from_config(str(tmp_path / "c.json")).lowered == from_dict.lowered
    (tmp_path / "bad.json").write_text('{"max_turns": "x"}')
    with pytest.raises(doneseq.ConfigError):
        doneseq.Monitor.from_config(tmp_path / "bad.json")
    with pytest.raises(doneseq.ConfigError):
        doneseq.Monitor.from_config(tmp_path / "missing.json")
    with pytest.raises(doneseq.ConfigError):
        doneseq.Monitor.from_config(42)  # type: ignore[arg-type]
    # Written with the byte order mark Windows PowerShell and Python's `utf-8-sig`
    # put first: read as without it, in each language (JSON and TOML failed on it).
    for name in ("c.json", "c.toml", "c.yaml"):
        marked = tmp_path / f"marked-{name}"
        marked.write_text((tmp_path / name).read_text(), encoding="utf-8-sig")
        assert marked.read_bytes().startswith(b"\xef\xbb\xbf")
        assert doneseq.Monitor.from_config(marked).lowered == from_dict.lowered
    # An error names the file and what is wrong.
    with pytest.raises(doneseq.ConfigError, match=r"bad\.json: invalid type: .* line 1 column 17"):
        doneseq.Monitor.from_config(tmp_path / "bad.json")
    (tmp_path / "latin1.json").write_bytes(b'{"stop": "caf\xe9"}')
    with pytest.raises(doneseq.ConfigError, match=r"cannot read .*latin1\.json"):
        doneseq.Monitor.from_config(tmp_path / "latin1.json")


def test_sequences_in_object_form_and_stop_trees_as_dicts():
    monitor = doneseq.Monitor(
        done_sequences=[
            {"name": "t", "events": [{"event_type": "specific_tool", "tool_name": "x"}]}
        ],
        stop={"type": "max_turns", "turns": 4},
    )
    assert monitor.done_sequences == ["t: T[x]"]
    assert "max_turns(4)" in monitor.lowered


def test_checkpoints_resume_where_the_run_was():
    monitor = doneseq.Monitor(done_sequences=["T[calculator], A"])
    run = monitor.start()
    run.observe(CALC[0])
    run.observe(CALC[1])
    checkpoint = run.to_json()
    resumed = monitor.resume(checkpoint)
    outcome = resumed.observe(CALC[2])
    assert outcome is not None and outcome.at == 1
    other = doneseq.Monitor(done_sequences=["L"])
    with pytest.raises(doneseq.StateError):
        other.resume(checkpoint)
    with pytest.raises(doneseq.StateError):
        monitor.resume("{not json")


def test_explanations():
    monitor = doneseq.Monitor(done_sequences=["T[calculator], A"], stop="max_turns(10)")
    run = monitor.start()
    run.observe(CALC[1])
    progress = run.explain()
    assert len(progress) == 1 and isinstance(progress[0], dict)
    report = run.explain_stop()
    assert isinstance(report, dict)
    assert "turns 1/10" in json.dumps(report)
    plain = doneseq.Monitor(done_sequences=["L"], recognize_string_signals=False).start()
    assert plain.explain_stop() is None


def test_lint_reports_what_cannot_work():
    monitor = doneseq.Monitor(stop="tool(search)")
    findings = monitor.lint(tools=["calculator"])
    assert findings, findings
    assert findings[0]["severity"] in ("error", "warning")
    assert "search" in findings[0]["message"]
    assert monitor.lint() == []


def test_one_monitor_shared_by_threads():
    monitor = doneseq.Monitor(done_sequences=["T[calculator], A"], stop="max_turns(50)")
    expected = first_stop(monitor.start(), CALC)
    barrier = threading.Barrier(8)

    def work(_):
        barrier.wait()
        results = []
        for _ in range(200):
            at, outcome = first_stop(monitor.start(), CALC)
            results.append((at, outcome.kind, outcome.answer))
        return results

    with ThreadPoolExecutor(8) as pool:
        for results in pool.map(work, range(8)):
            assert set(results) == {(expected[0], expected[1].kind, expected[1].answer)}


def test_hostile_input_raises_and_never_panics():
    run = doneseq.Monitor(stop="final").start()
    deep: dict = {}
    node = deep
    for _ in range(10_000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(doneseq.MessageError) as caught:
        run.observe({"role": "user", "content": "x", "metadata": deep})
    assert "nested deeper" in str(caught.value)
    huge = "T, " * 100_000 + "A"
    with pytest.raises(doneseq.DslError):
        doneseq.parse_sequence(huge)
    for text in ["", "\x00", "C[(]", "T[" * 1000, "ü" * 70_000, "\ud800"[:0]]:
        with pytest.raises(doneseq.DslError):
            doneseq.parse_sequence(text)
    for text in ["", "max_turns(-1)", "tool(", "(" * 10_000, 'text("(")']:
        with pytest.raises(doneseq.StopExprError):
            doneseq.parse_stop(text)
    with pytest.raises(doneseq.MessageError):
        run.observe({"role": "user", "content": "x", "reward": float("nan"), "usage": {"x": 1}})
    with pytest.raises(doneseq.MessageError):
        run.observe({"role": "user", "content": "x", "elapsed_ms": 10**30})
    with pytest.raises(doneseq.MessageError):
        run.observe({"role": "user", "content": "x", "metrics": {"a": object()}})


def test_keys_that_are_not_interned_read_the_same():
    # Keys built at run time are other string objects than the literals: read by
    # value, with the same result and the same errors.
    monitor = doneseq.Monitor(done_sequences=["T[calculator], A"])
    loaded = [json.loads(json.dumps(m)) for m in CALC]
    built = [{"".join(list(k)): v for k, v in m.items()} for m in CALC]
    for messages in (loaded, built):
        at, outcome = first_stop(monitor.start(), messages)
        assert (at, outcome.kind, outcome.answer) == (2, "done", "42")
    with pytest.raises(doneseq.MessageError) as caught:
        monitor.start().observe({"".join(["ro", "le"]): "user", "".join(["te", "xt"]): "x"})
    assert "unknown field `text`" in str(caught.value)


def test_peek_is_a_what_if_that_changes_nothing():
    monitor = doneseq.Monitor(done_sequences=["T[calculator], A"])
    run = monitor.start()
    run.observe(CALC[1])
    assert run.steps == 1
    peeked = run.peek(CALC[2])
    assert peeked is not None and peeked.at == 1
    assert run.steps == 1
    # The real step then stops where the peek said.
    real = run.observe(CALC[2])
    assert real is not None and real.at == 1 and run.steps == 2


def test_the_object_form_of_a_sequence():
    obj = doneseq.sequence_object("calc: T[calculator], A@db & !E")
    assert obj == {
        "name": "calc",
        "events": [
            {"event_type": "specific_tool", "tool_name": "calculator"},
            [
                {"event_type": "agent_response", "responder": "db"},
                {"event_type": "error", "negated": True},
            ],
        ],
    }
    assert doneseq.Monitor(done_sequences=[obj]).done_sequences == [
        "calc: T[calculator], A@db & !E"
    ]


def test_the_answer_as_a_value():
    def answer_of(content: str):
        run = doneseq.Monitor(stop="final | max_turns(1)").start()
        return run.observe({"role": "assistant", "content": content})

    assert answer_of("FINAL(42)").answer_value == 42
    assert answer_of("FINAL([1, 2.5, 'x'])").answer_value == [1, 2.5, "x"]
    assert answer_of("FINAL({'a': None})").answer_value == {"a": None}
    assert answer_of("FINAL(42)").to_dict()["answer_value"] == 42
    # Not a FINAL answer: the text.
    plain = answer_of("just text")
    assert (plain.answer, plain.answer_value) == ("just text", "just text")


def test_the_tasks_input_is_not_a_step_unless_marked_or_counted():
    question = {"role": "user", "content": "quit"}
    monitor = doneseq.Monitor(done_sequences=["C[quit]"])
    run = monitor.start()
    assert run.observe(question) is None and run.steps == 0
    # Marked as a step, the same message is one.
    run = monitor.start()
    outcome = run.observe({**question, "input": False})
    assert outcome is not None and outcome.at == 0 and run.steps == 1
    # AutoGen's counting: every message a step.
    run = doneseq.Monitor(done_sequences=["C[quit]"], input="steps").start()
    assert run.observe(question) is not None
    with pytest.raises(doneseq.ConfigError, match="unknown variant `first`"):
        doneseq.Monitor(done_sequences=["C[quit]"], input="first")
    with pytest.raises(doneseq.MessageError, match="expected a boolean"):
        monitor.start().observe({**question, "input": "yes"})
