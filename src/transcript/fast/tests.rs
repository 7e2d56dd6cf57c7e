//! The fast path against the serde path: whatever the scanner accepts, the serde path
//! reads as the same message; and the common lines are accepted (else the fast path
//! would be dead code and these tests would prove nothing).

mod records;

use std::borrow::Cow;
use std::cell::Cell;

use proptest::prelude::*;

use super::scan::{DEPTH, Scan};
use super::{Chat, agent_message};
use crate::transcript::autogen::{self, AgentMessage};
use crate::transcript::record::{self, Context, Kind, Out};
use crate::{Message, ToolCall};

thread_local! {
    /// The fast path is off (on this thread).
    pub(super) static OFF: Cell<bool> = const { Cell::new(false) };
}

/// `f`'s result with the fast path off: the serde path's.
fn serde_only<T>(f: impl FnOnce() -> T) -> T {
    OFF.set(true);
    let result = f();
    OFF.set(false);
    result
}

/// The line as the reader's serde path reads it when the log is of chat messages:
/// the depth check, then the message record.
fn serde_path(text: &str) -> Option<Vec<Message<'_>>> {
    if crate::transcript::too_deep(text).is_some() {
        return None;
    }
    let mut out = Out::new();
    record::read(Kind::Message, text, &mut Context::default(), &mut out).ok()?;
    Some(out.into_vec())
}

/// The messages of a chat the scanner read, in the order the reader gives them.
/// The chat message in `text` as the fast path scans it, if it is sure of it.
fn message(text: &str, langroid_roles: bool) -> Option<Chat<'_>> {
    let mut chat = Chat::default();
    super::message(text, langroid_roles, &mut chat)?;
    Some(chat)
}

fn messages(chat: Chat<'_>) -> Vec<Message<'_>> {
    chat.results.into_iter().chain(chat.message).collect()
}

/// If the scanner accepts `line`, the serde path reads the same messages; says which.
fn agrees(line: &str) -> Result<bool, String> {
    let text = line.trim();
    let Some(fast) = message(text, false).map(messages) else {
        return Ok(false);
    };
    match serde_path(text) {
        Some(slow) if slow == fast => Ok(true),
        other => Err(format!(
            "{line:?}\nfast: {fast:?}\nserde: {other:?} ({:?})",
            serde_path_error(text)
        )),
    }
}

fn serde_path_error(text: &str) -> Option<String> {
    let mut out = Out::new();
    let failure = record::read(Kind::Message, text, &mut Context::default(), &mut out).err()?;
    Some(problem_text(failure.problem))
}

/// A failure's problem as text, to compare and show.
fn problem_text(problem: record::Problem) -> String {
    match problem {
        record::Problem::Json(e) => e.to_string(),
        record::Problem::Message(_, m) => m,
        record::Problem::TooDeep(at) => format!("nested too deep at byte {at}"),
    }
}

/// Lines the scanner must take: the shapes of doneseq's own logs and OpenAI's.
const COMMON: &[&str] = &[
    r#"{"role": "system", "content": "You are a careful assistant. Use the tools."}"#,
    r#"{"role": "user", "content": "What is 17 times 23, plus 4?"}"#,
    r#"{"role": "llm", "content": "Let me compute that.", "tool_calls": [{"name": "calculator", "arguments": {"expression": "17 * 23 + 4"}}], "usage": {"input_tokens": 61, "output_tokens": 22}}"#,
    r#"{"role": "agent", "responder": "Calculator", "content": "395"}"#,
    r#"{"role": "llm", "content": "", "tool_calls": [{"id": "call_2", "name": "search", "arguments": {"query": "capital of France"}}], "usage": {"input_tokens": 97, "output_tokens": 20}}"#,
    r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"calc","arguments":"{\"x\": \"6*7\"}"}}],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5}}"#,
    r#"{"role": "tool", "tool_call_id": "c1", "name": "calc", "content": "42 \u00e9\ud83d\ude00 \n\t\"q\" \/ \\"}"#,
    r#"{"role": "assistant", "content": "caf\u00e9 é", "metadata": {"a": [1, -2.5e3, true, false, null, {"b": "c"}]}, "annotations": [], "audio": null}"#,
    r#"{"role": "user", "content": "", "tool_calls": []}"#,
    r#"{"role": "User", "content": "hi", "name": null, "responder": "me"}"#,
    r#"{"content": "order does not matter", "role": "llm"}"#,
    r#"{"role": "llm", "tool_calls": [{"name": "f", "arguments": null}, {"name": "g"}, {"name": "h", "arguments": [1, 2]}, {"name": "i", "arguments": 0}]}"#,
    // Content parts (OpenAI's and Anthropic's) and refusals.
    r#"{"role": "llm", "content": [{"type": "text", "text": "hi"}]}"#,
    r#"{"role": "llm", "content": "hi", "refusal": "no"}"#,
    r#"{"role": "assistant", "content": null, "refusal": "I can't help with that."}"#,
    r#"{"role": "assistant", "content": "", "refusal": ""}"#,
    r#"{"role": "user", "content": [{"type": "input_text", "text": "look"}, {"type": "input_image", "image_url": "https://x/y.png"}, {"type": "text", "text": "and é"}]}"#,
    r#"{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "395"}]}"#,
    r#"{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "1"}], "usage": {"input_tokens": 3}}"#,
    r#"{"role": "user", "name": "me", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "boom"}], "is_error": true}, {"type": "tool_result", "tool_use_id": "u", "content": null, "is_error": true}, {"type": "text", "text": "and go on", "cache_control": {"type": "ephemeral"}}]}"#,
    r#"{"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "signature": "x"}, {"type": "text", "text": "a", "citations": null}, {"type": "tool_use", "id": "toolu_2", "name": "search", "input": {"query": "q"}}, {"type": "tool_use", "name": "f", "input": null}], "tool_calls": [{"name": "g"}]}"#,
    r#"{"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}, {"type": "output_text", "text": "yes", "annotations": []}]}"#,
    // What OpenAI-compatible providers and clients add: reasoning beside the answer
    // (DeepSeek, OpenRouter, Ollama, LiteLLM), a call's place in the list (Mistral,
    // Ollama's inside its function), Gemini's signature on a call.
    r#"{"role": "assistant", "content": "395.", "reasoning_content": "17*23 = 391; plus 4."}"#,
    r#"{"role": "assistant", "content": "42", "refusal": null, "reasoning": "6*7", "reasoning_details": [{"type": "reasoning.text", "text": "6*7", "index": 0}]}"#,
    r#"{"role": "assistant", "content": "", "tool_calls": [{"id": "D681PevKs", "type": "function", "function": {"name": "calc", "arguments": "{\"x\": 1}"}, "index": 0}]}"#,
    r#"{"role": "assistant", "content": "", "thinking": "use the tool", "tool_calls": [{"function": {"index": 0, "name": "calc", "arguments": {"x": 1}}}]}"#,
    r#"{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}, "extra_content": {"google": {"thought_signature": "sig"}}}]}"#,
    r#"{"content": "42", "role": "assistant", "tool_calls": null, "provider_specific_fields": {"refusal": null}, "reasoning_content": null, "thinking_blocks": [{"type": "thinking", "thinking": "6*7", "signature": "s"}]}"#,
    r#"{"role": "user", "content": "What is this?", "images": ["aGk="], "prefix": false, "metadata": null}"#,
    // Keys are compared in place: spaces around colons, and keys that begin as a
    // known key does (or are the start of one) are not taken for it.
    r#"{"role" : "llm" ,"content":"hi" , "usage" :{"input_tokens" : 1}}"#,
    r#"{"role": "llm", "content": [{"type": "text", "text": "a", "texts": 1, "typ": null, "text_": [], "": 0, "t": {"text": 2}}]}"#,
];

