//! Properties over input from outside, in the normal test run: no reader panics on
//! any bytes, what reads round-trips, nothing is dropped, classification depends on
//! the message alone, and checkpoints from outside are refused or harmless. The
//! checks themselves are in `checks.rs`, shared with the fuzz targets.

use doneseq::naive::element_holds;
use doneseq::transcript::{Format, read_transcript};
use doneseq::{DoneSequence, Message, Monitor, Role, TaskConfig, ToolCall, Usage};
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::checks::{self, CONTENTS, ELEMENTS, RESPONDERS, TOOLS};

/// Tokens of the transcript schema and of JSON, so that generated text gets past the
/// JSON parser often enough to reach the message rules.
/// The samples of `examples/formats/`.
const FORMAT_SAMPLES: &[&str] = &[
    "adk-session.json",
    "anthropic-request.json",
    "anthropic-responses.jsonl",
    "autogen-task-result.json",
    "claude-code-session.jsonl",
    "codex-rollout.jsonl",
    "codex-rollout-0.133.jsonl",
    "gemini-contents.json",
    "inspect-log.json",
    "langchain-messages.json",
    "langroid-task.tsv",
    "langroid.jsonl",
    "ollama-chat.jsonl",
    "openai-chat-completions.jsonl",
    "openai-compatible.jsonl",
    "openai-responses-objects.jsonl",
    "openai-responses.json",
    "otel-genai-events.jsonl",
    "otel-genai-log-details.json",
    "otel-genai-logs.jsonl",
    "otel-genai.json",
    "otel-langfuse.json",
    "otel-openinference-langgraph.json",
    "otel-openinference.json",
    "otel-strands-latest.json",
    "otel-strands.json",
    "locus-checkpoint.json",
    "mini-swe-agent.traj.json",
    "mini-swe-agent-1.traj.json",
    "mini-swe-agent-responses.traj.json",
    "swe-agent.traj",
    "swe-agent-text.traj",
    "pydantic-ai-messages.json",
    "rlm-code-pure-rlm.jsonl",
    "rlm-code-run.jsonl",
    "smolagents-code-steps.jsonl",
    "smolagents-steps.json",
    "strands-messages.json",
    "strands-session.jsonl",
];

/// The pieces of the fields of Langroid's task logs (tab-separated), after their
/// header.
const TSV_PIECES: &[&str] = &[
    "\t",
    "\n",
    "\r",
    "*",
    " ",
    "",
    ",",
    "main",
    "sub",
    "Entity.LLM",
    "Entity.AGENT",
    "Entity.USER",
    "Entity.SYSTEM",
    "LLM",
    "None",
    "TOOL",
    "OAI_TOOL",
    "FUNC",
    "calculator",
    "{ \"request\": \"calculator\", \"x\": 1 }",
    "{ \"request\": \"",
    "...",
    "DONE",
    "\u{e9}",
    " \tTask\tResponder\tsender_entity\tsender_name\trecipient\tblock\ttool_type\ttool\tcontent",
];

const JSON_PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "\\\"",
    "\n",
    " ",
    "\"role\"",
    "\"llm\"",
    "\"assistant\"",
    "\"tool\"",
    "\"system\"",
    "\"LLM\"",
    "\"content\"",
    "\"tool_calls\"",
    "\"function\"",
    "\"function_call\"",
    "\"name\"",
    "\"arguments\"",
    "\"id\"",
    "\"type\"",
    "\"text\"",
    "\"image_url\"",
    "\"messages\"",
    "\"no_response\"",
    "\"error\"",
    "\"usage\"",
    "\"prompt_tokens\"",
    "\"metadata\"",
    "\"request\"",
    "\"calculator\"",
    // The other formats' keys and type names.
    "\"choices\"",
    "\"message\"",
    "\"object\"",
    "\"chat.completion\"",
    "\"response\"",
    "\"output\"",
    "\"input\"",
    "\"call_id\"",
    "\"function_call_output\"",
    "\"reasoning\"",
    "\"web_search_call\"",
    "\"tool_use\"",
    "\"tool_result\"",
    "\"tool_use_id\"",
    "\"is_error\"",
    "\"model\"",
    "\"stop_reason\"",
    "\"source\"",
    "\"TextMessage\"",
    "\"ToolCallRequestEvent\"",
    "\"ToolCallExecutionEvent\"",
    "\"resourceSpans\"",
    "\"scopeSpans\"",
    "\"spans\"",
    "\"traceId\"",
    "\"attributes\"",
    "\"key\"",
    "\"value\"",
    "\"stringValue\"",
    "\"gen_ai.operation.name\"",
    "\"gen_ai.input.messages\"",
    "\"execute_tool\"",
    "\"parts\"",
    // Claude Code's.
    "\"sessionId\"",
    "\"isSidechain\"",
    "\"isApiErrorMessage\"",
    // Codex's.
    "\"payload\"",
    "\"response_item\"",
    "\"token_usage_record\"",
    // mini-swe-agent's.
    "\"trajectory_format\"",
    "\"mini-swe-agent-1.1\"",
    "\"extra\"",
    "\"actions\"",
    "\"returncode\"",
    "\"interrupt_type\"",
    "\"FormatError\"",
    "\"exit_status\"",
    "\"exit\"",
    // Bedrock Converse's.
    "\"toolUse\"",
    "\"toolResult\"",
    "\"toolUseId\"",
    "\"status\"",
    "\"json\"",
    "\"stopReason\"",
    "\"{\\\"request\\\": \\\"x\\\"}\"",
    "null",
    "true",
    "false",
    "0",
    "-1",
    "1e999",
    "18446744073709551616",
    "\"\\ud800\"",
    "\u{e9}",
    "\u{1F600}",
];

