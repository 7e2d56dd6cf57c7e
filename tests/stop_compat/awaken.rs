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

/// One row of awaken's table: a spec, a run, where awaken-runtime 0.6.0's policy stops
/// it (read from its code: each policy is evaluated after every model call, on its
/// counters), where doneseq's mapping stops it, and, where they differ, the README line
/// that says why.
struct AwakenRow {
    name: &'static str,
    spec: StopConditionSpec,
    messages: Vec<Message<'static>>,
    awaken: Option<usize>,
    doneseq: Option<usize>,
    difference: Option<&'static str>,
}

fn used(input: u64, output: u64) -> Message<'static> {
    Message::llm("x").with_usage(Usage {
        input_tokens: input,
        output_tokens: output,
    })
}

fn at_ms(ms: u64) -> Message<'static> {
    Message::llm("x").with_elapsed(Duration::from_millis(ms))
}

fn awaken_rows() -> Vec<AwakenRow> {
    let call = |tool: &str| Message::llm("").with_tool_call(ToolCall::new(tool.to_owned(), "{}"));
    let ok = Message::llm("ok");
    let failed = Message::llm("").with_error("rate limited");
    let tool_failed = Message::agent("").with_error("no such file");
    let same = Message::llm("Let me check again.");
    vec![
        AwakenRow {
            // MaxRoundsPolicy: one round per model call, stop at rounds >= max.
            name: "max_rounds: the third model call",
            spec: StopConditionSpec::MaxRounds { rounds: 3 },
            messages: vec![ok.clone(), Message::agent("result"), ok.clone(), ok.clone()],
            awaken: Some(3),
            doneseq: Some(3),
            difference: None,
        },
        AwakenRow {
            // StopOnToolPolicy: the model call whose tool calls name the tool.
            name: "stop_on_tool: at the request, before the result",
            spec: StopConditionSpec::StopOnTool {
                tool_name: "finish".into(),
            },
            messages: vec![
                Message::user("go"),
                call("search"),
                Message::agent("found"),
                call("finish"),
                Message::agent("finished"),
            ],
            awaken: Some(3),
            doneseq: Some(3),
            difference: None,
        },
        AwakenRow {
            // ContentMatchPolicy: the latest model text, the regex crate, unanchored.
            name: "content_match: the model's text, not the prompt",
            spec: StopConditionSpec::ContentMatch {
                pattern: r"\bDONE\b".into(),
            },
            messages: vec![
                Message::user("Say DONE when done"),
                Message::llm("not done yet"),
                Message::agent("DONE reading the file"),
                Message::llm("All DONE."),
            ],
            awaken: Some(3),
            doneseq: Some(3),
            difference: None,
        },
        AwakenRow {
            // TokenBudgetPolicy: stop when the total is over max_total.
            name: "token_budget: a total of exactly max_total",
            spec: StopConditionSpec::TokenBudget { max_total: 100 },
            messages: vec![used(30, 30), used(20, 20), used(1, 0)],
            awaken: Some(2),
            doneseq: Some(1),
            difference: Some("`tokens(n)` and `timeout(d)` fire at the limit (`>=`)"),
        },
        AwakenRow {
            name: "token_budget: over it",
            spec: StopConditionSpec::TokenBudget { max_total: 100 },
            messages: vec![used(30, 30), used(30, 30)],
            awaken: Some(1),
            doneseq: Some(1),
            difference: None,
        },
        AwakenRow {
            // TimeoutPolicy: stop when the elapsed time is over the limit.
            name: "timeout: exactly the limit",
            spec: StopConditionSpec::Timeout { seconds: 1 },
            messages: vec![at_ms(500), at_ms(1000), at_ms(1500)],
            awaken: Some(2),
            doneseq: Some(1),
            difference: Some("`tokens(n)` and `timeout(d)` fire at the limit (`>=`)"),
        },
        AwakenRow {
            // ConsecutiveErrorsPolicy: failed model calls in a row.
            name: "consecutive_errors: failed model calls",
            spec: StopConditionSpec::ConsecutiveErrors { max: 2 },
            messages: vec![ok.clone(), failed.clone(), failed.clone()],
            awaken: Some(2),
            doneseq: Some(2),
            difference: None,
        },
        AwakenRow {
            name: "consecutive_errors: a success between",
            spec: StopConditionSpec::ConsecutiveErrors { max: 2 },
            messages: vec![failed.clone(), ok.clone(), failed.clone(), ok.clone()],
            awaken: None,
            doneseq: None,
            difference: None,
        },
        AwakenRow {
            name: "consecutive_errors: failed tool results",
            spec: StopConditionSpec::ConsecutiveErrors { max: 2 },
            messages: vec![call("read"), tool_failed.clone(), tool_failed],
            awaken: None,
            doneseq: Some(2),
            difference: Some("`consecutive_errors` counts steps that report an error"),
        },
        AwakenRow {
            // LoopDetectionPolicy: the last `window` non-empty model texts identical.
            name: "loop_detection: identical model texts",
            spec: StopConditionSpec::LoopDetection { window: 3 },
            messages: vec![same.clone(), same.clone(), same.clone()],
            awaken: Some(2),
            doneseq: Some(2),
            difference: None,
        },
        AwakenRow {
            name: "loop_detection: tool results between them",
            spec: StopConditionSpec::LoopDetection { window: 3 },
            messages: vec![
                same.clone(),
                Message::agent("no change"),
                same.clone(),
                Message::agent("no change"),
                same,
            ],
            awaken: Some(4),
            doneseq: None,
            difference: Some("`loop_detection` compares every step's text"),
        },
    ]
}

/// awaken's table: each policy of awaken-runtime 0.6.0 on a run, where awaken stops it
/// and where doneseq's mapping does; the same step, or a line of the README's
/// differences from awaken.
#[test]
fn awaken_table() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let start = readme.find("**awaken** (`compat::awaken`").unwrap();
    let section = &readme[start..];
    let section = &section[..section.find(" ## ").unwrap_or(section.len())];
    for row in awaken_rows() {
        let m = monitor(policies_from_specs(std::slice::from_ref(&row.spec)).unwrap());
        let got = first_stop(&m, &row.messages).map(|(at, _)| at);
        assert_eq!(got, row.doneseq, "{}", row.name);
        match row.difference {
            None => assert_eq!(row.awaken, row.doneseq, "{}", row.name),
            Some(line) => {
                assert_ne!(row.awaken, row.doneseq, "{}", row.name);
                assert!(
                    section.contains(line),
                    "{}: {line:?} not in the README",
                    row.name
                );
            }
        }
    }
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
