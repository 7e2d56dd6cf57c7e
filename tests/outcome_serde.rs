//! An outcome reads back from the JSON it writes, so a run's verdict can be stored
//! with its checkpoint (a framework's persisted state, a corpus summary) and read
//! again as the typed value.

use doneseq::stop::{Condition, TokenBudget};
use doneseq::{Evidence, Message, Monitor, Outcome, Role, TaskConfig, ToolCall, Usage};

/// Serializes, reads back, and compares; returns the JSON for further checks.
fn round_trip(outcome: &Outcome) -> serde_json::Value {
    let json = serde_json::to_value(outcome).unwrap();
    let back: Outcome = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(&back, outcome, "{json}");
    json
}

/// The outcome of `messages` under done sequences `dsl` and stop expression `stop`.
fn outcome_of(dsl: &[&str], stop: Option<&str>, messages: &[Message<'_>]) -> Outcome {
    let mut config = TaskConfig::from_dsl(dsl.iter().copied()).unwrap();
    config.stop = stop.map(|s| s.parse::<Condition>().unwrap());
    let monitor = Monitor::new(config).unwrap();
    let mut run = monitor.start();
    messages
        .iter()
        .find_map(|m| monitor.observe(&mut run, m).outcome().cloned())
        .unwrap_or_else(|| panic!("{dsl:?} / {stop:?} did not stop"))
}

#[test]
fn outcomes_of_real_runs_read_back() {
    let call = || {
        Message::llm("")
            .with_tool_call(ToolCall::new("calculator", r#"{"x": 1}"#).with_id("c1"))
            .with_usage(Usage {
                input_tokens: 60,
                output_tokens: 40,
            })
    };
    let cases: Vec<(Vec<&str>, Option<&str>, Vec<Message<'static>>)> = vec![
        (
            vec!["T[calculator], A"],
            None,
            vec![Message::user("go"), call(), Message::agent("2")],
        ),
        (vec![], Some("final"), vec![Message::llm("FINAL(42)")]),
        (
            vec![],
            Some("tokens(100) | consecutive_errors(2)"),
            vec![call(), call()],
        ),
        (vec![], Some("tool(calculator)"), vec![call()]),
        (
            vec![],
            Some("text(\"quit\") & max_turns(2)"),
            vec![Message::llm("quit now"), Message::llm("ok")],
        ),
        (
            vec![],
            Some("!no_tool_calls & loop"),
            vec![call(), call(), call(), call()],
        ),
        (
            vec![],
            Some("consecutive_errors(1)"),
            vec![Message::agent("").with_error("division by zero")],
        ),
    ];
    for (dsl, stop, messages) in cases {
        let outcome = outcome_of(&dsl, stop, &messages);
        let json = round_trip(&outcome);
        // The derived sentence is written, and ignored when read back.
        assert!(json["conditions"][0]["detail"].is_string(), "{json}");
    }
}

#[test]
fn every_kind_of_evidence_reads_back() {
    let all = [
        Evidence::Sequence { matched: 2..=3 },
        Evidence::Final,
        Evidence::DoneSignal,
        Evidence::Turns {
            taken: 10,
            limit: 10,
        },
        Evidence::Messages {
            counted: 4,
            limit: 4,
        },
        Evidence::StopMessage,
        Evidence::Handoff {
            target: "planner".into(),
        },
        Evidence::ModelCalls { made: 3, limit: 3 },
        Evidence::Tokens {
            budget: TokenBudget {
                total: Some(100),
                input: None,
                output: Some(50),
            }
            .into(),
            total: 120,
            input: 70,
            output: 50,
        },
        Evidence::Elapsed {
            elapsed_ms: 1500,
            limit_ms: 1000,
        },
        Evidence::Errors {
            in_a_row: 3,
            limit: 3,
        },
        Evidence::Tool {
            name: Some("search".into()),
            executed: true,
        },
        Evidence::Tool {
            name: None,
            executed: false,
        },
        Evidence::NoToolCalls,
        Evidence::Text {
            matched: "quit".into(),
            role: Role::Llm,
        },
        Evidence::TextAt { step: 4 },
        Evidence::Confidence {
            value: 0.9,
            threshold: 0.8,
        },
        Evidence::ConfidenceFallback,
        Evidence::Reward {
            total: 1.5,
            threshold: 1.0,
        },
        Evidence::NegativeRewards {
            streak: 3,
            limit: 3,
        },
        Evidence::Loop {
            period: 2,
            repeats: 3,
            wanted: 3,
        },
        Evidence::Cancelled,
        Evidence::Response { role: Role::Agent },
        Evidence::NoResponse { role: Role::User },
        Evidence::SingleRound,
        Evidence::NotFired,
        Evidence::Combined,
        Evidence::Custom {
            name: "budget_left".into(),
            detail: "3 calls left".into(),
        },
    ];
    let cases = all.len();
    let mut kinds = std::collections::BTreeSet::new();
    for evidence in all {
        let json = serde_json::to_value(&evidence).unwrap();
        kinds.insert(json["type"].as_str().unwrap().to_owned());
        let back: Evidence = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, evidence, "{json}");
    }
    // Every case but the second `Tool` is a kind of its own.
    assert_eq!(kinds.len(), cases - 1);
}

#[test]
fn a_malformed_outcome_is_refused_with_what_is_wrong() {
    let outcome = outcome_of(&[], Some("final"), &[Message::llm("FINAL(1)")]);
    let mut json = serde_json::to_value(&outcome).unwrap();
    json["conditions"][0]["id"] = "no_such_condition".into();
    let error = serde_json::from_value::<Outcome>(json.clone())
        .unwrap_err()
        .to_string();
    assert!(error.contains("no_such_condition"), "{error}");
    json["conditions"][0]["id"] = "final".into();
    json["conditions"][0]["surprise"] = 1.into();
    let error = serde_json::from_value::<Outcome>(json)
        .unwrap_err()
        .to_string();
    assert!(error.contains("surprise"), "{error}");
}