/// Tokens of the configuration: options, the object form's fields and values, DSL.
const CONFIG_PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\"done_sequences\"",
    "\"done_if_tool\"",
    "\"done_if_response\"",
    "\"done_if_no_response\"",
    "\"single_round\"",
    "\"max_turns\"",
    "\"recognize_string_signals\"",
    "\"events\"",
    "\"name\"",
    "\"event_type\"",
    "\"tool_name\"",
    "\"content_pattern\"",
    "\"responder\"",
    "\"negated\"",
    "\"sender\"",
    "\"tool_class\"",
    "\"specific_tool\"",
    "\"tool\"",
    "\"llm_response\"",
    "\"agent_response\"",
    "\"user_response\"",
    "\"no_response\"",
    "\"content_match\"",
    "\"final\"",
    "\"error\"",
    "\"any\"",
    "\"llm\"",
    "\"user\"",
    "\"T, A\"",
    "\"T[x]\"",
    "\"C[(]\"",
    "\"L & A\"",
    "\"\"",
    "\"x\"",
    "\"[a]\"",
    "null",
    "true",
    "false",
    "-1",
    "3",
    "9223372036854775808",
];

fn pieces(pool: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(pool), 0..max).prop_map(|p| p.concat())
}

/// The optional fields of a message beyond role, content, responder, calls, error and
/// usage: confidence, reward, metrics, the id of the call it answers, its time, and
/// the ids of its calls.
#[derive(Clone, Debug)]
struct Extras {
    confidence: Option<f64>,
    reward: Option<f64>,
    metrics: std::collections::BTreeMap<String, f64>,
    answers: Option<String>,
    elapsed_ms: Option<u64>,
    call_ids: Vec<Option<String>>,
    /// The input mark, a stop message, a handoff's target, a result's tool name.
    input: Option<bool>,
    stop: bool,
    handoff: Option<String>,
    tool_name: Option<String>,
}

/// A number that JSON writes and reads exactly (eighths).
fn exact() -> impl Strategy<Value = f64> {
    (-8000i32..8000).prop_map(|n| f64::from(n) / 8.0)
}

fn extras() -> impl Strategy<Value = Extras> {
    (
        prop::option::of(exact()),
        prop::option::of(exact()),
        prop::collection::btree_map("[a-z_]{1,6}", exact(), 0..3),
        prop::option::of("[a-z0-9_]{1,6}"),
        prop::option::of(0..1_000_000_000u64),
        prop::collection::vec(prop::option::of("[a-z0-9_]{1,6}"), 3),
        (
            prop::option::of(any::<bool>()),
            prop::bool::weighted(0.1),
            prop::option::of("[a-z]{1,6}"),
            prop::option::of("[a-z_]{1,6}"),
        ),
    )
        .prop_map(
            |(
                confidence,
                reward,
                metrics,
                answers,
                elapsed_ms,
                call_ids,
                (input, stop, handoff, tool_name),
            )| Extras {
                confidence,
                reward,
                metrics,
                answers,
                elapsed_ms,
                call_ids,
                input,
                stop,
                handoff,
                tool_name,
            },
        )
}

