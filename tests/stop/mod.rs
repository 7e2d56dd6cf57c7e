//! Stop conditions: each built-in at its edge, the combinators, verdict kinds,
//! checkpoints, explanations, and the seeds' examples; the expression language
//! (`expr`, `errors`), and generators of valid trees for any test (`arb`).

pub(crate) mod arb;
mod builtins;
mod combinators;
mod errors;
pub(crate) mod expr;
mod seeds;
mod support;
