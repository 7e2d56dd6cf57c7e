//! FINAL detection (text, strict, code), values, code blocks and the final-pattern
//! policy (the input is also tried as a user's extra regex).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/robustness/checks.rs"]
#[allow(dead_code)]
mod checks;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        checks::final_answer(text);
    }
});
