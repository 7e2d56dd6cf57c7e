//! locus's face: the constructors, seed 003's example tree, and the stop reasons.

use std::time::Duration;

use doneseq::stop::compat::CompatError;
use doneseq::stop::compat::locus::{
    DEFAULT_CONFIDENCE, condition_stop_reason, confidence_met, custom_condition, locus_stop_reason,
    max_iterations, no_tool_calls, text_mention, text_mention_with, time_limit, token_limit,
    tool_called, tool_called_with,
};
use doneseq::stop::{Condition, Speaker, ToolPhase};
use doneseq::{Message, Monitor, Role, TaskConfig, ToolCall, VerdictKind};
use serde_json::json;

use super::{first_stop, monitor};

/// Seed 003: `(ToolCalled("send_summary") & ConfidenceMet(0.9)) |
/// TextMention(r"\bDONE\b") | MaxIterations(10)`.
#[test]
fn seed_003_example_tree() {
    let termination = (tool_called("send_summary") & confidence_met(0.9))
        | text_mention(r"\bDONE\b").unwrap()
        | max_iterations(10);
    let Condition::Any(branches) = &termination else {
        panic!("{termination:?}")
    };
    assert_eq!(branches.len(), 3);
    let Condition::All(both) = &branches[0] else {
        panic!("{:?}", branches[0])
    };
    let Condition::Tool(tool) = &both[0] else {
        panic!("{:?}", both[0])
    };
    assert_eq!(
        (tool.name.as_deref(), tool.phase, &tool.args),
        (Some("send_summary"), ToolPhase::Executed, &None)
    );
    let Condition::Confidence(confidence) = &both[1] else {
        panic!("{:?}", both[1])
    };
    assert_eq!(
        (
            confidence.threshold,
            confidence.min_steps,
            confidence.key.as_str(),
            confidence.fallback_final
        ),
        (0.9, 0, "confidence", false)
    );
    let Condition::Text(mention) = &branches[1] else {
        panic!("{:?}", branches[1])
    };
    assert_eq!(mention.pattern.as_str(), r"\bDONE\b");
    assert_eq!(mention.from, [Speaker::Role(Role::Llm)]);
    assert_eq!(branches[2], Condition::MaxTurns(10));
}

#[test]
fn seed_003_example_runs() {
    let termination = (tool_called("send_summary") & confidence_met(0.9))
        | text_mention(r"\bDONE\b").unwrap()
        | max_iterations(10);
    let m = monitor(termination);
    // Confident first, then the summary is sent: `&` is latched, so the order does
    // not matter; it fires when the tool's result arrives.
    let messages = [
        Message::user("Summarise the report and send it"),
        Message::llm("I am sure of this summary.").with_confidence(0.95),
        Message::llm("").with_tool_call(ToolCall::new("send_summary", "{}").with_id("s")),
        Message::agent("sent").with_tool_call_id("s"),
    ];
    let (at, outcome) = first_stop(&m, &messages).unwrap();
    assert_eq!((at, outcome.kind), (3, VerdictKind::Done));
    // The sentinel: a word, in capitals, from the model.
    let messages = [
        Message::user("Say DONE when you are done"),
        Message::llm("still undone"),
        Message::llm("not done yet"),
        Message::llm("All DONE."),
    ];
    assert_eq!(first_stop(&m, &messages).map(|(i, _)| i), Some(3));
    // The safety cap.
    let chatter: Vec<Message> = (0..12).map(|i| Message::llm(format!("step {i}"))).collect();
    let (at, outcome) = first_stop(&m, &chatter).unwrap();
    assert_eq!((at, outcome.kind), (9, VerdictKind::Exhausted));
}

