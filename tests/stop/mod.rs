//! Stop conditions: each built-in at its edge, the combinators, verdict kinds,
//! checkpoints, explanations, and the peers' documented examples; the expression language and
//! serde (`expr`, `errors`, `spec`, `peer_forms`), and generators of valid trees for
//! any test (`arb`).

pub(crate) mod arb;
mod builtins;
mod combinators;
mod config_file;
mod documented;
mod errors;
pub(crate) mod expr;
mod peer_forms;
mod spec;
mod support;
