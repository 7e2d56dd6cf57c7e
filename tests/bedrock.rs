//! Amazon Bedrock Converse messages (`--format bedrock`): a Strands agent's messages as
//! Strands keeps them, the same one a line, requests and responses, what each block
//! becomes, and errors.

use doneseq::transcript::{Format, TranscriptErrorKind};

use crate::formats::{read, sample, sample_text, summary, summary_of_values};

#[test]
fn a_strands_agents_messages() {
    // Written by Strands Agents 1.62 (`agent.messages`, as `json.dump` writes it) for
    // an agent of a scripted model that reasons, calls two tools at once (the second
    // raises), calls a tool that returns JSON, answers, and is asked again.
    insta::assert_snapshot!(sample("strands-messages.json", Format::Bedrock));
}

#[test]
fn the_messages_one_a_line_read_as_the_whole_list() {
    let text = sample_text("strands-messages.json");
    let expected = summary_of_values(&read(&text, Format::Auto).unwrap());
    let messages: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let lines: String = messages.iter().map(|m| format!("{m}\n")).collect();
    for format in [Format::Auto, Format::Bedrock] {
        assert_eq!(summary_of_values(&read(&lines, format).unwrap()), expected);
    }
    // A Converse request of the same messages: its system prompt first.
    let request = serde_json::json!({
        "modelId": "us.anthropic.claude-sonnet-4-5",
        "system": [{"text": "Be brief."}, {"cachePoint": {"type": "default"}}, {"guardContent": {"text": {"text": "Be kind."}}}],
        "messages": messages,
        "toolConfig": {"tools": []},
        "inferenceConfig": {"maxTokens": 100},
    })
    .to_string();
    for format in [Format::Auto, Format::Bedrock] {
        let read = summary_of_values(&read(&request, format).unwrap());
        assert_eq!(
            read,
            format!("0 system \"Be brief.\\nBe kind.\"\n{}", shift(&expected))
        );
    }
}

/// A summary with each message's index one higher.
fn shift(summary: &str) -> String {
    summary
        .lines()
        .map(|line| {
            let (index, rest) = line.split_once(' ').unwrap();
            format!("{} {rest}\n", index.parse::<usize>().unwrap() + 1)
        })
        .collect()
}

/// The summary of the Converse records `lines`.
fn messages(lines: &[&str]) -> String {
    summary(&read(&lines.join("\n"), Format::Bedrock).unwrap())
}

#[test]
fn each_kind_of_block() {
    assert_eq!(
        messages(&[
            // Text around media and a cache point; guarded text is text.
            r#"{"role": "user", "content": [{"text": "Look at"}, {"image": {"format": "png", "source": {"bytes": "AA=="}}}, {"cachePoint": {"type": "default"}}, {"guardContent": {"text": {"text": "this", "qualifiers": ["query"]}}}]}"#,
            // Reasoning is not the answer; cited text is; tool uses with no input and
            // with no id.
            r#"{"role": "assistant", "content": [{"reasoningContent": {"redactedContent": "eA=="}}, {"citationsContent": {"content": [{"text": "Seen"}, {"text": "twice"}], "citations": [{"title": "x"}]}}, {"toolUse": {"toolUseId": "t1", "name": "look"}}, {"toolUse": {"name": "zoom", "input": {"by": 2}, "type": "server_tool_use"}}], "metadata": {"usage": {"inputTokens": 10, "outputTokens": 4, "cacheReadInputTokens": 100, "cacheWriteInputTokens": 5}}}"#,
            // Text before a result is a turn before it; text after it one after; JSON
            // is its compact text; a result with no status succeeded.
            r#"{"role": "user", "content": [{"text": "Before"}, {"toolResult": {"toolUseId": "t1", "content": [{"json": {"seen": [1, 2]}}, {"text": "and more"}, {"image": {"format": "png"}}]}}, {"toolResult": {"toolUseId": "t9", "status": "error", "content": []}}, {"text": "After"}]}"#,
            // A user's message of media alone is a turn.
            r#"{"role": "user", "content": [{"document": {"name": "d", "format": "txt"}}]}"#,
            r#"{"role": "assistant", "content": []}"#,
        ]),
        "0 user \"Look at\\nthis\"\n\
         1 llm \"Seen\\ntwice\" call look() id=Some(\"t1\") call zoom({\"by\": 2}) id=None \
         tokens=115+4\n\
         2 user \"Before\"\n\
         3 agent \"{\\\"seen\\\":[1,2]}\\nand more\" answers=t1\n\
         4 agent answers=t9 error=\"the tool failed\"\n\
         5 user \"After\"\n\
         6 user (no response)\n\
         7 llm (no response)\n"
    );
}

