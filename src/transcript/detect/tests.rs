//! The skimmed look against serde_json's: the same kind for every JSON text (the
//! examples', the benchmarks' cycles', any generated), and for text that is not
//! JSON, the kind its keys showed before it stopped being.

use proptest::prelude::*;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{
    Keys, LOOKS, Skim, converse_content, decide, flag, is_langchain, is_prediction, keyed_by_ids,
    kind, line, look, look_at,
};
use crate::transcript::MAX_JSON_DEPTH;
use crate::transcript::record::Kind;

/// The kind serde_json's look gives `text`: `None` where it is not JSON.
fn serde_kind(text: &str) -> Option<Kind> {
    let mut keys = Keys::default();
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_any(Look(&mut keys, 0)).ok()?;
    decide(&keys)
}

fn string(value: serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(s) => Some(s),
        _ => None,
    }
}

/// The look as serde_json reads it (the look `auto` took before records were
/// skimmed; the keys without a value looked at raise their flags by the same
/// [`flag`]): an object's keys (and the values that tell formats apart) go to the
/// `Keys`; of an array, only the first element is looked at; anything else is
/// skipped, every value checked. The first element of `messages` is looked at the
/// same way, into keys of its own.
struct Look<'k>(&'k mut Keys, usize);

impl<'de> serde::de::DeserializeSeed<'de> for Look<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Look<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (k, depth) = (self.0, self.1);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            k.members += 1;
            match &*key {
                "type" => {
                    k.kind = map
                        .next_value::<Option<serde_json::Value>>()?
                        .and_then(string);
                }
                "object" => {
                    k.object = map
                        .next_value::<Option<serde_json::Value>>()?
                        .and_then(string);
                }
                "class_name" => {
                    k.class_name = map
                        .next_value::<Option<serde_json::Value>>()?
                        .and_then(string);
                }
                "kind" => {
                    k.message_kind = map
                        .next_value::<Option<serde_json::Value>>()?
                        .and_then(string);
                }
                "info" => {
                    let mut info = Keys::default();
                    map.next_value_seed(Look(&mut info, depth + 1))?;
                    k.info = info.run_stats;
                }
                "messages" => {
                    k.messages = true;
                    let mut first = Keys::default();
                    map.next_value_seed(Look(&mut first, depth + 1))?;
                    k.first_message_source = first.source;
                    k.first_message_langchain = is_langchain(&first);
                    k.first_message_converse = first.role && first.converse_content;
                }
                "content" => {
                    k.converse_content = converse_content(map.next_value::<&RawValue>()?.get());
                }
                other => {
                    if !flag(k, other) && keyed_by_ids(k, depth) {
                        let value = map.next_value::<&RawValue>()?.get();
                        if value.starts_with('{') {
                            let mut first = Keys::default();
                            let mut de = serde_json::Deserializer::from_str(value);
                            de.deserialize_any(Look(&mut first, depth + 1))
                                .map_err(serde::de::Error::custom)?;
                            k.predictions = is_prediction(&first);
                        }
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if seq.next_element_seed(Look(self.0, self.1 + 1))?.is_some() {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
        }
        Ok(())
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
}

/// How deep the JSON text `text` nests its objects and lists, a byte at a time (a
/// duplicate key's value counts, which a parsed value drops).
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for b in text.bytes() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            _ if in_string => {}
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth -= 1,
            _ => {}
        }
    }
    deepest
}

/// Whether `text` is one JSON value (as the look reads it: what follows is not
/// looked at).
fn is_json(text: &str) -> bool {
    let mut de = serde_json::Deserializer::from_str(text);
    serde::Deserialize::deserialize(&mut de).is_ok_and(|IgnoredAny| true)
}

/// Every record of the examples and of the benchmarks' cycles: each line of a log,
/// and each file whole.
fn records() -> Vec<(String, String)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut records = Vec::new();
    for dir in ["examples/formats", "benches/cycles", "tests/data"] {
        let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
            .expect("the directory")
            .map(|e| e.expect("an entry").path())
            .collect();
        paths.sort();
        for path in paths {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue; // not text (a zipped log)
            };
            let name = path.display().to_string();
            for (i, line) in text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
            {
                records.push((format!("{name}:{}", i + 1), line.to_owned()));
            }
            records.push((name, text));
        }
    }
    records
}

