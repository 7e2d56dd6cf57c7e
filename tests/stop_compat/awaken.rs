//! awaken's face: `StopConditionSpec` (serde shape, each variant's condition, the
//! specs awaken reads as "disabled"), `policies_from_specs`, `StopDecision`.

use std::time::Duration;

use doneseq::compat::CompatError;
use doneseq::compat::awaken::{
    StopConditionSpec, StopDecision, condition_code, policies_from_specs,
};
use doneseq::stop::{Condition, LoopOver, Speaker, TokenBudget};
use doneseq::{
    Message, Monitor, ParseErrorKind, Role, TaskConfig, ToolCall, Usage, Verdict, VerdictKind,
};

use super::{first_stop, monitor};

fn llm_text(pattern: &str) -> Condition {
    let mut condition = Condition::text(pattern).unwrap();
    if let Condition::Text(mention) = &mut condition {
        mention.from = vec![Speaker::Role(Role::Llm)];
    }
    condition
}

fn text_loop(repeats: u32) -> Condition {
    let mut condition = Condition::loop_detection();
    if let Condition::Loop(detection) = &mut condition {
        detection.period = 1;
        detection.repeats = repeats;
        detection.over = LoopOver::Texts;
    }
    condition
}

/// awaken's documented four specs, as awaken's JSON.
#[test]
fn awaken_docs_specs_are_an_any_in_list_order() {
    let specs: Vec<StopConditionSpec> = serde_json::from_value(serde_json::json!([
        {"type": "max_rounds", "rounds": 10},
        {"type": "timeout", "seconds": 300},
        {"type": "token_budget", "max_total": 100_000},
        {"type": "consecutive_errors", "max": 3}
    ]))
    .unwrap();
    assert_eq!(
        specs,
        [
            StopConditionSpec::MaxRounds { rounds: 10 },
            StopConditionSpec::Timeout { seconds: 300 },
            StopConditionSpec::TokenBudget { max_total: 100_000 },
            StopConditionSpec::ConsecutiveErrors { max: 3 },
        ]
    );
    assert_eq!(
        policies_from_specs(&specs).unwrap(),
        Condition::Any(vec![
            Condition::MaxModelCalls(10),
            Condition::Timeout(Duration::from_secs(300)),
            Condition::Tokens(TokenBudget::total(100_000)),
            Condition::ConsecutiveErrors(3),
        ])
    );
}

#[test]
fn every_variant_maps_to_its_condition_and_serializes_as_awaken_does() {
    let cases = [
        (
            StopConditionSpec::MaxRounds { rounds: 25 },
            r#"{"type":"max_rounds","rounds":25}"#,
            Condition::max_model_calls(25),
            "max_rounds",
        ),
        (
            StopConditionSpec::Timeout { seconds: 300 },
            r#"{"type":"timeout","seconds":300}"#,
            Condition::timeout(Duration::from_secs(300)),
            "timeout",
        ),
        (
            StopConditionSpec::TokenBudget { max_total: 5000 },
            r#"{"type":"token_budget","max_total":5000}"#,
            Condition::tokens(5000),
            "token_budget",
        ),
        (
            StopConditionSpec::ConsecutiveErrors { max: 3 },
            r#"{"type":"consecutive_errors","max":3}"#,
            Condition::consecutive_errors(3),
            "consecutive_errors",
        ),
        (
            StopConditionSpec::StopOnTool {
                tool_name: "finish".into(),
            },
            r#"{"type":"stop_on_tool","tool_name":"finish"}"#,
            Condition::tool("finish"),
            "stop_on_tool",
        ),
        (
            StopConditionSpec::ContentMatch {
                pattern: r"\bDONE\b".into(),
            },
            r#"{"type":"content_match","pattern":"\\bDONE\\b"}"#,
            llm_text(r"\bDONE\b"),
            "content_match",
        ),
        (
            StopConditionSpec::LoopDetection { window: 3 },
            r#"{"type":"loop_detection","window":3}"#,
            text_loop(3),
            "loop_detection",
        ),
    ];
    for (spec, json, condition, code) in cases {
        assert_eq!(serde_json::to_string(&spec).unwrap(), json);
        assert_eq!(
            serde_json::from_str::<StopConditionSpec>(json).unwrap(),
            spec
        );
        assert_eq!(spec.code(), code);
        assert_eq!(
            Condition::try_from(spec.clone()).unwrap(),
            condition,
            "{json}"
        );
        // One spec is its own condition, not an `any` of one.
        assert_eq!(policies_from_specs(&[spec]).unwrap(), condition);
    }
}