#[test]
fn each_constructor() {
    assert_eq!(max_iterations(8), Condition::MaxTurns(8));
    assert_eq!(token_limit(1000), Condition::tokens(1000));
    assert_eq!(
        time_limit(300.0).unwrap(),
        Condition::Timeout(Duration::from_secs(300))
    );
    assert_eq!(
        time_limit(0.25).unwrap(),
        Condition::Timeout(Duration::from_millis(250))
    );
    assert_eq!(no_tool_calls(), Condition::NoToolCalls);
    assert_eq!(
        tool_called("submit_order"),
        Condition::tool_executed("submit_order")
    );
    let Condition::Tool(tool) = tool_called_with("submit_order", json!({"id": 7})).unwrap() else {
        panic!()
    };
    assert_eq!(
        (tool.name.as_deref(), tool.phase, tool.args),
        (
            Some("submit_order"),
            ToolPhase::Executed,
            Some(json!({"id": 7}))
        )
    );
    let Condition::Confidence(c) = confidence_met(DEFAULT_CONFIDENCE) else {
        panic!()
    };
    assert_eq!(
        (c.threshold, c.min_steps, c.fallback_final),
        (0.9, 0, false)
    );
    assert_eq!(
        custom_condition("revenue_extracted", json!(null)),
        Condition::custom("revenue_extracted", json!(null))
    );
}

#[test]
fn text_mention_is_the_documented_regex() {
    // PEERS §2.4: locus's substring search never fires on its own `\bDONE\b` and fires
    // on "still undone" for `DONE`. The docs' regex, case-sensitive as written:
    let Condition::Text(mention) = text_mention(r"\bDONE\b").unwrap() else {
        panic!()
    };
    assert!(mention.pattern.is_match("All DONE."));
    assert!(!mention.pattern.is_match("still undone"));
    assert!(!mention.pattern.is_match("done"));
    let Condition::Text(mention) = text_mention_with("approved", false).unwrap() else {
        panic!()
    };
    assert_eq!(mention.pattern.as_str(), "(?i)approved");
    assert!(mention.pattern.is_match("APPROVED"));
    let Condition::Text(mention) = text_mention_with("approved", true).unwrap() else {
        panic!()
    };
    assert!(!mention.pattern.is_match("APPROVED"));
}

#[test]
fn constructor_errors() {
    for seconds in [-1.0, f64::NAN, f64::INFINITY, 1e30] {
        let err = time_limit(seconds).unwrap_err();
        assert!(matches!(err, CompatError::InvalidSeconds { .. }), "{err:?}");
    }
    assert_eq!(
        time_limit(-1.0).unwrap_err().to_string(),
        "time limit of -1 seconds: expected a finite, non-negative number"
    );
    for (args, found) in [
        (json!(["x"]), "an array"),
        (json!("x"), "a string"),
        (json!(1), "a number"),
        (json!(true), "a boolean"),
        (json!(null), "null"),
    ] {
        assert_eq!(
            tool_called_with("t", args),
            Err(CompatError::ArgsNotObject { found })
        );
    }
    for bad in ["", "(", "(?<=a)b"] {
        assert!(
            matches!(text_mention(bad), Err(CompatError::InvalidPattern { .. })),
            "{bad:?}"
        );
        assert!(text_mention_with(bad, false).is_err(), "{bad:?}");
    }
}

/// The first stop of a monitor with these task options (no stop condition).
fn reason(config: impl FnOnce(&mut TaskConfig), messages: &[Message]) -> &'static str {
    let mut task = TaskConfig::default();
    config(&mut task);
    let m = Monitor::new(task).unwrap();
    let (_, outcome) = first_stop(&m, messages).expect("a stop");
    locus_stop_reason(&outcome)
}

#[test]
fn stop_reasons_of_task_options() {
    let call = Message::llm("").with_tool_call(ToolCall::new("calc", "{}"));
    let cases = [
        (
            reason(|c| c.max_turns = Some(1), &[Message::user("a")]),
            "max_iterations",
        ),
        (
            reason(|c| c.done_if_tool = true, std::slice::from_ref(&call)),
            "terminal_tool",
        ),
        (
            reason(
                |c| *c = TaskConfig::from_dsl(["T, A"]).unwrap(),
                &[call, Message::agent("42")],
            ),
            "complete",
        ),
        (reason(|_| {}, &[Message::llm("DONE")]), "complete"),
        (
            reason(
                |c| c.done_if_response = vec![Role::Llm],
                &[Message::llm("a")],
            ),
            "complete",
        ),
        (
            reason(
                |c| c.done_if_no_response = vec![Role::Llm],
                &[Message::no_response(Role::Llm)],
            ),
            "complete",
        ),
        (
            reason(|c| c.single_round = true, &[Message::user("a")]),
            "complete",
        ),
    ];
    for (i, (got, expected)) in cases.into_iter().enumerate() {
        assert_eq!(got, expected, "case {i}");
    }
}

