//! Inputs that broke an invariant, found by the property tests or the fuzz targets,
//! replayed through the same checks (`checks.rs`). Each names what it found.

use doneseq::{DoneSequence, Message, Monitor, RunState, StateError, TaskConfig};

use super::checks;

fn monitor(texts: &[&str]) -> Monitor {
    Monitor::new(TaskConfig::from_dsl(texts).unwrap()).unwrap()
}

/// A checkpoint with the state's own fingerprint and other fields forged.
fn forged(monitor: &Monitor, steps: u64, bits: &[u64], prev: &[u64]) -> RunState {
    let mut state = serde_json::to_value(monitor.start()).unwrap();
    state["steps"] = steps.into();
    state["bits"] = bits.into();
    state["prev"] = prev.into();
    serde_json::from_value(state).unwrap()
}

/// Found by `forged_checkpoints_are_refused_or_harmless`: a checkpoint at step 0 whose
/// bits said that two elements of `T, T, E` already held. `resume` took it, and the
/// next message fired the sequence with a match starting before the run
/// (`at + 1 - len` overflowed: a panic in debug builds, a bogus range in release).
#[test]
fn a_checkpoint_ahead_of_its_steps_is_refused() {
    let sequences: Vec<DoneSequence> = ["T{3}", "T, T, E"].map(|t| t.parse().unwrap()).into();
    let error = checks::message(0, None, "", &[], true, false);
    checks::forged_checkpoint(&sequences, 0, &[16], &[0], None, &[error]);

    let m = monitor(&["T, T, E"]);
    let err = m.resume(forged(&m, 0, &[0b10], &[0])).unwrap_err();
    assert!(matches!(err, StateError::Corrupt(_)), "{err}");
    let err = m.resume(forged(&m, 1, &[0b1], &[0b1])).unwrap_err();
    assert!(matches!(err, StateError::Corrupt(_)), "{err}");
    // The same bits after enough steps are a state a run can reach.
    assert!(m.resume(forged(&m, 2, &[0b10], &[0b1])).is_ok());
}

/// Found while reviewing `observe` for forged checkpoints: a step count at its
/// maximum overflowed (a panic in debug builds). It saturates.
#[test]
fn a_step_count_at_its_maximum_saturates() {
    let m = monitor(&["T, A"]);
    let mut run = m.resume(forged(&m, u64::MAX - 1, &[0], &[0])).unwrap();
    for _ in 0..3 {
        m.observe(&mut run, &Message::agent("x"));
    }
    assert_eq!(run.steps(), u64::MAX);
}