#[test]
fn a_response_its_usage_and_its_stop_reason() {
    let response = r#"{"ResponseMetadata": {"RequestId": "r1", "HTTPStatusCode": 200}, "output": {"message": {"role": "assistant", "content": [{"text": "Hi."}]}}, "stopReason": "end_turn", "usage": {"inputTokens": 12, "outputTokens": 3, "totalTokens": 15}, "metrics": {"latencyMs": 300}}"#;
    let blocked = r#"{"output": {"message": {"role": "assistant", "content": [{"text": "Sorry, I can't."}]}}, "stopReason": "guardrail_intervened", "usage": {"inputTokens": 12, "outputTokens": 0}}"#;
    let empty = r#"{"output": {"message": {"role": "assistant", "content": []}}, "stopReason": "malformed_tool_use"}"#;
    for format in [Format::Auto, Format::Bedrock] {
        let read = read(&[response, blocked, empty].join("\n"), format).unwrap();
        assert_eq!(
            summary(&read),
            "0 llm \"Hi.\" tokens=12+3\n\
             1 llm \"Sorry, I can't.\" tokens=12+0 error=\"Sorry, I can't.\"\n\
             2 llm error=\"the model stopped: malformed_tool_use\"\n"
        );
    }
}

#[test]
fn detection_looks_at_the_first_blocks_key() {
    // Typed parts are OpenAI's or Anthropic's, whatever their first key.
    let typed = r#"{"role": "user", "content": [{"text": "Hi", "type": "text"}]}"#;
    let reader = doneseq::transcript::Reader::new(typed.as_bytes(), Format::Auto);
    let mut reader = reader;
    assert!(reader.next().unwrap().is_ok());
    assert_eq!(reader.format(), Format::Jsonl);
    let converse = r#"{"role": "user", "content": [{"text": "Hi"}]}"#;
    let mut reader = doneseq::transcript::Reader::new(converse.as_bytes(), Format::Auto);
    assert!(reader.next().unwrap().is_ok());
    assert_eq!(reader.format(), Format::Bedrock);
}

