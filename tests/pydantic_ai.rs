//! Pydantic AI's message history (`--format pydantic-ai`): a real run's
//! `all_messages_json()`, the same one message a line, and what each part becomes.

use doneseq::transcript::{Format, TranscriptErrorKind};

use crate::formats::{read, sample, sample_text, summary};

#[test]
fn a_real_runs_history() {
    // Written by Pydantic AI 2.68 (`all_messages_json()`) for two runs of an agent
    // (the second given the first's history) whose function model thinks, calls a
    // tool, calls it with arguments that fail validation, calls a tool that asks for a
    // retry, gives an output the output validator refuses, then the output; and, in
    // the second run, a text the validator refuses (Pydantic AI's feedback), then the
    // answer. The instructions, repeated on every request, are one system message.
    insta::assert_snapshot!(sample("pydantic-ai-messages.json", Format::PydanticAi));
}

#[test]
fn one_message_a_line_reads_as_the_array() {
    let text = sample_text("pydantic-ai-messages.json");
    // Each element on a line of its own (the sample writes one a line, in brackets).
    let messages: Vec<&serde_json::value::RawValue> = serde_json::from_str(&text).unwrap();
    let lines: String = messages.iter().map(|m| format!("{}\n", m.get())).collect();
    for format in [Format::Auto, Format::PydanticAi] {
        assert_eq!(read(&lines, format).unwrap(), read(&text, format).unwrap());
    }
}

/// The summary of one Pydantic AI message given as a line, its parts `parts`.
fn parts(kind: &str, parts: &str, rest: &str) -> String {
    let line = format!(r#"{{"kind": "{kind}", "parts": [{parts}]{rest}}}"#);
    summary(&read(&line, Format::Auto).unwrap())
}

#[test]
fn each_part_kind() {
    // A request: a message a part.
    assert_eq!(
        parts(
            "request",
            r#"{"part_kind": "system-prompt", "content": "Be kind."},
               {"part_kind": "user-prompt", "content": ["Look:", {"kind": "image-url", "url": "u"}, {"kind": "text-content", "content": "what is it?"}]},
               {"part_kind": "tool-return", "tool_name": "f", "tool_call_id": "c1", "content": {"n": 1}},
               {"part_kind": "tool-return", "tool_name": "g", "tool_call_id": "c2", "content": "no", "outcome": "denied"},
               {"part_kind": "tool-return", "tool_name": "h", "tool_call_id": "c3", "content": null, "outcome": "failed"},
               {"part_kind": "retry-prompt", "tool_name": "f", "tool_call_id": "c4", "content": [{"type": "missing", "loc": ["a"], "msg": "Field required"}]},
               {"part_kind": "retry-prompt", "content": "Answer in JSON."},
               {"part_kind": "retry-feedback", "content": "Say more.", "retry": {"cause": "model_retry"}},
               {"part_kind": "speech", "speaker": "user", "transcript": "hello"},
               {"part_kind": "model-settings-delta", "settings": {}}"#,
            r#", "instructions": "Be brief.""#
        ),
        "0 system \"Be brief.\"\n\
         1 system \"Be kind.\"\n\
         2 user \"Look:\\nwhat is it?\"\n\
         3 agent \"{\\\"n\\\":1}\" answers=c1 tool=f\n\
         4 agent \"no\" answers=c2 tool=g error=\"no\"\n\
         5 agent answers=c3 tool=h error=\"the tool call was failed\"\n\
         6 agent \"[{\\\"type\\\":\\\"missing\\\",\\\"loc\\\":[\\\"a\\\"],\\\"msg\\\":\\\"Field required\\\"}]\" answers=c4 tool=f error=\"[{\\\"type\\\":\\\"missing\\\",\\\"loc\\\":[\\\"a\\\"],\\\"msg\\\":\\\"Field required\\\"}]\"\n\
         7 agent \"Answer in JSON.\" error=\"Answer in JSON.\"\n\
         8 agent \"Say more.\" error=\"Say more.\"\n\
         9 user \"hello\"\n"
    );
    // A response: one message, then the returns of the provider's own tools.
    assert_eq!(
        parts(
            "response",
            r#"{"part_kind": "thinking", "content": "hmm"},
               {"part_kind": "text", "content": "Searching."},
               {"part_kind": "builtin-tool-call", "tool_name": "web_search", "tool_call_id": "b1", "args": {"query": "q"}},
               {"part_kind": "builtin-tool-return", "tool_name": "web_search", "tool_call_id": "b1", "content": "results"},
               {"part_kind": "tool-call", "tool_name": "f", "tool_call_id": "c1", "args": "{\"a\": 1}"},
               {"part_kind": "tool-call", "tool_name": "g", "args": null},
               {"part_kind": "text", "content": "Done."},
               {"part_kind": "file", "content": {"kind": "binary"}}"#,
            r#", "usage": {"input_tokens": 10, "output_tokens": 4, "cache_read_tokens": 3, "details": {}}, "model_name": "m""#
        ),
        "0 llm \"Searching.\\nDone.\" call web_search({\"query\": \"q\"}) id=Some(\"b1\") call f({\"a\": 1}) id=Some(\"c1\") call g() id=None tokens=10+4\n\
         1 agent \"results\" answers=b1 tool=web_search\n"
    );
    // Earlier versions' usage names.
    assert_eq!(
        parts(
            "response",
            r#"{"part_kind": "text", "content": "hi"}"#,
            r#", "usage": {"request_tokens": 7, "response_tokens": 2}"#
        ),
        "0 llm \"hi\" tokens=7+2\n"
    );
}

#[test]
fn instructions_are_a_system_message_where_they_change() {
    let log = [
        r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "a"}], "instructions": "One."}"#,
        r#"{"kind": "response", "parts": [{"part_kind": "text", "content": "b"}]}"#,
        r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "c"}], "instructions": "One."}"#,
        r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "d"}], "instructions": null}"#,
        r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "e"}], "instructions": "One."}"#,
        r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "f"}], "instructions": "Two."}"#,
    ]
    .join("\n");
    assert_eq!(
        summary(&read(&log, Format::PydanticAi).unwrap()),
        "0 system \"One.\"\n1 user \"a\"\n2 llm \"b\"\n3 user \"c\"\n4 user \"d\"\n5 user \"e\"\n\
         6 system \"Two.\"\n7 user \"f\"\n"
    );
}

