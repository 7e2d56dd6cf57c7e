//! The examples of the peers' documentation, as tables. Where a peer's code is known to
//! differ from its docs, the docs' intent wins and the test says so.

use doneseq::answer::AnswerValue;
use doneseq::stop::Condition;
use doneseq::{Monitor, StopReason, TaskConfig, VerdictKind};
use serde_json::json;

// The rlm-code helpers are the compatibility tests'.
use crate::stop_compat::rlm::{
    PolicyContext, code, last_reward as reward, policy, with_confidence,
};

/// rlm-code's docs, FinalPatternTerminationPolicy: both examples.
#[test]
fn rlm_code_docs_final_pattern() {
    let mut p = policy(Condition::Final);
    let none = PolicyContext::default();
    assert_eq!(
        p.should_terminate(&code("After computing, the answer is FINAL('42')"), &none),
        (true, Some("42".into()))
    );
    let mut p2 = policy(Condition::Final);
    let mut context = PolicyContext::default();
    context
        .variables
        .insert("result".into(), AnswerValue::Int(4950));
    assert_eq!(
        p2.should_terminate(&code("FINAL_VAR('result')"), &context),
        (true, Some("4950".into()))
    );
    // An action of type "final" ends the episode with its output.
    let mut final_action = code("the answer is 7");
    final_action.action_type = "final".into();
    assert_eq!(
        p.should_terminate(&final_action, &none),
        (true, Some("the answer is 7".into()))
    );
    // A variable that does not exist is not final (rlm-code answers with its name).
    let mut p3 = policy(Condition::Final);
    assert_eq!(
        p3.should_terminate(&code("FINAL_VAR('missing')"), &none),
        (false, None)
    );
}

/// rlm-code's docs, RewardThresholdTerminationPolicy. The docs show the answer "Reward
/// threshold reached: 0.90"; rlm-code's code returns the output, and so do we: a
/// status sentence is not an answer. The sentence's content is the fired
/// condition's detail.
#[test]
fn rlm_code_docs_reward_threshold() {
    let mut p = policy(Condition::reward(0.8));
    assert_eq!(
        p.should_terminate(&code("progress..."), &reward(0.4)),
        (false, None)
    );
    let (stop, answer) = p.should_terminate(&code("more progress..."), &reward(0.5));
    assert!(stop);
    assert_eq!(answer.as_deref(), Some("more progress..."));
    let outcome = p.outcome().unwrap();
    assert_eq!(
        outcome.conditions[0].evidence.to_string(),
        "cumulative reward 0.9 >= 0.8"
    );
    // reset() between episodes (Composite does not pass it down in rlm-code).
    p.reset();
    assert_eq!(
        p.should_terminate(&code("again"), &reward(0.5)),
        (false, None)
    );
    // Three negative rewards in a row: stop, Failed, and no answer (rlm-code answers
    // "Terminated due to 3 consecutive failures").
    let mut p = policy(Condition::reward(0.8));
    for _ in 0..2 {
        assert_eq!(
            p.should_terminate(&code("bad"), &reward(-0.1)),
            (false, None)
        );
    }
    assert_eq!(
        p.should_terminate(&code("bad"), &reward(-0.1)),
        (true, None)
    );
    assert_eq!(p.outcome().unwrap().kind, VerdictKind::Failed);
}

/// rlm-code's docs, ConfidenceTerminationPolicy: the three examples. The docs call the
/// same policy at step 0 and then step 3; here a step is a call, so steps 1 and 2
/// are filled with low-confidence actions.
#[test]
fn rlm_code_docs_confidence() {
    let mut p = policy(Condition::confidence(0.85));
    let none = PolicyContext::default();
    assert_eq!(
        p.should_terminate(&with_confidence("42", 0.99), &none),
        (false, None),
        "step 0 < min_steps 2"
    );
    for _ in 1..3 {
        assert_eq!(
            p.should_terminate(&with_confidence("...", 0.1), &none),
            (false, None)
        );
    }
    assert_eq!(
        p.should_terminate(&with_confidence("42", 0.99), &none),
        (true, Some("42".into()))
    );

    let mut p = policy(Condition::confidence(0.85));
    for _ in 0..3 {
        p.should_terminate(&with_confidence("...", 0.1), &none);
    }
    assert_eq!(
        p.should_terminate(
            &with_confidence("I think it might be FINAL('42')", 0.4),
            &none
        ),
        (true, Some("42".into())),
        "fallback to the FINAL pattern"
    );
}

/// rlm-code's docs, the custom Convergence policy registered by name: identical outputs
/// over the window, once past min_steps.
#[test]
fn rlm_code_docs_convergence() {
    let mut p = policy(Condition::custom(
        "convergence",
        json!({"window_size": 4, "min_steps": 5}),
    ));
    let none = PolicyContext::default();
    let outputs = ["a", "b", "42", "42", "42", "42"];
    let got: Vec<bool> = outputs
        .iter()
        .map(|o| p.should_terminate(&code(o), &none).0)
        .collect();
    assert_eq!(got, [false, false, false, false, false, true]);
    assert!(matches!(
        p.outcome().unwrap().reason,
        StopReason::Condition(_)
    ));
    // Unknown options are errors, not ignored.
    let mut config = TaskConfig::default();
    config.stop = Some(Condition::custom("convergence", json!({"window": 4})));
    let err = Monitor::new(config).unwrap_err();
    assert!(err.to_string().contains("unknown option 'window'"), "{err}");
    let mut config = TaskConfig::default();
    config.stop = Some(Condition::custom("nope", json!(null)));
    let err = Monitor::new(config).unwrap_err().to_string();
    assert!(err.contains("registered: convergence"), "{err}");
}
