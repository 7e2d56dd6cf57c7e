//! serde for stop conditions: the tagged-object form out, every accepted form in, the
//! same through JSON, TOML and YAML, and errors that say what was wrong.

use std::time::Duration;

use doneseq::stop::{Condition, LoopDetection, LoopOver, MAX_CONDITION_DEPTH};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::arb;
use super::expr::cond;

fn from_json(text: &str) -> Result<Condition, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

#[track_caller]
fn json_ok(text: &str) -> Condition {
    from_json(text).unwrap_or_else(|e| panic!("{text} should deserialize: {e}"))
}

#[track_caller]
fn json_err(text: &str) -> String {
    match from_json(text) {
        Ok(c) => panic!("{text} should not deserialize, got {c}"),
        Err(e) => e,
    }
}

/// A TOML document must be a table: conditions travel under a key.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Task {
    stop: Condition,
}

/// The serialized form of each kind of condition: the tag is the canonical name,
/// defaults are left out.
#[test]
fn serializes_as_tagged_objects() {
    let cases = [
        ("max_turns(10)", json!({"type": "max_turns", "turns": 10})),
        ("seq(\"T, A\")", json!({"type": "seq", "sequence": "T, A"})),
        ("final", json!({"type": "final"})),
        ("done_signal", json!({"type": "done_signal"})),
        ("tokens(100000)", json!({"type": "tokens", "total": 100000})),
        (
            "tokens(input=5, output=6)",
            json!({"type": "tokens", "input": 5, "output": 6}),
        ),
        ("timeout(5m)", json!({"type": "timeout", "seconds": 300})),
        (
            "timeout(1500ms)",
            json!({"type": "timeout", "millis": 1500}),
        ),
        (
            "consecutive_errors(3)",
            json!({"type": "consecutive_errors", "max": 3}),
        ),
        ("tool", json!({"type": "tool"})),
        (
            "tool(x, executed, args={\"k\":1})",
            json!({"type": "tool", "name": "x", "when": "executed", "args": {"k": 1}}),
        ),
        ("no_tool_calls", json!({"type": "no_tool_calls"})),
        (
            "text(\"\\bDONE\\b\", from=[llm, @Planner])",
            json!({"type": "text", "pattern": "\\bDONE\\b", "from": ["llm", "@Planner"]}),
        ),
        (
            "confidence(0.85)",
            json!({"type": "confidence", "threshold": 0.85}),
        ),
        (
            "confidence(0.9, min_steps=0, key=score, fallback_final=false)",
            json!({"type": "confidence", "threshold": 0.9, "min_steps": 0, "key": "score", "fallback_final": false}),
        ),
        ("reward(0.8)", json!({"type": "reward", "threshold": 0.8})),
        (
            "reward(1.0, negative_streak=0, require_final=true)",
            json!({"type": "reward", "threshold": 1.0, "negative_streak": 0, "require_final": true}),
        ),
        ("loop", json!({"type": "loop"})),
        (
            "loop(period=1, repeats=5, over=texts, exempt=[poll])",
            json!({"type": "loop", "period": 1, "repeats": 5, "over": "texts", "exempt": ["poll"]}),
        ),
        ("cancelled", json!({"type": "cancelled"})),
        ("custom(x)", json!({"type": "custom", "name": "x"})),
        (
            "custom(x, config={\"a\":null})",
            json!({"type": "custom", "name": "x", "config": {"a": null}}),
        ),
        (
            "final | cancelled",
            json!({"type": "any", "of": [{"type": "final"}, {"type": "cancelled"}]}),
        ),
        ("all()", json!({"type": "all", "of": []})),
        ("!final", json!({"type": "not", "of": {"type": "final"}})),
    ];
    for (text, expected) in cases {
        let condition = cond(text);
        assert_eq!(
            serde_json::to_value(&condition).unwrap(),
            expected,
            "{text}"
        );
        assert_eq!(
            serde_json::from_value::<Condition>(expected).unwrap(),
            condition
        );
    }
    // The tag comes first in the text, so that readers streaming the map see it first.
    let text = serde_json::to_string(&cond("tool(x, executed)")).unwrap();
    assert_eq!(text, r#"{"type":"tool","name":"x","when":"executed"}"#);
}

#[test]
fn deserializes_from_every_form() {
    let expected = cond("tool(submit) | max_turns(10)");
    let forms = [
        // The expression language.
        r#""tool(submit) | max_turns(10)""#,
        // A list: any of its entries, in order; entries may be strings.
        r#"["tool(submit)", {"type": "max_turns", "turns": 10}]"#,
        // Tagged objects, with aliases of the tag and awaken's field names.
        r#"{"type": "any", "of": [{"type": "tool", "name": "submit"}, {"type": "max_turns", "turns": 10}]}"#,
        r#"{"type": "any", "of": [{"type": "stop_on_tool", "tool_name": "submit"}, {"type": "max_turns", "turns": 10}]}"#,
        // The tag need not come first.
        r#"{"of": [{"name": "submit", "type": "tool"}, {"turns": 10, "type": "max_turns"}], "type": "any"}"#,
        // The one-key shorthand.
        r#"{"any": ["tool(submit)", "max_turns(10)"]}"#,
    ];
    for form in forms {
        assert_eq!(json_ok(form), expected, "{form}");
    }
    assert_eq!(
        json_ok(r#"{"all": ["final", "cancelled"]}"#),
        cond("final & cancelled")
    );
    assert_eq!(json_ok(r#"{"not": "final"}"#), cond("!final"));
    assert_eq!(json_ok(r#"{"not": {"type": "final"}}"#), cond("!final"));
    assert_eq!(json_ok("[]"), cond("any()"));
    assert_eq!(json_ok(r#"["final"]"#), cond("any(final)"));
    // Nested lists are nested `any`s.
    assert_eq!(
        json_ok(r#"["final", ["cancelled", "loop"]]"#),
        cond("final | (cancelled | loop)")
    );
}

#[test]
fn object_fields_take_their_other_names() {
    let cases = [
        (r#"{"type": "max_steps", "turns": 5}"#, "max_turns(5)"),
        (
            r#"{"type": "max_iterations", "calls": 5}"#,
            "max_model_calls(5)",
        ),
        (
            r#"{"type": "max_rounds", "rounds": 5}"#,
            "max_model_calls(5)",
        ),
        (
            r#"{"type": "token_budget", "max_total": 100}"#,
            "tokens(100)",
        ),
        (
            r#"{"type": "tokens", "max_total": 100, "output": 7}"#,
            "tokens(100, output=7)",
        ),
        (r#"{"type": "timeout", "seconds": 90}"#, "timeout(90s)"),
        (
            r#"{"type": "time_limit", "millis": 1500}"#,
            "timeout(1500ms)",
        ),
        (r#"{"type": "timeout", "limit": "2h"}"#, "timeout(2h)"),
        (
            r#"{"type": "content_match", "pattern": "\\bDONE\\b"}"#,
            "text(\"\\bDONE\\b\")",
        ),
        (
            r#"{"type": "text", "pattern": "x", "from": ["assistant", "@Sub Task"]}"#,
            "text(\"x\", from=[llm, \"@Sub Task\"])",
        ),
        (
            r#"{"type": "tool", "name": "x", "when": "requested", "args": null}"#,
            "tool(x)",
        ),
        (
            r#"{"type": "loop_detection", "window": 3}"#,
            "loop(period=1, over=texts)",
        ),
        (
            r#"{"type": "loop_detection", "window": 3, "exempt": ["poll"]}"#,
            "loop(period=1, over=texts, exempt=[poll])",
        ),
        (
            r#"{"type": "confidence", "confidence_threshold": 0.95, "min_steps_before_termination": 3, "confidence_key": "c", "fallback_to_final_pattern": false}"#,
            "confidence(0.95, min_steps=3, key=c, fallback_final=false)",
        ),
        (
            r#"{"type": "reward_threshold", "min_reward_threshold": 0.9, "max_negative_streak": 2, "require_final_action": true}"#,
            "reward(0.9, negative_streak=2, require_final=true)",
        ),
        (r#"{"type": "reward", "threshold": 1}"#, "reward(1.0)"),
        (
            r#"{"type": "custom", "name": "x", "config": null}"#,
            "custom(x)",
        ),
        // Shapes awaken shares with doneseq keep doneseq's meaning (the lint warns).
        (r#"{"type": "timeout", "seconds": 0}"#, "timeout(0s)"),
        (
            r#"{"type": "consecutive_errors", "max": 0}"#,
            "consecutive_errors(0)",
        ),
        (r#"{"type": "max_turns", "turns": 0}"#, "max_turns(0)"),
        (
            r#"{"type": "seq", "sequence": {"name": "calc", "events": [{"event_type": "specific_tool", "tool_name": "calculator"}, {"event_type": "agent_response"}]}}"#,
            "seq(\"calc: T[calculator], A\")",
        ),
    ];
    for (json, canonical) in cases {
        assert_eq!(json_ok(json).to_string(), canonical, "{json}");
    }
}

/// Each refusal, and a piece of its message.
#[test]
fn errors_say_what_was_wrong() {
    let cases = [
        (
            r#"{"type": "max_turns", "turns": 10, "limit": 3}"#,
            "unknown field `limit`, expected `turns`",
        ),
        (
            r#"{"type": "max_model_calls", "calls": 10, "rounds": 3}"#,
            "give 'calls' or awaken's 'rounds', not both",
        ),
        (
            r#"{"type": "tokens", "total": 10, "max_total": 3}"#,
            "give 'total' or awaken's 'max_total', not both",
        ),
        (
            r#"{"type": "max_turn", "turns": 10}"#,
            "unknown stop condition type \"max_turn\" (did you mean \"max_turns\"?",
        ),
        (
            r#"{"type": "final", "x": 1}"#,
            "unknown field `x`, there are no fields",
        ),
        (r#"{"type": "max_turns"}"#, "missing field `turns`"),
        (
            r#"{"type": "max_turns", "turns": "10"}"#,
            "invalid type: string \"10\", expected u64",
        ),
        (
            r#"{"type": "max_turns", "turns": -1}"#,
            "invalid value: integer `-1`, expected u64",
        ),
        (
            r#"{"turns": 10}"#,
            "missing field `type` in a stop condition object (found turns;",
        ),
        (r#"{}"#, "found an empty map"),
        (
            r#"{"any": [], "x": 1}"#,
            "the shorthand {\"any\": ...} takes no other field, found \"x\"",
        ),
        (r#"42"#, "expected a stop condition: an expression such as"),
        (
            r#""max_turns(ten)""#,
            "error parsing stop expression \"max_turns(ten)\" at 10..13: expected a whole number for 'turns', found 'ten'",
        ),
        (
            r#"{"type": "tool", "when": "done"}"#,
            "unknown variant `done`, expected one of `requested`, `executed`, `finished`",
        ),
        (
            r#"{"type": "tool", "name": ""}"#,
            "invalid \"tool\" condition: expected a name for 'name', found an empty one",
        ),
        (
            r#"{"type": "tool", "args": [1]}"#,
            "expected a JSON object for 'args', found an array",
        ),
        (
            r#"{"type": "text", "pattern": "("}"#,
            "invalid 'pattern' \"(\" at 0..1: invalid text regex: unclosed group",
        ),
        (
            r#"{"type": "text", "pattern": "x", "from": ["bot"]}"#,
            "unknown role 'bot'",
        ),
        (
            r#"{"type": "loop", "period": 0}"#,
            "'period' must be between 1 and 64, found 0",
        ),
        (
            r#"{"type": "loop", "over": "tools"}"#,
            "unknown variant `tools`, expected one of `both`, `calls`, `texts`",
        ),
        (
            r#"{"type": "confidence", "threshold": 0.9, "confidence_threshold": 0.8}"#,
            "duplicate field `threshold`",
        ),
        (r#"{"type": "tokens"}"#, "'tokens' needs at least one limit"),
        (
            r#"{"type": "timeout"}"#,
            "a timeout needs one of 'seconds', 'millis' or 'limit'",
        ),
        (
            r#"{"type": "timeout", "seconds": 1, "millis": 5}"#,
            "only one of 'seconds', 'millis' and 'limit'",
        ),
        (
            r#"{"type": "timeout", "limit": "5min"}"#,
            "invalid duration \"5min\" for 'limit': unknown unit",
        ),
        (
            r#"{"type": "seq", "sequence": "T A"}"#,
            "expected ',' or '&' after an event",
        ),
        (
            r#"{"type": "any", "of": "final"}"#,
            "invalid type: string \"final\", expected a sequence",
        ),
        (r#"{"type": "not"}"#, "missing field `of`"),
        // awaken's 0 means "disabled": under awaken's own field names it is refused, not
        // silently turned into a limit that fires at once.
        (
            r#"{"type": "max_rounds", "rounds": 0}"#,
            "'rounds: 0' means \"disabled\" in awaken; doneseq refuses it rather than read it as a limit that fires at once (leave the condition out to disable it)",
        ),
        (
            r#"{"type": "max_model_calls", "rounds": 0}"#,
            "'rounds: 0' means \"disabled\" in awaken",
        ),
        (
            r#"{"type": "token_budget", "max_total": 0}"#,
            "'max_total: 0' means \"disabled\" in awaken",
        ),
        (
            r#"{"type": "stop_on_tool", "tool_name": ""}"#,
            "expected a name for 'name', found an empty one",
        ),
        (
            r#"{"type": "content_match", "pattern": ""}"#,
            "expected a regex in text(...), found an empty string",
        ),
        (
            r#"{"type": "loop_detection", "window": 1}"#,
            "loop detection window 1: awaken disables loop detection below 2; doneseq refuses it rather than drop the condition silently",
        ),
        (
            r#"{"type": "loop_detection", "window": 0}"#,
            "window 0: awaken disables",
        ),
        (
            r#"{"type": "loop_detection", "window": 65}"#,
            "window 65 is over the limit of 64",
        ),
        (
            r#"{"type": "loop_detection", "window": 3, "period": 2}"#,
            "'window' (awaken's form: period=1, repeats=window, over=texts) cannot be combined",
        ),
    ];
    for (json, expected) in cases {
        let message = json_err(json);
        assert!(
            message.contains(expected),
            "{json}\n  got: {message}\n want: {expected}"
        );
    }
    // serde_json's position is kept where the tag came first.
    let message = json_err("{\"type\": \"max_turns\",\n \"turns\": 10, \"limit\": 3}");
    assert!(message.ends_with("at line 2 column 21"), "{message}");
}

/// Nesting deeper than a valid tree can be is refused before the stack grows with it,
/// whichever form nests.
#[test]
fn nesting_is_bounded() {
    let not = |depth: usize| {
        format!(
            "{}{{\"type\": \"final\"}}{}",
            "{\"type\": \"not\", \"of\": ".repeat(depth),
            "}".repeat(depth)
        )
    };
    assert!(from_json(&not(MAX_CONDITION_DEPTH)).is_ok());
    let message = json_err(&not(MAX_CONDITION_DEPTH + 1));
    assert!(
        message.contains(&format!(
            "nested more than {MAX_CONDITION_DEPTH} levels deep"
        )),
        "{message}"
    );
    // A list in a list ...: each level is an `any`.
    let lists = |depth: usize| format!("{}\"final\"{}", "[".repeat(depth), "]".repeat(depth));
    assert!(from_json(&lists(MAX_CONDITION_DEPTH)).is_ok());
    assert!(
        json_err(&lists(MAX_CONDITION_DEPTH + 1))
            .contains(&format!("nested more than {MAX_CONDITION_DEPTH}"))
    );
    // Ours holds where the format has no limit of its own (a `Value` has none;
    // serde_json's text parser stops at 128).
    let mut value = json!("final");
    for _ in 0..1000 {
        value = json!([value]);
    }
    let error = Condition::deserialize(&value).unwrap_err().to_string();
    assert!(
        error.contains(&format!("nested more than {MAX_CONDITION_DEPTH}")),
        "{error}"
    );
    // A string's expression adds to the height of the tree around it.
    let deep = format!("{}final", "!".repeat(MAX_CONDITION_DEPTH));
    assert!(from_json(&format!("{deep:?}")).is_ok());
    let message = json_err(&format!("{{\"not\": {deep:?}}}"));
    assert!(
        message.contains(&format!(
            "nested more than {MAX_CONDITION_DEPTH} levels deep"
        )),
        "{message}"
    );
    // The count resets after an error: the next document parses.
    assert_eq!(json_ok("\"final\""), Condition::Final);
}

#[test]
fn toml_and_yaml_read_the_same_forms() {
    let toml_text = r#"
stop = [
  { type = "max_rounds", rounds = 10 },
  "tool(submit) & confidence(0.9)",
  { any = ["final", { type = "loop", exempt = ["poll"] }] },
]
"#;
    let yaml_text = r#"
stop:
  - type: max_rounds
    rounds: 10
  - tool(submit) & confidence(0.9)
  - any:
      - final
      - type: loop
        exempt: [poll]
"#;
    let expected = cond(
        "max_model_calls(10) | tool(submit) & confidence(0.9) | any(final, loop(exempt=[poll]))",
    );
    // `any(a, b)` with two children prints as `a | b`, in parentheses inside `|`.
    assert_eq!(
        expected.to_string(),
        "max_model_calls(10) | tool(submit) & confidence(0.9) | (final | loop(exempt=[poll]))"
    );
    let from_toml: Task = toml::from_str(toml_text).unwrap();
    let from_yaml: Task = serde_norway::from_str(yaml_text).unwrap();
    assert_eq!(from_toml.stop, expected);
    assert_eq!(from_yaml.stop, expected);
    // What each writes reads back.
    let task = Task { stop: expected };
    assert_eq!(
        toml::from_str::<Task>(&toml::to_string(&task).unwrap()).unwrap(),
        task
    );
    assert_eq!(
        serde_norway::from_str::<Task>(&serde_norway::to_string(&task).unwrap()).unwrap(),
        task
    );
    // Errors come through each format.
    let err =
        toml::from_str::<Task>("stop = { type = \"max_turns\", turns = 10, x = 1 }").unwrap_err();
    assert!(err.to_string().contains("unknown field `x`"), "{err}");
    let err = serde_norway::from_str::<Task>("stop: max_turns(ten)").unwrap_err();
    assert!(
        err.to_string()
            .contains("expected a whole number for 'turns'"),
        "{err}"
    );
}

#[test]
fn u64_limits_round_trip() {
    let big = Condition::max_turns(u64::MAX) | Condition::timeout(Duration::from_millis(u64::MAX));
    let json = serde_json::to_string(&big).unwrap();
    assert_eq!(serde_json::from_str::<Condition>(&json).unwrap(), big);
    let yaml = serde_norway::to_string(&big).unwrap();
    assert_eq!(serde_norway::from_str::<Condition>(&yaml).unwrap(), big);
    // The toml crate reads and writes integers past TOML's i64.
    let task = Task { stop: big };
    assert_eq!(
        toml::from_str::<Task>(&toml::to_string(&task).unwrap()).unwrap(),
        task
    );
}

#[test]
fn awaken_loop_window_reads_as_a_cycle_of_one_text() {
    let expected = LoopDetection {
        period: 1,
        repeats: 4,
        over: LoopOver::Texts,
        exempt: Vec::new(),
    };
    assert_eq!(
        json_ok(r#"{"type": "loop_detection", "window": 4}"#),
        Condition::Loop(expected)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn json_round_trips(condition in arb::condition()) {
        let text = serde_json::to_string(&condition).unwrap();
        let back: Condition = serde_json::from_str(&text).map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        prop_assert_eq!(back, condition.clone());
        // The string form too.
        let back: Condition = serde_json::from_value(json!(condition.to_string())).unwrap();
        prop_assert_eq!(back, condition);
    }

    #[test]
    fn toml_round_trips(condition in arb::toml_condition()) {
        let task = Task { stop: condition };
        let text = toml::to_string(&task).map_err(|e| TestCaseError::fail(format!("{task:?}\n{e}")))?;
        let back: Task = toml::from_str(&text).map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        prop_assert_eq!(back, task);
    }

    #[test]
    fn yaml_round_trips(condition in arb::condition()) {
        let text = serde_norway::to_string(&condition).unwrap();
        let back: Condition = serde_norway::from_str(&text).map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        prop_assert_eq!(back, condition);
    }
}

/// Object-form trees as a configuration may hold them, mostly wrong: `type`s and field
/// names of every condition (and unknown ones), values of every JSON kind, nested.
fn spec_value() -> impl Strategy<Value = serde_json::Value> {
    const TYPES: &[&str] = &[
        "all",
        "any",
        "not",
        "seq",
        "final",
        "done_signal",
        "max_turns",
        "max_iterations",
        "max_model_calls",
        "tokens",
        "timeout",
        "consecutive_errors",
        "tool",
        "no_tool_calls",
        "text",
        "confidence",
        "reward",
        "loop",
        "loop_detection",
        "cancelled",
        "custom",
        "nope",
        "",
    ];
    const KEYS: &[&str] = &[
        "type",
        "of",
        "not",
        "all",
        "any",
        "turns",
        "calls",
        "max",
        "total",
        "input",
        "output",
        "seconds",
        "millis",
        "name",
        "tool_name",
        "args",
        "pattern",
        "threshold",
        "key",
        "period",
        "repeats",
        "over",
        "exempt",
        "config",
        "sequence",
        "rounds",
        "when",
        "from",
        "min_steps",
        "negative_streak",
        "require_final",
        "disabled",
        "x",
    ];
    let leaf = prop_oneof![
        prop::sample::select(
            &[
                "final",
                "max_turns(3)",
                "tool(x)",
                "oops(",
                "",
                "x",
                "T, A",
                "C[(]",
                "texts",
                "tool_calls",
                "llm",
                "!final",
                "(?i)done",
            ][..]
        )
        .prop_map(serde_json::Value::from),
        prop::sample::select(&[0.0, 1.0, -1.0, 3.0, 0.5, 1e300, -0.0][..])
            .prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<bool>().prop_map(serde_json::Value::from),
        Just(serde_json::Value::Null),
    ];
    leaf.prop_recursive(5, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            (
                prop::option::weighted(0.85, prop::sample::select(TYPES)),
                prop::collection::vec((prop::sample::select(KEYS), inner), 0..4),
            )
                .prop_map(|(kind, fields)| {
                    let mut object = serde_json::Map::new();
                    if let Some(kind) = kind {
                        object.insert("type".into(), kind.into());
                    }
                    for (key, value) in fields {
                        object.insert(key.into(), value);
                    }
                    serde_json::Value::Object(object)
                }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// No object, however wrong, panics in any of the three formats; what reads is a
    /// valid tree whose text and JSON forms read back to it, and YAML reads what JSON
    /// reads. (TOML writes numbers and tables its own way, so it is not compared.)
    #[test]
    fn arbitrary_objects_never_panic(value in spec_value()) {
        let json = serde_json::to_vec(&value).unwrap();
        crate::robustness::checks::stop_object(&json);
        let from_json = serde_json::from_slice::<Condition>(&json).ok();
        let yaml = serde_norway::to_string(&value).unwrap();
        match serde_norway::from_str::<Condition>(&yaml) {
            Ok(condition) => {
                crate::robustness::checks::stop_object(&serde_json::to_vec(&condition).unwrap());
                if let Some(from_json) = &from_json {
                    prop_assert_eq!(from_json, &condition);
                }
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
        // TOML has no null and needs a table at the top.
        if let Ok(toml_text) = toml::to_string(&json!({ "stop": value })) {
            match toml::from_str::<Task>(&toml_text) {
                Ok(task) => {
                    crate::robustness::checks::stop_object(&serde_json::to_vec(&task.stop).unwrap());
                }
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
        }
    }
}