#[test]
fn the_serde_shape_is_strict() {
    for bad in [
        r#"{"type": "max_rounds", "rounds": 10, "extra": 1}"#,
        r#"{"type": "max_rounds"}"#,
        r#"{"type": "max_round", "rounds": 10}"#,
        r#"{"type": "MaxRounds", "rounds": 10}"#,
        r#"{"rounds": 10}"#,
        r#"{"type": "timeout", "seconds": -1}"#,
        r#"{"type": "stop_on_tool", "tool": "finish"}"#,
    ] {
        assert!(
            serde_json::from_str::<StopConditionSpec>(bad).is_err(),
            "{bad} should not deserialize"
        );
    }
}

#[test]
fn what_awaken_reads_as_disabled_is_an_error() {
    let cases = [
        (
            StopConditionSpec::MaxRounds { rounds: 0 },
            "max_rounds",
            "rounds",
        ),
        (
            StopConditionSpec::Timeout { seconds: 0 },
            "timeout",
            "seconds",
        ),
        (
            StopConditionSpec::TokenBudget { max_total: 0 },
            "token_budget",
            "max_total",
        ),
        (
            StopConditionSpec::ConsecutiveErrors { max: 0 },
            "consecutive_errors",
            "max",
        ),
        (
            StopConditionSpec::StopOnTool {
                tool_name: String::new(),
            },
            "stop_on_tool",
            "tool_name",
        ),
        (
            StopConditionSpec::ContentMatch {
                pattern: String::new(),
            },
            "content_match",
            "pattern",
        ),
    ];
    for (spec, code, name) in cases {
        let err = Condition::try_from(spec.clone()).unwrap_err();
        assert!(
            matches!(err, CompatError::Disabled { spec, field } if spec == code && field == name),
            "{err:?}"
        );
        assert!(
            err.to_string().contains("remove this spec to disable it"),
            "{err}"
        );
    }
    assert_eq!(
        Condition::try_from(StopConditionSpec::TokenBudget { max_total: 0 })
            .unwrap_err()
            .to_string(),
        "token_budget.max_total is 0, which awaken reads as \"disabled\"; doneseq does not \
         drop conditions: remove this spec to disable it"
    );
    assert!(
        Condition::try_from(StopConditionSpec::StopOnTool {
            tool_name: String::new()
        })
        .unwrap_err()
        .to_string()
        .starts_with("stop_on_tool.tool_name is empty")
    );
}

#[test]
fn loop_windows_outside_2_to_64_are_errors() {
    for window in [0, 1] {
        assert_eq!(
            Condition::try_from(StopConditionSpec::LoopDetection { window }),
            Err(CompatError::WindowTooSmall { window })
        );
    }
    assert_eq!(
        Condition::try_from(StopConditionSpec::LoopDetection { window: 65 }),
        Err(CompatError::WindowTooLarge {
            window: 65,
            max: 64
        })
    );
    assert_eq!(
        Condition::try_from(StopConditionSpec::LoopDetection { window: usize::MAX }),
        Err(CompatError::WindowTooLarge {
            window: usize::MAX,
            max: 64
        })
    );
    assert_eq!(
        Condition::try_from(StopConditionSpec::LoopDetection { window: 2 }),
        Ok(text_loop(2))
    );
    assert_eq!(
        Condition::try_from(StopConditionSpec::LoopDetection { window: 64 }),
        Ok(text_loop(64))
    );
}