#[test]
fn the_common_lines_are_scanned_as_serde_reads_them() {
    for line in COMMON {
        assert_eq!(agrees(line), Ok(true), "{line}");
    }
}

/// Lines the scanner gives to the serde path (which reads some, refuses others).
const LEFT_TO_SERDE: &[&str] = &[
    // Not the common keys, or not their common values.
    r#"{"role": "llm", "content": "hi", "error": "boom"}"#,
    r#"{"role": "llm", "no_response": true}"#,
    r#"{"role": "llm", "content": "hi", "usage": {"input_tokens": 1.0}}"#,
    r#"{"role": "llm", "content": "hi", "usage": {"input_tokens": 1, "prompt_tokens": 2}}"#,
    r#"{"role": "llm", "content": "hi", "usage": {"input_tokens": -1}}"#,
    r#"{"role": "llm", "content": "hi", "usage": {"input_tokens": 01}}"#,
    r#"{"role": "llm", "content": "hi", "usage": {"input_tokens": 99999999999999999999}}"#,
    r#"{"role": "llm", "content": "hi", "usage": {"input_tokens": null}}"#,
    r#"{"role": "llm", "content": "hi", "usage": {"cached": 1}}"#,
    // Wrong: serde refuses these, with the position.
    r#"{"role": "llm", "role": "user"}"#,
    r#"{"role": null, "content": "hi"}"#,
    r#"{"content": "hi"}"#,
    r#"{}"#,
    r#"{"role": "robot", "content": "hi"}"#,
    r#"{"role": "llm", "content": "hi",}"#,
    r#"{"role": "llm", "content": "hi"} x"#,
    r#"{"role": "llm", "content": "hi""#,
    r#"{"role": "llm", "content": "a\qb"}"#,
    r#"{"role": "llm", "content": "\ud83d"}"#,
    r#"{"role": "llm", "content": "\ude00"}"#,
    r#"{"role": "llm", "content": "tab	inside"}"#,
    r#"{"role": "llm", "tool_calls": [{"name": ""}]}"#,
    r#"{"role": "llm", "tool_calls": [{"arguments": "{}"}]}"#,
    r#"{"role": "llm", "tool_calls": [{"name": "f", "function": {"name": "g"}}]}"#,
    r#"{"role": "llm", "tool_calls": [{"name": "f", "extra": 1}]}"#,
    r#"{"role": "llm", "tool_calls": [{"function": {"arguments": "{}"}}]}"#,
    r#"{"role": "llm", "tool_calls": [{"name": "f", "arguments": {"a": 1,}}]}"#,
    r#"{"role": "llm", "tool_calls": [{"name": "f", "arguments": -}]}"#,
    r#"{"role": "llm", "tool_calls": [{"name": "f", "arguments": 1.}]}"#,
    r#"{"role": "llm", "tool_calls": [{"name": "f", "arguments": tru}]}"#,
    r#"{"role": "llm", "tool_calls": [{"name": "f"},]}"#,
    r#"{"role": "llm", "tool_calls": [{"name": "f", "index": 0, "index": 1}]}"#,
    r#"{"role": "llm", "tool_calls": [{"function": {"name": "f", "index": 0, "index": 0}}]}"#,
    r#"{"role": "llm", "content": "hi", "reasoning": "a", "reasoning": "b"}"#,
    r#"{"role": "llm", "content": "hi", "thinking_blocks": [1,]}"#,
    r#"{"role": "llm", "content": "hi", "images": [], "images": []}"#,
    r#"{"role": "llm", "content": "hi", "reasoning_contents": "x"}"#,
    r#"{"role": "llm", "content": "hi", "metadata": {}, "metadata": {}}"#,
    r#"{"ro\u006ce": "llm"}"#,
    r#"{"roles": "llm", "content": "hi"}"#,
    r#"{"role": "llm", "rol": "x"}"#,
    r#"{"role": "llm", "content": "hi", "usage": {"input_tokens": 1, "input_tokens2": 2}}"#,
    r#"{"role": "llm", "content": [{"type": "text", "t\u0065xt": "a"}]}"#,
    r#"{"role": "llm", "content": "hi", "role"#,
    // Content parts the conversion refuses, or wrong JSON in them.
    r#"{"role": "llm", "content": [{"type": "bogus"}]}"#,
    r#"{"role": "llm", "content": [{"text": "no type"}]}"#,
    r#"{"role": "llm", "content": [{"type": "text"}]}"#,
    r#"{"role": "llm", "content": [{"type": "refusal", "text": "x"}]}"#,
    r#"{"role": "llm", "content": [{"type": "text", "text": "a", "type": "text"}]}"#,
    r#"{"role": "llm", "content": [{"type": "tool_result", "content": [{"type": "tool_use", "name": "x"}]}]}"#,
    r#"{"role": "llm", "content": [{"type": "tool_use", "name": ""}]}"#,
    r#"{"role": "llm", "content": [{"type": "text", "text": "a"},]}"#,
    r#"{"role": "llm", "content": [{"type": "tool_result", "is_error": "yes"}]}"#,
    r#"{"role": "llm", "content": {"type": "text"}}"#,
    r#"{"role": "llm", "content": 5}"#,
    r#"{"role": "llm", "content": "hi", "refusal": 1}"#,
];