#[test]
fn every_example_is_told_as_serde_told_it() {
    let records = records();
    assert!(records.len() > 300, "{} records", records.len());
    let (mut json, mut told) = (0, 0);
    // (A line of a document written on many lines is not JSON: its look is not
    // serde_json's, which gives nothing there.)
    for (name, text) in &records {
        // A whole object (a log's first line is a record of its own) is told by the
        // look at a line as by `kind`; anything else opens a document.
        let trimmed = text.trim();
        let whole = trimmed.starts_with('{') && serde_json::from_str::<IgnoredAny>(trimmed).is_ok();
        assert_eq!(line(trimmed), whole.then(|| kind(trimmed)), "{name}");
        if !is_json(text) {
            continue;
        }
        let expected = serde_kind(text);
        assert_eq!(kind(text), expected, "{name}");
        json += 1;
        told += usize::from(expected.is_some());
    }
    // (Many of those are a document's lines that begin with a string or a number.)
    assert!(told >= 390, "{told} of {json}");
}

#[test]
fn a_log_is_looked_at_once() {
    use crate::transcript::{Format, Reader};
    let looks = |text: &str| {
        let before = LOOKS.get();
        let read = Reader::new(text.as_bytes(), Format::Auto).count();
        assert!(read > 0);
        LOOKS.get() - before
    };
    let root = env!("CARGO_MANIFEST_DIR");
    let example = |name: &str| {
        std::fs::read_to_string(format!("{root}/examples/formats/{name}")).expect("the example")
    };
    // A sample as a `.eval` log keeps it, on one line: the look that finds it whole
    // on its line tells its kind too.
    let log: serde_json::Value = serde_json::from_str(&example("inspect-log.json")).unwrap();
    let sample = serde_json::to_string(&log["samples"][0]).unwrap();
    assert_eq!(looks(&sample), 1);
    // A log of lines: its first line looked at, the others read as it was.
    assert_eq!(looks(&example("../calculator.jsonl")), 1);
    assert_eq!(looks(&example("claude-code-session.jsonl")), 1);
    // A document: its first line looked at (`{`, alone: it opens a document), then
    // the document, once.
    assert_eq!(looks(&example("mini-swe-agent.traj.json")), 2);
}

