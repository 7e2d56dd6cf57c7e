//! Gemini's contents and Google ADK's events (`--format gemini`): a google-genai
//! chat's history, a saved ADK session, the same as lines and in the Gemini API's
//! names, requests and responses, what each part becomes, and errors.

use doneseq::transcript::{Format, TranscriptErrorKind};

use crate::formats::{read, sample, sample_text, summary, summary_of_values};

#[test]
fn a_google_genai_chats_history() {
    // Written by google-genai 2.34 (`chat.get_history()`, each content's
    // `model_dump(mode="json", exclude_none=True)`) for a chat with two Python tools
    // called by the SDK (automatic function calling): the question, a turn that
    // thinks and calls both, their two responses in one content (the second the
    // SDK's `error`, the function having raised), the answer.
    insta::assert_snapshot!(sample("gemini-contents.json", Format::Gemini));
}

#[test]
fn a_saved_adk_session() {
    // Written by Google ADK 2.13 (`Session.model_dump_json(by_alias=True)`) for two
    // invocations of a root agent that transfers to a `calc` agent: calc thinks and
    // calls two tools (one returns an `error`), calls a tool that escalates, answers;
    // then a tool raises, and ADK records the error as an event of its own.
    insta::assert_snapshot!(sample("adk-session.json", Format::Gemini));
}

#[test]
fn every_shape_reads_as_the_saved_one() {
    // The session's events as lines (`Event.model_dump()`, the SDK's names), and as
    // an array.
    let text = sample_text("adk-session.json");
    let expected = summary_of_values(&read(&text, Format::Auto).unwrap());
    let session: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = session["events"].as_array().unwrap();
    let snake: Vec<serde_json::Value> = events.iter().map(snake_case).collect();
    let lines: String = snake.iter().map(|e| format!("{e}\n")).collect();
    for shape in [lines, serde_json::Value::from(snake).to_string()] {
        for format in [Format::Auto, Format::Gemini] {
            let messages = read(&shape, format).unwrap();
            assert_eq!(summary_of_values(&messages), expected, "{shape}");
        }
    }
    // The chat's history in the Gemini API's names, as lines, and as the contents
    // of a request with its system instruction (which comes first).
    let text = sample_text("gemini-contents.json");
    let expected = summary_of_values(&read(&text, Format::Auto).unwrap());
    let contents: serde_json::Value = serde_json::from_str(&text).unwrap();
    let camel = camel_case(&contents);
    let lines: String = (camel.as_array().unwrap().iter())
        .map(|c| format!("{c}\n"))
        .collect();
    let request = serde_json::json!({
        "contents": camel,
        "systemInstruction": {"role": "user", "parts": [{"text": "You do arithmetic."}]},
        "tools": [{"functionDeclarations": []}],
        "generationConfig": {},
    });
    let sdk_request = serde_json::json!({
        "model": "gemini-2.5-flash",
        "contents": contents,
        "config": {"system_instruction": "You do arithmetic."},
    });
    for format in [Format::Auto, Format::Gemini] {
        let read_lines = read(&lines, format).unwrap();
        assert_eq!(summary_of_values(&read_lines), expected);
        for request in [&request, &sdk_request] {
            let messages = read(&request.to_string(), format).unwrap();
            assert_eq!(
                summary_of_values(&messages),
                format!("0 system \"You do arithmetic.\"\n{}", renumbered(&expected)),
            );
        }
    }
}

/// `value` with its keys in snake_case (what `model_dump()` writes).
fn snake_case(value: &serde_json::Value) -> serde_json::Value {
    rename(value, &|key| {
        let mut out = String::new();
        for c in key.chars() {
            if c.is_ascii_uppercase() {
                out.push('_');
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    })
}

/// `value` with its keys in camelCase (the Gemini API's).
fn camel_case(value: &serde_json::Value) -> serde_json::Value {
    rename(value, &|key| {
        let mut parts = key.split('_');
        let mut out = parts.next().unwrap_or_default().to_owned();
        for part in parts {
            let mut chars = part.chars();
            out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
            out.push_str(chars.as_str());
        }
        out
    })
}

/// `value` with every key of its objects renamed, but the keys of a call's `args`
/// or a function's `response` (which are the tool's own).
fn rename(value: &serde_json::Value, name: &dyn Fn(&str) -> String) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => (map.iter())
            .map(|(k, v)| {
                let v = match k.as_str() {
                    "args" | "response" | "stateDelta" | "state_delta" => v.clone(),
                    _ => rename(v, name),
                };
                (name(k), v)
            })
            .collect(),
        serde_json::Value::Array(items) => items.iter().map(|v| rename(v, name)).collect(),
        other => other.clone(),
    }
}