#[test]
fn the_other_lines_are_left_to_serde() {
    for line in LEFT_TO_SERDE {
        assert!(message(line, false).is_none(), "{line}");
    }
}

#[test]
fn deep_lines_are_left_to_serde() {
    let deep = |levels: usize| {
        format!(
            r#"{{"role": "llm", "metadata": {}1{}}}"#,
            "[".repeat(levels),
            "]".repeat(levels)
        )
    };
    // Within the scanner's depth, read; past it, the serde path's (and its limit's).
    assert_eq!(agrees(&deep(DEPTH - 1)), Ok(true));
    assert!(message(&deep(crate::transcript::MAX_JSON_DEPTH + 1), false).is_none());
    assert!(serde_path(&deep(crate::transcript::MAX_JSON_DEPTH + 1)).is_none());
}

#[test]
fn a_tool_output_is_known_by_its_first_key_only_where_sure() {
    // Each is a tool's output, as the serde path reads it.
    let sure = [
        r#"{"type": "function_call_output", "call_id": "c", "output": "x"}"#,
        r#"{ "type" : "shell_call_output", "call_id": "c", "output": "x"}"#,
        r#"{"type":"custom_tool_call_output","call_id":"c","output":"x"}"#,
    ];
    for line in sure {
        assert!(super::ends_turn(line.as_bytes()), "{line}");
        let mut out = Out::new();
        let read = serde_only(|| {
            record::read(Kind::ResponsesItem, line, &mut Context::default(), &mut out)
        });
        assert!(read.is_ok(), "{line}");
        let roles: Vec<_> = out.iter().map(|m| (m.role(), m.tool_call_id())).collect();
        assert_eq!(roles, [(crate::Role::Agent, Some("c"))], "{line}");
    }
    let unsure = [
        r#"{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}"#,
        r#"{"type": "function_call_output_x", "call_id": "c", "output": "x"}"#,
        // An escape: an output, but the check does not decode.
        r#"{"type": "function_call\u005foutput", "call_id": "c", "output": "x"}"#,
        // Not the first key.
        r#"{"call_id": "c", "type": "function_call_output", "output": "x"}"#,
        r#"{"type": "function_call_outp"#,
        r#"["type", "function_call_output"]"#,
        "",
    ];
    for line in unsure {
        assert!(!super::ends_turn(line.as_bytes()), "{line}");
    }
}

