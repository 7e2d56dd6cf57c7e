//! The compatibility faces (`doneseq::compat`): awaken's specs and rlm-code's policy
//! registry; and locus's documented example tree, written in the expression language.

mod awaken;
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

/// locus's documented example, `(ToolCalled("send_summary") & ConfidenceMet(0.9)) |
/// TextMention(r"\bDONE\b") | MaxIterations(10)`, written in the expression
/// language: locus's `ToolCalled` fires on the tool's result, `ConfidenceMet` has no
/// warm-up and no `FINAL` fallback, `TextMention` reads the
/// model's text.
#[test]
fn the_locus_example_tree_runs() {
    use doneseq::{ToolCall, VerdictKind};
    let termination = Condition::parse(
        r#"(tool(send_summary, executed) & confidence(0.9, min_steps=0, fallback_final=false)) | text("\bDONE\b", from=llm) | max_turns(10)"#,
    )
    .unwrap();
    let m = monitor(termination);
    // Confident first, then the summary is sent: `&` is latched, so the order does
    // not matter; it fires when the tool's result arrives.
    let messages = [
        Message::user("Summarise the report and send it"),
        Message::llm("I am sure of this summary.").with_confidence(0.95),
        Message::llm("").with_tool_call(ToolCall::new("send_summary", "{}").with_id("s")),
        Message::agent("sent").with_tool_call_id("s"),
    ];
    let (at, outcome) = first_stop(&m, &messages).unwrap();
    assert_eq!((at, outcome.kind), (3, VerdictKind::Done));
    // The sentinel: a word, in capitals, from the model.
    let messages = [
        Message::user("Say DONE when you are done"),
        Message::llm("still undone"),
        Message::llm("not done yet"),
        Message::llm("All DONE."),
    ];
    assert_eq!(first_stop(&m, &messages).map(|(i, _)| i), Some(3));
    // The safety cap.
    let chatter: Vec<Message> = (0..12).map(|i| Message::llm(format!("step {i}"))).collect();
    let (at, outcome) = first_stop(&m, &chatter).unwrap();
    assert_eq!((at, outcome.kind), (9, VerdictKind::Exhausted));
}