/// A summary's lines numbered from 1.
fn renumbered(summary: &str) -> String {
    summary
        .lines()
        .map(|line| {
            let (n, rest) = line.split_once(' ').unwrap();
            format!("{} {rest}\n", n.parse::<usize>().unwrap() + 1)
        })
        .collect()
}

/// The summary of the Gemini records `lines`.
fn messages(lines: &[&str]) -> String {
    summary(&read(&lines.join("\n"), Format::Gemini).unwrap())
}

#[test]
fn each_kind_of_part() {
    assert_eq!(
        messages(&[
            r#"{"role": "user", "parts": [{"text": "Look:"}, {"inline_data": {"mime_type": "image/png", "data": "AAAA"}}, {"text": "what is it?"}]}"#,
            r#"{"role": "model", "parts": [{"text": "hmm", "thought": true, "thought_signature": "c2ln"}, {"text": "Let me run it."}, {"executableCode": {"language": "PYTHON", "code": "print(1)"}}, {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}}, {"executable_code": {"language": "PYTHON", "code": "1/0"}}, {"code_execution_result": {"outcome": "OUTCOME_FAILED", "output": ""}}]}"#,
            r#"{"role": "model", "parts": [{"toolCall": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"q": "x"}}}, {"toolResponse": {"id": "s1", "toolType": "GOOGLE_SEARCH_WEB", "response": {"hits": 2}}}, {"thoughtSignature": "c2ln"}]}"#,
            r#"{"role": "model", "parts": [{"function_call": {"id": "c1", "name": "f", "args": {"x": 1}}}, {"function_call": {"name": "g"}}]}"#,
            r#"{"role": "user", "parts": [{"function_response": {"id": "c1", "name": "f", "response": {"output": "ok"}}}, {"text": "and also"}, {"function_response": {"name": "g", "response": {"error": {"code": 3}}}}]}"#,
            r#"{"parts": [{"audio_transcription": {"text": "said aloud"}}]}"#,
            r#"{"role": "user", "parts": [{"file_data": {"file_uri": "gs://x"}}]}"#,
            r#"{"role": "model", "parts": null}"#,
        ]),
        "0 user \"Look:\\nwhat is it?\"\n\
         1 llm \"Let me run it.\" call code_execution({\"language\": \"PYTHON\", \"code\": \"print(1)\"}) id=None call code_execution({\"language\": \"PYTHON\", \"code\": \"1/0\"}) id=None\n\
         2 agent \"1\\n\" tool=code_execution\n\
         3 agent tool=code_execution error=\"the code's outcome was OUTCOME_FAILED\"\n\
         4 llm call GOOGLE_SEARCH_WEB({\"q\": \"x\"}) id=Some(\"s1\")\n\
         5 agent \"{\\\"hits\\\":2}\" answers=s1 tool=GOOGLE_SEARCH_WEB\n\
         6 llm call f({\"x\": 1}) id=Some(\"c1\") call g() id=None\n\
         7 agent \"{\\\"output\\\":\\\"ok\\\"}\" answers=c1 tool=f\n\
         8 user \"and also\"\n\
         9 agent \"{\\\"error\\\":{\\\"code\\\":3}}\" tool=g error=\"{\\\"code\\\":3}\"\n\
         10 user \"said aloud\"\n\
         11 user (no response)\n\
         12 llm (no response)\n"
    );
}

