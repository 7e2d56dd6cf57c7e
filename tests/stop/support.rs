//! Running a condition over messages.

use std::sync::Arc;

use doneseq::stop::{Condition, ManualClock, TaskInput};
use doneseq::{Message, Monitor, Outcome, RunState, TaskConfig};

/// A monitor whose only stop rule is `condition`.
#[track_caller]
pub(crate) fn monitor(condition: Condition) -> Monitor {
    monitor_in(condition, TaskInput::default())
}

/// A monitor whose only stop rule is `condition`, with this task input mode.
#[track_caller]
pub(crate) fn monitor_in(condition: Condition, input: TaskInput) -> Monitor {
    let mut config = TaskConfig::default();
    config.recognize_string_signals = false;
    config.stop = Some(condition);
    config.input = input;
    Monitor::new(config).unwrap()
}

/// A monitor with a manual clock.
#[track_caller]
pub(crate) fn timed(condition: Condition) -> (Monitor, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::default());
    (monitor(condition).with_clock(clock.clone()), clock)
}

/// Observes `messages` in a fresh run; the index and outcome of the first stop.
pub(crate) fn first_stop(monitor: &Monitor, messages: &[Message]) -> Option<(usize, Outcome)> {
    let mut run = monitor.start();
    first_stop_in(monitor, &mut run, messages)
}

/// Observes `messages` in `run`; the index and outcome of the first stop.
pub(crate) fn first_stop_in(
    monitor: &Monitor,
    run: &mut RunState,
    messages: &[Message],
) -> Option<(usize, Outcome)> {
    messages.iter().enumerate().find_map(|(i, m)| {
        monitor
            .observe(run, m)
            .outcome()
            .cloned()
            .map(|outcome| (i, outcome))
    })
}

/// The index of the first stop.
pub(crate) fn stops_at(monitor: &Monitor, messages: &[Message]) -> Option<usize> {
    first_stop(monitor, messages).map(|(i, _)| i)
}

/// `n` plain LLM messages.
pub(crate) fn chatter(n: usize) -> Vec<Message<'static>> {
    (0..n).map(|i| Message::llm(format!("step {i}"))).collect()
}