/// A message with every field the transcript schema carries; whether it is a step
/// without a response (`"no_response": true`); and how to write it (0: as doneseq
/// JSONL; 1: content as an OpenAI text part; 2: content as an OpenAI refusal; 3: one
/// call as OpenAI's legacy `function_call`).
fn any_message() -> impl Strategy<Value = (Message<'static>, bool, u8)> {
    let role = prop::sample::select(&[Role::User, Role::Llm, Role::Agent, Role::System][..]);
    let text = prop_oneof![
        prop::sample::select(CONTENTS).prop_map(String::from),
        ".{0,12}"
    ];
    let tools = prop::collection::vec(("[a-z_]{1,6}", ".{0,6}"), 0..3);
    (
        role,
        text,
        prop::option::of("[^\u{0}]{1,8}"),
        tools,
        prop::option::of(".{0,6}"),
        prop::option::of((0..1000u64, 0..1000u64)),
        prop::bool::weighted(0.1),
        extras(),
        0..4u8,
    )
        .prop_map(
            |(role, content, responder, tools, error, usage, none, extras, encoding)| {
                let mut m = if none {
                    Message::no_response(role)
                } else {
                    Message::new(role, content)
                };
                if let Some(r) = responder {
                    m = m.with_responder(r);
                }
                if !none {
                    for ((name, arguments), id) in tools.into_iter().zip(&extras.call_ids) {
                        let mut call = ToolCall::new(name, arguments);
                        if let Some(id) = id {
                            call = call.with_id(id.clone());
                        }
                        m = m.with_tool_call(call);
                    }
                }
                if let Some(e) = error {
                    m = m.with_error(e);
                }
                if let Some((i, o)) = usage {
                    m = m.with_usage(Usage {
                        input_tokens: i,
                        output_tokens: o,
                    });
                }
                if let Some(c) = extras.confidence {
                    m = m.with_confidence(c);
                }
                if let Some(r) = extras.reward {
                    m = m.with_reward(r);
                }
                for (name, value) in extras.metrics {
                    m = m.with_metric(name, value);
                }
                if let Some(id) = extras.answers {
                    m = m.with_tool_call_id(id);
                }
                if let Some(ms) = extras.elapsed_ms {
                    m = m.with_elapsed(std::time::Duration::from_millis(ms));
                }
                if let Some(input) = extras.input {
                    m = m.with_input(input);
                }
                if extras.stop {
                    m = m.as_stop();
                }
                if let Some(target) = extras.handoff {
                    m = m.with_handoff(target);
                }
                if let Some(name) = extras.tool_name {
                    m = m.with_tool_name(name);
                }
                (m, none, encoding)
            },
        )
}

/// A message as a line of doneseq JSONL, or of OpenAI's forms where it has them.
fn to_line((m, none, encoding): &(Message, bool, u8)) -> Value {
    let mut line = json!({"role": m.role().as_str()});
    if *none {
        line["no_response"] = true.into();
    } else {
        line["content"] = match encoding {
            1 => json!([{"type": "text", "text": m.content()}]),
            2 => {
                line["refusal"] = m.content().into();
                Value::Null
            }
            _ => m.content().into(),
        };
    }
    if let Some(r) = m.responder() {
        line["responder"] = r.into();
    }
    match m.tool_calls() {
        [] => {}
        [call] if *encoding == 3 && call.id().is_none() => {
            line["function_call"] = json!({"name": call.name(), "arguments": call.arguments()});
        }
        calls => {
            let calls: Vec<Value> = calls
                .iter()
                .map(|c| {
                    let mut call = json!({"name": c.name(), "arguments": c.arguments()});
                    if let Some(id) = c.id() {
                        call["id"] = id.into();
                    }
                    call
                })
                .collect();
            line["tool_calls"] = calls.into();
        }
    }
    if let Some(e) = m.error() {
        line["error"] = e.into();
    }
    if let Some(u) = m.usage() {
        line["usage"] = json!({"input_tokens": u.input_tokens, "output_tokens": u.output_tokens});
    }
    if let Some(c) = m.confidence() {
        line["confidence"] = c.into();
    }
    if let Some(r) = m.reward() {
        line["reward"] = r.into();
    }
    if !m.metrics().is_empty() {
        let metrics: serde_json::Map<String, Value> = m
            .metrics()
            .iter()
            .map(|(name, value)| (name.to_string(), (*value).into()))
            .collect();
        line["metrics"] = metrics.into();
    }
    if let Some(id) = m.tool_call_id() {
        line["tool_call_id"] = id.into();
    }
    if let Some(elapsed) = m.elapsed() {
        line["elapsed_ms"] = u64::try_from(elapsed.as_millis()).unwrap().into();
    }
    if let Some(input) = m.input() {
        line["input"] = input.into();
    }
    if m.is_stop() {
        line["stop"] = true.into();
    }
    if let Some(target) = m.handoff() {
        line["handoff"] = target.into();
    }
    if let Some(name) = m.tool_name() {
        line["tool_name"] = name.into();
    }
    line
}

