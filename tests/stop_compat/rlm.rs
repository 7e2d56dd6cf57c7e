//! rlm-code's face: `termination_policy(name, config)` for every name and key, with
//! rlm-code's defaults; the errors where rlm-code skips or ignores; and rlm-code's
//! documented examples, each action observed as a message by the monitor.

use std::collections::BTreeMap;

use doneseq::answer::{AnswerValue, format_final_answer, resolve_final_var};
use doneseq::compat::CompatError;
use doneseq::compat::rlm::{DEFAULT_FINAL_PATTERNS, TERMINATION_POLICIES, termination_policy};
use doneseq::stop::{Condition, ConfidenceMet, MAX_CONDITION_DEPTH, RewardThreshold};
use doneseq::{AnswerSource, Message, Monitor, Outcome, RunState, TaskConfig, VerdictKind};
use serde_json::{Value, json};

fn reward(threshold: f64, negative_streak: u64, require_final: bool) -> Condition {
    let mut r = RewardThreshold::new(threshold);
    r.negative_streak = negative_streak;
    r.require_final = require_final;
    Condition::Reward(r)
}

fn confidence(threshold: f64, min_steps: u64, key: &str, fallback_final: bool) -> Condition {
    let mut c = ConfidenceMet::new(threshold);
    c.min_steps = min_steps;
    c.key = key.to_owned();
    c.fallback_final = fallback_final;
    Condition::Confidence(c)
}

fn text(pattern: &str) -> Condition {
    Condition::text(pattern).unwrap()
}

#[track_caller]
fn build(name: &str, config: Value) -> Condition {
    match termination_policy(name, &config) {
        Ok(condition) => condition,
        Err(err) => panic!("{name} {config}: {err}"),
    }
}

#[track_caller]
fn fails(name: &str, config: Value) -> CompatError {
    match termination_policy(name, &config) {
        Ok(condition) => panic!("{name} {config} should fail, got {condition:?}"),
        Err(err) => err,
    }
}

/// rlm-code's documented default-configuration tables.
#[test]
fn every_policy_with_its_defaults() {
    assert_eq!(
        TERMINATION_POLICIES,
        [
            "final_pattern",
            "reward_threshold",
            "confidence",
            "composite"
        ]
    );
    for config in [json!(null), json!({})] {
        assert_eq!(build("final_pattern", config.clone()), Condition::Final);
        assert_eq!(
            build("reward_threshold", config.clone()),
            reward(0.8, 3, false)
        );
        assert_eq!(
            build("confidence", config.clone()),
            confidence(0.85, 2, "confidence", true)
        );
        assert_eq!(
            build("composite", config),
            Condition::Any(vec![Condition::Final, reward(0.8, 3, false)])
        );
    }
}