#[test]
fn responses_and_their_usage() {
    assert_eq!(
        messages(&[
            // The input counts the tool-use prompt's tokens; the output the thoughts'.
            r#"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi."}]}, "finishReason": "STOP", "safetyRatings": []}], "usageMetadata": {"promptTokenCount": 10, "toolUsePromptTokenCount": 5, "candidatesTokenCount": 3, "thoughtsTokenCount": 7, "totalTokenCount": 25}, "modelVersion": "gemini-2.5-flash", "responseId": "r1"}"#,
            // A turn cut at its length is whole; one stopped otherwise failed.
            r#"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Long"}]}, "finish_reason": "MAX_TOKENS"}]}"#,
            r#"{"candidates": [{"content": {}, "finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": "bad JSON"}]}"#,
            r#"{"candidates": [], "promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": "unsafe"}, "usageMetadata": {"promptTokenCount": 4}}"#,
            // The calls the SDK made before the answer come first.
            r#"{"candidates": [{"content": {"role": "model", "parts": [{"text": "5"}]}}], "automatic_function_calling_history": [{"role": "user", "parts": [{"text": "2+3?"}]}, {"role": "model", "parts": [{"function_call": {"name": "add", "args": {"a": 2, "b": 3}}}]}, {"role": "user", "parts": [{"function_response": {"name": "add", "response": {"result": 5}}}]}]}"#,
        ]),
        "0 llm \"Hi.\" tokens=15+10\n\
         1 llm \"Long\"\n\
         2 llm error=\"the answer stopped (MALFORMED_FUNCTION_CALL): bad JSON\"\n\
         3 llm tokens=4+0 error=\"the prompt was blocked (SAFETY): unsafe\"\n\
         4 user \"2+3?\"\n\
         5 llm call add({\"a\": 2, \"b\": 3}) id=None\n\
         6 agent \"{\\\"result\\\":5}\" tool=add\n\
         7 llm \"5\"\n"
    );
}

#[test]
fn adk_events_and_their_actions() {
    assert_eq!(
        messages(&[
            r#"{"author": "user", "content": {"role": "user", "parts": [{"text": "Go."}]}, "actions": {}, "id": "e1"}"#,
            // A streamed chunk: the whole answer's event follows.
            r#"{"author": "writer", "partial": true, "content": {"role": "model", "parts": [{"text": "Dra"}]}}"#,
            r#"{"author": "writer", "content": {"role": "model", "parts": [{"text": "Draft."}]}, "usage_metadata": {"prompt_token_count": 8, "candidates_token_count": 2}}"#,
            r#"{"author": "writer", "content": {"role": "user", "parts": [{"function_response": {"name": "transfer_to_agent", "response": {"result": null}}}]}, "actions": {"transfer_to_agent": "critic"}}"#,
            r#"{"author": "critic", "content": {"role": "user", "parts": [{"function_response": {"name": "exit_loop", "response": {}}}]}, "actions": {"escalate": true, "state_delta": {"k": 1}}}"#,
            // No content: the actions and errors are a message of their own; state
            // changes alone are none.
            r#"{"author": "loop", "actions": {"escalate": true}}"#,
            r#"{"author": "critic", "errorCode": "ValueError", "errorMessage": "bad input"}"#,
            r#"{"author": "critic", "error_code": "SAFETY"}"#,
            r#"{"author": "critic", "actions": {"state_delta": {"k": 2}}}"#,
        ]),
        "0 user \"Go.\"\n\
         1 llm @writer \"Draft.\" tokens=8+2\n\
         2 agent @writer \"{\\\"result\\\":null}\" tool=transfer_to_agent handoff=critic\n\
         3 agent @critic \"{}\" tool=exit_loop stop\n\
         4 agent @loop stop (no response)\n\
         5 agent @critic error=\"ValueError: bad input\"\n\
         6 agent @critic error=\"SAFETY\"\n"
    );
}