/// A sequence of one to five elements of the checks' pool.
pub(crate) fn pool_sequence() -> impl Strategy<Value = DoneSequence> {
    prop::collection::vec(prop::sample::select(ELEMENTS), 1..6)
        .prop_map(|elements| elements.join(", ").parse().expect("the pool parses"))
}

/// A message of the checks' pools (a quarter with free text as content).
pub(crate) fn pool_message() -> impl Strategy<Value = Message<'static>> {
    let content = prop_oneof![
        3 => prop::sample::select(CONTENTS).prop_map(String::from),
        1 => any::<String>(),
    ];
    (
        any::<u8>(),
        prop::sample::select(RESPONDERS),
        content,
        prop::collection::vec(prop::sample::select(TOOLS), 0..3),
        any::<bool>(),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(role, responder, content, tools, error, none)| {
            checks::message(role, responder, &content, &tools, error, none)
        })
}

/// Two monitors compiled from the same task: one sequence per single-element entry
/// of [`ELEMENTS`], no string signal. Built once (compiling is the slow part).
fn single_element_monitors() -> &'static (Monitor, Monitor) {
    static MONITORS: OnceLock<(Monitor, Monitor)> = OnceLock::new();
    MONITORS.get_or_init(|| {
        let singles = ELEMENTS
            .iter()
            .filter(|e| DoneSequence::parse(e).unwrap().len() == 1);
        let mut config = TaskConfig::from_dsl(singles).unwrap();
        config.recognize_string_signals = false;
        config.input = doneseq::stop::TaskInput::Marked;
        let monitor = Monitor::new(config.clone()).unwrap();
        (monitor, Monitor::new(config).unwrap())
    })
}

