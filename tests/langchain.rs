//! LangChain's messages (`--format langchain`): a LangGraph agent's run saved by
//! `messages_to_dict()`, the same as each message's `model_dump()`, as `dumpd()` and as
//! a LangGraph state, and what each message becomes.

use doneseq::transcript::{Format, TranscriptErrorKind};

use crate::formats::{read, sample, sample_text, summary, summary_of_values};

#[test]
fn a_langgraph_agents_messages() {
    // Written by LangChain 1.8 (`messages_to_dict()`) for a LangGraph ReAct agent
    // (named `research`, LangChain's fake chat model): the system prompt, the task, two
    // calculator calls in a turn (the second's tool failed: its status is `error`), a
    // turn whose content is Anthropic's blocks (its `tool_use` also in `tool_calls`,
    // read once), the search's result, the answer; usage on each turn.
    insta::assert_snapshot!(sample("langchain-messages.json", Format::LangChain));
}

#[test]
fn every_shape_reads_as_messages_to_dict() {
    let text = sample_text("langchain-messages.json");
    let expected = summary_of_values(&read(&text, Format::Auto).unwrap());
    let records: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    // A message's own `model_dump()`: `data`, a line each.
    let dumps: String = (records.iter())
        .map(|r| format!("{}\n", r["data"]))
        .collect();
    // `dumpd()`: the class's path and the message's fields as `kwargs`.
    let dumpd = |r: &serde_json::Value| {
        let class = match r["type"].as_str().unwrap() {
            "system" => "SystemMessage",
            "human" => "HumanMessage",
            "ai" => "AIMessage",
            "tool" => "ToolMessage",
            other => panic!("{other}"),
        };
        serde_json::json!({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", class], "kwargs": r["data"]})
    };
    let serialized = serde_json::Value::from(records.iter().map(dumpd).collect::<Vec<_>>());
    // `kwargs` without its `type`, as earlier versions wrote it: the class says.
    let mut untyped = serialized.clone();
    for record in untyped.as_array_mut().unwrap() {
        record["kwargs"].as_object_mut().unwrap().remove("type");
    }
    let state = serde_json::json!({"messages": records, "remaining_steps": 20});
    let shapes = [
        dumps,
        serialized.to_string(),
        untyped.to_string(),
        state.to_string(),
    ];
    for shape in shapes {
        for format in [Format::Auto, Format::LangChain] {
            let messages = read(&shape, format).unwrap();
            assert_eq!(summary_of_values(&messages), expected, "{shape}");
        }
    }
}

/// The summary of the LangChain messages `lines`.
fn messages(lines: &[&str]) -> String {
    summary(&read(&lines.join("\n"), Format::LangChain).unwrap())
}

#[test]
fn each_message_type() {
    assert_eq!(
        messages(&[
            r#"{"type": "human", "content": [{"type": "text", "text": "Look:"}, {"type": "image", "url": "u"}, "what is it?"], "name": "ann"}"#,
            r#"{"type": "AIMessageChunk", "content": "", "tool_calls": [{"name": "f", "args": {}, "id": "c1", "type": "tool_call"}], "invalid_tool_calls": [{"name": "g", "args": "{oops", "id": "c2", "error": "bad JSON", "type": "invalid_tool_call"}], "usage_metadata": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}"#,
            r#"{"type": "tool", "content": [{"type": "text", "text": "done"}], "tool_call_id": "c1", "name": "f", "status": "success", "artifact": {"raw": 1}}"#,
            r#"{"type": "ai", "content": [{"type": "reasoning", "reasoning": "hmm"}, {"type": "tool_call", "name": "h", "args": {"x": 1}, "id": "c3"}]}"#,
            r#"{"type": "tool", "content": "", "tool_call_id": "c3", "name": "h", "status": "error"}"#,
            r#"{"type": "chat", "role": "assistant", "content": "by role"}"#,
            r#"{"type": "function", "name": "legacy", "content": "42"}"#,
            r#"{"type": "remove", "id": "m1"}"#,
            r#"{"type": "system", "content": "Be brief."}"#,
        ]),
        "0 user @ann \"Look:\\nwhat is it?\"\n\
         1 llm call f({}) id=Some(\"c1\") call g({oops) id=Some(\"c2\") tokens=5+2 error=\"invalid call of \\\"g\\\": bad JSON\"\n\
         2 agent \"done\" answers=c1 tool=f\n\
         3 llm call h({\"x\": 1}) id=Some(\"c3\")\n\
         4 agent answers=c3 tool=h error=\"the tool failed\"\n\
         5 llm \"by role\"\n\
         6 agent \"42\" tool=legacy\n\
         7 system \"Be brief.\"\n"
    );
}

#[test]
fn errors_name_the_message_and_the_field() {
    let cases = [
        (
            r#"{"type": "ai", "content": "x", "tool_calls": [{"name": "", "args": {}}]}"#,
            "tool call 1 has no \"name\"",
        ),
        (
            r#"{"type": "chat", "content": "x"}"#,
            "a chat message has no \"role\"",
        ),
        (
            r#"{"type": "chat", "role": "narrator", "content": "x"}"#,
            "a chat message's role: unknown role 'narrator'",
        ),
        (
            r#"{"type": "ai", "content": [{"type": "hologram"}]}"#,
            "content block 1 has an unknown type \"hologram\"",
        ),
        (
            r#"{"type": "ai", "content": [{"type": "text"}]}"#,
            "content block 1 of type \"text\" has no \"text\"",
        ),
        (
            r#"{"type": "tool", "content": [{"type": "tool_call", "name": "f", "args": {}}], "tool_call_id": "c1"}"#,
            "a tool message's content holds tool calls (only the model's may)",
        ),
        (
            r#"{"type": "ai", "content": [{"type": "tool_use", "input": {}}]}"#,
            "content block 1 of type \"tool_use\" has no \"name\"",
        ),
        (
            r#"{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "Document"], "kwargs": {}}"#,
            "a constructor's \"id\" names no LangChain message class",
        ),
        (
            r#"{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"]}"#,
            "a constructor has no \"kwargs\"",
        ),
        (
            r#"{"type": "ai", "data": {"type": "gossip", "content": "x"}}"#,
            "unknown LangChain message type \"gossip\"",
        ),
        (r#"{"content": "x"}"#, "a message has no \"type\""),
    ];
    for (line, expected) in cases {
        let err = read(line, Format::LangChain).unwrap_err();
        assert_eq!(
            (err.line, err.kind, err.format),
            (1, TranscriptErrorKind::Message, Some(Format::LangChain)),
            "{err}"
        );
        assert!(err.message.contains(expected), "{line}: {err}");
        assert!(err.message.contains("format langchain (given)"), "{err}");
    }
    // A content of neither shape: serde's error, with its column.
    let err = read(r#"{"type": "human", "content": 7}"#, Format::LangChain).unwrap_err();
    assert_eq!(
        (err.kind, err.column),
        (TranscriptErrorKind::Json, Some(30)),
        "{err}"
    );
    assert!(
        err.message
            .contains("expected a string or a list of content blocks"),
        "{err}"
    );
    // Detected, the error names the format detected and the line.
    let err = read(
        "{\"type\": \"human\", \"content\": \"hi\"}\n{\"type\": \"ai\", \"content\": 3}\n",
        Format::Auto,
    )
    .unwrap_err();
    assert_eq!(err.line, 2, "{err}");
    assert!(err.message.contains("format langchain (detected)"), "{err}");
    // A state's message: the element, counted from 1.
    let state = r#"{"messages": [{"type": "human", "content": "hi"}, {"type": "ai", "content": [{"type": "hologram"}]}]}"#;
    let err = read(state, Format::Auto).unwrap_err();
    assert!(
        err.message
            .contains("element 2 of 2: content block 1 has an unknown type"),
        "{err}"
    );
}