#[test]
fn langroid_roles_are_left_to_serde_when_they_matter() {
    let line = r#"{"role": "LLM", "content": "{\"request\": \"calc\"}"}"#;
    assert!(message(line, true).is_none());
    assert_eq!(agrees(line), Ok(true));
}

/// A Langroid log (its roles Langroid's entities) is scanned, its contents searched for
/// tool JSON as the serde path searches them: the same messages either way.
#[test]
fn langroid_logs_are_scanned_as_serde_reads_them() {
    use crate::transcript::{Format, read_transcript};

    let cycle = include_str!("../../../benches/cycles/langroid.jsonl");
    let sample = include_str!("../../../examples/formats/langroid.jsonl");
    let edges = [
        // Tools among prose, a nested request, an empty and a non-string one.
        r#"{"role": "LLM", "content": "a {\"request\": \"x\", \"a\": {\"request\": \"y\"}} b {\"request\": \"\"} {\"request\": 1} {\"request\": \"z\"}"}"#,
        // Structured calls: the content is not searched.
        r#"{"role": "LLM", "content": "{\"request\": \"calc\"}", "tool_calls": [{"name": "other", "arguments": {}}]}"#,
        r#"{"role": "Agent", "content": "{ not json {{"}"#,
        r#"{"role": "LLM", "content": "{\"request\": \"calc\\u0075\"}"}"#,
        r#"{"role": "User", "content": "plain"}"#,
    ];
    let log = format!("{sample}{cycle}{}\n", edges.join("\n"));
    let fast = read_transcript(log.as_bytes(), Format::Auto).unwrap();
    let slow = serde_only(|| read_transcript(log.as_bytes(), Format::Auto)).unwrap();
    assert_eq!(fast, slow);
    let names: Vec<&str> = fast[fast.len() - 5]
        .tool_calls()
        .iter()
        .map(ToolCall::name)
        .collect();
    assert_eq!(names, ["x", "z"]);
    // And the scanner reads them (else this would compare the serde path with itself).
    let cx = Context {
        langroid: true,
        ..Context::default()
    };
    for line in cycle.lines().chain(edges) {
        let mut chat = Chat::default();
        assert!(
            record::scan(Kind::Message, line, &cx, &mut chat).is_some(),
            "{line}"
        );
    }
}

/// The sample files under `examples/` and `examples/formats/` whose extension is one
/// of `extensions`, with their texts.
fn sample_files(extensions: &[&str]) -> Vec<(std::path::PathBuf, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("formats")] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if extensions.contains(&extension) {
                let text = std::fs::read_to_string(&path).unwrap();
                files.push((path, text));
            }
        }
    }
    files
}

#[test]
fn every_sample_line_agrees() {
    let mut accepted = 0;
    for (_, text) in sample_files(&["jsonl"]) {
        for line in text.lines() {
            accepted += usize::from(agrees(line).unwrap());
        }
    }
    assert!(accepted > 10, "only {accepted} sample lines scanned");
}

