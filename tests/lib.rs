//! doneseq's integration tests: one binary, one module per theme.

mod util;

mod answer;
mod autotraits;
mod cli;
mod errors;
mod langroid;
mod object;
mod roundtrip;
mod serde;
