//! Each built-in fires exactly at its edge (not one step before), and a new run
//! starts from zero.

use std::time::Duration;

use doneseq::stop::{
    Condition, ConfidenceMet, LoopDetection, LoopOver, RewardThreshold, Speaker, TaskInput,
    TextMention, TextPattern, TokenBudget, ToolCalled, ToolPhase,
};
use doneseq::{AnswerSource, Message, Role, ToolCall, Usage, VerdictKind};
use serde_json::json;

use super::support::{chatter, first_stop, first_stop_in, monitor, monitor_in, stops_at, timed};

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
    }
}

fn call(name: &str, args: &str) -> Message<'static> {
    Message::llm("").with_tool_call(ToolCall::new(name.to_owned(), args.to_owned()))
}

fn text(pattern: &str, from: Vec<Speaker>) -> Condition {
    Condition::Text(TextMention {
        pattern: TextPattern::new(pattern).unwrap(),
        from,
    })
}

/// A name, a condition, messages, the index of the first stop, and its kind.
type Case = (
    &'static str,
    Condition,
    Vec<Message<'static>>,
    Option<usize>,
    VerdictKind,
);

/// (condition, messages, index of the first stop, kind): every case fires at its
/// edge, again identically in a second run of the same monitor (nothing leaks), and
/// identically when the run is checkpointed (JSON) and resumed before every step.
#[test]
fn each_builtin_fires_at_its_edge_and_resets() {
    let tokens = |n| Message::llm("x").with_usage(usage(n, 0));
    let error = || Message::agent("").with_error("boom");
    let cases: Vec<Case> = vec![
        (
            "max_turns",
            Condition::max_turns(3),
            chatter(5),
            Some(2),
            VerdictKind::Exhausted,
        ),
        (
            "max_turns(1)",
            Condition::max_turns(1),
            chatter(2),
            Some(0),
            VerdictKind::Exhausted,
        ),
        (
            "tokens at the limit",
            Condition::tokens(100),
            vec![tokens(50), tokens(49), tokens(1), tokens(1)],
            Some(2),
            VerdictKind::Exhausted,
        ),
        (
            "tokens below",
            Condition::tokens(100),
            vec![tokens(50), tokens(49)],
            None,
            VerdictKind::Exhausted,
        ),
        (
            "input tokens",
            Condition::Tokens(TokenBudget::default().with_input(10)),
            vec![
                Message::llm("a").with_usage(usage(5, 100)),
                Message::llm("b").with_usage(usage(5, 0)),
            ],
            Some(1),
            VerdictKind::Exhausted,
        ),
        (
            "output tokens",
            Condition::Tokens(TokenBudget::default().with_output(10)),
            vec![
                Message::llm("a").with_usage(usage(100, 9)),
                Message::llm("b").with_usage(usage(0, 1)),
            ],
            Some(1),
            VerdictKind::Exhausted,
        ),
        (
            "consecutive errors reset by a success",
            Condition::consecutive_errors(2),
            vec![error(), Message::agent("ok"), error(), error()],
            Some(3),
            VerdictKind::Failed,
        ),
        (
            "tool requested",
            Condition::tool("calc"),
            vec![call("search", "{}"), call("calc", "{}")],
            Some(1),
            VerdictKind::Done,
        ),
        (
            "tool executed",
            Condition::tool_executed("calc"),
            vec![call("calc", "{}"), Message::agent("42")],
            Some(1),
            VerdictKind::Done,
        ),
        (
            "no tool calls",
            Condition::NoToolCalls,
            vec![
                call("calc", "{}"),
                Message::agent("42"),
                Message::no_response(Role::Llm),
                Message::llm("42"),
            ],
            Some(3),
            VerdictKind::Done,
        ),
        (
            "text",
            text(r"\bDONE\b", vec![]),
            vec![
                Message::llm("still undone"),
                Message::llm("done"),
                Message::llm("All DONE."),
            ],
            Some(2),
            VerdictKind::Done,
        ),
        (
            "final",
            Condition::Final,
            vec![Message::llm("thinking"), Message::llm("FINAL(42)")],
            Some(1),
            VerdictKind::Done,
        ),
        (
            "done signal",
            Condition::DoneSignal,
            vec![Message::llm("UNDONE"), Message::llm("DONE: 42")],
            Some(1),
            VerdictKind::Done,
        ),
        (
            "confidence after min steps",
            Condition::confidence(0.85),
            vec![
                Message::llm("a").with_confidence(0.99),
                Message::llm("b").with_confidence(0.99),
                Message::llm("c").with_confidence(0.84),
                Message::llm("d").with_confidence(0.85),
            ],
            Some(3),
            VerdictKind::Done,
        ),
        (
            "reward threshold",
            Condition::reward(0.8),
            vec![
                Message::agent("a").with_reward(0.4),
                Message::agent("b"),
                Message::agent("c").with_reward(0.4),
            ],
            Some(2),
            VerdictKind::Done,
        ),
        (
            "negative reward streak",
            Condition::reward(10.0),
            vec![
                Message::agent("a").with_reward(-1.0),
                Message::agent("b").with_reward(-1.0),
                Message::agent("c").with_reward(0.0),
                Message::agent("d").with_reward(-1.0),
                Message::agent("e").with_reward(-1.0),
                Message::agent("f"),
                Message::agent("g").with_reward(-1.0),
            ],
            Some(6),
            VerdictKind::Failed,
        ),
        (
            "loop of period 1",
            Condition::loop_detection(),
            vec![
                Message::llm("a"),
                Message::llm("same"),
                Message::llm("same"),
                Message::llm("same"),
            ],
            Some(3),
            VerdictKind::Stuck,
        ),
        (
            "sequence",
            Condition::sequence(crate::util::seq("T[calc], A")),
            vec![
                call("calc", "{}"),
                Message::user("?"),
                call("calc", "{}"),
                Message::agent("42"),
            ],
            Some(3),
            VerdictKind::Done,
        ),
        (
            "custom convergence",
            Condition::custom("convergence", json!({"window_size": 2, "min_steps": 0})),
            vec![Message::llm("41"), Message::llm("42"), Message::llm("42")],
            Some(2),
            VerdictKind::Done,
        ),
    ];
    for (name, condition, messages, expected, kind) in cases {
        let monitor = monitor(condition);
        for attempt in 0..2 {
            let got = first_stop(&monitor, &messages);
            assert_eq!(
                got.as_ref().map(|(i, _)| *i),
                expected,
                "{name} (run {attempt})"
            );
            if let Some((_, outcome)) = got {
                assert_eq!(outcome.kind, kind, "{name}");
                assert!(
                    !outcome.conditions.is_empty(),
                    "{name}: what fired is reported"
                );
            }
        }
        // Checkpointed and resumed before every step: the same first stop.
        let mut run = monitor.start();
        let mut resumed = None;
        for (i, message) in messages.iter().enumerate() {
            let json = serde_json::to_string(&run).unwrap();
            run = monitor
                .resume(serde_json::from_str(&json).unwrap())
                .unwrap();
            if monitor.observe(&mut run, message).is_stop() {
                resumed = Some(i);
                break;
            }
        }
        assert_eq!(resumed, expected, "{name} through checkpoints");
    }
}

