//! Transcript readers: formats, and that a bad line is an error with its position.

use doneseq::transcript::{Format, Reader, read_transcript};
use doneseq::{Message, Role};

fn read(
    text: &str,
    format: Format,
) -> Result<Vec<Message<'static>>, doneseq::transcript::TranscriptError> {
    read_transcript(text.as_bytes(), format)
}

#[test]
fn doneseq_jsonl_reads_every_field() {
    let log = r#"{"role": "llm", "responder": "Calc", "content": "x", "tool_calls": [{"name": "calculator", "arguments": {"a": 1}, "id": "c1"}], "usage": {"input_tokens": 5, "output_tokens": 2}, "confidence": 0.5, "reward": -1.0, "metadata": {"anything": [1, 2]}}

{"role": "agent", "content": "oops", "error": "boom"}
{"role": "LLM", "no_response": true}
"#;
    let messages = read(log, Format::Jsonl).unwrap();
    assert_eq!(messages.len(), 3, "blank lines are skipped");
    let m = &messages[0];
    assert_eq!(
        (m.role(), m.responder(), m.content()),
        (Role::Llm, Some("Calc"), "x")
    );
    assert_eq!(m.tool_calls()[0].name(), "calculator");
    // As written in the log (its spacing kept): the text, not a re-encoding.
    assert_eq!(m.tool_calls()[0].arguments(), r#"{"a": 1}"#);
    assert_eq!(m.tool_calls()[0].id(), Some("c1"));
    assert_eq!(
        m.usage().map(|u| (u.input_tokens, u.output_tokens)),
        Some((5, 2))
    );
    assert_eq!((m.confidence(), m.reward()), (Some(0.5), Some(-1.0)));
    assert_eq!(messages[1].error(), Some("boom"));
    assert!(messages[2].is_no_response());
}

#[test]
fn openai_array_and_object_forms() {
    let array = r#"[{"role": "system", "content": "s"},
        {"role": "assistant", "content": null, "function_call": {"name": "f", "arguments": "{}"}},
        {"role": "tool", "tool_call_id": "1", "name": "f", "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "x"}}, {"type": "text", "text": "b"}]}]"#;
    for text in [array.to_owned(), format!("{{\"messages\": {array}}}")] {
        let messages = read(&text, Format::Auto).unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1].tool_calls()[0].name(), "f");
        assert_eq!(messages[2].role(), Role::Agent);
        assert_eq!(messages[2].responder(), Some("f"));
        assert_eq!(messages[2].content(), "a\nb");
    }
    let usage = r#"{"role": "assistant", "content": "x", "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}"#;
    let m = &read(usage, Format::OpenAi).unwrap()[0];
    assert_eq!(
        m.usage().map(|u| (u.input_tokens, u.output_tokens)),
        Some((3, 4))
    );
}

#[test]
fn langroid_tool_json_in_content_when_asked() {
    let line = r#"{"role": "LLM", "content": "Let me compute: {\"request\": \"calculator\", \"expression\": \"6*7\"}"}"#;
    let plain = read(line, Format::Jsonl).unwrap();
    assert!(plain[0].tool_calls().is_empty());
    let langroid = read(line, Format::Langroid).unwrap();
    assert_eq!(langroid[0].tool_calls()[0].name(), "calculator");
    // `auto` searches a log whose roles are Langroid's names, from the first on.
    let log = format!(
        "{{\"role\": \"user\", \"content\": \"{{\\\"request\\\": \\\"x\\\"}}\"}}\n{line}\n"
    );
    let auto = read(&log, Format::Auto).unwrap();
    assert!(auto[0].tool_calls().is_empty());
    assert_eq!(auto[1].tool_calls()[0].name(), "calculator");
}

