//! The compiled side: classification, the Shift-And automaton, and the plan that
//! evaluates a task's whole stop model. Read-only once built, `Send + Sync`; per-run
//! values live in [`crate::RunState`].

mod automaton;
mod bits;
mod classify;
mod compile;
pub(crate) mod eval;
pub(crate) mod limits;
pub(crate) mod plan;

pub(crate) use automaton::{Automaton, StepScratch};
pub(crate) use classify::{Classifier, ClassifyScratch, base_kind, has_final};
pub(crate) use compile::compile;