#[test]
fn timeout_fires_at_the_limit_by_the_clock_or_the_messages_time() {
    let (monitor, clock) = timed(Condition::timeout(Duration::from_secs(10)));
    let mut run = monitor.start();
    clock.advance(Duration::from_secs(5));
    assert!(!monitor.observe(&mut run, &Message::llm("a")).is_stop());
    clock.advance(Duration::from_millis(4999));
    assert!(!monitor.observe(&mut run, &Message::llm("b")).is_stop());
    clock.advance(Duration::from_millis(1));
    let outcome = monitor
        .observe(&mut run, &Message::llm("c"))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!(outcome.kind, VerdictKind::Exhausted);
    assert_eq!(
        outcome.conditions[0].evidence.to_string(),
        "elapsed 10s of 10s (100%)"
    );

    // A new run starts its own clock.
    let mut second = monitor.start();
    assert!(!monitor.observe(&mut second, &Message::llm("a")).is_stop());

    // A recorded time wins over the clock, so a replay times out where the run did.
    let mut replay = monitor.start();
    let at = |s| Message::llm("x").with_elapsed(Duration::from_secs(s));
    assert!(!monitor.observe(&mut replay, &at(9)).is_stop());
    assert!(monitor.observe(&mut replay, &at(10)).is_stop());
}

