//! The compiled side: classification and the Shift-And automaton. Read-only once
//! built, `Send + Sync`; per-run values live in [`crate::RunState`].

mod automaton;
mod bits;
mod classify;
mod compile;
pub(crate) mod limits;

pub(crate) use automaton::{Automaton, StepScratch};
pub(crate) use classify::{Classifier, ClassifyScratch, base_kind, has_final};
pub(crate) use compile::compile;
