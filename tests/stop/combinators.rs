//! `&` (latched), `|`, `!`, precedence of kinds, and what is reported.

use doneseq::stop::{Condition, TaskInput};
use doneseq::{Message, StopReason, ToolCall, VerdictKind};

use super::support::{chatter, first_stop, monitor, monitor_in, stops_at};

fn call(name: &str) -> Message<'_> {
    Message::llm("").with_tool_call(ToolCall::new(name, "{}"))
}

#[test]
fn all_is_latched_across_steps() {
    let monitor = monitor(Condition::tool("send_summary") & Condition::NoToolCalls);
    let messages = [
        call("send_summary"),
        Message::agent("sent"),
        Message::llm("Summary sent."),
    ];
    let (at, outcome) = first_stop(&monitor, &messages).unwrap();
    assert_eq!(at, 2);
    let steps: Vec<u64> = outcome.conditions.iter().map(|c| c.at).collect();
    assert_eq!(steps, [0, 2], "each child with the step it fired at");
    assert_eq!(outcome.conditions[0].path, [0]);
    // A new run starts unlatched.
    assert_eq!(stops_at(&monitor, &messages[1..]), None);
}

#[test]
fn empty_all_and_any_never_fire() {
    for c in [Condition::All(vec![]), Condition::Any(vec![])] {
        assert_eq!(stops_at(&monitor(c), &chatter(5)), None);
    }
}

#[test]
fn not_fires_when_its_child_does_not() {
    let monitor = monitor(Condition::NoToolCalls & !Condition::max_turns(2));
    // `!max_turns(2)` fires (and latches) at step 0, `no_tool_calls` at step 1.
    assert_eq!(
        stops_at(&monitor, &[call("x"), Message::llm("text")]),
        Some(1)
    );
    let not_only = super::support::monitor(!Condition::NoToolCalls);
    let (at, outcome) = first_stop(&not_only, &[Message::llm("a"), call("x")]).unwrap();
    assert_eq!(at, 1);
    assert_eq!(
        outcome.conditions[0].evidence.to_string(),
        "its condition did not fire"
    );
}

#[test]
fn every_condition_that_fires_is_reported_and_precedence_picks_the_kind() {
    let monitor = monitor(
        Condition::max_turns(2) | Condition::NoToolCalls | Condition::consecutive_errors(1),
    );
    // Step 1: max_turns (Exhausted) and no_tool_calls (Done) fire: Done wins.
    let (at, outcome) = first_stop(&monitor, &[call("x"), Message::llm("42")]).unwrap();
    assert_eq!(at, 1);
    assert_eq!(outcome.kind, VerdictKind::Done);
    assert_eq!(outcome.conditions.len(), 2);
    assert_eq!(outcome.answer.unwrap().text, "42");
    // Step 1 with an error: Failed wins over Exhausted.
    let (_, outcome) = first_stop(
        &monitor,
        &[call("x"), Message::agent("").with_error("boom")],
    )
    .unwrap();
    assert_eq!(outcome.kind, VerdictKind::Failed);
    let kinds: Vec<VerdictKind> = outcome.conditions.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [VerdictKind::Exhausted, VerdictKind::Failed]);
    assert!(matches!(outcome.reason, StopReason::Condition(_)));
}