#[test]
fn every_key() {
    let cases = [
        // final_pattern
        (
            "final_pattern",
            json!({"final_patterns": DEFAULT_FINAL_PATTERNS}),
            Condition::Final,
        ),
        (
            "final_pattern",
            json!({"final_patterns": []}),
            Condition::Final,
        ),
        (
            "final_pattern",
            json!({"final_patterns": [r"ANSWER:\s*(.+?)$"], "case_sensitive": true}),
            Condition::Final | text(r"(?m)ANSWER:\s*(.+?)$"),
        ),
        (
            "final_pattern",
            json!({"case_sensitive": true}),
            Condition::Final,
        ),
        (
            "final_pattern",
            json!({"extract_answer": true}),
            Condition::Final,
        ),
        // reward_threshold
        (
            "reward_threshold",
            json!({"min_reward_threshold": 0.9}),
            reward(0.9, 3, false),
        ),
        (
            "reward_threshold",
            json!({"min_reward_threshold": 2}),
            reward(2.0, 3, false),
        ),
        (
            "reward_threshold",
            json!({"max_negative_streak": 5}),
            reward(0.8, 5, false),
        ),
        (
            "reward_threshold",
            json!({"require_final_action": true}),
            reward(0.8, 3, true),
        ),
        // confidence
        (
            "confidence",
            json!({"confidence_threshold": 0.95, "min_steps_before_termination": 3}),
            confidence(0.95, 3, "confidence", true),
        ),
        (
            "confidence",
            json!({"min_steps_before_termination": 0}),
            confidence(0.85, 0, "confidence", true),
        ),
        (
            "confidence",
            json!({"confidence_key": "certainty"}),
            confidence(0.85, 2, "certainty", true),
        ),
        (
            "confidence",
            json!({"fallback_to_final_pattern": false}),
            confidence(0.85, 2, "confidence", false),
        ),
        // composite
        (
            "composite",
            json!({"policies": ["final_pattern", "reward_threshold"], "require_all": false}),
            Condition::Any(vec![Condition::Final, reward(0.8, 3, false)]),
        ),
        (
            "composite",
            json!({"policies": ["confidence", "final_pattern"], "require_all": true}),
            Condition::All(vec![
                confidence(0.85, 2, "confidence", true),
                Condition::Final,
            ]),
        ),
        (
            "composite",
            json!({"require_all": true}),
            Condition::All(vec![Condition::Final, reward(0.8, 3, false)]),
        ),
        (
            "composite",
            json!({"policies": ["final_pattern", "confidence", "reward_threshold"]}),
            Condition::Any(vec![
                Condition::Final,
                confidence(0.85, 2, "confidence", true),
                reward(0.8, 3, false),
            ]),
        ),
        // Ours: configured children, and a composite of one is that policy.
        (
            "composite",
            json!({"policies": [{"name": "reward_threshold", "config": {"min_reward_threshold": 0.5}},
                                 {"name": "final_pattern"}]}),
            Condition::Any(vec![reward(0.5, 3, false), Condition::Final]),
        ),
        (
            "composite",
            json!({"policies": ["confidence"], "require_all": true}),
            confidence(0.85, 2, "confidence", true),
        ),
        (
            "composite",
            json!({"policies": ["composite", {"name": "composite", "config": {"policies": ["confidence"]}}]}),
            Condition::Any(vec![
                Condition::Any(vec![Condition::Final, reward(0.8, 3, false)]),
                confidence(0.85, 2, "confidence", true),
            ]),
        ),
    ];
    for (name, config, expected) in cases {
        assert_eq!(build(name, config.clone()), expected, "{name} {config}");
    }
}

/// rlm-code's documented custom pattern example: the standard `FINAL()` pattern is the parser's
/// `final`, the two others become case-insensitive, multi-line text conditions.
#[test]
fn rlm_code_docs_custom_patterns() {
    let stop = build(
        "final_pattern",
        json!({
            "final_patterns": [
                r#"FINAL\s*\(\s*['"](.+?)['"]\s*\)"#,
                r"ANSWER:\s*(.+?)$",
                r"SOLUTION\s*=\s*(.+?)$",
            ],
            "case_sensitive": false,
            "extract_answer": true,
        }),
    );
    assert_eq!(
        stop,
        Condition::Any(vec![
            Condition::Final,
            text(r"(?im)ANSWER:\s*(.+?)$"),
            text(r"(?im)SOLUTION\s*=\s*(.+?)$"),
        ])
    );
    let Condition::Any(children) = &stop else {
        panic!()
    };
    let Condition::Text(answer) = &children[1] else {
        panic!()
    };
    // Multi-line and case-insensitive, as rlm-code's policy matches.
    assert!(answer.pattern.is_match("thinking...\nanswer: 42\nmore"));
    assert!(answer.from.is_empty());
}

