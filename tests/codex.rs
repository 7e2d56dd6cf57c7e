//! Codex CLI's session logs (`--format codex`): a rollout Codex wrote, its items and
//! usage records, a command's failure, the records that give no message, errors.

use doneseq::transcript::{Format, TranscriptErrorKind};

use crate::formats::{lines_given, read, sample, sample_text, summary, summary_of_values};

/// A Codex record of type `kind` holding `payload` (JSON).
fn record(kind: &str, payload: &str) -> String {
    format!(
        r#"{{"timestamp": "2026-11-29T04:40:20.001Z", "type": "{kind}", "payload": {payload}}}"#
    )
}

/// A Codex record of a tool's output, `text`, answering the call `id`.
fn output(id: &str, text: &str) -> String {
    record(
        "response_item",
        &format!(
            r#"{{"type": "function_call_output", "call_id": "{id}", "output": {}}}"#,
            serde_json::to_string(text).unwrap()
        ),
    )
}

/// The messages of the Codex records `lines`.
fn messages(lines: &[&str]) -> String {
    summary(&read(&lines.join("\n"), Format::Codex).unwrap())
}

#[test]
fn a_rollout_of_commands_one_failing() {
    // Written by Codex CLI 0.163.0 (`codex exec`, against a scripted Responses API;
    // its commands run): its instructions and context, the prompt; a call with
    // reasoning, text and a command; a call of two commands at once, the second
    // exiting with 3; the answer. Among its 31 records, the session's metadata, the
    // turn's context and the events Codex shows give no message.
    insta::assert_snapshot!(sample("codex-rollout.jsonl", Format::Codex));
}

