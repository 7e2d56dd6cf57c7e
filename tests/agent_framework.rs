//! Microsoft Agent Framework's messages (`--format agent-framework`): a session's
//! history and an agent's response as Agent Framework 1.23 wrote them, the same in a
//! list and a session's state, what each content item becomes, and errors.

use doneseq::transcript::{Format, Reader};

use crate::formats::{read, sample, sample_text, summary, summary_of_values};

#[test]
fn a_sessions_history_file() {
    // Written by Agent Framework 1.23.0's FileHistoryProvider (one message a line) for
    // an Agent of a scripted chat client, its function invocation running a real
    // tool: a call, a call the tool refuses (it raises), an answer of two texts.
    insta::assert_snapshot!(sample("agent-framework-history.jsonl", Format::AgentFramework), @r#"
    0 user "What is 1+2?"
    1 llm @adder "Let me add." call add({"x":1,"y":2}) id=Some("c1")
    2 agent @adder "3" answers=c1
    3 llm @adder call add({"x": -1, "y": 2}) id=Some("c2")
    4 agent @adder "Error: Function failed." answers=c2 error="Error: Function failed."
    5 llm @adder "The sum is 3. Done."
    "#);
}

#[test]
fn a_response_holds_the_runs_usage_on_its_last_model_message() {
    // The same run's AgentResponse.to_json(): its messages (not the question), and
    // its usage_details, the sum of its three model calls'.
    insta::assert_snapshot!(sample("agent-framework-response.json", Format::AgentFramework), @r#"
    0 llm @adder "Let me add." call add({"x": 1, "y": 2}) id=Some("c1")
    1 agent @adder "3" answers=c1
    2 llm @adder call add({"x": -1, "y": 2}) id=Some("c2")
    3 agent @adder "Error: Function failed." answers=c2 error="Error: Function failed."
    4 llm @adder "The sum is 3. Done." tokens=60+12
    "#);
}

#[test]
fn a_list_and_a_sessions_state_read_as_the_lines() {
    let text = sample_text("agent-framework-history.jsonl");
    let expected = summary_of_values(&read(&text, Format::Auto).unwrap());
    let messages: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // As InMemoryHistoryProvider keeps them in the session's state (its type last),
    // beside another provider's state.
    let session = serde_json::json!({
        "type": "session", "session_id": "run", "service_session_id": null,
        "state": {"in_memory": {"messages": messages}, "memory": {"facts": ["a"]}, "n": 3},
    });
    for text in [
        serde_json::Value::Array(messages.clone()).to_string(),
        serde_json::to_string_pretty(&messages).unwrap(),
        session.to_string(),
    ] {
        for format in [Format::Auto, Format::AgentFramework] {
            assert_eq!(
                summary_of_values(&read(&text, format).unwrap()),
                expected,
                "{text}"
            );
        }
    }
}

/// The summary of the Agent Framework records `lines`.
fn messages(lines: &[&str]) -> String {
    let text = lines.join("\n");
    let given = read(&text, Format::AgentFramework).unwrap();
    assert_eq!(read(&text, Format::Auto).unwrap(), given);
    summary(&given)
}

#[test]
fn each_kind_of_content() {
    assert_eq!(
        messages(&[
            r#"{"role": "system", "contents": [{"type": "text", "text": "Be brief."}], "type": "message"}"#,
            r#"{"type": "message", "role": "user", "contents": [{"type": "text", "text": "Look"}, {"type": "uri", "uri": "u", "media_type": "image/png"}, {"type": "text", "text": "here"}]}"#,
            r#"{"type": "message", "role": "user", "contents": [{"type": "data", "uri": "data:image/png;base64,AA=="}]}"#,
            r#"{"type": "message", "role": "assistant", "contents": [{"type": "text_reasoning", "text": "hm"}, {"type": "text", "text": "a"}, {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{\"x\": 1}"}, {"type": "mcp_server_tool_call", "call_id": "m1", "tool_name": "search_docs", "server_name": "docs", "arguments": {"q": "x"}}, {"type": "mcp_server_tool_result", "call_id": "m1", "output": "found"}, {"type": "shell_tool_call", "call_id": "s1", "commands": ["ls"]}, {"type": "usage", "usage_details": {"input_token_count": 7, "output_token_count": 2, "total_token_count": 9}}]}"#,
            r#"{"type": "message", "role": "tool", "contents": [{"type": "function_result", "call_id": "c1", "result": {"ok": true}}, {"type": "text", "text": "and"}, {"type": "function_result", "call_id": "c2", "items": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}, {"type": "function_result", "call_id": "c3", "result": null, "exception": "FunctionInvocationError"}]}"#,
            r#"{"type": "message", "role": "assistant", "contents": [{"type": "error", "message": "the service failed", "error_code": "500"}]}"#,
            r#"{"type": "message", "role": "assistant", "contents": [], "author_name": "writer"}"#,
        ]),
        "0 system \"Be brief.\"\n\
         1 user \"Look here\"\n\
         2 user (no response)\n\
         3 llm \"a\" call f({\"x\": 1}) id=Some(\"c1\") call search_docs({\"q\": \"x\"}) id=Some(\"m1\") call shell() id=Some(\"s1\") tokens=7+2\n\
         4 agent \"{\\\"ok\\\":true}\" answers=c1\n\
         5 agent \"and\"\n\
         6 agent \"x y\" answers=c2\n\
         7 agent answers=c3 error=\"the function raised (FunctionInvocationError)\"\n\
         8 llm error=\"500: the service failed\"\n\
         9 llm @writer (no response)\n"
    );
}

#[test]
fn a_response_keeps_its_messages_own_usage() {
    let text = r#"{"type": "chat_response", "messages": [{"type": "message", "role": "assistant", "contents": [{"type": "text", "text": "a"}, {"type": "usage", "usage_details": {"input_token_count": 5, "output_token_count": 1}}]}, {"type": "message", "role": "assistant", "contents": [{"type": "text", "text": "b"}]}], "usage_details": {"input_token_count": 50, "output_token_count": 10}}"#;
    assert_eq!(messages(&[text]), "0 llm \"a\" tokens=5+1\n1 llm \"b\"\n");
    let text = r#"{"type": "agent_response", "messages": [{"type": "message", "role": "assistant", "contents": [{"type": "text", "text": "a"}]}, {"type": "message", "role": "tool", "contents": [{"type": "function_result", "call_id": "c", "result": "r"}]}]}"#;
    assert_eq!(messages(&[text]), "0 llm \"a\"\n1 agent \"r\" answers=c\n");
}

#[test]
fn detection_tells_agent_framework_from_responses_and_gemini() {
    for (text, format) in [
        (
            r#"{"type": "message", "role": "user", "contents": [{"type": "text", "text": "hi"}]}"#,
            Format::AgentFramework,
        ),
        (
            r#"{"role": "user", "contents": [], "additional_properties": {}}"#,
            Format::AgentFramework,
        ),
        // A Responses item of type message has `content`.
        (
            r#"{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}"#,
            Format::Responses,
        ),
        // A Gemini request has `contents` and no role.
        (
            r#"{"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}"#,
            Format::Gemini,
        ),
        (
            r#"{"type": "agent_response", "messages": []}"#,
            Format::AgentFramework,
        ),
        (
            r#"{"type": "session", "session_id": "s", "state": {"in_memory": {"messages": []}}}"#,
            Format::AgentFramework,
        ),
    ] {
        let mut reader = Reader::new(text.as_bytes(), Format::Auto);
        reader.by_ref().for_each(|m| drop(m.unwrap()));
        assert_eq!(reader.format(), format, "{text}");
    }
}

#[test]
fn errors_name_the_content_and_the_format() {
    for (text, expected) in [
        (
            r#"{"type": "message", "role": "robot", "contents": []}"#,
            "line 1: an Agent Framework message of role \"robot\" (expected system, user, assistant or tool); in an Agent Framework message",
        ),
        (
            r#"{"type": "message", "role": "user", "contents": [{"type": "text", "text": "a"}, {"type": "hologram"}]}"#,
            "content 2 of 2 has an unknown type \"hologram\" (known: text, function_call, function_result, usage, error, mcp_server_tool_call, code_interpreter_tool_call,",
        ),
        (
            r#"{"type": "message", "role": "assistant", "contents": [{"type": "function_call", "call_id": "c"}]}"#,
            "content 1 of 1 (function_call) names no tool",
        ),
        (
            r#"{"type": "message", "role": "user", "contents": [{"type": "function_call", "name": "f"}]}"#,
            "content 1 of 1 is a call (function_call) in a message of role \"user\"",
        ),
        (
            r#"{"type": "message", "role": "tool", "contents": [{"type": "shell_tool_call"}]}"#,
            "content 1 of 1 is a call (shell_tool_call) in a message of role \"tool\"",
        ),
        (
            r#"{"type": "message", "role": "assistant", "contents": [{"type": "function_result", "call_id": "c"}]}"#,
            "content 1 of 1 is a function_result in the assistant's message",
        ),
        (
            r#"{"type": "message", "role": "user", "contents": [{"type": "text"}]}"#,
            "content 1 of 1 (text) has no \"text\"",
        ),
        (
            r#"{"type": "session", "session_id": "s7", "state": {"file_history": {}}}"#,
            "an Agent Framework session whose state keeps no messages: its history provider keeps them elsewhere (a FileHistoryProvider in <storage path>/s7.jsonl",
        ),
        (
            r#"{"type": "session", "session_id": "s", "state": {"a": {"messages": []}, "b": {"messages": []}}}"#,
            "an Agent Framework session whose state keeps 2 histories (\"a\", ...): a transcript is one",
        ),
        (
            r#"{"type": "session", "session_id": "s", "state": {"a": {"messages": 3}}}"#,
            "its state's \"a\": invalid type: integer `3`, expected a sequence",
        ),
        (
            r#"{"type": "agent_response", "messages": [{"type": "message", "role": "x", "contents": []}]}"#,
            "element 1 of 1: an Agent Framework message of role \"x\"",
        ),
    ] {
        let err = read(text, Format::Auto).unwrap_err();
        assert!(err.to_string().contains(expected), "{err}");
        assert!(
            err.to_string()
                .contains("format agent-framework (detected)"),
            "{err}"
        );
    }
}