#[test]
fn bad_lines_are_errors_with_their_position() {
    let cases = [
        ("{\"role\": \"llm\"}\nnot json\n", 2, "expected ident"),
        (
            "{\"role\": \"llm\"}\n{\"role\": \"robot\"}\n",
            2,
            "unknown role 'robot'",
        ),
        ("{\"content\": \"x\"}\n", 1, "missing field `role`"),
        (
            "{\"role\": \"llm\", \"content\": \"a\", \"content\": \"b\"}\n",
            1,
            "duplicate field `content`",
        ),
        // Fields by position (which serde's derived readers accepted) are not a
        // message.
        (
            "{\"role\": \"user\"}\n[\"llm\", \"hi\"]\n",
            2,
            "invalid type: sequence, expected struct Line",
        ),
        (
            "{\"role\": \"llm\", \"tool_calls\": [{\"arguments\": {}}]}\n",
            1,
            "tool call 0 has no name",
        ),
        (
            "{\"role\": \"llm\", \"no_response\": true, \"content\": \"x\"}\n",
            1,
            "has content",
        ),
        (
            "{\"role\": \"llm\", \"content\": [{\"type\": \"video\"}]}\n",
            1,
            "unknown type \"video\"",
        ),
        (
            "[{\"role\": \"user\"}, {\"role\": \"nobody\"}]",
            1,
            "element 2 of 2 of the array",
        ),
    ];
    for (text, line, message) in cases {
        let err = read(text, Format::Auto).unwrap_err();
        assert_eq!(err.line, line, "{text}: {err}");
        assert!(err.to_string().contains(message), "{text}: {err}");
    }
    let err = read_transcript(
        &b"{\"role\": \"user\", \"content\": \"\xff\"}\n"[..],
        Format::Jsonl,
    )
    .unwrap_err();
    assert!(err.to_string().contains("not UTF-8"), "{err}");
}

#[test]
fn the_reader_stops_after_an_error() {
    let mut reader = Reader::new(
        "{\"role\": \"user\"}\nbad\n{\"role\": \"user\"}\n".as_bytes(),
        Format::Jsonl,
    );
    assert!(reader.next().unwrap().is_ok());
    assert!(reader.next().unwrap().is_err());
    assert!(reader.next().is_none());
}

#[test]
fn json_errors_are_placed_in_the_line_as_written() {
    // The column counts from the start of the line, leading whitespace included (it
    // counted from the trimmed line).
    for indent in ["", "    ", "\t\t", "\u{a0}\u{3000}"] {
        let text = format!("{{\"role\": \"user\"}}\n{indent}{{\"role\": \"user\", oops}}\n");
        let err = read(&text, Format::Jsonl).unwrap_err();
        let at = text.lines().nth(1).unwrap().find("oops").unwrap() + 1;
        assert_eq!((err.line, err.column), (2, Some(at)), "{indent:?}: {err}");
    }
    // A bad message in `{"messages": [...]}` is named and placed, not "did not match
    // any variant".
    let text = "{\"messages\": [\n{\"role\": \"user\"},\n{\"role\": \"user\", \"colour\": 1}\n]}";
    let err = read(text, Format::Auto).unwrap_err();
    assert!(err.to_string().contains("unknown field `colour`"), "{err}");
    assert_eq!(err.line, 3, "{err}");
    assert!(err.column.is_some(), "{err}");
    let text = "{\"messages\": [{\"role\": 7}]}";
    let err = read(text, Format::Auto).unwrap_err();
    assert!(
        err.to_string().contains("invalid type: integer `7`"),
        "{err}"
    );
    // The object's other fields (an API request's) are not messages.
    let request = "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"model\": \"m\", \"tools\": []}";
    assert_eq!(read(request, Format::Auto).unwrap()[0].content(), "hi");
}

/// `{"messages": [...]}` is read whatever its keys' order and layout, as API requests
/// are written (it was recognised only when it began with `{"messages"`).
#[test]
fn openai_requests_in_any_layout() {
    let messages = r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "42"}]"#;
    let request = serde_json::json!({
        "model": "m",
        "messages": serde_json::from_str::<serde_json::Value>(messages).unwrap(),
        "temperature": 0,
    });
    let layouts = [
        format!(r#"{{"model": "m", "messages": {messages}}}"#),
        format!("{{\"model\": \"m\",\n \"messages\": {messages}\n}}"),
        serde_json::to_string_pretty(&request).unwrap(),
        format!("\n\n{}", serde_json::to_string_pretty(&request).unwrap()),
    ];
    for text in &layouts {
        for format in [Format::Auto, Format::OpenAi] {
            let read = read(text, format).unwrap_or_else(|e| panic!("{text}: {e}"));
            let contents: Vec<&str> = read.iter().map(Message::content).collect();
            assert_eq!(contents, ["hi", "42"], "{text}");
        }
        // As JSONL, a document is not a message.
        assert!(read(text, Format::Jsonl).is_err(), "{text}");
    }
    // A line that is neither a message nor a document is still the line's error.
    let err = read("{\"role\": \"user\", \"colour\": 1}\n", Format::Auto).unwrap_err();
    assert!(err.to_string().contains("unknown field `colour`"), "{err}");
    assert_eq!(err.line, 1);
}

