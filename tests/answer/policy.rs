//! rlm-code's `final_pattern` policy: every documented example, the default
//! configuration, and its known bugs, fixed.

use doneseq::answer::{
    AnswerValue, Decision, FinalKind, FinalPatternConfig, FinalPatternPolicy, PolicyError, Trigger,
};

const NO_VARIABLES: [(&str, &AnswerValue); 0] = [];

/// A policy with these extra patterns and the default configuration otherwise.
fn new(patterns: Vec<String>) -> Result<FinalPatternPolicy, PolicyError> {
    FinalPatternPolicy::new(FinalPatternConfig {
        final_patterns: patterns,
        ..FinalPatternConfig::default()
    })
}

fn answer(policy: &FinalPatternPolicy, output: &str) -> Option<String> {
    policy
        .should_terminate("code", output, NO_VARIABLES)
        .answer()
        .map(str::to_owned)
}

#[test]
fn default_configuration() {
    let config = FinalPatternConfig::default();
    assert!(config.final_patterns.is_empty());
    assert!(!config.case_sensitive);
    assert!(config.extract_answer);
    assert!(!config.strict);
    assert_eq!(FinalPatternPolicy::NAME, "final_pattern");
}

/// rlm-code's documented examples, with the default policy.
#[test]
fn seed_examples() {
    let policy = FinalPatternPolicy::default();
    // FINAL() in output.
    let d = policy.should_terminate(
        "code",
        "After computing, the answer is FINAL('42')",
        NO_VARIABLES,
    );
    assert!(d.should_stop());
    assert_eq!(d.answer(), Some("42"));
    assert!(matches!(
        d,
        Decision::Stop {
            trigger: Trigger::Signal {
                kind: FinalKind::Direct,
                ..
            },
            ..
        }
    ));
    // FINAL_VAR() with variable lookup.
    let variables = [("result", AnswerValue::Int(4950))];
    let d = policy.should_terminate(
        "code",
        "FINAL_VAR('result')",
        variables.iter().map(|(k, v)| (*k, v)),
    );
    assert_eq!(d.answer(), Some("4950"));
    // The Confidence policy's fallback example goes through this policy.
    assert_eq!(
        answer(&policy, "I think it might be FINAL('42')").as_deref(),
        Some("42")
    );
    // The documented default patterns' shapes.
    assert_eq!(
        answer(&policy, "FINAL(\"answer\")").as_deref(),
        Some("answer")
    );
    assert_eq!(answer(&policy, "FINAL(answer)").as_deref(), Some("answer"));
    // Action type "final": terminate with the output.
    let d = policy.should_terminate("final", "the output", NO_VARIABLES);
    assert_eq!(d.answer(), Some("the output"));
    assert!(matches!(
        d,
        Decision::Stop {
            trigger: Trigger::FinalAction,
            ..
        }
    ));
    // No signal: continue.
    assert_eq!(
        policy.should_terminate("code", "still working", NO_VARIABLES),
        Decision::Continue
    );
}

/// rlm-code's docs, Custom Pattern Configuration.
#[test]
fn custom_patterns() {
    let policy = FinalPatternPolicy::new(FinalPatternConfig {
        final_patterns: vec![
            r#"FINAL\s*\(\s*['"](.+?)['"]\s*\)"#.into(),
            r"ANSWER:\s*(.+?)$".into(),
            r"SOLUTION\s*=\s*(.+?)$".into(),
        ],
        case_sensitive: false,
        extract_answer: true,
        strict: false,
    })
    .unwrap();
    assert_eq!(answer(&policy, "FINAL('x')").as_deref(), Some("x"));
    assert_eq!(answer(&policy, "ANSWER: 42").as_deref(), Some("42"));
    assert_eq!(
        answer(&policy, "So.\nSOLUTION = 42\nThanks").as_deref(),
        Some("42")
    );
    // Not case-sensitive by default, as in rlm-code.
    assert_eq!(answer(&policy, "answer: 7").as_deref(), Some("7"));
    let d = policy.should_terminate("code", "x\nANSWER: 42", NO_VARIABLES);
    assert!(
        matches!(d, Decision::Stop { trigger: Trigger::Pattern { index: 1, span }, .. } if span == (2..12))
    );
    // Case-sensitive when asked.
    let strict_case = FinalPatternPolicy::new(FinalPatternConfig {
        final_patterns: vec![r"ANSWER:\s*(.+)".into()],
        case_sensitive: true,
        ..FinalPatternConfig::default()
    })
    .unwrap();
    assert_eq!(answer(&strict_case, "answer: 7"), None);
    // No capture group: the whole match.
    let whole = FinalPatternPolicy::new(FinalPatternConfig {
        final_patterns: vec![r"\bDONE\b".into()],
        ..FinalPatternConfig::default()
    })
    .unwrap();
    assert_eq!(answer(&whole, "all done").as_deref(), Some("done"));
    // A FINAL_VAR pattern looks its capture up.
    let var = FinalPatternPolicy::new(FinalPatternConfig {
        final_patterns: vec![r"FINAL_VAR\[(\w+)\]".into()],
        ..FinalPatternConfig::default()
    })
    .unwrap();
    let variables = [("r", AnswerValue::from("value"))];
    let d = var.should_terminate(
        "code",
        "FINAL_VAR[r]",
        variables.iter().map(|(k, v)| (*k, v)),
    );
    assert_eq!(d.answer(), Some("value"));
    assert!(matches!(
        var.should_terminate("code", "FINAL_VAR[q]", NO_VARIABLES),
        Decision::Unresolved(_)
    ));
}

