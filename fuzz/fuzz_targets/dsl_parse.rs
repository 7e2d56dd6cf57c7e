//! The DSL parser: any text parses to a value whose canonical text parses back to it
//! (and whose object and JSON forms do too), or fails with a sound span.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/robustness/checks.rs"]
#[allow(dead_code)]
mod checks;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        checks::dsl(text);
    }
});
