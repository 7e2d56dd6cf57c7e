//! Every public type is `Send + Sync` (and unwind-safe): values are shared freely
//! across threads, and the compiled side will be shared by every run.

use std::panic::{RefUnwindSafe, UnwindSafe};

fn assert_auto<T: Send + Sync + UnwindSafe + RefUnwindSafe + Unpin>() {}

#[test]
fn public_types_are_send_sync() {
    assert_auto::<doneseq::DoneSequence>();
    assert_auto::<doneseq::DoneSequences>();
    assert_auto::<doneseq::Element>();
    assert_auto::<doneseq::Literal>();
    assert_auto::<doneseq::AgentEvent>();
    assert_auto::<doneseq::EventKind>();
    assert_auto::<doneseq::BaseKind>();
    assert_auto::<doneseq::ContentPattern>();
    assert_auto::<doneseq::ToolName>();
    assert_auto::<doneseq::ParseError>();
    assert_auto::<doneseq::ParseErrorKind>();
    assert_auto::<doneseq::ListError>();
    assert_auto::<doneseq::Error>();
    assert_auto::<doneseq::SequenceObject>();
    assert_auto::<doneseq::object::ElementObject>();
    assert_auto::<doneseq::object::EventObject>();
    assert_auto::<doneseq::EventType>();
    assert_auto::<doneseq::ObjectError>();
    assert_auto::<doneseq::Monitor>();
    assert_auto::<doneseq::RunState>();
    assert_auto::<doneseq::TaskConfig>();
    assert_auto::<doneseq::Message>();
    assert_auto::<doneseq::Verdict>();
    assert_auto::<doneseq::Outcome>();
    assert_auto::<doneseq::SequenceProgress>();
    assert_auto::<doneseq::CompileError>();
    assert_auto::<doneseq::StateError>();
    assert_auto::<doneseq::naive::NaiveMatcher>();
}

/// One compiled monitor shared by threads, each with its own run state, gives each
/// run the verdicts it gives alone.
#[test]
fn one_monitor_many_runs() {
    use doneseq::{Message, Monitor, TaskConfig, ToolCall};
    let monitor =
        std::sync::Arc::new(Monitor::new(TaskConfig::from_dsl(["T[calc], A"]).unwrap()).unwrap());
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let monitor = std::sync::Arc::clone(&monitor);
            std::thread::spawn(move || {
                let mut run = monitor.start();
                let mut stops = Vec::new();
                for i in 0..1000u64 {
                    let message = if (i + t) % 3 == 0 {
                        Message::llm("").with_tool_call(ToolCall::new("calc", "{}"))
                    } else {
                        Message::agent("r")
                    };
                    if monitor.observe(&mut run, &message).is_stop() {
                        stops.push(i);
                    }
                }
                stops
            })
        })
        .collect();
    for (t, handle) in handles.into_iter().enumerate() {
        let stops = handle.join().unwrap();
        let expected: Vec<u64> = (1..1000u64)
            .filter(|i| (i - 1 + t as u64).is_multiple_of(3))
            .collect();
        assert_eq!(stops, expected, "thread {t}");
    }
}