#[test]
fn errors_name_the_content_and_the_part() {
    let cases = [
        (
            r#"{"role": "narrator", "parts": []}"#,
            "a content of role \"narrator\" (expected \"user\" or \"model\")",
        ),
        (
            r#"{"role": "model", "parts": [{"text": "a"}, {"hologram": {}}]}"#,
            "part 2 of 2: a part of a kind not known (hologram; expected one of text",
        ),
        (
            r#"{"role": "user", "parts": [{"function_call": {"name": "f"}}]}"#,
            "part 1 of 1: a function_call in the user's content",
        ),
        (
            r#"{"role": "model", "parts": [{"function_response": {"name": "f"}}]}"#,
            "part 1 of 1: a function_response in the model's content",
        ),
        (
            r#"{"role": "model", "parts": [{"function_call": {"args": {}}}]}"#,
            "part 1 of 1: a function_call with no \"name\"",
        ),
        (
            r#"{"role": "user", "parts": [{"function_response": {"response": {}}}]}"#,
            "part 1 of 1: a function_response with no \"name\"",
        ),
        (
            r#"{"role": "model", "parts": [{"tool_call": {"args": {}}}]}"#,
            "a server tool's call or response with no \"tool_type\"",
        ),
        (
            r#"{"candidates": [{"content": {"role": "model", "parts": []}}, {"content": {"role": "model", "parts": []}}]}"#,
            "a response with 2 candidates",
        ),
        (
            r#"{"author": "a", "content": {"role": "model", "parts": [{"x": 1}]}}"#,
            "\"content\": part 1 of 1: a part of a kind not known (x;",
        ),
        (
            r#"{"contents": [{"role": "user", "parts": [{"text": "a"}]}, {"role": "critic", "parts": []}]}"#,
            "element 2 of 2: a content of role \"critic\"",
        ),
        (
            r#"{"contents": [], "systemInstruction": {"parts": [{"inline_data": {}}]}}"#,
            "the system instruction: part 1 is not text",
        ),
        (
            r#"{"appName": "x", "events": [{"author": "a", "content": {"role": "bot", "parts": []}}]}"#,
            "element 1 of 1: \"content\": a content of role \"bot\"",
        ),
    ];
    for (line, expected) in cases {
        let err = read(line, Format::Gemini).unwrap_err();
        assert_eq!(
            (err.line, err.kind, err.format),
            (1, TranscriptErrorKind::Message, Some(Format::Gemini)),
            "{err}"
        );
        assert!(err.message.contains(expected), "{line}: {err}");
        assert!(err.message.contains("format gemini (given)"), "{err}");
    }
    // A part's field of the wrong type: serde's error, with its column.
    let err = read(
        r#"{"role": "model", "parts": [{"text": 7}]}"#,
        Format::Gemini,
    )
    .unwrap_err();
    assert_eq!(
        (err.kind, err.column),
        (TranscriptErrorKind::Json, Some(38)),
        "{err}"
    );
    assert!(
        err.message
            .contains("invalid type: integer `7`, expected a string"),
        "{err}"
    );
    // Two kinds in a part, or one twice (in the API's name and the SDK's).
    let err = read(
        r#"{"role": "model", "parts": [{"functionCall": {"name": "f"}, "function_call": {"name": "g"}}]}"#,
        Format::Gemini,
    )
    .unwrap_err();
    let twice = "a part holds both function_call and function_call (a part holds one kind, once)";
    assert!(err.message.contains(twice), "{err}");
    let err = read(
        r#"{"role": "model", "parts": [{"text": "a", "inline_data": {}}]}"#,
        Format::Gemini,
    )
    .unwrap_err();
    assert!(
        err.message.contains("a part holds both text and media"),
        "{err}"
    );
    // Detected, a record of another kind than the first's is read as its own keys
    // say; what is wrong with it is said of the kind it is, at its line.
    let err = read(
        "{\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": []}}]}\n\
         {\"role\": \"model\", \"parts\": [{\"hologram\": 1}]}\n",
        Format::Auto,
    )
    .unwrap_err();
    assert_eq!(err.line, 2, "{err}");
    assert!(
        err.message
            .contains("a part of a kind not known (hologram; expected")
            && err.message.contains("in a Gemini content")
            && err.message.contains("format gemini (detected)"),
        "{err}"
    );
}

#[test]
fn a_content_is_not_taken_for_another_formats_record() {
    // A chat message (`content`, no `parts`) is not a content; a Pydantic AI
    // message (`parts` and a `kind`) neither.
    let err = read(r#"{"role": "user", "content": "hi"}"#, Format::Gemini).unwrap_err();
    assert_eq!(err.kind, TranscriptErrorKind::Json, "{err}");
    assert!(err.message.contains("missing field `parts`"), "{err}");
    let chat = read(r#"{"role": "user", "content": "hi"}"#, Format::Auto).unwrap();
    assert_eq!(summary(&chat), "0 user \"hi\"\n");
    let pydantic =
        r#"{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}]}"#;
    let mut reader = doneseq::transcript::Reader::new(pydantic.as_bytes(), Format::Auto);
    assert_eq!(reader.by_ref().count(), 1);
    assert_eq!(reader.format(), Format::PydanticAi);
}

#[test]
fn a_users_content_of_results_alone_is_no_turn_of_the_users() {
    // The client gives a server tool's response back (as the API asks) in a user's
    // content that holds nothing else: the result, no empty message of the user's.
    assert_eq!(
        messages(&[
            r#"{"role": "user", "parts": [{"tool_response": {"id": "s1", "tool_type": "URL_CONTEXT", "response": {"ok": true}}}]}"#,
            r#"{"role": "user", "parts": [{"code_execution_result": {"outcome": "OUTCOME_DEADLINE_EXCEEDED"}}]}"#,
        ]),
        "0 agent \"{\\\"ok\\\":true}\" answers=s1 tool=URL_CONTEXT\n\
         1 agent tool=code_execution error=\"the code's outcome was OUTCOME_DEADLINE_EXCEEDED\"\n"
    );
}