#[test]
fn errors_name_the_message_the_part_and_the_field() {
    let cases = [
        (
            r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "a"}, {"part_kind": "tool-return", "content": "x"}]}"#,
            "part 2 of 2 (\"tool-return\") has no \"tool_name\"",
        ),
        (
            r#"{"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "", "args": {}}]}"#,
            "part 1 of 1 (\"tool-call\") has no \"tool_name\"",
        ),
        (
            r#"{"kind": "response", "parts": [{"part_kind": "text", "content": 3}]}"#,
            "part 1 of 1 (\"text\"): \"content\" is not a string",
        ),
        (
            r#"{"kind": "response", "parts": [{"part_kind": "text", "content": "a\ud800"}]}"#,
            "part 1 of 1 (\"text\"): \"content\" holds an unpaired surrogate escape",
        ),
        (
            r#"{"kind": "request", "parts": [{"part_kind": "system-prompt"}]}"#,
            "part 1 of 1 (\"system-prompt\") has no \"content\"",
        ),
        (
            r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": {"a": 1}}]}"#,
            "\"content\" is neither a string nor a list",
        ),
        (
            r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": ["a", {"kind": "hologram"}]}]}"#,
            "part 1 of 1 (\"user-prompt\"), item 2: an item of unknown kind \"hologram\"",
        ),
        (
            r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": ["a", 7]}]}"#,
            "part 1 of 1 (\"user-prompt\"), item 2: a string or an object with a \"kind\"",
        ),
        (
            r#"{"kind": "request", "parts": [{"part_kind": "text", "content": "a"}]}"#,
            "part 1 of 1 (\"text\") is of a kind not known (expected one of system-prompt",
        ),
        (
            r#"{"kind": "response", "parts": [{"part_kind": "user-prompt", "content": "a"}]}"#,
            "part 1 of 1 (\"user-prompt\") is of a kind not known",
        ),
    ];
    for (line, expected) in cases {
        let err = read(
            &format!("{{\"role\": \"user\"}}\n{line}\n"),
            Format::PydanticAi,
        )
        .unwrap_err();
        // The first line is not a Pydantic AI message: its own error.
        assert_eq!(err.line, 1, "{err}");
        let err = read(line, Format::Auto).unwrap_err();
        assert_eq!(
            (err.line, err.kind, err.format),
            (1, TranscriptErrorKind::Message, Some(Format::PydanticAi)),
            "{err}"
        );
        assert!(err.message.contains(expected), "{line}: {err}");
        assert!(
            err.message.contains("format pydantic-ai (detected)"),
            "{err}"
        );
    }
    // A `kind` of neither, named as the format's: given, it is the format's error.
    let err = read(r#"{"kind": "reply", "parts": []}"#, Format::PydanticAi).unwrap_err();
    assert!(
        err.message
            .contains("\"kind\" \"request\" or \"response\", not \"reply\""),
        "{err}"
    );
    // A part without its kind: serde's error, with its position.
    let err = read(
        r#"{"kind": "request", "parts": [{"content": "a"}]}"#,
        Format::PydanticAi,
    )
    .unwrap_err();
    assert_eq!(
        (err.kind, err.column),
        (TranscriptErrorKind::Json, Some(46)),
        "{err}"
    );
    assert!(err.message.contains("missing field `part_kind`"), "{err}");
    // An error in an element of the array names the element.
    let doc = "[\n{\"kind\": \"request\", \"parts\": [{\"part_kind\": \"user-prompt\", \"content\": \"a\"}]},\n{\"kind\": \"response\", \"parts\": [{\"part_kind\": \"tool-call\", \"args\": {}}]}\n]\n";
    let err = read(doc, Format::Auto).unwrap_err();
    assert_eq!(err.line, 3, "{err}");
    assert!(
        err.message.contains(
            "element 2 of 2 of the array: part 1 of 1 (\"tool-call\") has no \"tool_name\""
        ),
        "{err}"
    );
}
