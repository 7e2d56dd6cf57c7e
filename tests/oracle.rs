//! The compiled automaton against the naive oracle, on random sequences and random
//! message streams: same matches, same progress, at every step.

use doneseq::naive::NaiveMatcher;
use doneseq::stop::TaskInput;
use doneseq::{DoneSequence, Monitor, TaskConfig, Verdict};
use proptest::prelude::*;

// The pools of elements, contents, tools and responders are the robustness checks'
// (`tests/robustness/checks.rs`), which the fuzz targets share.
use crate::robustness::checks::fired;
use crate::robustness::props::{pool_message as message, pool_sequence as sequence};

/// The sequences alone: no `DONE` string signal, and every message a step (the oracle
/// is Langroid's matcher over a `response_sequence`, which holds no task input).
fn quiet(sequences: &[DoneSequence]) -> Result<TaskConfig, doneseq::ListError> {
    let mut config = TaskConfig::from_dsl(sequences.iter().map(ToString::to_string))?;
    config.recognize_string_signals = false;
    config.input = TaskInput::Marked;
    Ok(config)
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
            // The one-pass list of the sequences that progress, across words.
            let dense: Vec<(usize, usize)> = (0..sequences.len())
                .map(|s| (s, naive.progress(s)))
                .filter(|&(_, p)| p > 0)
                .collect();
            prop_assert_eq!(monitor.progressing(&run).collect::<Vec<_>>(), dense);
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
