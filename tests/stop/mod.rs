//! Stop conditions: each built-in at its edge, the combinators, verdict kinds,
//! checkpoints, explanations, and the seeds' examples.

mod builtins;
mod combinators;
mod seeds;
mod support;
