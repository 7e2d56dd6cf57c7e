//! The compiled automaton against the naive oracle, on random sequences and random
//! message streams: same matches, same progress, at every step.

use doneseq::naive::NaiveMatcher;
use doneseq::{DoneSequence, Message, Monitor, Role, TaskConfig, ToolCall, Verdict};
use proptest::prelude::*;

const ELEMENTS: &[&str] = &[
    "T",
    "T[a]",
    "T[b]",
    "L",
    "A",
    "U",
    "N",
    "C[x]",
    "C[y|z]",
    "F",
    "E",
    "_",
    "A@r1",
    "L@r2",
    "!T[a]",
    "T & !T[a]",
    "C[x] & C[y|z]",
    "!A@r1",
    "_@r1",
    "!E",
    "L & C[x]",
    "T[a] & T[b]",
    "!C[x]@r2",
    "F & !E",
    "!L",
    "T[a]@r1",
    "!U & !N",
    "E & C[x]",
    "!T[b]@r2",
];

fn sequence() -> impl Strategy<Value = DoneSequence> {
    prop::collection::vec(prop::sample::select(ELEMENTS), 1..6)
        .prop_map(|elements| elements.join(", ").parse().expect("pool parses"))
}

fn message() -> impl Strategy<Value = Message> {
    let role =
        prop::sample::select(&[Role::User, Role::Llm, Role::Llm, Role::Agent, Role::System][..]);
    let responder = prop::sample::select(&[None, Some("r1"), Some("r2")][..]);
    let content = prop::sample::select(
        &[
            "",
            "x",
            "Y",
            "xz",
            "FINAL(1)",
            "PASS",
            "hello",
            "z FINAL(x)",
        ][..],
    );
    let tools = prop::collection::vec(prop::sample::select(&["a", "b", "c"][..]), 0..3);
    (
        role,
        responder,
        content,
        tools,
        any::<bool>(),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(role, responder, content, tools, error, none)| {
            let mut m = if none {
                Message::no_response(role)
            } else {
                Message::new(role, content)
            };
            if let Some(r) = responder {
                m = m.with_responder(r);
            }
            for t in tools {
                m = m.with_tool_call(ToolCall::new(t, "{}"));
            }
            if error {
                m = m.with_error("boom");
            }
            m
        })
}

/// The sequences alone: no `DONE` string signal.
fn quiet(sequences: &[DoneSequence]) -> Result<TaskConfig, doneseq::ListError> {
    let mut config = TaskConfig::from_dsl(sequences.iter().map(ToString::to_string))?;
    config.recognize_string_signals = false;
    Ok(config)
}

fn fired(verdict: &Verdict) -> Vec<usize> {
    verdict
        .outcome()
        .map(|o| o.fired.iter().map(|f| f.sequence).collect())
        .unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn compiled_equals_naive(
        sequences in prop::collection::vec(sequence(), 1..5),
        messages in prop::collection::vec(message(), 0..40),
    ) {
        let monitor = Monitor::new(quiet(&sequences)?)?;
        let mut run = monitor.start();
        let mut naive = NaiveMatcher::new(&sequences);
        for (i, m) in messages.iter().enumerate() {
            let expected = naive.observe(m);
            let verdict = monitor.observe(&mut run, m);
            prop_assert_eq!(fired(&verdict), expected, "message {}: {:?}", i, m);
            for s in 0..sequences.len() {
                prop_assert_eq!(monitor.progress(&run, s), naive.progress(s), "sequence {} at {}", s, i);
            }
        }
    }

    /// Many sequences spill the automaton over several words: the carry between
    /// words must behave like one long shift.
    #[test]
    fn compiled_equals_naive_across_words(
        sequences in prop::collection::vec(sequence(), 20..60),
        messages in prop::collection::vec(message(), 0..30),
    ) {
        let monitor = Monitor::new(quiet(&sequences)?)?;
        let mut run = monitor.start();
        let mut naive = NaiveMatcher::new(&sequences);
        for m in &messages {
            let expected = naive.observe(m);
            prop_assert_eq!(fired(&monitor.observe(&mut run, m)), expected);
        }
        for s in 0..sequences.len() {
            prop_assert_eq!(monitor.progress(&run, s), naive.progress(s));
        }
    }

    /// A checkpoint taken anywhere and resumed gives the same verdicts as an
    /// uninterrupted run.
    #[test]
    fn checkpoint_resume_is_transparent(
        sequences in prop::collection::vec(sequence(), 1..4),
        messages in prop::collection::vec(message(), 1..30),
        cut in any::<prop::sample::Index>(),
    ) {
        let monitor = Monitor::new(TaskConfig::from_dsl(sequences.iter().map(ToString::to_string))?)?;
        let cut = cut.index(messages.len());
        let mut whole = monitor.start();
        let expected: Vec<Verdict> = messages.iter().map(|m| monitor.observe(&mut whole, m)).collect();
        let mut first = monitor.start();
        let mut got: Vec<Verdict> = messages[..cut].iter().map(|m| monitor.observe(&mut first, m)).collect();
        let json = serde_json::to_string(&first)?;
        let mut resumed = monitor.resume(serde_json::from_str(&json)?)?;
        got.extend(messages[cut..].iter().map(|m| monitor.observe(&mut resumed, m)));
        prop_assert_eq!(got, expected);
        prop_assert_eq!(resumed, whole);
    }
}
