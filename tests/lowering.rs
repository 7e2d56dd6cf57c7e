//! One stop model: a task's options are lowered into conditions and evaluated with the
//! stop tree as one plan. These tests hold the plan to Langroid's order, written out
//! here directly (the rules one after the other, as Langroid's `done()` checks them,
//! and the naive matcher for the sequences), and check the new conditions that the
//! options became.

use doneseq::naive::NaiveMatcher;
use doneseq::stop::{Condition, ConditionId, TaskInput};
use doneseq::{
    AnswerSource, DoneSequence, Message, Monitor, Role, StopReason, TaskConfig, VerdictKind,
};
use proptest::prelude::*;

use crate::robustness::props::{pool_message as message, pool_sequence as sequence};

/// Whether `content` says `DONE` as a word (Langroid's signal, with doneseq's word
/// boundary).
fn says_done(content: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    content.match_indices("DONE").any(|(i, _)| {
        !content[..i].chars().next_back().is_some_and(word)
            && !content[i + 4..].chars().next().is_some_and(word)
    })
}

/// Whether `message`, after `steps` steps, is the task's input (written out apart from
/// the crate's rule): the user messages before the first step under `leading`, and
/// every message marked as input except under `steps`.
fn is_input(mode: TaskInput, message: &Message, steps: u64) -> bool {
    let leading = steps == 0 && message.role() == Role::User && !message.is_no_response();
    match (mode, message.input()) {
        (TaskInput::Steps, _) => false,
        (_, Some(mark)) => mark,
        (TaskInput::Marked, None) => false,
        (TaskInput::Leading, None) => leading,
    }
}

/// The first rule that ends the task at step `steps` (1-based), in Langroid's order.
fn langroid_reason(
    config: &TaskConfig,
    message: &Message,
    steps: u64,
    first_sequence: Option<usize>,
) -> Option<StopReason> {
    let empty = message.is_no_response();
    if config.done_if_tool
        && message.role() == Role::Llm
        && !empty
        && !message.tool_calls().is_empty()
    {
        return Some(StopReason::DoneIfTool);
    }
    if let Some(s) = first_sequence {
        return Some(StopReason::Sequence(s));
    }
    if config.recognize_string_signals && !empty && says_done(message.content()) {
        return Some(StopReason::StringSignal);
    }
    let role = message.role();
    if !empty && config.done_if_response.contains(&role) {
        return Some(StopReason::DoneIfResponse(role));
    }
    if empty && config.done_if_no_response.contains(&role) {
        return Some(StopReason::DoneIfNoResponse(role));
    }
    // Langroid's `turns`: 1, or 2 with `llm_delegate`; the loop ends once that many
    // steps are taken.
    if config.single_round && steps > u64::from(config.llm_delegate) {
        return Some(StopReason::SingleRound);
    }
    match config.max_turns {
        Some(max) if steps >= max => Some(StopReason::MaxTurns(max)),
        _ => None,
    }
}

fn roles() -> impl Strategy<Value = Vec<Role>> {
    prop::collection::vec(
        prop::sample::select(vec![Role::User, Role::Llm, Role::Agent]),
        0..3,
    )
}