#[test]
fn time_suspended_in_a_checkpoint_is_not_counted() {
    let (monitor, clock) = timed(Condition::timeout(Duration::from_secs(10)));
    let mut run = monitor.start();
    clock.advance(Duration::from_secs(6));
    assert!(!monitor.observe(&mut run, &Message::llm("a")).is_stop());
    let saved = serde_json::to_string(&run).unwrap();
    clock.advance(Duration::from_secs(3600));
    let mut run = monitor
        .resume(serde_json::from_str(&saved).unwrap())
        .unwrap();
    clock.advance(Duration::from_secs(3));
    assert!(!monitor.observe(&mut run, &Message::llm("b")).is_stop());
    assert_eq!(run.stats().elapsed_ms, 9000);
    clock.advance(Duration::from_secs(1));
    assert!(monitor.observe(&mut run, &Message::llm("c")).is_stop());
}

#[test]
fn tool_executed_follows_call_ids_and_ignores_failed_results() {
    let monitor = monitor(Condition::tool_executed("calc"));
    let request = Message::llm("")
        .with_tool_call(ToolCall::new("search", "{}").with_id("s1"))
        .with_tool_call(ToolCall::new("calc", "{}").with_id("c1"));
    let messages = [
        request,
        Message::agent("found").with_tool_call_id("s1"),
        Message::agent("")
            .with_error("division by zero")
            .with_tool_call_id("c1"),
    ];
    assert_eq!(
        stops_at(&monitor, &messages),
        None,
        "search's result and a failed calc"
    );
    let messages = [
        Message::llm("").with_tool_call(ToolCall::new("calc", "{}").with_id("c1")),
        Message::agent("found").with_tool_call_id("zz"),
        Message::agent("42").with_tool_call_id("c1"),
    ];
    assert_eq!(stops_at(&monitor, &messages), Some(2));
    // A result after a new LLM message no longer answers the old request.
    let messages = [
        call("calc", "{}"),
        Message::llm("never mind"),
        Message::agent("42"),
    ];
    assert_eq!(stops_at(&monitor, &messages), None);
}