/// One record of each common shape, of every format `auto` reads line by line, its
/// text (or its call's name) the marker `k{i}z`: chat messages (doneseq's, OpenAI's,
/// an Anthropic tool result), an OpenAI `chat.completion`, Responses items (a model
/// message, a call, its output, a user message with its type), an Anthropic response,
/// an AutoGen text message, Claude Code's records (a model turn's, a user's) and
/// Codex's (a model message, a call, its output), whose turns wait across records.
fn mixed_record(shape: usize, i: usize) -> String {
    let m = format!("k{i}z");
    match shape {
        0 => format!(r#"{{"role": "user", "content": "{m}"}}"#),
        1 => format!(r#"{{"role": "assistant", "content": "{m}"}}"#),
        2 => format!(
            r#"{{"id": "msg_{i}", "type": "message", "role": "assistant", "content": [{{"type": "output_text", "text": "{m}"}}]}}"#
        ),
        3 => format!(
            r#"{{"type": "function_call", "call_id": "c{i}", "name": "{m}", "arguments": "{{}}"}}"#
        ),
        4 => format!(r#"{{"type": "function_call_output", "call_id": "c{i}", "output": "{m}"}}"#),
        5 => format!(
            r#"{{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "t{i}", "content": "{m}"}}]}}"#
        ),
        6 => format!(r#"{{"role": "user", "content": "{m}", "type": "message"}}"#),
        7 => format!(
            r#"{{"id": "chatcmpl-{i}", "object": "chat.completion", "choices": [{{"index": 0, "message": {{"role": "assistant", "content": "{m}"}}, "finish_reason": "stop"}}]}}"#
        ),
        8 => format!(
            r#"{{"id": "msg_{i}", "type": "message", "role": "assistant", "content": [{{"type": "text", "text": "{m}"}}], "stop_reason": "end_turn"}}"#
        ),
        9 => format!(
            r#"{{"id": "{i}", "source": "assistant", "content": "{m}", "type": "TextMessage"}}"#
        ),
        10 => format!(
            r#"{{"type": "assistant", "sessionId": "s", "message": {{"id": "m{i}", "type": "message", "role": "assistant", "content": [{{"type": "text", "text": "{m}"}}]}}}}"#
        ),
        11 => format!(
            r#"{{"type": "user", "sessionId": "s", "message": {{"role": "user", "content": "{m}"}}}}"#
        ),
        12 => format!(
            r#"{{"type": "response_item", "payload": {{"type": "message", "role": "assistant", "content": [{{"type": "output_text", "text": "{m}"}}]}}}}"#
        ),
        13 => format!(
            r#"{{"type": "response_item", "payload": {{"type": "function_call", "call_id": "x{i}", "name": "{m}", "arguments": "{{}}"}}}}"#
        ),
        _ => format!(
            r#"{{"type": "response_item", "payload": {{"type": "function_call_output", "call_id": "x{i}", "output": "{m}"}}}}"#
        ),
    }
}

/// How many times `marker` is a message's text, a line of it (a model turn joins its
/// texts by newlines), or a tool call's name, in `messages`.
fn occurrences(messages: &[Message<'_>], marker: &str) -> usize {
    messages
        .iter()
        .map(|m| {
            m.content().lines().filter(|l| *l == marker).count()
                + m.tool_calls().iter().filter(|c| c.name() == marker).count()
        })
        .sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn transcript_readers_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        checks::transcript(&bytes);
    }

    #[test]
    fn transcript_readers_never_panic_on_json_like_text(text in pieces(JSON_PIECES, 60)) {
        checks::transcript(text.as_bytes());
    }

    /// Lines of a Langroid task log, after its header: messages or an error on a line.
    #[test]
    fn transcript_readers_never_panic_on_langroid_task_logs(rows in prop::collection::vec(prop::collection::vec(pieces(TSV_PIECES, 3), 9..=11), 0..8)) {
        // Rows of about as many fields as the header names (most of them that many),
        // each field a few pieces: past the shape checks to the values often.
        let text: String = rows.iter().map(|fields| fields.join("\t") + "\n").collect();
        let header = " \tTask\tResponder\tsender_entity\tsender_name\trecipient\tblock\ttool_type\ttool\tcontent\n";
        checks::transcript(format!("{header}{text}").as_bytes());
    }

    /// Every format's sample, cut short or with a byte changed anywhere: messages, or
    /// an error on a line of the input, in every format.
    #[test]
    fn every_formats_sample_damaged_anywhere(sample in prop::sample::select(FORMAT_SAMPLES), at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>()) {
        let path = format!("{}/examples/formats/{sample}", env!("CARGO_MANIFEST_DIR"));
        let mut bytes = std::fs::read(path).unwrap();
        let i = at.index(bytes.len());
        if cut {
            bytes.truncate(i);
        } else {
            bytes[i] = byte;
        }
        checks::transcript(&bytes);
    }

    /// Every field of every message survives JSONL, in order, whatever the text in it.
    #[test]
    fn transcripts_lose_nothing(messages in prop::collection::vec(any_message(), 0..12), blank in any::<bool>()) {
        let mut text = String::new();
        for m in &messages {
            text.push_str(&to_line(m).to_string());
            text.push_str(if blank { "\n\r\n" } else { "\n" });
        }
        let expected: Vec<Message> = messages.iter().map(|(m, _, _)| m.clone()).collect();
        for format in [Format::Auto, Format::Jsonl, Format::OpenAi] {
            let read = read_transcript(text.as_bytes(), format);
            prop_assert_eq!(read.as_ref().ok(), Some(&expected), "{:?}: {:?}", format, read);
        }
        // As one OpenAI array, too.
        let array: Vec<Value> = messages.iter().map(to_line).collect();
        let array = serde_json::to_string_pretty(&array).unwrap();
        prop_assert_eq!(read_transcript(array.as_bytes(), Format::Auto).ok(), Some(expected));
    }

    /// A log that mixes the formats' common records line by line reads, and every
    /// record's text is in exactly one message, whichever kind each line was read as
    /// first (a line read first as the kind its first key last was, then as its own
    /// kind, must not lose or repeat a message, nor the model turn before it), borrowed
    /// or owned.
    #[test]
    fn mixed_logs_lose_no_record(shapes in prop::collection::vec(0..15usize, 0..12)) {
        let log: String = shapes
            .iter()
            .enumerate()
            .map(|(i, &shape)| mixed_record(shape, i) + "\n")
            .collect();
        let read = read_transcript(log.as_bytes(), Format::Auto);
        prop_assert!(read.is_ok(), "{log}\n{read:?}");
        let read = read.unwrap();
        for i in 0..shapes.len() {
            let marker = format!("k{i}z");
            prop_assert_eq!(occurrences(&read, &marker), 1, "{}\n{}: {:?}", log, marker, read);
        }
        let mut reader = doneseq::transcript::Reader::new(log.as_bytes(), Format::Auto);
        let mut borrowed = Vec::new();
        while let Some(message) = reader.next_borrowed() {
            borrowed.push(message.unwrap().into_owned());
        }
        prop_assert_eq!(borrowed, read);
    }

    #[test]
    fn configs_never_panic(text in pieces(CONFIG_PIECES, 50)) {
        checks::config(text.as_bytes());
    }

    #[test]
    fn configs_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        checks::config(&bytes);
    }

    #[test]
    fn dsl_text_round_trips_in_every_form(
        text in "[TALUNCFE_!&,@{}\\[\\]\\\\\":|()*^ 0-9a-z\u{a0}\u{e9}]{0,30}"
    ) {
        checks::dsl(&text);
    }

    #[test]
    fn final_detection_and_user_patterns_never_panic(text in pieces(&[
        "FINAL", "FINAL_VAR", "SUBMIT", "(", ")", "[", "]", "{", "}", "\"", "'", "\"\"\"",
        "\\", "#", "\n", " ", "x", "=", ",", "not ", "```", "```repl\n", "42", "ANSWER:",
        "(.+?)$", "\\s*", "|", "*", "?", "\u{e9}",
    ], 30)) {
        checks::final_answer(&text);
    }

    /// What a message is classified as depends on the message alone: not on the run's
    /// history, not on which run or monitor (compiled from the same configuration)
    /// looks at it. One single-element sequence per kind of element makes the verdict
    /// show the classification the hot path used; it must equal the definition.
    #[test]
    fn classification_is_a_pure_function_of_the_message(
        history in prop::collection::vec(pool_message(), 0..20),
        message in pool_message(),
    ) {
        let (monitor, other) = single_element_monitors();
        let expected: Vec<usize> = if message.role() == Role::System {
            Vec::new()
        } else {
            (0..monitor.sequences().len())
                .filter(|&s| element_holds(&monitor.sequences()[s].elements()[0], &message))
                .collect()
        };
        // After a history, in one run.
        let mut run = monitor.start();
        for m in &history {
            monitor.observe(&mut run, m);
        }
        let classified = monitor.classify(&message);
        prop_assert_eq!(checks::fired(&monitor.observe(&mut run, &message)), expected.clone());
        // Alone, in a fresh run of another monitor.
        let mut fresh = other.start();
        prop_assert_eq!(checks::fired(&other.observe(&mut fresh, &message)), expected);
        prop_assert_eq!(other.classify(&message), classified.clone());
        prop_assert_eq!(monitor.classify(&message), classified);
    }

    /// Checkpoints come from outside: whatever the counters and bits, `resume` refuses
    /// the state or the run goes on without a panic and without impossible matches.
    #[test]
    fn forged_checkpoints_are_refused_or_harmless(
        sequences in prop::collection::vec(pool_sequence(), 1..4),
        steps in prop_oneof![0..6u64, any::<u64>()],
        bits in prop::collection::vec(prop_oneof![0..64u64, any::<u64>()], 0..3),
        prev in prop::collection::vec(prop_oneof![0..64u64, any::<u64>()], 0..3),
        stopped_at in prop::option::of(prop_oneof![0..6u64, any::<u64>()]),
        messages in prop::collection::vec(pool_message(), 0..10),
    ) {
        checks::forged_checkpoint(&sequences, steps, &bits, &prev, stopped_at, &messages);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The compiled monitor against the oracle with any content (regexes and `F` see
    /// arbitrary text), and a checkpoint anywhere. Fewer cases: `tests/oracle.rs` runs
    /// thousands over the pool's contents, and the fuzz target millions.
    #[test]
    fn compiled_equals_naive_on_any_content(
        sequences in prop::collection::vec(pool_sequence(), 1..5),
        messages in prop::collection::vec(pool_message(), 0..30),
        cut in any::<usize>(),
    ) {
        checks::differential(&sequences, &messages, cut);
    }
}