/// Pieces of message lines: keys the scanner knows and some it does not, with values
/// right and wrong for them.
fn member() -> impl Strategy<Value = String> {
    let text = prop_oneof![
        Just(r#""hi""#.to_owned()),
        Just(r#""""#.to_owned()),
        Just(r#""caf\u00e9 \ud83d\ude00 \n \"q\"""#.to_owned()),
        Just(r#""bad \x""#.to_owned()),
        Just(r#""\ud800""#.to_owned()),
        Just("\"a\u{1}b\"".to_owned()),
        Just("null".to_owned()),
        Just("1".to_owned()),
        Just("[]".to_owned()),
    ];
    let role = prop_oneof![
        Just(r#""llm""#),
        Just(r#""assistant""#),
        Just(r#""tool""#),
        Just(r#""LLM""#),
        Just(r#""bot""#),
        Just("null"),
        Just("3")
    ];
    let number = prop_oneof![
        Just("0"),
        Just("17"),
        Just("007"),
        Just("-1"),
        Just("1.5"),
        Just("2e3"),
        Just("18446744073709551615"),
        Just("18446744073709551616"),
        Just("null"),
        Just("\"5\""),
    ];
    let raw = prop_oneof![
        Just("{}"),
        Just(r#"{"a": [1, 2.5, -0, 1e-3, true, false, null, "x\\"y"]}"#),
        Just(r#""{\"a\": 1}""#),
        Just("null"),
        Just("[1, [2, [3]]]"),
        Just("{\"a\" 1}"),
        Just("[1,]"),
        Just("01"),
        Just("-"),
        Just("1.e5"),
    ];
    let call = (
        proptest::option::of(text.clone()),
        proptest::option::of(text.clone()),
        proptest::option::of(raw.clone()),
        proptest::option::of((text.clone(), proptest::option::of(raw))),
        proptest::option::of(Just(r#""function""#)),
        any::<bool>(),
        proptest::option::of(prop_oneof![
            Just(r#""index": 0"#),
            Just(r#""index": null"#),
            Just(r#""index": 0, "index": 1"#),
            Just(r#""extra_content": {"google": {"thought_signature": "s"}}"#),
            Just(r#""extra_content": [1,]"#),
        ]),
        any::<bool>(),
    )
        .prop_map(
            |(id, name, arguments, function, kind, extra, provider, indexed)| {
                let mut fields = Vec::new();
                if let Some(id) = id {
                    fields.push(format!(r#""id": {id}"#));
                }
                if let Some(kind) = kind {
                    fields.push(format!(r#""type": {kind}"#));
                }
                if let Some(name) = name {
                    fields.push(format!(r#""name": {name}"#));
                }
                if let Some(arguments) = arguments {
                    fields.push(format!(r#""arguments": {arguments}"#));
                }
                if let Some((name, arguments)) = function {
                    let mut inner = vec![format!(r#""name": {name}"#)];
                    if let Some(arguments) = arguments {
                        inner.push(format!(r#""arguments": {arguments}"#));
                    }
                    if indexed {
                        inner.insert(0, r#""index": 0"#.to_owned());
                    }
                    fields.push(format!(r#""function": {{{}}}"#, inner.join(", ")));
                }
                if extra {
                    fields.push(r#""extra": 1"#.to_owned());
                }
                if let Some(provider) = provider {
                    fields.push(provider.to_owned());
                }
                format!("{{{}}}", fields.join(", "))
            },
        );
    let usage = proptest::collection::vec(
        (
            prop_oneof![
                Just("input_tokens"),
                Just("output_tokens"),
                Just("prompt_tokens"),
                Just("completion_tokens"),
                Just("total_tokens"),
                Just("cached_tokens"),
            ],
            number,
        ),
        0..4,
    )
    .prop_map(|members| {
        let members: Vec<_> = members
            .iter()
            .map(|(k, v)| format!(r#""{k}": {v}"#))
            .collect();
        format!("{{{}}}", members.join(", "))
    });
    prop_oneof![
        role.prop_map(|v| format!(r#""role": {v}"#)),
        text.clone().prop_map(|v| format!(r#""content": {v}"#)),
        text.clone().prop_map(|v| format!(r#""responder": {v}"#)),
        text.clone().prop_map(|v| format!(r#""name": {v}"#)),
        text.clone().prop_map(|v| format!(r#""tool_call_id": {v}"#)),
        proptest::collection::vec(call, 0..3)
            .prop_map(|calls| format!(r#""tool_calls": [{}]"#, calls.join(", "))),
        usage.prop_map(|v| format!(r#""usage": {v}"#)),
        text.clone().prop_map(|v| format!(r#""metadata": {v}"#)),
        // Every key read and ignored, and one that is not quite one.
        (
            prop_oneof![
                proptest::sample::select(crate::transcript::wire::IGNORED_KEYS),
                Just("reasoning_contents"),
            ],
            text.clone()
        )
            .prop_map(|(k, v)| format!(r#""{k}": {v}"#)),
        text.clone().prop_map(|v| format!(r#""refusal": {v}"#)),
        proptest::collection::vec(part(), 0..3)
            .prop_map(|parts| format!(r#""content": [{}]"#, parts.join(", "))),
        text.clone().prop_map(|v| format!(r#""error": {v}"#)),
        Just(r#""no_response": true"#.to_owned()),
    ]
}

/// A content part: the known types with their fields right and wrong, and others.
fn part() -> impl Strategy<Value = String> {
    let kind = prop_oneof![
        Just(r#""text""#),
        Just(r#""output_text""#),
        Just(r#""refusal""#),
        Just(r#""tool_use""#),
        Just(r#""tool_result""#),
        Just(r#""thinking""#),
        Just(r#""bogus""#),
        Just("null"),
    ];
    let value = prop_oneof![
        Just(r#""x""#),
        Just(r#""""#),
        Just(r#""\u00e9\n""#),
        Just("null"),
        Just("true"),
        Just("1"),
        Just(r#"{"q": [1]}"#),
        Just(r#"[{"type": "text", "text": "inner"}]"#),
        Just(r#"[{"type": "tool_use", "name": "x"}]"#),
    ];
    let key = prop_oneof![
        Just("text"),
        Just("refusal"),
        Just("id"),
        Just("name"),
        Just("input"),
        Just("tool_use_id"),
        Just("content"),
        Just("is_error"),
        Just("signature"),
    ];
    (
        proptest::option::of(kind),
        proptest::collection::vec((key, value), 0..4),
    )
        .prop_map(|(kind, members)| {
            let mut fields: Vec<String> = kind
                .map(|k| format!(r#""type": {k}"#))
                .into_iter()
                .collect();
            fields.extend(members.iter().map(|(k, v)| format!(r#""{k}": {v}"#)));
            format!("{{{}}}", fields.join(", "))
        })
}

/// One of `lines` damaged at one place: a byte cut, changed or added (a byte JSON
/// gives meaning to, a letter of a literal, or a control character); only what is
/// still UTF-8.
fn damaged(lines: &'static [&'static str]) -> impl Strategy<Value = String> {
    let bytes = &b"{}[]\",:\\ 0123456789.-+eEnultrfa\x01"[..];
    (
        0..lines.len(),
        any::<prop::sample::Index>(),
        0..3u8,
        prop::sample::select(bytes),
    )
        .prop_filter_map("not UTF-8", |(which, at, edit, byte)| {
            let mut bytes = lines[which].as_bytes().to_vec();
            let at = at.index(bytes.len());
            match edit {
                0 => drop(bytes.remove(at)),
                1 => bytes[at] = byte,
                _ => bytes.insert(at, byte),
            }
            String::from_utf8(bytes).ok()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Generated lines, mostly with the common keys, right and wrong.
    #[test]
    fn generated_lines_agree(
        members in proptest::collection::vec(member(), 0..6),
        role_first in any::<bool>(),
    ) {
        let mut members = members;
        if role_first {
            members.insert(0, r#""role": "llm""#.to_owned());
        }
        let line = format!("{{{}}}", members.join(", "));
        prop_assert!(agrees(&line).is_ok(), "{}", agrees(&line).unwrap_err());
    }

    /// The common lines damaged anywhere: a byte cut, changed or added.
    #[test]
    fn damaged_lines_agree(line in damaged(COMMON)) {
        prop_assert!(agrees(&line).is_ok(), "{}", agrees(&line).unwrap_err());
    }
}

/// AutoGen messages: the messages the scanner builds are those the serde path's
/// struct converts to (where that conversion fails, the scanner must not take the
/// line), where the scanner takes the line; says whether.
fn agent_agrees(line: &str) -> Result<bool, String> {
    let text = line.trim();
    let mut chat = Chat::default();
    if agent_message(text, &mut chat).is_none() {
        return Ok(false);
    }
    let slow = match crate::transcript::too_deep(text) {
        Some(_) => None,
        None => serde_json::from_str::<AgentMessage<'_>>(text).ok(),
    };
    let Some(slow) = slow else {
        return Err(format!("{line:?}: the scanner read what serde refuses"));
    };
    let fast: Result<Vec<Message<'_>>, String> =
        Ok(chat.results.into_iter().chain(chat.message).collect());
    let slow = serde_only(|| read_agent(slow, text));
    if fast == slow {
        Ok(true)
    } else {
        Err(format!("{line:?}\nfast: {fast:?}\nserde: {slow:?}"))
    }
}

/// The messages the serde path's conversion makes of `message`, or its error's text.
fn read_agent<'a>(message: AgentMessage<'a>, text: &'a str) -> Result<Vec<Message<'a>>, String> {
    let mut out = Out::new();
    match autogen::read(message, text, &mut out) {
        Ok(()) => Ok(out.into_vec()),
        Err(failure) => Err(problem_text(failure.problem)),
    }
}

/// AutoGen's shapes, as `model_dump()` writes them.
const AUTOGEN: &[&str] = &[
    r#"{"id": "1", "source": "user", "models_usage": null, "metadata": {}, "created_at": "2026-11-25T02:10:57.078061Z", "content": "What is 17 times 23?", "type": "TextMessage"}"#,
    r#"{"id": "2", "source": "assistant", "models_usage": {"prompt_tokens": 61, "completion_tokens": 22}, "metadata": {}, "created_at": "2026-11-25T02:10:57.080643Z", "content": [{"id": "call_1", "arguments": "{\"expression\": \"17 * 23 + 4\"}", "name": "calculator"}], "type": "ToolCallRequestEvent"}"#,
    r#"{"id": "3", "source": "assistant", "models_usage": null, "metadata": {}, "created_at": "2026-11-25T02:10:57.087386Z", "content": [{"content": "395", "name": "calculator", "call_id": "call_1", "is_error": false}], "type": "ToolCallExecutionEvent"}"#,
    r#"{"source": "assistant", "content": "done \u00e9", "type": "StopMessage", "models_usage": {"input_tokens": 1, "cache_read_input_tokens": 2, "total": {"x": [1]}}}"#,
    r#"{"source": "planner", "content": "over to you", "target": "coder", "context": [], "type": "HandoffMessage"}"#,
    r#"{"source": "planner", "content": "not a handoff", "target": "coder", "type": "TextMessage"}"#,
    r#"{"source": "a", "content": "thinking", "type": "ThoughtEvent"}"#,
    r#"{"source": "a", "content": [{"query": "q"}, 1], "type": "MemoryQueryEvent"}"#,
    r#"{"source": "a", "content": [{"content": "r1", "call_id": "c1"}, {"content": "r2", "call_id": "c2", "is_error": true}], "type": "ToolCallExecutionEvent"}"#,
    r#"{"source": "a", "content": [], "type": "ToolCallExecutionEvent"}"#,
];

/// AutoGen lines the scanner leaves to the serde path: the types whose content is not
/// text or calls or results, an unknown type, and contents that are not what the type
/// says (the serde path reads them, or says what is wrong).
const AUTOGEN_LEFT: &[&str] = &[
    r#"{"source": "a", "content": [{"type": "image"}, "text"], "type": "MultiModalMessage"}"#,
    r#"{"source": "a", "content": {"answer": 42}, "type": "StructuredMessage[Answer]", "format_string": null}"#,
    // Their content a string: not a chat message's text (refused; the JSON text).
    r#"{"source": "a", "content": "text", "type": "MultiModalMessage"}"#,
    r#"{"source": "a", "content": "text", "type": "StructuredMessage[str]"}"#,
    r#"{"source": "a", "content": "x", "type": "Bogus"}"#,
    r#"{"source": "a", "content": [{"name": "calculator", "content": "395", "call_id": "call_1"}], "type": "ToolCallExecutionEvent"}"#,
    r#"{"source": "a", "content": [{"content": "x", "id": "call_1", "name": "search", "arguments": "{}"}], "type": "ToolCallRequestEvent"}"#,
    r#"{"source": "a", "content": [{"content": "x", "call_id": "call_1"}], "type": "TextMessage"}"#,
    r#"{"source": "a", "content": "text", "type": "ToolCallRequestEvent"}"#,
    r#"{"source": "a", "type": "TextMessage"}"#,
];

#[test]
fn autogen_messages_are_scanned_as_serde_reads_them() {
    for line in AUTOGEN {
        assert_eq!(agent_agrees(line), Ok(true), "{line}");
    }
    for line in AUTOGEN_LEFT {
        assert_eq!(agent_agrees(line), Ok(false), "{line}");
    }
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/formats/autogen-task-result.json");
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sample).unwrap()).unwrap();
    let messages = result["messages"].as_array().unwrap();
    assert!(!messages.is_empty());
    let mut scanned = 0;
    for message in messages {
        let line = message.to_string();
        scanned += usize::from(agent_agrees(&line).unwrap_or_else(|e| panic!("{e}")));
    }
    assert!(
        scanned * 2 > messages.len(),
        "{scanned} of {} scanned",
        messages.len()
    );
}

#[test]
fn autogen_lines_left_to_serde() {
    for line in [
        r#"{"source": "a", "content": "x"}"#,
        r#"{"type": "TextMessage", "content": "x"}"#,
        r#"{"type": "TextMessage", "type": "TextMessage", "source": "a"}"#,
        r#"{"type": "TextMessage", "source": "a", "models_usage": {"prompt_tokens": 1.5}}"#,
        r#"{"type": "TextMessage", "source": "a", "models_usage": {"prompt_tokens": 1, "input_tokens": 1}}"#,
        r#"{"type": "TextMessage", "source": null}"#,
        r#"{"type": "TextMessage", "source": "a", "content": [1,]}"#,
    ] {
        assert!(
            agent_message(line, &mut Chat::default()).is_none(),
            "{line}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// AutoGen lines damaged anywhere.
    #[test]
    fn damaged_autogen_lines_agree(line in damaged(AUTOGEN)) {
        prop_assert!(agent_agrees(&line).is_ok(), "{}", agent_agrees(&line).unwrap_err());
    }
}

/// Pieces of a JSON string's text: plain runs (some not ASCII), each escape JSON has,
/// surrogate pairs, and what JSON refuses in a string (a bad escape, a lone surrogate,
/// a control character).
fn string_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[a-z é€😀]{0,12}",
        1 => "[a-z]{100,300}",
        4 => prop_oneof![
            Just(r#"\""#), Just(r"\\"), Just(r"\/"), Just(r"\b"), Just(r"\f"),
            Just(r"\n"), Just(r"\r"), Just(r"\t"), Just(r"\u00e9"), Just(r"\u20AC"),
            Just(r"\ud83d\ude00"),
        ]
        .prop_map(str::to_owned),
        1 => prop_oneof![
            Just(r"\x"), Just(r"\u12"), Just(r"\ud83d"), Just(r"\ude00"), Just("\u{1}"),
            Just("\t"), Just(r"\"),
        ]
        .prop_map(str::to_owned),
    ]
}

proptest! {
    /// A string with escapes is decoded as serde_json decodes it, short or long (past
    /// the length above which it is measured before it is decoded), and refused where
    /// serde_json refuses it.
    #[test]
    fn strings_decode_as_serde_decodes_them(
        pieces in proptest::collection::vec(string_piece(), 0..12),
    ) {
        let literal = format!("\"{}\"", pieces.concat());
        let serde = serde_json::from_str::<String>(&literal).ok();
        // What a call kept as written decodes to, when asked.
        prop_assert_eq!(&crate::json_string::decode(&literal), &serde, "{}", literal);
        // Alone and followed by more of the line, as prose and as a string of JSON
        // (kept as written, decoded when a call's arguments are asked for): the
        // scanner accepts every string serde_json accepts here (none has a lone
        // surrogate: serde_json refuses those in a string it reads).
        let padded = format!("{literal}{}", " ".repeat(16));
        for text in [&literal, &padded] {
            let prose = super::whole(text, Scan::string).map(Cow::into_owned);
            prop_assert_eq!(&prose, &serde, "{}", text);
            let json = super::whole(text, Scan::json_in_string).map(|arguments| {
                ToolCall::with_arguments(Cow::Borrowed("f"), arguments)
                    .arguments()
                    .into_owned()
            });
            prop_assert_eq!(&json, &serde, "{}", text);
        }
    }
}

proptest! {
    /// A number is read as an `f64` as serde_json reads it (bit for bit: `-0`'s sign,
    /// the last digit's rounding), or left to serde_json (an integer past 64 bits, a
    /// value out of range, anything that is not a JSON number).
    #[test]
    fn numbers_read_as_serde_reads_an_f64(
        sign in prop_oneof![Just(""), Just("-")],
        digits in prop_oneof![Just("0".to_owned()), "[1-9][0-9]{0,24}", "0[0-9]{1,3}"],
        fraction in prop_oneof![Just(String::new()), "\\.[0-9]{0,20}"],
        exponent in prop_oneof![Just(String::new()), "[eE][+-]?[0-9]{0,3}"],
    ) {
        let text = format!("{sign}{digits}{fraction}{exponent}");
        let serde = serde_json::from_str::<f64>(&text).ok();
        match super::whole(&text, Scan::float) {
            Some(read) => {
                let serde = serde.expect("read where serde_json refuses");
                prop_assert_eq!(read.to_bits(), serde.to_bits(), "{}", text);
            }
            None => {
                // Left to serde_json only where the scanner is not sure: not for an
                // integer within 64 bits, nor for a float in range.
                let integer = fraction.is_empty() && exponent.is_empty();
                let sure = serde.is_some_and(|v| if integer { digits.len() < 20 } else { v.is_finite() });
                prop_assert!(!sure, "{} not read", text);
            }
        }
    }
}

/// A decoded string is given room for itself, not for the rest of a long line.
#[test]
fn a_decoded_string_in_a_long_line_is_sized_to_itself() {
    let line = format!(
        r#"{{"role": "llm", "content": "a\nb", "metadata": {{"x": "{}"}}}}"#,
        "y".repeat(1_000)
    );
    let chat = message(&line, false).expect("scanned");
    let content = chat.message.expect("a message").content;
    assert_eq!(content, "a\nb");
    let std::borrow::Cow::Owned(decoded) = content else {
        panic!("an escape is decoded into a new string");
    };
    assert!(decoded.capacity() < 16, "room for {}", decoded.capacity());
}

/// A tool output that is not UTF-8 after a model turn gives the turn, then the
/// line's error, whichever path read the turn: the scanner's (the turn assembled
/// while its first line is at hand) or serde's (the reader's own turn).
#[test]
fn a_tool_output_not_utf8_ends_the_turn_before_its_error_on_either_path() {
    use crate::transcript::{Format, Reader, TranscriptErrorKind};
    // (A log of Responses items from its first line: the scanner reads the turn.)
    let mut log = b"{\"type\": \"message\", \"role\": \"user\", \"content\": \"go\"}\n{\"type\": \"function_call\", \"call_id\": \"c\", \"name\": \"f\", \"arguments\": \"{}\"}\n".to_vec();
    log.extend_from_slice(
        b"{\"type\": \"function_call_output\", \"call_id\": \"c\", \"output\": \"\xff\"}\n",
    );
    let read = || {
        let mut reader = Reader::new(&log[..], Format::Auto);
        let mut given = Vec::new();
        let error = loop {
            match reader.next_borrowed() {
                Some(Ok(message)) => given.push(message.into_owned()),
                Some(Err(error)) => break error,
                None => panic!("no error"),
            }
        };
        assert!(reader.next_borrowed().is_none());
        (given, error.line, error.kind)
    };
    let fast = read();
    let serde = serde_only(read);
    assert_eq!(fast.0.len(), 2, "{fast:?}");
    assert_eq!(fast.0[1].tool_calls()[0].name(), "f");
    assert_eq!((fast.1, fast.2), (3, TranscriptErrorKind::NotUtf8));
    assert_eq!(fast, serde);
}

proptest! {
    /// A number is skipped exactly where serde_json reads one, alone and before the
    /// rest of a list (its end found where serde_json's is): integers, fractions,
    /// exponents, signs, leading zeros, and what is none of these.
    #[test]
    fn numbers_are_skipped_where_serde_reads_them(
        number in prop_oneof![
            (
                prop_oneof![Just(""), Just("-"), Just("+"), Just("--")],
                prop_oneof![Just("0"), Just("00"), Just("01"), Just("7"), Just("123"), Just("1732492800"), Just("")],
                prop_oneof![Just(""), Just("."), Just(".5"), Just(".05"), Just(".5."), Just("..5")],
                prop_oneof![Just(""), Just("e"), Just("E+"), Just("e-3"), Just("E10"), Just("e+-1"), Just("e5e")],
            )
                .prop_map(|(sign, int, fraction, exponent)| format!("{sign}{int}{fraction}{exponent}")),
            "[-+0-9.eE]{1,12}",
        ]
    ) {
        for text in [number.clone(), format!("[{number}, 1]"), format!("[{number},1]")] {
            let scanned = super::whole(&text, |s| s.skip(1)).is_some();
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
            prop_assert_eq!(scanned, serde, "{}", text);
        }
    }
}
