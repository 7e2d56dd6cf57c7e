//! The transcript readers, in every format: messages or an error with its line,
//! nothing dropped, and every message through a monitor.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/robustness/checks.rs"]
#[allow(dead_code)]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::transcript(data);
});
