//! The task's input is not a step: which leading messages are the input under each
//! mode, what marks do, and that the input is invisible to every rule.

use doneseq::stop::{Condition, TaskInput};
use doneseq::transcript::{Format, Reader};
use doneseq::{Message, Monitor, Role, StopReason, TaskConfig, Verdict, VerdictKind};
use proptest::prelude::*;

use crate::robustness::props::{pool_message, pool_sequence};

fn monitor(input: TaskInput, sequences: &[&str]) -> Monitor {
    let mut config = TaskConfig::from_dsl(sequences).unwrap();
    config.recognize_string_signals = false;
    config.input = input;
    Monitor::new(config).unwrap()
}

/// Which messages are steps, in order (`is_step` asked before each is observed).
fn steps(monitor: &Monitor, messages: &[Message]) -> Vec<bool> {
    let mut run = monitor.start();
    messages
        .iter()
        .map(|m| {
            let step = monitor.is_step(&run, m);
            let before = run.steps();
            monitor.observe(&mut run, m);
            assert_eq!(run.steps() - before, u64::from(step), "{m:?}");
            step
        })
        .collect()
}

#[test]
fn leading_user_messages_are_the_input_under_each_mode() {
    let log = [
        Message::system("Be brief."),
        Message::user("Here is a file."),
        Message::system("(a reminder)"),
        Message::user("What is in it?"),
        Message::llm("A list."),
        Message::user("Thanks."),
    ];
    assert_eq!(
        steps(&monitor(TaskInput::Leading, &["U"]), &log),
        [false, false, false, false, true, true]
    );
    assert_eq!(
        steps(&monitor(TaskInput::Marked, &["U"]), &log),
        [false, true, false, true, true, true]
    );
    assert_eq!(
        steps(&monitor(TaskInput::Steps, &["U"]), &log),
        [false, true, false, true, true, true]
    );
}

#[test]
fn the_input_matches_nothing_and_a_later_user_message_does() {
    let log = [
        Message::user("quit"),
        Message::llm("Hello."),
        Message::user("quit"),
    ];
    let run_at = |input| {
        let m = monitor(input, &["U", "C[quit]"]);
        let mut run = m.start();
        log.iter()
            .enumerate()
            .find_map(|(i, msg)| m.observe(&mut run, msg).outcome().map(|o| (i, o.at)))
    };
    // Langroid's meaning: the user's own message ends nothing; their reply does.
    assert_eq!(run_at(TaskInput::Leading), Some((2, 1)));
    assert_eq!(run_at(TaskInput::Steps), Some((0, 0)));
}

#[test]
fn a_step_without_a_response_is_never_input() {
    let m = monitor(TaskInput::Leading, &["N"]);
    let mut run = m.start();
    let verdict = m.observe(&mut run, &Message::no_response(Role::User));
    assert_eq!(verdict.outcome().map(|o| o.at), Some(0));
}

#[test]
fn marks_decide_wherever_the_message_is_except_under_steps() {
    let log = [
        Message::user("a step, though it leads").with_input(false),
        Message::llm("earlier context").with_input(true),
        Message::llm("reply"),
        Message::user("more context, mid-run").with_input(true),
    ];
    assert_eq!(
        steps(&monitor(TaskInput::Leading, &["L"]), &log),
        [true, false, true, false]
    );
    assert_eq!(
        steps(&monitor(TaskInput::Marked, &["L"]), &log),
        [true, false, true, false]
    );
    assert_eq!(
        steps(&monitor(TaskInput::Steps, &["L"]), &log),
        [true, true, true, true]
    );
}

#[test]
fn no_condition_sees_the_input() {
    // Tokens, text, errors and the cancel handle all wait for the first step.
    let mut config = TaskConfig::default();
    config.stop = Some(
        "tokens(10) | text(\"secret\") | consecutive_errors(1) | max_messages(1)"
            .parse::<Condition>()
            .unwrap(),
    );
    let m = Monitor::new(config).unwrap();
    let mut run = m.start();
    let handle = run.cancel_handle();
    handle.cancel();
    let input = Message::user("the secret is out")
        .with_usage(doneseq::Usage {
            input_tokens: 100,
            output_tokens: 100,
        })
        .with_error("bad input");
    assert_eq!(m.observe(&mut run, &input), Verdict::Continue);
    assert_eq!(run.stats().input_tokens, 0);
    let outcome = m.observe(&mut run, &Message::llm("ok")).outcome().cloned();
    assert_eq!(
        outcome.map(|o| (o.at, o.kind)),
        Some((0, VerdictKind::Cancelled))
    );
}