#[test]
fn what_rlm_code_would_skip_or_ignore_is_an_error() {
    // An unknown name, alone or in a composite (rlm-code's composite skips it).
    let available = TERMINATION_POLICIES.to_vec();
    assert_eq!(
        fails("convergence", json!(null)),
        CompatError::UnknownPolicy {
            name: "convergence".into(),
            available: available.clone()
        }
    );
    let err = fails(
        "composite",
        json!({"policies": ["final_pattern", "final_patern"], "require_all": true}),
    );
    assert_eq!(
        err,
        CompatError::AtIndex {
            list: "policies",
            index: 1,
            error: Box::new(CompatError::UnknownPolicy {
                name: "final_patern".into(),
                available
            }),
        }
    );
    assert_eq!(
        err.to_string(),
        "policies[1]: unknown termination policy \"final_patern\"; available: \
         \"final_pattern\", \"reward_threshold\", \"confidence\", \"composite\""
    );
    // An empty composite (rlm-code's AND of nothing stops at once).
    assert_eq!(
        fails("composite", json!({"policies": [], "require_all": true})),
        CompatError::EmptyComposite
    );
    // Unknown keys, with the keys there are.
    let err = fails("confidence", json!({"threshold": 0.9}));
    assert!(
        matches!(&err, CompatError::UnknownKey { policy: "confidence", key, .. } if key == "threshold"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "confidence: unknown configuration key \"threshold\"; known keys: \
         \"confidence_threshold\", \"min_steps_before_termination\", \"confidence_key\", \
         \"fallback_to_final_pattern\""
    );
    for (name, key) in [
        ("final_pattern", "strict"),
        ("reward_threshold", "min_reward"),
        ("composite", "mode"),
    ] {
        let err = fails(name, json!({ key: 1 }));
        assert!(
            matches!(err, CompatError::UnknownKey { .. }),
            "{name}: {err:?}"
        );
    }
    let err = fails(
        "composite",
        json!({"policies": [{"name": "confidence", "options": {}}]}),
    );
    assert!(
        matches!(&err, CompatError::AtIndex { error, .. }
            if matches!(**error, CompatError::UnknownKey { policy: "composite", .. })),
        "{err:?}"
    );
}

#[test]
fn values_of_the_wrong_type_are_errors() {
    let cases = [
        ("final_pattern", json!([])),
        ("final_pattern", json!("FINAL")),
        ("final_pattern", json!({"final_patterns": "FINAL"})),
        ("final_pattern", json!({"final_patterns": [1]})),
        ("final_pattern", json!({"case_sensitive": "yes"})),
        ("reward_threshold", json!({"min_reward_threshold": "0.9"})),
        ("reward_threshold", json!({"max_negative_streak": -1})),
        ("reward_threshold", json!({"max_negative_streak": 2.5})),
        ("reward_threshold", json!({"require_final_action": 1})),
        ("confidence", json!({"confidence_threshold": null})),
        ("confidence", json!({"min_steps_before_termination": true})),
        ("confidence", json!({"confidence_key": ""})),
        ("confidence", json!({"confidence_key": 3})),
        ("confidence", json!({"fallback_to_final_pattern": "true"})),
        ("composite", json!({"policies": "final_pattern"})),
        ("composite", json!({"policies": [3]})),
        ("composite", json!({"policies": [{"config": {}}]})),
        ("composite", json!({"require_all": "yes"})),
    ];
    for (name, config) in cases {
        let err = fails(name, config.clone());
        let inner = match &err {
            CompatError::AtIndex { error, .. } => &**error,
            other => other,
        };
        assert!(
            matches!(inner, CompatError::InvalidValue { .. }),
            "{name} {config}: {err:?}"
        );
    }
    assert_eq!(
        fails("reward_threshold", json!({"min_reward_threshold": "0.9"})).to_string(),
        "reward_threshold.min_reward_threshold: expected a number, found \"0.9\""
    );
}

#[test]
fn what_a_condition_cannot_say_is_refused() {
    let err = fails("final_pattern", json!({"extract_answer": false}));
    assert!(
        matches!(
            err,
            CompatError::Unsupported {
                policy: "final_pattern",
                key: "extract_answer",
                ..
            }
        ),
        "{err:?}"
    );
    let err = fails("reward_threshold", json!({"max_negative_streak": 0}));
    assert!(
        matches!(
            err,
            CompatError::Unsupported {
                key: "max_negative_streak",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("stops rlm-code at the first step"),
        "{err}"
    );
}

#[test]
fn bad_or_too_many_patterns() {
    let err = fails(
        "final_pattern",
        json!({"final_patterns": [DEFAULT_FINAL_PATTERNS[0], r"ANSWER:(", r"(?<=x)y"]}),
    );
    let CompatError::AtIndex {
        list: "final_patterns",
        index: 1,
        error,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert!(
        matches!(**error, CompatError::InvalidPattern { .. }),
        "{error:?}"
    );
    let many: Vec<String> = (0..33).map(|i| format!("ANSWER{i}:")).collect();
    assert!(matches!(
        fails("final_pattern", json!({ "final_patterns": many })),
        CompatError::InvalidValue {
            key: "final_patterns",
            ..
        }
    ));
    let enough: Vec<String> = (0..32).map(|i| format!("ANSWER{i}:")).collect();
    let Condition::Any(children) = build("final_pattern", json!({ "final_patterns": enough }))
    else {
        panic!()
    };
    assert_eq!(children.len(), 33);
}

#[test]
fn composites_nest_up_to_the_depth_limit() {
    let nest = |depth: usize| {
        (0..depth).fold(json!({"policies": ["final_pattern", "confidence"]}), |inner, _| {
            json!({"policies": ["final_pattern", {"name": "composite", "config": inner}]})
        })
    };
    assert!(termination_policy("composite", &nest(MAX_CONDITION_DEPTH - 2)).is_ok());
    let err = fails("composite", nest(MAX_CONDITION_DEPTH + 8));
    // The error is at the innermost composite the limit reaches, inside the chain of
    // `policies[1]`.
    let mut error = &err;
    let mut hops = 0;
    while let CompatError::AtIndex {
        list: "policies",
        index: 1,
        error: inner,
    } = error
    {
        error = inner;
        hops += 1;
    }
    assert_eq!(
        (error, hops),
        (
            &CompatError::TooDeep {
                max: MAX_CONDITION_DEPTH
            },
            MAX_CONDITION_DEPTH
        )
    );
}

/// One rlm-code action's result: what its `ActionResult` carries that a stop rule
/// reads. The Python package maps rlm-code's own `ActionResult` the same way.
#[derive(Clone, Debug, Default)]
pub(crate) struct ActionResult {
    pub(crate) action_type: String,
    pub(crate) success: bool,
    pub(crate) output: String,
    pub(crate) metadata: BTreeMap<String, f64>,
}

/// What rlm-code's `PolicyContext` carries that a stop rule reads.
#[derive(Clone, Debug, Default)]
pub(crate) struct PolicyContext {
    pub(crate) variables: BTreeMap<String, AnswerValue>,
    pub(crate) metrics: BTreeMap<String, f64>,
}

/// rlm-code's `should_terminate(result, context)` over the core: each call is one
/// message observed by the monitor (the output as an LLM message, with its confidence
/// and reward), and a `FINAL_VAR` answer is resolved in the context's variables.
pub(crate) struct Policy {
    monitor: Monitor,
    run: RunState,
    last: Option<Outcome>,
}

impl Policy {
    pub(crate) fn should_terminate(
        &mut self,
        result: &ActionResult,
        context: &PolicyContext,
    ) -> (bool, Option<String>) {
        if result.action_type == "final" {
            return (true, Some(result.output.clone()));
        }
        let mut message = Message::llm(result.output.clone());
        if !result.success {
            message = message.with_error("the action failed");
        }
        for (key, &value) in &result.metadata {
            message = if key == "confidence" {
                message.with_confidence(value)
            } else {
                message.with_metric(key.clone(), value)
            };
        }
        if let Some(&reward) = context.metrics.get("last_reward") {
            message = message.with_reward(reward);
        }
        let Some(outcome) = self
            .monitor
            .observe(&mut self.run, &message)
            .outcome()
            .cloned()
        else {
            return (false, None);
        };
        let answer = match (&outcome.answer, outcome.kind) {
            (Some(a), VerdictKind::Done) if a.source == AnswerSource::FinalVariable => {
                match resolve_final_var(&a.text, &context.variables) {
                    Ok(value) => Some(format_final_answer(value)),
                    // A variable that does not exist is not final: the episode goes on.
                    Err(_) => return (false, None),
                }
            }
            (Some(a), VerdictKind::Done) => Some(a.text.clone()),
            _ => None,
        };
        self.last = Some(outcome);
        (true, answer)
    }

    pub(crate) fn reset(&mut self) {
        self.run = self.monitor.start();
        self.last = None;
    }

    pub(crate) fn outcome(&self) -> Option<&Outcome> {
        self.last.as_ref()
    }
}

/// A policy over a monitor of `condition` alone (no string signal).
pub(crate) fn policy(condition: Condition) -> Policy {
    let mut config = TaskConfig::default();
    config.recognize_string_signals = false;
    config.stop = Some(condition);
    let monitor = Monitor::new(config).unwrap();
    let run = monitor.start();
    Policy {
        monitor,
        run,
        last: None,
    }
}

/// A successful code action with this output.
pub(crate) fn code(output: &str) -> ActionResult {
    ActionResult {
        action_type: "code".into(),
        success: true,
        output: output.into(),
        ..ActionResult::default()
    }
}

/// [`code`], with a confidence in its metadata.
pub(crate) fn with_confidence(output: &str, confidence: f64) -> ActionResult {
    let mut result = code(output);
    result.metadata.insert("confidence".into(), confidence);
    result
}

/// A context whose `last_reward` metric is `reward`.
pub(crate) fn last_reward(reward: f64) -> PolicyContext {
    let mut context = PolicyContext::default();
    context.metrics.insert("last_reward".into(), reward);
    context
}

/// rlm-code's documented examples, with each policy built by its registry name.
#[test]
fn rlm_code_docs_examples_through_the_registry() {
    let none = PolicyContext::default();

    let mut p = policy(build("final_pattern", json!(null)));
    assert_eq!(
        p.should_terminate(&code("After computing, the answer is FINAL('42')"), &none),
        (true, Some("42".into()))
    );

    let mut p = policy(build(
        "reward_threshold",
        json!({"min_reward_threshold": 0.8}),
    ));
    assert_eq!(
        p.should_terminate(&code("progress..."), &last_reward(0.4)),
        (false, None)
    );
    assert_eq!(
        p.should_terminate(&code("more progress..."), &last_reward(0.5)),
        (true, Some("more progress...".into()))
    );

    // Confidence: blocked before step 2, then met; below the threshold, FINAL falls
    // back (at step 3, as in the docs).
    let config = json!({"confidence_threshold": 0.95, "min_steps_before_termination": 3});
    let mut p = policy(build("confidence", config.clone()));
    let sure = with_confidence("42", 0.99);
    let unsure = with_confidence("thinking", 0.5);
    assert_eq!(p.should_terminate(&sure, &none), (false, None), "step 0");
    assert_eq!(p.should_terminate(&unsure, &none), (false, None), "step 1");
    assert_eq!(p.should_terminate(&unsure, &none), (false, None), "step 2");
    assert_eq!(
        p.should_terminate(&sure, &none),
        (true, Some("42".into())),
        "step 3"
    );
    let mut p = policy(build("confidence", config));
    for _ in 0..3 {
        assert_eq!(p.should_terminate(&unsure, &none), (false, None));
    }
    assert_eq!(
        p.should_terminate(
            &with_confidence("I think it might be FINAL('42')", 0.4),
            &none
        ),
        (true, Some("42".into()))
    );

    // Composite OR: FINAL() or a high reward.
    let mut p = policy(build(
        "composite",
        json!({"policies": ["final_pattern", "reward_threshold"], "require_all": false}),
    ));
    assert_eq!(
        p.should_terminate(&code("FINAL('done')"), &none),
        (true, Some("done".into()))
    );
    // Composite AND, latched: FINAL at step 1, confident at step 2. rlm-code would
    // want both on one action; our `All` remembers the FINAL. (The confidence
    // fallback is off, or the FINAL would satisfy both at once.)
    let mut p = policy(build(
        "composite",
        json!({"policies": [{"name": "confidence", "config": {"fallback_to_final_pattern": false}},
                            "final_pattern"],
               "require_all": true}),
    ));
    assert_eq!(p.should_terminate(&unsure, &none), (false, None));
    assert_eq!(
        p.should_terminate(&code("FINAL('7')"), &none),
        (false, None)
    );
    assert_eq!(
        p.should_terminate(&with_confidence("sure", 0.9), &none),
        (true, Some("sure".into()))
    );
}
