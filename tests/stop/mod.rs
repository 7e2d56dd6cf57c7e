//! Stop conditions: each built-in at its edge, the combinators, verdict kinds,
//! checkpoints, explanations, and the seeds' examples; the expression language and
//! serde (`expr`, `errors`, `spec`, `seed_forms`), and generators of valid trees for
//! any test (`arb`).

pub(crate) mod arb;
mod builtins;
mod combinators;
mod errors;
pub(crate) mod expr;
mod seed_forms;
mod seeds;
mod spec;
mod support;
