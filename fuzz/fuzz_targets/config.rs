//! JSON configuration: a task, a list of sequences (text or Langroid objects), one
//! sequence, or one object. What reads round-trips; what compiles observes messages.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/robustness/checks.rs"]
#[allow(dead_code)]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::config(data);
});