#[test]
fn langroid_rules_and_the_tree_combine() {
    let mut config = doneseq::TaskConfig::from_dsl(["T[calc], A"]).unwrap();
    config.stop = Some(Condition::max_turns(2));
    let monitor = doneseq::Monitor::new(config).unwrap();
    let (at, outcome) = first_stop(&monitor, &[call("calc"), Message::agent("42")]).unwrap();
    assert_eq!(at, 1);
    assert_eq!(outcome.kind, VerdictKind::Done);
    assert_eq!(outcome.reason, StopReason::Sequence(0));
    // One model: the task's sequence and the tree's max_turns both fired, each
    // reported with its node; the sequence's rule leads (Done beats Exhausted).
    let texts: Vec<&str> = outcome.conditions.iter().map(|c| &*c.text).collect();
    assert_eq!(texts, [r#"seq("T[calc], A")"#, "max_turns(2)"]);
    assert_eq!(outcome.conditions[0].rule, Some(StopReason::Sequence(0)));
    assert_eq!(outcome.conditions[1].rule, None);
    assert_eq!(outcome.conditions[1].path, Vec::<usize>::new());
    assert_eq!(outcome.fired.len(), 1);
}

#[test]
fn sequences_in_the_tree_share_the_automaton_but_not_the_task_list() {
    let mut config = doneseq::TaskConfig::from_dsl(["T[calc], A"]).unwrap();
    config.stop = Some(Condition::sequence(crate::util::seq("L")));
    let monitor = doneseq::Monitor::new(config).unwrap();
    let mut run = monitor.start();
    let outcome = monitor
        .observe(&mut run, &Message::llm("hi"))
        .outcome()
        .cloned()
        .unwrap();
    assert!(
        outcome.fired.is_empty(),
        "the tree's sequence is not a task sequence"
    );
    assert_eq!(
        outcome.conditions[0].evidence.to_string(),
        "matched steps 0..=0"
    );
    assert_eq!(monitor.explain(&run).len(), 1);
    assert_eq!(monitor.sequences().len(), 1);
}

#[test]
fn explain_says_how_close_every_condition_is() {
    let monitor = monitor(
        Condition::sequence(crate::util::seq("T[calc], A"))
            | (Condition::tokens(1000) & Condition::max_turns(10)),
    );
    let mut run = monitor.start();
    let usage = doneseq::Usage {
        input_tokens: 700,
        output_tokens: 110,
    };
    for m in [Message::llm("a").with_usage(usage), call("calc")] {
        monitor.observe(&mut run, &m);
    }
    let report = monitor.explain_stop(&run).unwrap();
    assert_eq!(report.children[0].progress, "sequence 1 of 2");
    let all = &report.children[1];
    assert_eq!(all.progress, "0 of 2 fired");
    assert_eq!(all.children[0].progress, "tokens 81% (810/1000 total)");
    assert_eq!(all.children[1].progress, "turns 2/10");
    assert!(!report.fired);
    let text = report.to_string();
    assert_eq!(text.lines().count(), 5, "{text}");
}

/// A negation has no kind of its own: it does not lend a conjunction its kind, and a
/// stop that fires only through negations is `exhausted`, with the partial answer,
/// never `done` with the user's question as the answer.
#[test]
fn a_negation_lends_no_kind() {
    let messages = [
        Message::user("What is the capital of France?"),
        Message::llm("Let me look it up."),
        Message::llm("Still looking."),
    ];
    // The question is the task's input: the two model messages are the two turns.
    let m = monitor(Condition::parse("max_turns(2) & !final").unwrap());
    let (at, outcome) = first_stop(&m, &messages).unwrap();
    assert_eq!((at, outcome.kind), (2, VerdictKind::Exhausted));
    assert_eq!(outcome.answer.unwrap().text, "Still looking.");

    let never_final = Condition::parse("!final").unwrap();
    let (at, outcome) = first_stop(&monitor(never_final.clone()), &messages).unwrap();
    assert_eq!((at, outcome.kind), (1, VerdictKind::Exhausted));
    assert_eq!(outcome.answer.unwrap().text, "Let me look it up.");
    // With the question a step, it stops there: no model text yet, so no answer, and
    // never the user's question.
    let m = monitor_in(never_final, TaskInput::Steps);
    let (at, outcome) = first_stop(&m, &messages).unwrap();
    assert_eq!((at, outcome.kind), (0, VerdictKind::Exhausted));
    assert_eq!(outcome.answer, None);

    // With a condition of a kind, that kind decides.
    let m = monitor(Condition::parse("no_tool_calls & !final").unwrap());
    let (at, outcome) = first_stop(&m, &messages).unwrap();
    assert_eq!((at, outcome.kind), (1, VerdictKind::Done));
}