fn options() -> impl Strategy<Value = (bool, Vec<Role>, Vec<Role>, bool, Option<u64>, bool)> {
    (
        prop::bool::weighted(0.2),
        roles(),
        roles(),
        prop::bool::weighted(0.05),
        prop::option::of(1..30u64),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// The lowered plan stops where Langroid's order stops, with the same reason and
    /// kind, and reports every sequence that matched.
    #[test]
    fn options_lower_to_langroids_order(
        sequences in prop::collection::vec(sequence(), 0..4),
        (done_if_tool, done_if_response, done_if_no_response, single_round, max_turns, signals) in options(),
        messages in prop::collection::vec(message(), 0..30),
        input in prop::sample::select(TaskInput::ALL.to_vec()),
        llm_delegate in any::<bool>(),
        marks in prop::collection::vec(prop::option::weighted(0.1, any::<bool>()), 30),
    ) {
        let mut config = TaskConfig::from_dsl(sequences.iter().map(ToString::to_string))?;
        config.done_if_tool = done_if_tool;
        config.done_if_response = done_if_response;
        config.done_if_no_response = done_if_no_response;
        config.single_round = single_round;
        config.llm_delegate = llm_delegate;
        config.max_turns = max_turns;
        config.recognize_string_signals = signals;
        config.input = input;
        let monitor = Monitor::new(config.clone())?;
        let mut run = monitor.start();
        let mut naive = NaiveMatcher::new(&sequences);
        let mut steps = 0;
        for (i, (m, mark)) in messages.iter().zip(&marks).enumerate() {
            let m = &match mark {
                Some(mark) => m.clone().with_input(*mark),
                None => m.clone(),
            };
            if m.role() == Role::System || is_input(input, m, steps) {
                // Langroid's `response_sequence` never holds the task's input.
                prop_assert!(!monitor.is_step(&run, m));
                prop_assert!(!monitor.observe(&mut run, m).is_stop());
                continue;
            }
            let matched = naive.observe(m);
            let verdict = monitor.observe(&mut run, m);
            steps += 1;
            let expected = langroid_reason(&config, m, steps, matched.first().copied());
            let outcome = verdict.outcome();
            prop_assert_eq!(outcome.map(|o| o.reason.clone()), expected.clone(), "message {}: {:?}", i, m);
            if let (Some(o), Some(reason)) = (outcome, expected) {
                let kind = match reason {
                    StopReason::MaxTurns(_) => VerdictKind::Exhausted,
                    _ => VerdictKind::Done,
                };
                prop_assert_eq!(o.kind, kind);
                let fired: Vec<usize> = o.fired.iter().map(|f| f.sequence).collect();
                prop_assert_eq!(&fired, &matched);
                // Every condition reported fired at this step, from an option.
                for c in &o.conditions {
                    prop_assert!(c.rule.is_some() && c.at == o.at, "{:?}", c);
                    prop_assert_eq!(monitor.condition(c.node).map(ToString::to_string), Some(c.text.to_string()));
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Every option and its twin condition agree: a task written with the options and
    /// the same task written as a stop tree (its lowered tree, without the options)
    /// stop at the same step, with the same kind and the same answer.
    #[test]
    fn options_and_their_twin_conditions_agree(
        sequences in prop::collection::vec(sequence(), 0..4),
        (done_if_tool, done_if_response, done_if_no_response, single_round, max_turns, signals) in options(),
        messages in prop::collection::vec(message(), 0..30),
        llm_delegate in any::<bool>(),
    ) {
        let mut options = TaskConfig::from_dsl(sequences.iter().map(ToString::to_string))?;
        options.llm_delegate = llm_delegate;
        options.done_if_tool = done_if_tool;
        options.done_if_response = done_if_response;
        options.done_if_no_response = done_if_no_response;
        options.single_round = single_round;
        options.max_turns = max_turns;
        options.recognize_string_signals = signals;
        let mut twins = TaskConfig::default();
        twins.recognize_string_signals = false;
        twins.stop = Some(options.lowered());
        let (a, b) = (Monitor::new(options)?, Monitor::new(twins)?);
        let (mut run_a, mut run_b) = (a.start(), b.start());
        for (i, m) in messages.iter().enumerate() {
            let (x, y) = (a.observe(&mut run_a, m), b.observe(&mut run_b, m));
            let summary = |v: &doneseq::Verdict| {
                v.outcome().map(|o| (o.at, o.kind, o.answer.clone()))
            };
            prop_assert_eq!(summary(&x), summary(&y), "message {}: {:?}", i, m);
            if x.is_stop() {
                break;
            }
        }
    }
}

fn stop_with(text: &str) -> Monitor {
    let mut config = TaskConfig::default();
    config.recognize_string_signals = false;
    config.stop = Some(text.parse().unwrap());
    Monitor::new(config).unwrap()
}

#[test]
fn the_options_print_as_their_conditions() {
    let mut config = TaskConfig::from_dsl(["T[calc], A", "L"]).unwrap();
    config.done_if_tool = true;
    config.done_if_response = vec![Role::Agent];
    config.done_if_no_response = vec![Role::Llm, Role::User];
    config.single_round = true;
    config.max_turns = Some(7);
    let lowered = config.lowered();
    assert_eq!(
        lowered.to_string(),
        r#"tool | seq("T[calc], A") | seq("L") | done_signal | response([agent]) | no_response([llm, user]) | single_round | max_turns(7) | cancelled"#
    );
    // The lowered tree is an ordinary condition: it parses back.
    assert_eq!(lowered.to_string().parse::<Condition>().unwrap(), lowered);
}

#[test]
fn response_fires_on_a_valid_response_from_its_speakers() {
    let monitor = stop_with("response([agent, @Critic])");
    let stops = |m: Message| monitor.observe(&mut monitor.start(), &m).is_stop();
    assert!(stops(Message::agent("42")));
    assert!(stops(Message::llm("fine").with_responder("Critic")));
    assert!(!stops(Message::llm("fine")));
    assert!(!stops(Message::no_response(Role::Agent)));
    let outcome = monitor
        .observe(&mut monitor.start(), &Message::agent("42"))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!(outcome.conditions[0].id, ConditionId::Response);
    assert_eq!(
        outcome.conditions[0].evidence.to_string(),
        "a valid agent response"
    );
    assert_eq!(outcome.answer.unwrap().text, "42");
}

#[test]
fn no_response_fires_on_a_step_without_a_valid_response() {
    let monitor = stop_with("no_response(llm)");
    let stops = |m: Message| monitor.observe(&mut monitor.start(), &m).is_stop();
    assert!(stops(Message::no_response(Role::Llm)));
    assert!(stops(Message::llm("PASS")));
    assert!(!stops(Message::llm("an answer")));
    assert!(!stops(Message::no_response(Role::Agent)));
}

#[test]
fn single_round_ends_at_the_first_step_as_done() {
    let monitor = stop_with("single_round");
    let mut run = monitor.start();
    // Neither a system message nor the task's input is a step.
    for m in [Message::system("be brief"), Message::user("hi")] {
        assert!(!monitor.observe(&mut run, &m).is_stop());
    }
    let outcome = monitor
        .observe(&mut run, &Message::llm("hello"))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!((outcome.at, outcome.kind), (0, VerdictKind::Done));
    assert_eq!(outcome.answer.unwrap().text, "hello");
    // With the LLM as controller, a round is its question and the reply.
    let monitor = stop_with("single_round(llm_delegate=true)");
    let mut run = monitor.start();
    let log = [
        Message::user("task"),
        Message::llm("which city?"),
        Message::user("Paris"),
    ];
    let stops: Vec<bool> = log
        .iter()
        .map(|m| monitor.observe(&mut run, m).is_stop())
        .collect();
    assert_eq!(stops, [false, false, true]);
}

#[test]
fn an_exhausted_option_gives_the_partial_answer() {
    let mut config = TaskConfig::default();
    config.max_turns = Some(3);
    let monitor = Monitor::new(config).unwrap();
    let mut run = monitor.start();
    let messages = [
        Message::user("plan a trip"), // the task's input, not a step
        Message::llm("first, the budget"),
        Message::user("go on"),
        Message::agent("a tool's result"),
    ];
    let outcome = messages
        .iter()
        .find_map(|m| monitor.observe(&mut run, m).outcome().cloned())
        .unwrap();
    assert_eq!(outcome.reason, StopReason::MaxTurns(3));
    assert_eq!(outcome.kind, VerdictKind::Exhausted);
    let answer = outcome.answer.unwrap();
    assert_eq!(
        (answer.text.as_str(), answer.source),
        ("first, the budget", AnswerSource::Partial)
    );
}

#[test]
fn the_new_conditions_read_back_from_every_form() {
    for text in [
        "response([llm, @Critic])",
        "no_response([user])",
        "single_round",
    ] {
        let condition: Condition = text.parse().unwrap();
        assert_eq!(condition.to_string(), text);
        let json = serde_json::to_string(&condition).unwrap();
        assert_eq!(
            serde_json::from_str::<Condition>(&json).unwrap(),
            condition,
            "{json}"
        );
    }
    // Langroid's option names are aliases, and one role may stand alone.
    let alias: Condition = r#"{"type": "done_if_response", "roles": "llm"}"#
        .parse::<serde_json::Value>()
        .map(|v| serde_json::from_value(v).unwrap())
        .unwrap();
    assert_eq!(alias, Condition::response([Role::Llm]));
    assert_eq!(
        "done_if_no_response(llm)".parse::<Condition>().unwrap(),
        Condition::no_response([Role::Llm])
    );
}

#[test]
fn an_empty_speaker_list_is_a_lint_error() {
    let findings = doneseq::stop::lint(
        &Condition::Response(Vec::new()),
        &doneseq::stop::LintOptions::default(),
    );
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].kind, doneseq::stop::LintKind::NoSpeaker);
}

#[test]
fn a_tasks_sequences_do_not_add_work_per_node() {
    // A thousand sequences are one test of the automaton in the plan: observing
    // reports only the ones that fired.
    let texts: Vec<String> = (0..1000).map(|i| format!("T[t{i}], A")).collect();
    let monitor = Monitor::new(TaskConfig::from_dsl(&texts).unwrap()).unwrap();
    let mut run = monitor.start();
    let call = Message::llm("").with_tool_call(doneseq::ToolCall::new("t500", "{}"));
    assert!(!monitor.observe(&mut run, &call).is_stop());
    let outcome = monitor
        .observe(&mut run, &Message::agent("ok"))
        .outcome()
        .cloned()
        .unwrap();
    assert_eq!(outcome.reason, StopReason::Sequence(500));
    assert_eq!(outcome.conditions.len(), 1);
    let _: &DoneSequence = &monitor.sequences()[500];
}