#[test]
fn errors_name_the_block_and_the_format() {
    let cases = [
        (
            r#"{"role": "user", "content": [{"text": "a"}, {"txet": "b"}]}"#,
            TranscriptErrorKind::Json,
            "unknown field `txet`",
        ),
        (
            r#"{"role": "user", "content": [{"text": "a", "image": {}}]}"#,
            TranscriptErrorKind::Message,
            "content block 1 of 1 holds text and image (a block holds one kind)",
        ),
        (
            r#"{"role": "assistant", "content": [{"toolUse": {"toolUseId": "t", "input": {}}}]}"#,
            TranscriptErrorKind::Message,
            "content block 1 of 1: a toolUse with no \"name\"",
        ),
        (
            r#"{"role": "user", "content": [{"toolUse": {"name": "f"}}]}"#,
            TranscriptErrorKind::Message,
            "content block 1 of 1: a toolUse in the user's message",
        ),
        (
            r#"{"role": "assistant", "content": [{"text": "a"}, {"toolResult": {"toolUseId": "t"}}]}"#,
            TranscriptErrorKind::Message,
            "content block 2 of 2: a toolResult in the model's message",
        ),
        (
            r#"{"role": "user", "content": [{"toolResult": {"toolUseId": "t", "status": "ok"}}]}"#,
            TranscriptErrorKind::Message,
            "a toolResult of status \"ok\" (expected \"success\" or \"error\")",
        ),
        (
            r#"{"role": "system", "content": [{"text": "a"}]}"#,
            TranscriptErrorKind::Message,
            "a message of role \"system\" (expected \"user\" or \"assistant\")",
        ),
        (
            r#"{"role": "user", "content": [{"toolResult": {"content": [{"html": "<p>"}]}}]}"#,
            TranscriptErrorKind::Json,
            "unknown field `html`",
        ),
        (
            r#"{"output": {"message": {"role": "user", "content": [{"text": "a"}]}}, "stopReason": "end_turn"}"#,
            TranscriptErrorKind::Message,
            "a response's message has role \"user\" (expected \"assistant\")",
        ),
    ];
    for (line, kind, message) in cases {
        let log =
            format!("{{\"role\": \"user\", \"content\": [{{\"text\": \"first\"}}]}}\n{line}\n");
        for format in [Format::Auto, Format::Bedrock] {
            let err = read(&log, format).unwrap_err();
            assert_eq!((err.line, err.kind), (2, kind), "{line}: {err}");
            assert!(err.message.contains(message), "{line}: {err}");
            let named = if format == Format::Auto {
                "format bedrock (detected)"
            } else {
                "format bedrock (given)"
            };
            assert!(err.message.contains(named), "{line}: {err}");
            if kind == TranscriptErrorKind::Json {
                assert!(err.column.is_some(), "{line}: {err}");
            }
        }
    }
    // A request's system block of a kind a system prompt does not hold.
    let request = r#"{"system": [{"text": "a"}, {"json": 1}], "messages": [{"role": "user", "content": [{"text": "a"}]}]}"#;
    for format in [Format::Auto, Format::Bedrock] {
        let err = read(request, format).unwrap_err();
        assert_eq!((err.line, err.column), (1, Some(34)), "{err}");
        assert!(err.message.contains("unknown field `json`"), "{err}");
        assert!(err.message.contains("a Bedrock Converse request"), "{err}");
    }
    // A block of no kind (`auto` cannot tell it from an OpenAI part without its type,
    // and says that).
    let err = read(r#"{"role": "user", "content": [{}]}"#, Format::Bedrock).unwrap_err();
    assert_eq!(
        (err.line, err.kind),
        (1, TranscriptErrorKind::Message),
        "{err}"
    );
    assert!(
        err.message
            .contains("content block 1 of 1 holds none of the block kinds (text, toolUse,"),
        "{err}"
    );
}

#[test]
fn a_strands_agents_trace_in_either_conventions() {
    // Written by Strands Agents 1.62 (OpenTelemetry's OTLP encoder) for an agent of
    // Strands' Bedrock model (answered by botocore's Stubber) that calls two tools in
    // one turn (the second raises) and answers. By default Strands records each
    // message as an event whose content is JSON text of its Converse blocks; with the
    // latest GenAI conventions opted in, each call's messages as the attributes of an
    // event of its own, and a tool's result as its Converse blocks.
    insta::assert_snapshot!(sample("otel-strands.json", Format::Otel));
    // The same messages (their times are the runs').
    let untimed = |name: &str| {
        let messages = read(&sample_text(name), Format::Otel).unwrap();
        let summary = summary_of_values(&messages);
        let timed = summary.lines().filter(|l| l.contains(" at=")).count();
        assert_eq!(timed, messages.len(), "{summary}");
        summary
            .lines()
            .map(|l| format!("{}\n", &l[..l.rfind(" at=").unwrap()]))
            .collect::<String>()
    };
    assert_eq!(
        untimed("otel-strands-latest.json"),
        untimed("otel-strands.json")
    );
}

#[test]
fn a_strands_sessions_saved_messages() {
    // Written by Strands Agents 1.62's FileSessionManager (each message a file,
    // `message_<id>.json`), one a line in their ids' order (as `jq -c` writes them).
    insta::assert_snapshot!(sample("strands-session.jsonl", Format::Bedrock));
    // The message Strands restores: what replaced it, where it was redacted.
    let saved = [
        r#"{"message": {"role": "user", "content": [{"text": "my card is 4111"}]}, "message_id": 0, "redact_message": {"role": "user", "content": [{"text": "[User input redacted.]"}]}, "created_at": "t"}"#,
        r#"{"message": {"role": "assistant", "content": [{"text": "Hi."}], "metadata": {"usage": {"inputTokens": 3, "outputTokens": 1}}}, "message_id": 1, "redact_message": null}"#,
    ];
    for format in [Format::Auto, Format::Bedrock] {
        assert_eq!(
            summary(&read(&saved.join("\n"), format).unwrap()),
            "0 user \"[User input redacted.]\"\n1 llm \"Hi.\" tokens=3+1\n"
        );
    }
    let err = read(
        r#"{"message": {"role": "user"}, "message_id": 0}"#,
        Format::Auto,
    )
    .unwrap_err();
    assert!(err.message.contains("missing field `content`"), "{err}");
    assert!(err.message.contains("a Strands session's message"), "{err}");
}

#[test]
fn a_strands_trace_ending_in_its_tools_reads_their_results() {
    // The default conventions record a tool's result in the next call's input and in
    // the tool span's own choice event: a trace with no call after its tools (the
    // sample without its last chat span) reads the results from the tool spans.
    let mut export: serde_json::Value =
        serde_json::from_str(&sample_text("otel-strands.json")).unwrap();
    let spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array_mut()
        .unwrap();
    let last_chat = (0..spans.len())
        .filter(|&i| spans[i]["name"] == "chat")
        .max_by_key(|&i| spans[i]["startTimeUnixNano"].as_str().unwrap().to_owned())
        .unwrap();
    spans.remove(last_chat);
    let messages = read(&export.to_string(), Format::Otel).unwrap();
    let results: Vec<(&str, Option<&str>)> = (messages.iter())
        .filter(|m| m.role() == doneseq::Role::Agent)
        .map(|m| (m.content(), m.error()))
        .collect();
    assert_eq!(
        results,
        [
            ("5", None),
            (
                "Error: ZeroDivisionError - division by zero",
                Some("division by zero")
            )
        ]
    );
}

#[test]
fn a_strands_agents_snapshot() {
    // Written by Strands Agents 1.62's SnapshotSessionManager (`snapshot_latest.json`)
    // for the agent of `strands-messages.json`, run again: its system prompt, then the
    // same messages.
    let messages =
        summary_of_values(&read(&sample_text("strands-messages.json"), Format::Auto).unwrap());
    let text = sample_text("strands-snapshot.json");
    for format in [Format::Auto, Format::Bedrock] {
        assert_eq!(
            summary_of_values(&read(&text, format).unwrap()),
            format!("0 system \"Be brief.\"\n{}", shift(&messages))
        );
    }
    let snapshot: serde_json::Value = serde_json::from_str(&text).unwrap();
    // The snapshot with the field at `path` (under `data` where it has two parts) set
    // to `value`, or removed.
    let with = |path: &[&str], value: Option<serde_json::Value>| {
        let mut changed = snapshot.clone();
        let (last, parents) = path.split_last().unwrap();
        let parent = parents.iter().fold(&mut changed, |v, key| &mut v[*key]);
        match value {
            Some(value) => parent[*last] = value,
            None => drop(parent.as_object_mut().unwrap().remove(*last)),
        }
        changed.to_string()
    };
    // `take_snapshot()`'s preset leaves the system prompt out; an agent without one
    // has none.
    for value in [None, Some(serde_json::Value::Null)] {
        let text = with(&["data", "system_prompt"], value);
        assert_eq!(
            summary_of_values(&read(&text, Format::Auto).unwrap()),
            messages
        );
    }
    // What is not an agent's conversation is an error, naming what it is.
    for (path, value, expected) in [
        (
            &["scope"][..],
            Some("multiAgent".into()),
            "a snapshot of scope \"multiAgent\" holds no agent's conversation",
        ),
        (
            &["schema_version"],
            Some("2.0".into()),
            "a snapshot of schema version \"2.0\" (version \"1.0\" is read)",
        ),
        (
            &["data", "messages"],
            None,
            "a snapshot taken without its messages",
        ),
        (
            &["data", "system_prompt"],
            Some(serde_json::json!([{"txt": "x"}])),
            "unknown field `txt`",
        ),
    ] {
        let err = read(&with(path, value), Format::Auto).unwrap_err();
        assert_eq!(err.line, 1, "{err}");
        assert!(err.message.contains(expected), "{err}");
        assert!(err.message.contains("a Strands snapshot"), "{err}");
        assert!(err.message.contains("format bedrock (detected)"), "{err}");
    }
}

#[test]
fn a_strands_sessions_files_one_after_another() {
    // FileSessionManager writes each message as an indented JSON document of its own:
    // the files joined as they are (`cat`) read as the run (a call's input kept as
    // written, its indentation too).
    let text = sample_text("strands-session.jsonl");
    let expected = summary_of_values(&read(&text, Format::Auto).unwrap());
    let files: String = (text.lines())
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            serde_json::to_string_pretty(&value).unwrap()
        })
        .collect();
    assert!(files.lines().count() > 50 && files.contains("}{"));
    for format in [Format::Auto, Format::Bedrock] {
        assert_eq!(summary_of_values(&read(&files, format).unwrap()), expected);
    }
}
