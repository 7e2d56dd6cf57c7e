//! Explanations: for every sequence, how close the run is to it.

use super::state::RunState;
use crate::engine::Automaton;

/// How close one done sequence is, after the run's latest step.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct SequenceProgress {
    /// The sequence's index in the task's list.
    pub sequence: usize,
    /// How many of its leading elements the latest steps satisfy, in order and
    /// consecutively (`len` when it fired).
    pub satisfied: usize,
    /// Its number of elements.
    pub len: usize,
    /// Whether it fired at the latest step.
    pub fired: bool,
    /// The furthest attempt that the latest step ended, if one did.
    pub failure: Option<Failure>,
}

/// An element that a step did not satisfy, ending an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Failure {
    /// The element's index in its sequence (0 is the first).
    pub element: usize,
    /// The step index of the message that did not satisfy it.
    pub at: u64,
}

pub(crate) fn explain(
    automaton: &Automaton,
    sequences: usize,
    state: &RunState,
) -> Vec<SequenceProgress> {
    let at = state.steps.checked_sub(1);
    (0..sequences)
        .map(|s| {
            let len = automaton.spans[s].1 as usize;
            let satisfied = automaton.progress(&state.bits, s);
            let failure = at.and_then(|at| {
                automaton
                    .failed_element(&state.prev, &state.bits, s)
                    .map(|element| Failure { element, at })
            });
            SequenceProgress {
                sequence: s,
                satisfied,
                len,
                fired: satisfied == len,
                failure,
            }
        })
        .collect()
}