#[test]
fn single_round_ends_one_round_after_the_input() {
    let log = [
        Message::system("Be brief."),
        Message::user("What is 6 x 7?"),
        Message::llm("Which base?"),
        Message::user("Ten."),
    ];
    let mut config = TaskConfig::default();
    config.single_round = true;
    let stop = |config: &TaskConfig| {
        let m = Monitor::new(config.clone()).unwrap();
        let replay = m.replay(&log);
        let at = replay.steps.iter().position(|s| s.verdict.is_stop());
        (at, replay.outcome.and_then(|o| o.answer).map(|a| a.text))
    };
    assert_eq!(stop(&config), (Some(2), Some("Which base?".to_owned())));
    // The LLM as controller: its question, then the user's reply.
    config.llm_delegate = true;
    assert_eq!(stop(&config), (Some(3), Some("Ten.".to_owned())));
    let m = Monitor::new(config).unwrap();
    assert_eq!(
        m.replay(&log).outcome.map(|o| o.reason),
        Some(StopReason::SingleRound)
    );
}

#[test]
fn transcripts_mark_the_input() {
    let text = r#"{"role": "user", "content": "a step", "input": false}
{"role": "assistant", "content": "context", "input": true}
{"role": "assistant", "content": "reply"}
"#;
    let messages: Vec<Message> = Reader::new(text.as_bytes(), Format::Jsonl)
        .map(Result::unwrap)
        .collect();
    let marks: Vec<Option<bool>> = messages.iter().map(Message::input).collect();
    assert_eq!(marks, [Some(false), Some(true), None]);
    let bad = r#"{"role": "user", "content": "q", "input": "yes"}"#;
    let err = Reader::new(bad.as_bytes(), Format::Jsonl)
        .next()
        .unwrap()
        .unwrap_err();
    assert!(err.to_string().contains("line 1"), "{err}");
    assert!(err.to_string().contains("expected a boolean"), "{err}");
}

#[test]
fn the_mode_reads_from_every_configuration_form_and_refuses_others() {
    let config: TaskConfig = serde_json::from_str(r#"{"input": "marked"}"#).unwrap();
    assert_eq!(config.input, TaskInput::Marked);
    let config: TaskConfig = toml::from_str("input = \"steps\"\nllm_delegate = true").unwrap();
    assert_eq!(
        (config.input, config.llm_delegate),
        (TaskInput::Steps, true)
    );
    let back: TaskConfig = serde_json::from_value(serde_json::to_value(&config).unwrap()).unwrap();
    assert_eq!(back, config);
    let err = serde_json::from_str::<TaskConfig>(r#"{"input": "first"}"#).unwrap_err();
    assert!(
        err.to_string()
            .contains("unknown variant `first`, expected one of `leading`, `marked`, `steps`"),
        "{err}"
    );
    for mode in TaskInput::ALL {
        assert_eq!(mode.name().parse::<TaskInput>(), Ok(mode));
        assert_eq!(mode.to_string(), mode.name());
    }
    assert!("Leading".parse::<TaskInput>().is_err());
}

#[test]
fn a_checkpoint_keeps_the_mode_apart() {
    // A run of one mode does not resume under another: its steps mean other things.
    let leading = monitor(TaskInput::Leading, &["L"]);
    let marked = monitor(TaskInput::Marked, &["L"]);
    let json = serde_json::to_string(&leading.start()).unwrap();
    assert!(marked.resume(serde_json::from_str(&json).unwrap()).is_err());
    assert!(leading.resume(serde_json::from_str(&json).unwrap()).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// The input is invisible: a run under `leading` gives, after its input, exactly
    /// the verdicts of a run under `marked` of the messages without that input.
    #[test]
    fn the_input_is_invisible(
        sequences in prop::collection::vec(pool_sequence(), 1..4),
        messages in prop::collection::vec(pool_message(), 0..20),
        max_turns in prop::option::of(1..10u64),
    ) {
        let texts: Vec<String> = sequences.iter().map(ToString::to_string).collect();
        let mut config = TaskConfig::from_dsl(&texts)?;
        config.max_turns = max_turns;
        config.input = TaskInput::Leading;
        let leading = Monitor::new(config.clone())?;
        config.input = TaskInput::Marked;
        let marked = Monitor::new(config)?;
        let first_step = messages
            .iter()
            .position(|m| m.role() != Role::System && (m.role() != Role::User || m.is_no_response()))
            .unwrap_or(messages.len());
        let rest: Vec<&Message> = messages[first_step..].iter().collect();
        let (mut a, mut b) = (leading.start(), marked.start());
        for m in &messages[..first_step] {
            prop_assert_eq!(leading.observe(&mut a, m), Verdict::Continue);
        }
        for m in rest {
            prop_assert_eq!(leading.observe(&mut a, m), marked.observe(&mut b, m));
        }
        prop_assert_eq!(a.steps(), b.steps());
    }
}