#[test]
fn a_bad_regex_is_an_error_at_load_with_its_position() {
    let err = Condition::try_from(StopConditionSpec::ContentMatch {
        pattern: r"done(\s+".into(),
    })
    .unwrap_err();
    let CompatError::InvalidPattern { error } = &err else {
        panic!("{err:?}")
    };
    assert!(matches!(error.kind(), ParseErrorKind::InvalidRegex { .. }));
    assert_eq!(&error.input()[error.span()], "(");
    assert!(err.to_string().starts_with("invalid pattern: "), "{err}");
    // Look-around, which awaken's regex crate refuses too.
    assert!(
        Condition::try_from(StopConditionSpec::ContentMatch {
            pattern: "(?<=a)b".into(),
        })
        .is_err()
    );
}

#[test]
fn list_errors_name_the_spec_and_an_empty_list_is_one() {
    assert_eq!(policies_from_specs(&[]), Err(CompatError::EmptyList));
    let specs = [
        StopConditionSpec::MaxRounds { rounds: 5 },
        StopConditionSpec::LoopDetection { window: 1 },
        StopConditionSpec::Timeout { seconds: 0 },
    ];
    let err = policies_from_specs(&specs).unwrap_err();
    assert_eq!(
        err,
        CompatError::AtIndex {
            list: "specs",
            index: 1,
            error: Box::new(CompatError::WindowTooSmall { window: 1 }),
        }
    );
    assert!(
        err.to_string()
            .starts_with("specs[1]: loop_detection.window is 1"),
        "{err}"
    );
}

#[test]
fn the_conditions_behave_as_awaken_documents_except_where_we_say() {
    // StopOnTool stops when the tool is requested, before its result.
    let m = monitor(
        policies_from_specs(&[StopConditionSpec::StopOnTool {
            tool_name: "finish".into(),
        }])
        .unwrap(),
    );
    let messages = [
        Message::user("go"),
        Message::llm("").with_tool_call(ToolCall::new("search", "{}")),
        Message::agent("found"),
        Message::llm("").with_tool_call(ToolCall::new("finish", "{}")),
        Message::agent("finished"),
    ];
    assert_eq!(first_stop(&m, &messages).map(|(i, _)| i), Some(3));

    // ContentMatch reads the model's text only: the user's prompt quoting it does not
    // stop the run.
    let m = monitor(
        policies_from_specs(&[StopConditionSpec::ContentMatch {
            pattern: r"\bDONE\b".into(),
        }])
        .unwrap(),
    );
    let messages = [
        Message::user("Say DONE when done"),
        Message::llm("not done yet"),
        Message::llm("All DONE."),
    ];
    assert_eq!(first_stop(&m, &messages).map(|(i, _)| i), Some(2));

    // TokenBudget fires when the total reaches max_total (awaken: over it).
    let m =
        monitor(policies_from_specs(&[StopConditionSpec::TokenBudget { max_total: 100 }]).unwrap());
    let used = |input, output| {
        Message::llm("x").with_usage(Usage {
            input_tokens: input,
            output_tokens: output,
        })
    };
    let messages = [used(30, 30), used(20, 20), used(1, 0)];
    let (at, outcome) = first_stop(&m, &messages).unwrap();
    assert_eq!((at, outcome.kind), (1, VerdictKind::Exhausted));

    // LoopDetection: the last `window` texts are identical.
    let m =
        monitor(policies_from_specs(&[StopConditionSpec::LoopDetection { window: 3 }]).unwrap());
    let messages = [
        Message::llm("let me check"),
        Message::llm("let me check"),
        Message::llm("let me check"),
    ];
    let (at, outcome) = first_stop(&m, &messages).unwrap();
    assert_eq!((at, outcome.kind), (2, VerdictKind::Stuck));

    // MaxRounds fires at the rounds-th model response; ConsecutiveErrors after max in
    // a row.
    let m = monitor(
        policies_from_specs(&[
            StopConditionSpec::MaxRounds { rounds: 3 },
            StopConditionSpec::ConsecutiveErrors { max: 2 },
        ])
        .unwrap(),
    );
    let ok = Message::llm("ok");
    let failed = Message::llm("").with_error("rate limited");
    let (at, outcome) = first_stop(&m, &[ok.clone(), ok.clone(), ok.clone()]).unwrap();
    assert_eq!((at, outcome.kind), (2, VerdictKind::Exhausted));
    let (at, outcome) = first_stop(&m, &[ok.clone(), failed.clone(), failed]).unwrap();
    assert_eq!((at, outcome.kind), (2, VerdictKind::Failed));
}