#[test]
fn items_usage_and_failures() {
    let item = |payload: &str| record("response_item", payload);
    let usage = |input: u32| {
        record(
            "token_usage_record",
            &format!(
                r#"{{"turn_id": "t", "response_id": "r", "usage": {{"input_tokens": {input}, "cached_input_tokens": 40, "output_tokens": 7, "reasoning_output_tokens": 2, "total_tokens": {}}}}}"#,
                input + 7
            ),
        )
    };
    let lines = [
        record(
            "session_meta",
            r#"{"id": "s", "cwd": "/w", "cli_version": "0.163.0"}"#,
        ),
        item(
            r#"{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Build it."}]}"#,
        ),
        record(
            "event_msg",
            r#"{"type": "user_message", "message": "Build it."}"#,
        ),
        item(r#"{"type": "reasoning", "id": "rs", "summary": [], "encrypted_content": "gAAA"}"#),
        item(
            r#"{"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\": \"make\"}", "call_id": "a"}"#,
        ),
        item(
            r#"{"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\": \"make test\"}", "call_id": "b"}"#,
        ),
        // After the call's items, before its outputs: the call's usage.
        usage(100),
        record(
            "event_msg",
            r#"{"type": "exec_command_begin", "call_id": "a"}"#,
        ),
        output(
            "a",
            "Chunk ID: 1\nWall time: 0.5 seconds\nProcess exited with code 0\nOutput:\nok\n",
        ),
        output(
            "b",
            "Chunk ID: 2\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nmake: *** [test] Error 1\n",
        ),
        record(
            "event_msg",
            r#"{"type": "token_count", "info": {"last_token_usage": {"input_tokens": 100, "output_tokens": 7}}}"#,
        ),
        // Codex before its unified exec: the output as JSON, its exit code in it; and
        // a program whose own output says how another exited.
        item(
            r#"{"type": "function_call", "name": "shell", "arguments": "{\"command\": [\"ls\"]}", "call_id": "c"}"#,
        ),
        item(
            r#"{"type": "function_call", "name": "shell", "arguments": "{\"command\": [\"cat\", \"log\"]}", "call_id": "d"}"#,
        ),
        usage(200),
        output(
            "c",
            r#"{"output":"ls: cannot access","metadata":{"exit_code":2,"duration_seconds":0.0}}"#,
        ),
        output(
            "d",
            "Process running with session ID 3\nOutput:\nProcess exited with code 1\n",
        ),
        record("compacted", r#"{"message": "The user asked for a build."}"#),
        item(
            r#"{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "The tests fail."}]}"#,
        ),
        usage(300),
        record(
            "event_msg",
            r#"{"type": "task_complete", "last_agent_message": "The tests fail."}"#,
        ),
        record(
            "turn_context",
            r#"{"cwd": "/w", "approval_policy": "never"}"#,
        ),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        messages(&lines),
        "0 user \"Build it.\"\n\
         1 llm call exec_command({\"cmd\": \"make\"}) id=Some(\"a\") call exec_command({\"cmd\": \"make test\"}) id=Some(\"b\") tokens=100+7\n\
         2 agent \"Chunk ID: 1\\nWall time: 0.5 seconds\\nProcess exited with code 0\\nOutput:\\nok\\n\" answers=a\n\
         3 agent \"Chunk ID: 2\\nWall time: 0.1 seconds\\nProcess exited with code 2\\nOutput:\\nmake: *** [test] Error 1\\n\" answers=b error=\"Chunk ID: 2\\nWall time: 0.1 seconds\\nProcess exited with code 2\\nOutput:\\nmake: *** [test] Error 1\\n\"\n\
         4 llm call shell({\"command\": [\"ls\"]}) id=Some(\"c\") call shell({\"command\": [\"cat\", \"log\"]}) id=Some(\"d\") tokens=200+7\n\
         5 agent \"{\\\"output\\\":\\\"ls: cannot access\\\",\\\"metadata\\\":{\\\"exit_code\\\":2,\\\"duration_seconds\\\":0.0}}\" answers=c error=\"{\\\"output\\\":\\\"ls: cannot access\\\",\\\"metadata\\\":{\\\"exit_code\\\":2,\\\"duration_seconds\\\":0.0}}\"\n\
         6 agent \"Process running with session ID 3\\nOutput:\\nProcess exited with code 1\\n\" answers=d\n\
         7 llm \"The tests fail.\" tokens=300+7\n"
    );
    // Read as the records come, the answer is given at the event that ends Codex's
    // turn.
    let log = lines.join("\n");
    assert_eq!(
        lines_given(&log, Format::Codex),
        [2, 9, 9, 10, 15, 15, 16, 20]
    );
    // A usage record with no call's items before it has no turn to count on.
    let lone = [lines[1], &usage(5)];
    assert_eq!(messages(&lone), "0 user \"Build it.\"\n");
}

#[test]
fn a_rollout_of_codex_before_its_usage_records() {
    // Written by Codex CLI 0.133.0 (the same script): no usage records, each call's
    // usage in the `token_count` event after its outputs. The same messages, the same
    // usage, as the later rollout's.
    insta::assert_snapshot!(sample("codex-rollout-0.133.jsonl", Format::Codex));
    let newer = summary(&read(&sample_text("codex-rollout.jsonl"), Format::Codex).unwrap());
    let older = summary(&read(&sample_text("codex-rollout-0.133.jsonl"), Format::Codex).unwrap());
    let conversation = |summary: &str| -> Vec<String> {
        // (Each version's instructions and context are its own; the chunk ids and
        // times of the commands' outputs are the run's.)
        summary
            .lines()
            .filter(|line| line.contains(" llm ") || line.contains("tokens="))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(conversation(&older), conversation(&newer));
}

#[test]
fn usage_in_token_count_events_waits_for_its_turn() {
    let count = |input: u32| {
        record(
            "event_msg",
            &format!(
                r#"{{"type": "token_count", "info": {{"total_token_usage": {{"input_tokens": 999, "output_tokens": 999}}, "last_token_usage": {{"input_tokens": {input}, "cached_input_tokens": 0, "output_tokens": 5}}}}, "rate_limits": null}}"#
            ),
        )
    };
    let call = |id: &str| {
        record(
            "response_item",
            &format!(
                r#"{{"type": "function_call", "name": "exec_command", "arguments": "{{}}", "call_id": "{id}"}}"#
            ),
        )
    };
    let user = record(
        "response_item",
        r#"{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go."}]}"#,
    );
    let answer = record(
        "response_item",
        r#"{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}"#,
    );
    let lines = [
        user.clone(),
        record(
            "event_msg",
            r#"{"type": "token_count", "info": null, "rate_limits": {}}"#,
        ),
        call("a"),
        call("b"),
        output("a", "ok"),
        record(
            "event_msg",
            r#"{"type": "exec_command_end", "call_id": "a"}"#,
        ),
        output("b", "ok"),
        count(10),
        call("c"),
        output("c", "ok"),
        // No count for that call: the next item gives it without usage.
        user.clone(),
        answer,
        count(30),
        record("event_msg", r#"{"type": "task_complete"}"#),
        record("turn_context", r#"{"cwd": "/w"}"#),
    ];
    let log = lines.join("\n");
    assert_eq!(
        summary(&read(&log, Format::Codex).unwrap()),
        "0 user \"Go.\"\n\
         1 llm call exec_command({}) id=Some(\"a\") call exec_command({}) id=Some(\"b\") tokens=10+5\n\
         2 agent \"ok\" answers=a\n\
         3 agent \"ok\" answers=b\n\
         4 llm call exec_command({}) id=Some(\"c\")\n\
         5 agent \"ok\" answers=c\n\
         6 user \"Go.\"\n\
         7 llm \"Done.\" tokens=30+5\n"
    );
    // Each given at the line that settles it: the count, the next item, the end of
    // Codex's turn.
    assert_eq!(
        lines_given(&log, Format::Codex),
        [1, 8, 8, 8, 11, 11, 11, 14]
    );
    // A log with usage records reads no count (the two name the same call, whose turn
    // is still open at the count that follows its record).
    let recorded = [
        user,
        call("a"),
        record(
            "token_usage_record",
            r#"{"usage": {"input_tokens": 7, "output_tokens": 1}}"#,
        ),
        count(10),
        output("a", "ok"),
    ];
    assert_eq!(
        summary(&read(&recorded.join("\n"), Format::Codex).unwrap()),
        "0 user \"Go.\"\n\
         1 llm call exec_command({}) id=Some(\"a\") tokens=7+1\n\
         2 agent \"ok\" answers=a\n"
    );
}

#[test]
fn a_rollout_as_one_json_array_reads_as_its_lines() {
    let text = sample_text("codex-rollout.jsonl");
    let expected = summary_of_values(&read(&text, Format::Codex).unwrap());
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let array = serde_json::to_string_pretty(&records).unwrap();
    for format in [Format::Auto, Format::Codex] {
        assert_eq!(summary_of_values(&read(&array, format).unwrap()), expected);
        assert_eq!(summary_of_values(&read(&text, format).unwrap()), expected);
    }
}

#[test]
fn errors_name_the_record() {
    let cases = [
        (
            r#"{"timestamp": "t", "type": "token_usage_record", "payload": null}"#,
            "a Codex \"token_usage_record\" record without its \"payload\"",
        ),
        (
            r#"{"timestamp": "t", "type": "response_item", "payload": {"type": "message", "content": "hi"}}"#,
            "a message item has no \"role\"",
        ),
        (
            r#"{"timestamp": "t", "type": "response_item", "payload": {"type": "telepathy"}}"#,
            "telepathy",
        ),
    ];
    for (line, expected) in cases {
        for format in [Format::Auto, Format::Codex] {
            let err = read(line, format).unwrap_err();
            assert_eq!(
                (err.line, err.kind, err.format),
                (1, TranscriptErrorKind::Message, Some(Format::Codex)),
                "{err}"
            );
            assert!(err.message.contains(expected), "{line}: {err}");
        }
    }
    // A null type is no type, and a record without a payload is none of Codex's
    // (`auto` does not know either record for one of Codex's).
    let err = read(r#"{"type": null, "payload": {}}"#, Format::Codex).unwrap_err();
    assert!(
        err.message
            .contains("a Codex record without a \"type\" (\"response_item\", \"event_msg\", ...)"),
        "{err}"
    );
    let err = read(
        r#"{"timestamp": "t", "type": "response_item"}"#,
        Format::Codex,
    )
    .unwrap_err();
    assert!(
        err.message
            .contains("a Codex \"response_item\" record without its \"payload\""),
        "{err}"
    );
    // A payload of the wrong shape: serde's error, its column in the line.
    let log = "{\"timestamp\": \"t\", \"type\": \"session_meta\", \"payload\": {}}\n\
               {\"timestamp\": \"t\", \"type\": \"token_usage_record\", \"payload\": {\"usage\": {\"input_tokens\": \"many\"}}}\n";
    let err = read(log, Format::Auto).unwrap_err();
    assert_eq!(
        (err.line, err.kind, err.column),
        (2, TranscriptErrorKind::Json, Some(93)),
        "{err}"
    );
    assert!(err.message.contains("format codex (detected)"), "{err}");
}