#[test]
fn tool_arguments_predicate_is_a_json_subset() {
    let condition = Condition::Tool(ToolCalled {
        name: Some("search".into()),
        phase: ToolPhase::Requested,
        args: Some(json!({"query": "weather", "opts": {"n": 1}})),
    });
    let monitor = monitor(condition);
    let cases = [
        (
            r#"{"query": "weather", "opts": {"n": 1.0, "x": 2}, "extra": true}"#,
            true,
        ),
        (r#"{"query": "weather", "opts": {"n": 2}}"#, false),
        (r#"{"query": "weather"}"#, false),
        ("not json", false),
    ];
    for (args, fires) in cases {
        assert_eq!(
            stops_at(&monitor, &[call("search", args)]).is_some(),
            fires,
            "{args}"
        );
    }
}

#[test]
fn text_from_speakers_ignores_the_task_and_other_agents() {
    // AutoGen #6826: the task's own text quoted the stop word and ended the run.
    let condition = text(
        "APPROVE",
        vec![
            Speaker::Role(Role::Llm),
            Speaker::Responder("Critic".into()),
        ],
    );
    let monitor = monitor(condition);
    let messages = [
        Message::user("Reply APPROVE when done"),
        Message::agent("APPROVE").with_responder("Writer"),
        Message::agent("APPROVE").with_responder("Critic"),
    ];
    let (at, outcome) = first_stop(&monitor, &messages).unwrap();
    assert_eq!(at, 2);
    assert_eq!(
        outcome.conditions[0].evidence.to_string(),
        "\"APPROVE\" matched in a agent message"
    );
    assert_eq!(
        stops_at(&monitor, &[Message::llm("approve")]),
        None,
        "case-sensitive"
    );
}

#[test]
fn confidence_reads_a_metric_and_falls_back_to_final() {
    let condition = Condition::Confidence(ConfidenceMet {
        key: "score".into(),
        min_steps: 0,
        ..ConfidenceMet::new(0.9)
    });
    let monitor = monitor(condition);
    let messages = [
        Message::llm("a").with_confidence(0.99),
        Message::llm("b").with_metric("score", 0.95),
    ];
    assert_eq!(
        stops_at(&monitor, &messages),
        Some(1),
        "the key names the metric"
    );
    let messages = [Message::llm("I think FINAL('42')").with_metric("score", 0.1)];
    let (_, outcome) = first_stop(&monitor, &messages).unwrap();
    assert_eq!(outcome.answer.unwrap().text, "42");
    let no_fallback = monitor_without_fallback();
    assert_eq!(stops_at(&no_fallback, &messages), None);
}

fn monitor_without_fallback() -> doneseq::Monitor {
    monitor(Condition::Confidence(ConfidenceMet {
        fallback_final: false,
        min_steps: 0,
        ..ConfidenceMet::default()
    }))
}

#[test]
fn reward_can_require_a_final_answer() {
    let monitor = monitor(Condition::Reward(RewardThreshold {
        require_final: true,
        ..RewardThreshold::new(0.5)
    }));
    let messages = [
        Message::llm("progress").with_reward(0.6),
        Message::llm("more").with_reward(0.1),
        Message::llm("FINAL(7)").with_reward(0.0),
    ];
    let (at, outcome) = first_stop(&monitor, &messages).unwrap();
    assert_eq!(at, 2);
    assert_eq!(outcome.answer.unwrap().text, "7");
}

#[test]
fn loops_of_any_period_over_normalised_calls() {
    let monitor = monitor(Condition::loop_detection());
    // A B C repeated three times: stuck at the ninth step, not before.
    let cycle: Vec<Message> = (0..9)
        .map(|i| call(["a", "b", "c"][i % 3], r#"{"x": 1, "y": 2}"#))
        .collect();
    assert_eq!(stops_at(&monitor, &cycle), Some(8));
    // The same call with reordered keys and spacing is the same call; the results
    // are the same too: call, result, call, result, call, result.
    let same = [
        call("get", r#"{"a": 1, "b": 2}"#),
        Message::agent("nothing"),
        call("get", r#"{ "b":2,"a":1 }"#),
        Message::agent("nothing"),
        call("get", r#"{"b": 2, "a": 1}"#),
        Message::agent("nothing"),
    ];
    let (at, outcome) = first_stop(&monitor, &same).unwrap();
    assert_eq!(at, 5);
    assert_eq!(outcome.kind, VerdictKind::Stuck);
    // Different results each time are progress.
    let progress: Vec<Message> = (0..12)
        .flat_map(|i| [call("get", "{}"), Message::agent(format!("page {i}"))])
        .collect();
    assert_eq!(stops_at(&monitor, &progress), None);
    // A polling tool that is exempt never counts.
    let polling = monitor_with(LoopDetection {
        exempt: vec!["poll".into()],
        ..LoopDetection::default()
    });
    let polls: Vec<Message> = (0..10)
        .flat_map(|_| [call("poll", "{}"), Message::agent("pending")])
        .collect();
    assert_eq!(stops_at(&polling, &polls), None);
    // Over texts only, tool calls are left out.
    let texts = monitor_with(LoopDetection {
        over: LoopOver::Texts,
        period: 1,
        repeats: 2,
        ..LoopDetection::default()
    });
    assert_eq!(
        stops_at(
            &texts,
            &[Message::llm("hi"), call("x", "{}"), Message::llm(" hi\n")]
        ),
        Some(2)
    );
}

fn monitor_with(l: LoopDetection) -> doneseq::Monitor {
    monitor(Condition::Loop(l))
}

#[test]
fn cancel_stops_the_next_step_even_without_a_cancelled_condition() {
    let monitor = monitor(Condition::max_turns(100));
    let mut run = monitor.start();
    assert!(
        !monitor
            .observe(&mut run, &Message::llm("thinking"))
            .is_stop()
    );
    run.cancel_handle().cancel();
    let outcome = monitor
        .observe(&mut run, &Message::agent("result"))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!(outcome.kind, VerdictKind::Cancelled);
    let answer = outcome.answer.unwrap();
    assert_eq!(
        (answer.text.as_str(), answer.source),
        ("thinking", AnswerSource::Partial)
    );
    // Another run of the same monitor is not cancelled.
    let mut other = monitor.start();
    assert!(!monitor.observe(&mut other, &Message::llm("x")).is_stop());
    // With `cancelled` in the tree, the report is that condition.
    let monitor = super::support::monitor(Condition::Cancelled | Condition::max_turns(100));
    let mut run = monitor.start();
    run.cancel_handle().cancel();
    let outcome = monitor
        .observe(&mut run, &Message::llm("x"))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!(outcome.conditions.len(), 1);
    assert_eq!(outcome.conditions[0].path, [0]);
}

#[test]
fn an_error_is_never_the_answer() {
    let monitor = monitor(Condition::consecutive_errors(1));
    let (_, outcome) = first_stop(
        &monitor,
        &[
            Message::llm("working on it"),
            Message::llm("").with_error("rate limited"),
        ],
    )
    .unwrap();
    assert_eq!(outcome.kind, VerdictKind::Failed);
    let answer = outcome.answer.unwrap();
    assert_eq!(answer.source, AnswerSource::Partial);
    assert_eq!(answer.text, "working on it");
    let (_, outcome) = first_stop(&monitor, &[Message::agent("").with_error("boom")]).unwrap();
    assert_eq!(outcome.answer, None);
}

#[test]
fn stats_count_once_per_step() {
    // rlm-code's reward policy double-counts when evaluated twice; here a step is
    // observed once and `explain_stop` only reads.
    let monitor = monitor(Condition::reward(0.8));
    let mut run = monitor.start();
    assert!(first_stop_in(&monitor, &mut run, &[Message::agent("a").with_reward(0.5)]).is_none());
    for _ in 0..3 {
        let _ = monitor.explain_stop(&run);
    }
    assert_eq!(run.stats().reward, 0.5);
}

/// `max_model_calls` counts model responses only (awaken's rounds, locus's
/// iterations): not tool results, user messages, or a model step without a response.
#[test]
fn max_model_calls_counts_model_responses() {
    let call = Message::llm("").with_tool_call(ToolCall::new("search", "{}"));
    let messages = [
        Message::user("Find it"),
        call.clone(),
        Message::agent("results"),
        Message::no_response(Role::Llm),
        call,
        Message::agent("more results"),
        Message::llm("Here it is."),
    ];
    let calls = monitor(Condition::max_model_calls(3));
    let (at, outcome) = first_stop(&calls, &messages).unwrap();
    assert_eq!((at, outcome.kind), (6, VerdictKind::Exhausted));
    assert_eq!(
        outcome.conditions[0].evidence.to_string(),
        "model calls 3/3"
    );
    // max_turns counts every step (the question is the task's input, not a step).
    assert_eq!(
        stops_at(&monitor(Condition::max_turns(3)), &messages),
        Some(3)
    );
}

/// AutoGen's message kinds and its message count.
#[test]
fn autogens_message_kinds_and_count() {
    let call = Message::llm("").with_tool_call(ToolCall::new("search", "{}"));
    let messages = [
        Message::user("Find it"),
        call,
        Message::agent("results"),
        Message::llm("Here it is."),
        Message::llm("TERMINATE").as_stop(),
    ];
    // AutoGen's counting (the task message is a message like any other): chat
    // messages, the task's and the replies, not the call and its result.
    let autogen = |c: Condition| monitor_in(c, TaskInput::Steps);
    let (at, outcome) = first_stop(&autogen(Condition::max_messages(2)), &messages).unwrap();
    assert_eq!((at, outcome.kind), (3, VerdictKind::Exhausted));
    assert_eq!(outcome.conditions[0].evidence.to_string(), "messages 2/2");
    let all = Condition::parse("max_messages(2, events=true)").unwrap();
    assert_eq!(stops_at(&autogen(all.clone()), &messages), Some(1));
    // By default the task's input is not counted: one message later.
    assert_eq!(
        stops_at(&monitor(Condition::max_messages(2)), &messages),
        Some(4)
    );
    assert_eq!(stops_at(&monitor(all), &messages), Some(2));
    // A stop message.
    let (at, outcome) = first_stop(&monitor(Condition::StopMessage), &messages).unwrap();
    assert_eq!((at, outcome.kind), (4, VerdictKind::Done));
    // Handoffs, to a named agent or any.
    let handoffs = [
        Message::llm("over to Bob").with_handoff("bob"),
        Message::llm("over to you").with_handoff("user"),
    ];
    let to_user = Condition::parse("handoff(user)").unwrap();
    let (at, outcome) = first_stop(&monitor(to_user), &handoffs).unwrap();
    assert_eq!(at, 1);
    assert_eq!(
        outcome.conditions[0].evidence.to_string(),
        "handoff to user"
    );
    assert_eq!(
        stops_at(&monitor(Condition::parse("handoff").unwrap()), &handoffs),
        Some(0)
    );
}

/// `executed` skips a failed result (the call did not do the job); `finished` counts
/// it, as AutoGen's `FunctionCallTermination` does.
#[test]
fn a_failed_result_counts_as_finished_not_executed() {
    let messages = [
        Message::llm("").with_tool_call(ToolCall::new("deploy", "{}").with_id("d1")),
        Message::agent("permission denied")
            .with_tool_call_id("d1")
            .with_error("permission denied"),
    ];
    let executed = Condition::parse("tool(deploy, executed)").unwrap();
    assert_eq!(stops_at(&monitor(executed), &messages), None);
    let finished = Condition::parse("tool(deploy, finished)").unwrap();
    assert_eq!(stops_at(&monitor(finished), &messages), Some(1));
}

/// A result that names its tool counts for `tool(x, executed)` though its request is
/// not in view (a log that starts mid-run, AutoGen's results).
#[test]
fn a_result_that_names_its_tool_is_attributable() {
    let result = Message::agent("42").with_tool_name("calculator");
    let executed = monitor(Condition::parse("tool(calculator, executed)").unwrap());
    assert_eq!(stops_at(&executed, std::slice::from_ref(&result)), Some(0));
    let other = monitor(Condition::parse("tool(search, executed)").unwrap());
    assert_eq!(stops_at(&other, std::slice::from_ref(&result)), None);
    // An argument predicate needs the request.
    let with_args = Condition::parse(r#"tool(calculator, executed, args={"x": 1})"#).unwrap();
    assert_eq!(stops_at(&monitor(with_args), &[result]), None);
}