#[test]
fn both_at_one_step_the_higher_kind_leads_and_both_are_reported() {
    // awaken would say max_rounds (first in the list); we say consecutive_errors.
    let m = monitor(
        policies_from_specs(&[
            StopConditionSpec::MaxRounds { rounds: 2 },
            StopConditionSpec::ConsecutiveErrors { max: 2 },
        ])
        .unwrap(),
    );
    let failed = Message::llm("").with_error("rate limited");
    let (at, outcome) = first_stop(&m, &[failed.clone(), failed]).unwrap();
    assert_eq!((at, outcome.kind), (1, VerdictKind::Failed));
    let kinds: Vec<VerdictKind> = outcome.conditions.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [VerdictKind::Exhausted, VerdictKind::Failed]);
}

/// A monitor with these task options and no stop condition.
fn langroid(config: impl FnOnce(&mut TaskConfig)) -> Monitor {
    let mut task = TaskConfig::default();
    config(&mut task);
    Monitor::new(task).unwrap()
}

fn decision(monitor: &Monitor, messages: &[Message]) -> StopDecision {
    let mut run = monitor.start();
    let mut last = Verdict::Continue;
    for message in messages {
        last = monitor.observe(&mut run, message);
        if last.is_stop() {
            break;
        }
    }
    StopDecision::from(last)
}

fn stop(code: &str, detail: &str) -> StopDecision {
    StopDecision::Stop {
        code: code.into(),
        detail: detail.into(),
    }
}

#[test]
fn stop_decisions_for_each_task_option() {
    let call = Message::llm("").with_tool_call(ToolCall::new("calc", "{}"));
    let cases = [
        (
            // The user's message is the task's input, not a turn.
            langroid(|c| c.max_turns = Some(2)),
            vec![Message::user("a"), Message::llm("b"), Message::agent("c")],
            stop("max_turns", "step 1: max_turns(2) reached"),
        ),
        (
            langroid(|c| c.done_if_tool = true),
            vec![Message::llm("a"), call.clone()],
            stop(
                "done_if_tool",
                "step 1: the model called a tool (done_if_tool)",
            ),
        ),
        (
            langroid(|c| *c = TaskConfig::from_dsl(["L", "T, A"]).unwrap()),
            vec![call.clone(), Message::agent("42")],
            stop(
                "done_sequence",
                "step 1: done sequence 1 matched (steps 0..=1)",
            ),
        ),
        (
            langroid(|_| {}),
            vec![Message::llm("all DONE")],
            stop("done_signal", "step 0: the content says DONE"),
        ),
        (
            langroid(|c| c.done_if_response = vec![Role::Agent]),
            vec![Message::llm("a"), Message::agent("b")],
            stop(
                "done_if_response",
                "step 1: agent gave a valid response (done_if_response)",
            ),
        ),
        (
            langroid(|c| c.done_if_no_response = vec![Role::Llm]),
            vec![Message::llm("a"), Message::no_response(Role::Llm)],
            stop(
                "done_if_no_response",
                "step 1: llm gave no valid response (done_if_no_response)",
            ),
        ),
        (
            langroid(|c| c.single_round = true),
            vec![Message::user("a"), Message::llm("b")],
            stop(
                "single_round",
                "step 0: the round after the task's input ends the task (single_round)",
            ),
        ),
        (
            langroid(|c| c.max_turns = Some(5)),
            vec![Message::user("a")],
            StopDecision::Continue,
        ),
    ];
    for (monitor, messages, expected) in cases {
        assert_eq!(decision(&monitor, &messages), expected);
    }
}