#[test]
fn stop_reasons_of_condition_texts() {
    use VerdictKind::{Cancelled, Done, Exhausted, Failed, Stuck};
    let cases = [
        ("max_turns(10)", Exhausted, "max_iterations"),
        ("tokens(1000)", Exhausted, "token_budget"),
        ("timeout(30s)", Exhausted, "time_budget"),
        ("tool(send_summary, executed)", Done, "terminal_tool"),
        (
            "confidence(0.9, min_steps=0, fallback_final=false)",
            Done,
            "confidence_met",
        ),
        ("no_tool_calls", Done, "no_tools"),
        ("loop", Stuck, "tool_loop"),
        ("loop(period=1, repeats=3, over=texts)", Stuck, "tool_loop"),
        ("consecutive_errors(3)", Failed, "error"),
        ("cancelled", Cancelled, "cancelled"),
        // `&`: the first operand's, deterministically (locus: by hash seed).
        (
            "tool(send_summary, executed) & confidence(0.9)",
            Done,
            "terminal_tool",
        ),
        (
            "confidence(0.9) & tool(send_summary)",
            Done,
            "confidence_met",
        ),
        (
            "(max_turns(3) & tokens(10)) & timeout(1s)",
            Exhausted,
            "max_iterations",
        ),
        // Everything else by kind.
        ("final", Done, "complete"),
        ("done_signal", Done, "complete"),
        ("seq(\"T[calc], A\")", Done, "complete"),
        ("text(\"\\bDONE\\b\")", Done, "complete"),
        ("reward(0.8)", Done, "complete"),
        ("reward(0.8)", Failed, "error"),
        ("custom(converged)", Done, "complete"),
        ("custom(budget_left)", Exhausted, "max_iterations"),
        ("custom(stalled)", Stuck, "tool_loop"),
        ("custom(broken)", Failed, "error"),
        ("custom(stopped)", Cancelled, "cancelled"),
        ("!final", Done, "complete"),
        ("final | max_turns(3)", Done, "complete"),
        ("", Done, "complete"),
    ];
    for (text, kind, expected) in cases {
        assert_eq!(
            condition_stop_reason(text, kind),
            expected,
            "{text} ({kind})"
        );
    }
}

/// Needs the expression language's `Display` (canonical condition texts); until it
/// is merged, a condition prints as its `Debug`.
#[test]
fn stop_reasons_of_stop_conditions() {
    let termination = (tool_called("send_summary") & confidence_met(0.9))
        | text_mention(r"\bDONE\b").unwrap()
        | max_iterations(3)
        | token_limit(100);
    let m = monitor(termination);
    let messages = [
        Message::llm("sure").with_confidence(0.95),
        Message::llm("").with_tool_call(ToolCall::new("send_summary", "{}").with_id("s")),
        Message::agent("sent").with_tool_call_id("s"),
    ];
    let (_, outcome) = first_stop(&m, &messages).unwrap();
    assert_eq!(locus_stop_reason(&outcome), "terminal_tool");
    let (_, outcome) = first_stop(&m, &[Message::llm("All DONE.")]).unwrap();
    assert_eq!(locus_stop_reason(&outcome), "complete");
    let chatter: Vec<Message> = (0..3).map(|i| Message::llm(format!("{i}"))).collect();
    let (_, outcome) = first_stop(&m, &chatter).unwrap();
    assert_eq!(locus_stop_reason(&outcome), "max_iterations");
}
