//! The stop-expression parser: any text parses to a tree that validates, whose
//! canonical text parses back to it (and whose JSON form does too) and that compiles
//! into a monitor that runs; or it fails with a sound span.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/robustness/checks.rs"]
#[allow(dead_code)]
mod checks;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        checks::stop_expr(text);
    }
});