/// The code of each condition, read from the condition that leads a real stop (its
/// id and, for a custom condition, its registered name).
#[test]
fn codes_of_fired_conditions() {
    let llm = Message::llm;
    let call = |name: &str| Message::llm("").with_tool_call(ToolCall::new(name.to_owned(), "{}"));
    let cases: Vec<(&str, Vec<Message>, &str)> = vec![
        ("max_model_calls(1)", vec![llm("x")], "max_rounds"),
        ("max_turns(1)", vec![llm("x")], "max_turns"),
        (
            "tokens(10)",
            vec![llm("x").with_usage(Usage {
                input_tokens: 4,
                output_tokens: 6,
            })],
            "token_budget",
        ),
        (
            "consecutive_errors(2)",
            vec![llm("x").with_error("e"), llm("y").with_error("e")],
            "consecutive_errors",
        ),
        ("tool(finish)", vec![call("finish")], "stop_on_tool"),
        (
            "text(\"\\bDONE\\b\", from=llm)",
            vec![llm("all DONE")],
            "content_match",
        ),
        (
            "loop(period=1, repeats=2, over=texts)",
            vec![llm("a"), llm("a")],
            "loop_detection",
        ),
        ("final", vec![llm("FINAL(42)")], "final"),
        ("no_tool_calls", vec![llm("x")], "no_tool_calls"),
        ("seq(\"L\")", vec![llm("x")], "seq"),
        ("reward(0.5)", vec![llm("x").with_reward(1.0)], "reward"),
        (
            "custom(convergence, config={\"window_size\": 2, \"min_steps\": 0})",
            vec![llm("a"), llm("a")],
            "convergence",
        ),
        ("!final", vec![llm("x")], "not"),
    ];
    for (text, messages, code) in cases {
        let m = monitor(Condition::parse(text).unwrap());
        let (_, outcome) = first_stop(&m, &messages).unwrap_or_else(|| panic!("{text}: no stop"));
        assert_eq!(condition_code(outcome.leading().unwrap()), code, "{text}");
    }
}

/// Needs the expression language's `Display` (canonical condition texts such as
/// `max_turns(3)`); until it is merged, a condition prints as its `Debug`.
#[test]
fn stop_decisions_for_stop_conditions() {
    let m = monitor(
        policies_from_specs(&[
            StopConditionSpec::MaxRounds { rounds: 3 },
            StopConditionSpec::StopOnTool {
                tool_name: "finish".into(),
            },
        ])
        .unwrap(),
    );
    let finish = Message::llm("").with_tool_call(ToolCall::new("finish", "{}"));
    let StopDecision::Stop { code, detail } = decision(&m, &[finish]) else {
        panic!("no stop")
    };
    assert_eq!(code, "stop_on_tool");
    assert!(detail.starts_with("step 0: tool(finish)"), "{detail}");
    let ok = Message::llm("ok");
    let StopDecision::Stop { code, detail } = decision(&m, &[ok.clone(), ok.clone(), ok]) else {
        panic!("no stop")
    };
    assert_eq!(code, "max_rounds");
    assert!(detail.starts_with("step 2: max_model_calls(3)"), "{detail}");
}

/// awaken's loop detection compares model texts only; doneseq's mapping compares the
/// texts of every step: the difference the module documents, as a run.
#[test]
fn loop_detection_compares_every_steps_text() {
    let m =
        monitor(policies_from_specs(&[StopConditionSpec::LoopDetection { window: 3 }]).unwrap());
    let same = Message::llm("Let me check again.");
    let between = Message::agent("no change");
    // Model texts alone repeating: both stop at the third.
    assert_eq!(
        first_stop(&m, &[same.clone(), same.clone(), same.clone()]).map(|(at, _)| at),
        Some(2)
    );
    // With tool results between them, awaken (model texts only) would stop at the
    // third model text; doneseq sees no three identical steps in a row.
    let interleaved = [same.clone(), between.clone(), same.clone(), between, same];
    assert_eq!(first_stop(&m, &interleaved), None);
}