#[test]
fn extract_answer_off_returns_the_output() {
    let policy = FinalPatternPolicy::new(FinalPatternConfig {
        extract_answer: false,
        final_patterns: vec!["ANSWER".into()],
        ..FinalPatternConfig::default()
    })
    .unwrap();
    assert_eq!(
        answer(&policy, "x FINAL('42') y").as_deref(),
        Some("x FINAL('42') y")
    );
    assert_eq!(
        answer(&policy, "FINAL_VAR(missing)").as_deref(),
        Some("FINAL_VAR(missing)")
    );
    assert_eq!(
        answer(&policy, "ANSWER here").as_deref(),
        Some("ANSWER here")
    );
}

/// rlm-code's policy bugs, fixed.
#[test]
fn fixed_bugs() {
    let policy = FinalPatternPolicy::default();
    // 1. Prose stops the run with the case-insensitive bare pattern.
    assert_eq!(answer(&policy, "This is the final (third) draft"), None);
    assert_eq!(answer(&policy, "we are not final(ly) done"), None);
    // 2. Lazy match.
    assert_eq!(answer(&policy, "FINAL(f(x))").as_deref(), Some("f(x)"));
    // A missing variable is not silently the answer.
    match policy.should_terminate("code", "FINAL_VAR(total)", NO_VARIABLES) {
        Decision::Unresolved(err) => assert_eq!(err.name(), "total"),
        other => panic!("expected Unresolved, got {other:?}"),
    }
    // Two answers: no stop.
    assert!(matches!(
        policy.should_terminate("code", "FINAL(1) or FINAL(2)", NO_VARIABLES),
        Decision::Ambiguous(_)
    ));
    // SUBMIT's answer is its fields, formatted: the `answer` field, or JSON.
    assert_eq!(
        answer(&policy, "SUBMIT(answer='Paris', confidence=0.9)").as_deref(),
        Some("Paris")
    );
    assert_eq!(
        answer(&policy, "SUBMIT(city='Paris', confidence=0.9)").as_deref(),
        Some("{\n  \"city\": \"Paris\",\n  \"confidence\": 0.9\n}")
    );
    // Strict mode, an option.
    let strict = FinalPatternPolicy::new(FinalPatternConfig {
        strict: true,
        ..FinalPatternConfig::default()
    })
    .unwrap();
    assert_eq!(answer(&strict, "say FINAL(1)"), None);
    assert_eq!(answer(&strict, "say\nFINAL(1)").as_deref(), Some("1"));
}

#[test]
fn configuration_errors() {
    let err = new(vec!["ok".into(), "(".into()]).unwrap_err();
    assert!(
        matches!(err, PolicyError::InvalidPattern { index: 1, .. }),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("final pattern 1 is not a valid regex: ")
    );
    let err = new(vec!["(?<=a)b".into()]).unwrap_err();
    assert!(matches!(err, PolicyError::InvalidPattern { index: 0, .. }));
    let err = new(vec!["a".repeat(2000)]).unwrap_err();
    assert_eq!(
        err,
        PolicyError::PatternTooLong {
            index: 0,
            len: 2000,
            max: 1024
        }
    );
    assert_eq!(
        err.to_string(),
        "final pattern 0 is too long: 2000 bytes (at most 1024)"
    );
    let err = new(vec!["a".into(); 33]).unwrap_err();
    assert_eq!(err, PolicyError::TooManyPatterns { count: 33, max: 32 });
    let err = new(vec![r"\w{1000}{1000}".into()]).unwrap_err();
    assert!(matches!(err, PolicyError::InvalidPattern { index: 0, .. }));
}

#[test]
fn costly_classes_are_refused_before_they_are_compiled() {
    // A kilobyte of `[\S\s]` takes most of a second to compile case-insensitively; 32
    // of them would take half a minute. The first is refused, before compiling.
    let kilobyte = r"[\S\s]".repeat(170);
    let err = new(vec![kilobyte; 32]).unwrap_err();
    assert_eq!(
        err,
        PolicyError::RegexCost {
            index: 0,
            max: doneseq::MAX_REGEX_FOLD_WORK
        }
    );
    assert!(err.to_string().starts_with("final pattern 0 would take"));
    assert!(err.to_string().contains("(?s:.)"), "{err}");
    // Smaller ones pass until their total does not.
    let some = r"[\S\s]".repeat(20);
    assert!(new(vec![some.clone(); 2]).is_ok());
    let err = new(vec![some; 32]).unwrap_err();
    assert!(
        matches!(err, PolicyError::RegexCost { index: 2..=3, .. }),
        "{err}"
    );
    // The everyday ones cost little.
    let everyday: Vec<String> = (0..32)
        .map(|i| format!(r"(?m)^ANSWER{i}:\s*([\w.-]+)\pL*$"))
        .collect();
    assert!(new(everyday).is_ok());
}
