//! The peers' documented stop rules, written in doneseq's forms: locus's `&`/`|` algebra as an
//! expression, awaken's `StopConditionSpec` lists in JSON and YAML, rlm-code's policy
//! configurations.

use std::time::Duration;

use doneseq::stop::{Condition, LoopDetection, LoopOver};

use super::expr::cond;

/// locus (its documentation):
/// `(ToolCalled("send_summary") & ConfidenceMet(0.9)) | TextMention(r"\bDONE\b") |
/// MaxIterations(10)`.
#[test]
fn locus_termination_algebra() {
    let written = r#"(tool(send_summary) & confidence_met(0.9)) | text_mention("\bDONE\b") | max_iterations(10)"#;
    let expected = Condition::Any(vec![
        Condition::All(vec![
            Condition::tool("send_summary"),
            Condition::confidence(0.9),
        ]),
        Condition::text(r"\bDONE\b").unwrap(),
        Condition::max_model_calls(10),
    ]);
    let parsed = cond(written);
    assert_eq!(parsed, expected);
    // The same tree as locus's operators build it.
    assert_eq!(
        parsed,
        Condition::tool("send_summary") & Condition::confidence(0.9)
            | Condition::text(r"\bDONE\b").unwrap()
            | Condition::max_model_calls(10)
    );
    assert_eq!(
        parsed.to_string(),
        r#"tool(send_summary) & confidence(0.9) | text("\bDONE\b") | max_model_calls(10)"#
    );
    // The regex is a regex (locus's own example never fires: it is a substring there).
    let Condition::Text(text) = &parsed.children()[1] else {
        panic!("a text condition");
    };
    assert!(text.pattern.is_match("All DONE."));
    assert!(!text.pattern.is_match("still undone"));

    // The docs' other examples.
    assert_eq!(
        cond("(tool_called(send_summary) & confidence_met(0.85)) | max_iterations(8)"),
        Condition::tool("send_summary") & Condition::confidence(0.85)
            | Condition::max_model_calls(8)
    );
    assert_eq!(
        cond("custom(revenue_extracted) | max_iterations(15)"),
        Condition::custom("revenue_extracted", serde_json::Value::Null)
            | Condition::max_model_calls(15)
    );
    assert_eq!(
        cond("token_limit(50000) | time_limit(120) | no_tools"),
        Condition::tokens(50_000)
            | Condition::timeout(Duration::from_secs(120))
            | Condition::NoToolCalls
    );
}

/// awaken (its documentation): the four declarative specs, a list whose first stop wins.
fn awaken_four() -> Condition {
    Condition::Any(vec![
        Condition::max_model_calls(10),
        Condition::timeout(Duration::from_secs(300)),
        Condition::tokens(100_000),
        Condition::consecutive_errors(3),
    ])
}

#[test]
fn awaken_specs_in_json() {
    let json = r#"[
        {"type": "max_rounds", "rounds": 10},
        {"type": "timeout", "seconds": 300},
        {"type": "token_budget", "max_total": 100000},
        {"type": "consecutive_errors", "max": 3}
    ]"#;
    let stop: Condition = serde_json::from_str(json).unwrap();
    assert_eq!(stop, awaken_four());
    assert_eq!(
        stop.to_string(),
        "max_model_calls(10) | timeout(5m) | tokens(100000) | consecutive_errors(3)"
    );
}

#[test]
fn awaken_specs_in_yaml() {
    let yaml = "
- type: max_rounds
  rounds: 10
- type: timeout
  seconds: 300
- type: token_budget
  max_total: 100000
- type: consecutive_errors
  max: 3
";
    let stop: Condition = serde_norway::from_str(yaml).unwrap();
    assert_eq!(stop, awaken_four());
}

/// The variants awaken's contract defines and once dropped silently: each has a
/// meaning here.
#[test]
fn awaken_other_variants() {
    let json = r#"[
        {"type": "stop_on_tool", "tool_name": "submit_order"},
        {"type": "content_match", "pattern": "(?i)approved"},
        {"type": "loop_detection", "window": 5}
    ]"#;
    let stop: Condition = serde_json::from_str(json).unwrap();
    let repeated = LoopDetection {
        period: 1,
        repeats: 5,
        over: LoopOver::Texts,
        exempt: Vec::new(),
    };
    assert_eq!(
        stop,
        Condition::Any(vec![
            Condition::tool("submit_order"),
            Condition::text("(?i)approved").unwrap(),
            Condition::Loop(repeated),
        ])
    );
}

/// rlm-code (its documentation): the registry's policies, with their configuration names.
#[test]
fn rlm_code_policy_configurations() {
    let json = r#"{"type": "any", "of": [
        {"type": "confidence", "confidence_threshold": 0.95, "min_steps_before_termination": 3},
        {"type": "reward_threshold", "min_reward_threshold": 0.9, "max_negative_streak": 3},
        {"type": "final"}
    ]}"#;
    let stop: Condition = serde_json::from_str(json).unwrap();
    assert_eq!(
        stop.to_string(),
        "confidence(0.95, min_steps=3) | reward(0.9) | final"
    );
    // Composite AND mode: both confidence and FINAL().
    assert_eq!(
        cond("confidence & final"),
        Condition::confidence(0.85) & Condition::Final
    );
}
