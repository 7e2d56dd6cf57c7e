//! doneseq's integration tests: one binary, one module per theme.

mod util;

mod autotraits;
mod cli;
mod errors;
mod langroid;
mod monitor;
mod object;
mod oracle;
mod roundtrip;
mod serde;