#[test]
fn refusals_and_legacy_calls_are_read_like_the_rest() {
    // A refusal is text, also beside content (it was dropped when content was there).
    let cases = [
        (r#"{"role": "assistant", "refusal": "I can't"}"#, "I can't"),
        (
            r#"{"role": "assistant", "content": null, "refusal": "I can't"}"#,
            "I can't",
        ),
        (
            r#"{"role": "assistant", "content": "", "refusal": "I can't"}"#,
            "I can't",
        ),
        (
            r#"{"role": "assistant", "content": "Well.", "refusal": "I can't"}"#,
            "Well.\nI can't",
        ),
        (
            r#"{"role": "assistant", "content": "Well.", "refusal": null}"#,
            "Well.",
        ),
    ];
    for (line, content) in cases {
        assert_eq!(
            read(line, Format::OpenAi).unwrap()[0].content(),
            content,
            "{line}"
        );
    }
    // `function_call` has the checks `tool_calls` has.
    let cases = [
        (
            r#"{"role": "assistant", "function_call": {"name": ""}}"#,
            "\"function_call\" has an empty name",
        ),
        (
            r#"{"role": "assistant", "no_response": true, "function_call": {"name": "f"}}"#,
            "has content or tool calls",
        ),
    ];
    for (line, message) in cases {
        let err = read(line, Format::OpenAi).unwrap_err();
        assert!(err.to_string().contains(message), "{line}: {err}");
    }
}

#[test]
fn langroid_content_is_searched_only_without_structured_calls() {
    let content = r#""Computing {\"request\": \"calculator\", \"x\": 1}""#;
    for calls in [
        r#""tool_calls": [{"name": "search"}]"#,
        r#""function_call": {"name": "search"}"#,
    ] {
        let line = format!(r#"{{"role": "LLM", "content": {content}, {calls}}}"#);
        let messages = read(&line, Format::Langroid).unwrap();
        let names: Vec<&str> = messages[0]
            .tool_calls()
            .iter()
            .map(doneseq::ToolCall::name)
            .collect();
        assert_eq!(names, ["search"], "{line}");
    }
    let line = format!(r#"{{"role": "LLM", "content": {content}}}"#);
    let messages = read(&line, Format::Langroid).unwrap();
    assert_eq!(messages[0].tool_calls()[0].name(), "calculator");
}

#[test]
fn stop_and_handoff_messages_are_read() {
    let log = r#"{"role": "assistant", "content": "TERMINATE", "stop": true}
{"role": "assistant", "content": "over to you", "handoff": "user"}
{"role": "assistant", "content": "plain"}
"#;
    let messages = read(log, Format::Jsonl).unwrap();
    assert!(messages[0].is_stop() && messages[0].handoff().is_none());
    assert_eq!(messages[1].handoff(), Some("user"));
    assert!(!messages[2].is_stop() && messages[2].handoff().is_none());
    let err = read(r#"{"role": "assistant", "handoff": ""}"#, Format::Jsonl).unwrap_err();
    assert!(
        err.to_string().contains("\"handoff\" names no agent"),
        "{err}"
    );
}

#[test]
fn a_result_carries_its_tool_name() {
    let messages = read(
        r#"{"role": "tool", "content": "42", "tool_name": "calculator"}"#,
        Format::Jsonl,
    )
    .unwrap();
    assert_eq!(messages[0].tool_name(), Some("calculator"));
    assert!(read(r#"{"role": "tool", "tool_name": ""}"#, Format::Jsonl).is_err());
}

#[test]
fn a_shape_error_names_the_formats_it_expected() {
    let err = read(r#"{"role": "user", "id": "msg_1"}"#, Format::Auto).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with(
            "line 1, column 21: expected a chat message (doneseq's fields, OpenAI's or Anthropic's), format jsonl (detected): unknown field `id`"
        ),
        "{text}"
    );
    // A syntax error says what is wrong with the JSON itself.
    let err = read("{\"role\": ", Format::Auto).unwrap_err();
    assert!(
        !err.to_string().contains("expected a chat message"),
        "{err}"
    );
}

/// Every sample file, written with the byte order mark some tools put first (Windows
/// PowerShell's UTF-8, Python's `utf-8-sig`), reads as it reads without it: the same
/// messages in the same format, or the same error at the same place.
#[test]
fn a_byte_order_mark_first_is_skipped_in_every_format() {
    let mut files = Vec::new();
    for dir in ["examples", "examples/formats"] {
        let dir = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str());
            if matches!(ext, Some("jsonl" | "json" | "tsv"))
                && !path.to_string_lossy().contains("config")
            {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 30, "{} samples", files.len());
    let outcome = |bytes: &[u8]| {
        let mut reader = Reader::new(bytes, Format::Auto);
        let read: Result<Vec<_>, _> = reader.by_ref().collect();
        (
            read.map_err(|e| e.to_string()),
            reader.format(),
            reader.line(),
        )
    };
    for path in files {
        let text = std::fs::read(&path).unwrap();
        let mut marked = b"\xEF\xBB\xBF".to_vec();
        marked.extend_from_slice(&text);
        let (plain, marked) = (outcome(&text), outcome(&marked));
        assert!(plain.0.is_ok(), "{}: {:?}", path.display(), plain.0);
        assert_eq!(plain, marked, "{}", path.display());
    }
}

/// A byte order mark is skipped where it starts the input only: a column of the first
/// line is counted after it, as an editor shows the line; one on a later line is that
/// line's error.
#[test]
fn a_byte_order_mark_is_skipped_only_at_the_start() {
    let line = "{\"role\": \"user\", oops}\n";
    let plain = read(line, Format::Jsonl).unwrap_err();
    let marked = read(&format!("\u{feff}{line}"), Format::Jsonl).unwrap_err();
    assert_eq!((marked.line, marked.column), (1, Some(18)), "{marked}");
    assert_eq!(marked.to_string(), plain.to_string());
    let later = format!("{{\"role\": \"user\", \"content\": \"hi\"}}\n\u{feff}{line}");
    let err = read(&later, Format::Jsonl).unwrap_err();
    assert_eq!((err.line, err.column), (2, Some(1)), "{err}");
}

/// A log written as UTF-16 (Windows PowerShell 5's `>`), or compressed (an archived
/// log, gzip or zstd; a zip archive), is an error that says so, not only where its bytes stop being
/// UTF-8; any other line that is not UTF-8 says where.
#[test]
fn an_input_that_is_not_text_is_named_as_such() {
    let line = "{\"role\": \"user\", \"content\": \"hi\"}\n";
    let little: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(line.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let big: Vec<u8> = [0xFE, 0xFF]
        .into_iter()
        .chain(line.encode_utf16().flat_map(u16::to_be_bytes))
        .collect();
    for bytes in [little, big] {
        let err = read_transcript(&bytes[..], Format::Auto).unwrap_err();
        assert_eq!(
            (err.line, err.kind),
            (1, doneseq::transcript::TranscriptErrorKind::NotUtf8),
            "{err}"
        );
        assert!(err.to_string().contains("UTF-16"), "{err}");
    }
    // The first bytes of each (gzip's header, zstd's frame), then what follows.
    for (bytes, what) in [
        (
            &b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xab\x56\x2a\xca\xcf\x49\n"[..],
            "gzip",
        ),
        (&b"\x28\xb5\x2f\xfd\x24\x26\x31\x01\x00\n"[..], "zstd"),
    ] {
        let err = read_transcript(bytes, Format::Auto).unwrap_err();
        assert_eq!(err.line, 1, "{err}");
        assert!(
            err.to_string().contains(&format!("{what}-compressed")),
            "{err}"
        );
    }
    // A zip archive (an Inspect `.eval` log given as standard input): what to do.
    let log = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/formats/inspect.eval"
    ))
    .unwrap();
    let err = read_transcript(&log[..], Format::Auto).unwrap_err();
    assert!(
        err.to_string()
            .contains("not UTF-8: a zip archive (an Inspect AI .eval log?); give its path"),
        "{err}"
    );
    // Agent Framework's history written as MessagePack (by its FileHistoryProvider,
    // Agent Framework 1.23.0): what it is, and what to do.
    let history = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/agent-framework-history.msgpack"
    ))
    .unwrap();
    let err = read_transcript(&history[..], Format::Auto).unwrap_err();
    assert!(
        err.to_string()
            .contains("not UTF-8: MessagePack (an Agent Framework FileHistoryProvider's"),
        "{err}"
    );
    let err = read_transcript(
        &b"{\"role\": \"user\", \"content\": \"h\xff\"}\n"[..],
        Format::Auto,
    )
    .unwrap_err();
    assert!(err.to_string().contains("not UTF-8 (byte 30)"), "{err}");
}