#[test]
fn swe_bench_predictions_are_told_by_their_first_instance() {
    let prediction =
        r#"{"model_name_or_path": "m", "instance_id": "calc_1", "model_patch": "diff"}"#;
    // `preds.json`, keyed by instance; a line of `all_preds.jsonl`.
    let keyed = format!(r#"{{"calc_1": {prediction}, "calc_2": {prediction}}}"#);
    for text in [&keyed, prediction] {
        assert_eq!(kind(text), Some(Kind::SweBenchPredictions), "{text}");
        assert_eq!(serde_kind(text), kind(text), "{text}");
    }
    // Only the first member's value, of a key no format has, at the top, is looked
    // at: a prediction second, under a known key, or in a list is not one.
    for text in [
        format!(r#"{{"calc_0": 1, "calc_1": {prediction}}}"#),
        format!(r#"{{"data": {{"x": 1}}, "calc_1": {prediction}}}"#),
        format!(r#"{{"state": {prediction}}}"#),
        format!(r#"[{{"calc_1": {prediction}}}]"#),
    ] {
        assert_eq!(kind(&text), None, "{text}");
        assert_eq!(serde_kind(&text), None, "{text}");
    }
}

#[test]
fn a_text_cut_short_or_wrong_is_told_by_the_keys_before() {
    let root = env!("CARGO_MANIFEST_DIR");
    let trajectory =
        std::fs::read_to_string(format!("{root}/examples/formats/mini-swe-agent.traj.json"))
            .expect("the example");
    assert_eq!(kind(&trajectory), Some(Kind::MiniSweAgentTrajectory));
    let cut = &trajectory[..trajectory.len() / 2];
    assert_eq!(serde_kind(cut), None);
    assert_eq!(kind(cut), Some(Kind::MiniSweAgentTrajectory));
    let bad_number = trajectory.replacen("\"returncode\": 0", "\"returncode\": 01", 1);
    assert_ne!(bad_number, trajectory);
    assert_eq!(serde_kind(&bad_number), None);
    assert_eq!(kind(&bad_number), Some(Kind::MiniSweAgentTrajectory));
    // A response object whose usage is wrong: still a response object.
    let response =
        r#"{"id": "resp_1", "object": "response", "output": [], "usage": {"input_tokens": -}}"#;
    assert_eq!(kind(response), Some(Kind::Response));
    // Nothing seen, nothing told.
    for text in ["", "hello", "{", "[", "{\"ro", "7", "\"role\""] {
        assert_eq!(kind(text), None, "{text:?}");
    }
}

#[test]
fn the_look_is_bounded_in_depth() {
    // A chain of `messages` far deeper than any record is read: stepped over past
    // the bound, not recursed into (a stack overflow), its top still told.
    let depth = MAX_JSON_DEPTH * 40;
    let text = format!(
        "{{\"system\": \"s\", \"messages\": {}[]{}}}",
        "[{\"messages\": ".repeat(depth),
        "}]".repeat(depth)
    );
    // (serde_json's look gave nothing past its recursion limit, 128.)
    assert_eq!(serde_kind(&text), None);
    assert_eq!(kind(&text), Some(Kind::AnthropicRequest));
    let mut keys = Keys::default();
    assert_eq!(look(&mut Skim::new(&text), &mut keys, 0), Some(()));
    // Measured whole all the same: the object, two levels a step, the last list.
    assert_eq!(look_at(&text).nesting, Some(1 + 2 * depth + 1));
}

/// The keys the look knows, a few it does not, and keys written with an escape.
const KEYS: &[&str] = &[
    "type",
    "object",
    "class_name",
    "kind",
    "info",
    "messages",
    "content",
    "stopReason",
    "ResponseMetadata",
    "message_id",
    "message",
    "done",
    "schema_version",
    "from_history",
    "run_id",
    "session_id",
    "runs",
    "blocks",
    "additional_kwargs",
    "chat_store",
    "tasks_output",
    "agent",
    "status",
    "expected_output",
    "role",
    "input",
    "output",
    "choices",
    "resourceSpans",
    "resourceLogs",
    "parts",
    "contents",
    "candidates",
    "author",
    "events",
    "appName",
    "step_number",
    "task",
    "environment",
    "event_type",
    "checkpoint_id",
    "state",
    "tool_executions",
    "sessionId",
    "leafUuid",
    "payload",
    "agentType",
    "trajectory_format",
    "history",
    "attempts",
    "instance_id",
    "model_patch",
    "calc_1",
    "model_stats",
    "exit_status",
    "epoch",
    "eval",
    "results",
    "samples",
    "lc",
    "source",
    "model",
    "system",
    "stop_reason",
    "text",
    "toolUse",
    "id",
    "data",
    "r\\u006fle",
    "ty\\u0070e",
    "mess\\u0061ges",
];

/// String values that tell kinds apart, and others.
const WORDS: &[&str] = &[
    "message",
    "chat.completion",
    "response",
    "function_call",
    "SimpleChatStore",
    "request",
    "constructor",
    "ai",
    "human",
    "session",
    "agent_response",
    "TextMessage",
    "step",
    "assistant",
    "user",
    "[{\\\"]",
    "m\\u0065ssage",
    "",
];

/// A JSON value of the keys and words above, `depth` levels deep at most, written
/// with varied spacing.
fn json(depth: u32) -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(WORDS).prop_map(|w| format!("\"{w}\"")),
        prop::sample::select(
            &[
                "0",
                "-1.5e3",
                "true",
                "false",
                "null",
                "12345678901234567890"
            ][..]
        )
        .prop_map(str::to_owned),
    ];
    leaf.prop_recursive(depth, 64, 6, |inner| {
        let space = prop::sample::select(&["", " ", "\n  ", "\t"][..]);
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..5), space.clone())
                .prop_map(|(items, sp)| format!("[{sp}{}{sp}]", items.join(&format!(",{sp}")))),
            (
                prop::collection::vec((prop::sample::select(KEYS), inner), 0..7),
                space
            )
                .prop_map(|(members, sp)| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(k, v)| format!("\"{k}\"{sp}:{sp}{v}"))
                        .collect();
                    format!("{{{sp}{}{sp}}}", members.join(&format!(",{sp}")))
                }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Any JSON text: told as serde_json's look tells it, the skim never giving up.
    #[test]
    fn any_json_is_told_as_serde_tells_it(text in json(6)) {
        prop_assert!(serde_json::from_str::<IgnoredAny>(&text).is_ok(), "{}", text);
        prop_assert_eq!(kind(&text), serde_kind(&text), "{}", text);
        let mut keys = Keys::default();
        prop_assert_eq!(look(&mut Skim::new(&text), &mut keys, 0), Some(()), "{}", text);
        let object = text.starts_with('{');
        prop_assert_eq!(line(&text), object.then(|| serde_kind(&text)), "{}", text);
        // Something after it: not a line of one record, nor measured.
        prop_assert_eq!(line(&format!("{text} {{}}")), None);
        prop_assert_eq!(look_at(&format!("{text} {{}}")).nesting, None);
        // Its nesting measured as it is.
        prop_assert_eq!(look_at(&text).nesting, Some(nesting(&text)), "{}", text);
    }

    /// Any text cut from JSON: no panic, and told as the keys before the cut tell it
    /// where the cut leaves the JSON whole.
    #[test]
    fn any_json_cut_anywhere_is_looked_at_without_a_panic(text in json(5), cut in any::<prop::sample::Index>()) {
        let at = cut.index(text.len() + 1);
        let Some(part) = text.get(..at) else { return Ok(()); };
        let told = kind(part);
        if is_json(part) {
            prop_assert_eq!(told, serde_kind(part), "{}", part);
        }
    }
}
