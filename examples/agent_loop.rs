//! An agent loop with a composed stop condition and a scripted model.
//!
//! The "model" is a script of replies; the "tools" are functions. The loop asks the
//! monitor after every message whether to stop, and prints what fired. Run it with
//! `cargo run --example agent_loop`.
//!
//! The condition: done when the calculator ran and the model then answered in text,
//! or when it gives a `FINAL(...)` answer; failed after 2 tool errors in a row;
//! stuck if it repeats itself; exhausted after 12 turns or 5,000 tokens.

use std::sync::Arc;

use doneseq::stop::Condition;
use doneseq::{Message, Monitor, TaskConfig, ToolCall, Usage, Verdict};

/// What the scripted model says, turn by turn.
const SCRIPT: &[(&str, Option<(&str, &str)>)] = &[
    (
        "Let me look that up.",
        Some(("search", r#"{"q": "population of Lyon"}"#)),
    ),
    ("", Some(("calculator", r#"{"expr": "522250 * 2"}"#))),
    (
        "Twice the population of Lyon is about FINAL('1,044,500').",
        None,
    ),
];

/// The tools: a result, or an error.
fn run_tool(name: &str, _args: &str) -> Result<String, String> {
    match name {
        "search" => Ok("Lyon: 522,250 inhabitants (2021)".to_owned()),
        "calculator" => Ok("1044500".to_owned()),
        other => Err(format!("no tool named {other}")),
    }
}

/// The stop condition, built in Rust; `Display` prints it in the expression language.
fn condition() -> Condition {
    let calculated_then_answered = Condition::sequence("T[calculator], A, L".parse().unwrap());
    calculated_then_answered
        | Condition::Final
        | Condition::consecutive_errors(2)
        | Condition::loop_detection()
        | Condition::max_turns(12)
        | Condition::tokens(5_000)
}

/// Runs the loop; the verdict that ended it and the number of messages.
fn run() -> Result<(Verdict, usize), Box<dyn std::error::Error>> {
    let mut config = TaskConfig::default();
    config.stop = Some(condition());
    let monitor = Arc::new(Monitor::new(config)?);
    println!("stop when: {}\n", monitor.config().stop.as_ref().unwrap());
    let mut run = monitor.start();
    let mut observed = 0;
    let mut observe = |message: Message| {
        observed += 1;
        let verdict = monitor.observe(&mut run, &message);
        println!(
            "{:>6}: {:<60} {}",
            message.role(),
            short(&message),
            if verdict.is_stop() { "STOP" } else { "" }
        );
        verdict
    };
    let mut verdict = observe(Message::user("What is twice the population of Lyon?"));
    for (text, call) in SCRIPT {
        if verdict.is_stop() {
            break;
        }
        let mut reply = Message::llm(*text).with_usage(Usage {
            input_tokens: 400,
            output_tokens: 40,
        });
        if let Some((name, args)) = call {
            reply = reply.with_tool_call(ToolCall::new(*name, *args));
        }
        verdict = observe(reply);
        if verdict.is_stop() {
            break;
        }
        if let Some((name, args)) = call {
            verdict = match run_tool(name, args) {
                Ok(result) => observe(Message::agent(result).with_responder(*name)),
                Err(error) => observe(Message::agent("").with_error(error)),
            };
        }
    }
    Ok((verdict, observed))
}

fn short(message: &Message) -> String {
    let mut text = message.content().to_owned();
    for call in message.tool_calls() {
        text.push_str(&format!(" [{}({})]", call.name(), call.arguments()));
    }
    text.chars().take(60).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (verdict, _) = run()?;
    match verdict.outcome() {
        Some(outcome) => {
            let reason = match (&outcome.reason, outcome.leading()) {
                (doneseq::StopReason::Condition(_), Some(leading)) => leading.text.to_string(),
                (other, _) => format!("{other:?}"),
            };
            println!("\n{} at step {}: {reason}", outcome.kind, outcome.at);
            for fired in &outcome.conditions {
                println!("  fired: {} ({})", fired.text, fired.evidence);
            }
            if let Some(answer) = &outcome.answer {
                println!("answer: {}", answer.text);
            }
        }
        None => println!("\nthe script ran out before the task stopped"),
    }
    Ok(())
}

#[test]
fn the_loop_stops_with_the_final_answer() {
    let (verdict, observed) = run().unwrap();
    let outcome = verdict.outcome().expect("the loop stops");
    assert_eq!(outcome.kind, doneseq::VerdictKind::Done);
    assert_eq!(outcome.answer.as_ref().unwrap().text, "1,044,500");
    assert_eq!(
        observed, 6,
        "user, search, result, calculator, result, answer"
    );
    let fired: Vec<String> = outcome
        .conditions
        .iter()
        .map(|c| c.evidence.to_string())
        .collect();
    // The question is the task's input, not a step: the search is step 0.
    assert_eq!(fired, ["matched steps 2..=4", "a FINAL answer"]);
}
