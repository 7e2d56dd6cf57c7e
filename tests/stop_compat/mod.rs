//! The compatibility faces (`doneseq::stop::compat`): awaken's specs, locus's
//! constructors and stop reasons, rlm-code's policy registry.

mod awaken;
mod locus;
pub(crate) mod rlm;

use doneseq::stop::Condition;
use doneseq::{Message, Monitor, Outcome, TaskConfig};

/// A monitor whose only stop rule is `condition`.
#[track_caller]
fn monitor(condition: Condition) -> Monitor {
    let mut config = TaskConfig::default();
    config.recognize_string_signals = false;
    config.stop = Some(condition);
    Monitor::new(config).unwrap()
}

/// The index and outcome of the first stop over `messages`, in a fresh run.
fn first_stop(monitor: &Monitor, messages: &[Message]) -> Option<(usize, Outcome)> {
    let mut run = monitor.start();
    messages.iter().enumerate().find_map(|(i, m)| {
        monitor
            .observe(&mut run, m)
            .outcome()
            .cloned()
            .map(|outcome| (i, outcome))
    })
}
