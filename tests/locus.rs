//! locus's agent state (`--format locus`): a checkpoint as its FileCheckpointer
//! writes it, the state alone and an AgentResult's dump, failed tool calls, errors.

use doneseq::transcript::{Format, TranscriptErrorKind};

use crate::formats::{read, sample, sample_text, summary, summary_of_values};

#[test]
fn a_checkpoint_of_a_run_with_a_failed_tool_call() {
    // Written by locus-sdk 0.2.0's FileCheckpointer at the end of an agent's run (a
    // scripted model): a system prompt, the task, a call that answers, a call that
    // raises (its tool message empty, its error in the state's tool_executions), the
    // answer.
    insta::assert_snapshot!(sample("locus-checkpoint.json", Format::Locus));
}

#[test]
fn the_state_and_a_result_read_as_the_checkpoint() {
    let text = sample_text("locus-checkpoint.json");
    let expected = summary_of_values(&read(&text, Format::Locus).unwrap());
    let checkpoint: serde_json::Value = serde_json::from_str(&text).unwrap();
    let state = checkpoint["state"].clone();
    // An AgentResult's dump: the state, and its messages and executions again.
    let result = serde_json::json!({
        "message": "42.", "state": state, "stop_reason": "complete", "metrics": {"iterations": 3},
        "messages": state["messages"], "tool_executions": state["tool_executions"],
    });
    for shape in [
        state.to_string(),
        serde_json::to_string_pretty(&result).unwrap(),
    ] {
        for format in [Format::Auto, Format::Locus] {
            assert_eq!(
                summary_of_values(&read(&shape, format).unwrap()),
                expected,
                "{format}: {shape}"
            );
        }
    }
}

#[test]
fn a_failure_marks_the_result_of_its_call() {
    let state = r#"{"run_id": "r", "messages": [
        {"role": "user", "content": "Go."},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "name": "f", "arguments": {}}, {"id": "b", "name": "g", "arguments": {"x": 1}}]},
        {"role": "tool", "content": "ok", "tool_call_id": "a", "name": "f", "metadata": {}},
        {"role": "tool", "content": "", "tool_call_id": "b", "name": "g", "metadata": {}}
    ], "tool_executions": [
        {"tool_name": "f", "tool_call_id": "a", "result": "ok", "error": null},
        {"tool_name": "g", "tool_call_id": "b", "result": null, "error": "ValueError: no"},
        {"tool_name": "f", "tool_call_id": "a", "error": ""}
    ], "tool_history": ["f", "g"]}"#;
    assert_eq!(
        summary(&read(state, Format::Auto).unwrap()),
        "0 user \"Go.\"\n\
         1 llm call f({}) id=Some(\"a\") call g({\"x\": 1}) id=Some(\"b\")\n\
         2 agent @f \"ok\" answers=a tool=f\n\
         3 agent @g answers=b tool=g error=\"ValueError: no\"\n"
    );
}

#[test]
fn errors_name_the_record() {
    let cases = [
        (
            r#"{"checkpoint_id": "c", "state": {"messages": [{"role": "robot"}]}}"#,
            "element 1 of 1",
        ),
        (
            r#"{"run_id": "r", "messages": [], "tool_executions": [{"tool_call_id": "x", "error": "boom"}]}"#,
            "the tool call \"x\" failed (\"boom\"), but no tool message answers it",
        ),
        (
            r#"{"tool_executions": [], "metrics": {}}"#,
            "a locus record holds its messages in \"state\" (a checkpoint, a result) or in \"messages\" (a state)",
        ),
    ];
    for (record, expected) in cases {
        let err = read(record, Format::Locus).unwrap_err();
        assert_eq!(
            (err.line, err.kind, err.format),
            (1, TranscriptErrorKind::Message, Some(Format::Locus)),
            "{err}"
        );
        assert!(err.message.contains(expected), "{record}: {err}");
    }
    // Detected, the format and the field.
    let err = read(
        r#"{"checkpoint_id": "c", "thread_id": "t", "state": {"messages": "none"}}"#,
        Format::Auto,
    )
    .unwrap_err();
    assert_eq!(err.kind, TranscriptErrorKind::Json, "{err}");
    assert!(err.message.contains("format locus (detected)"), "{err}");
    // An execution without its call's id.
    let err = read(
        r#"{"messages": [], "tool_executions": [{"error": "boom"}]}"#,
        Format::Locus,
    )
    .unwrap_err();
    assert!(
        err.message.contains("missing field `tool_call_id`"),
        "{err}"
    );
}
