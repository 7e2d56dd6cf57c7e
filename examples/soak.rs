//! Soak: ten million messages through one monitor, with the process's resident size
//! measured before and after.
//!
//! ```sh
//! cargo run --release --example soak              # 10,000,000 messages
//! cargo run --release --example soak -- 50000000  # or any number
//! ```
//!
//! The task has realistic sequences (tools, responders, regexes, `F`, `E`) and enough
//! of them to spill the automaton's state onto the heap; the messages cycle through a
//! varied pool in a pseudo-random order, so that sequences fire, fail and restart all
//! the time; every million messages the run is checkpointed to JSON and resumed. After
//! a warm-up, the run state's heap bytes must not change and the resident size (Linux:
//! `VmRSS` in `/proc/self/status`) must not grow by more than [`MAX_GROWTH_KIB`]: a
//! leak of one byte per message would be ten megabytes. Exits with 1 otherwise.
//!
//! `tests/robustness/soak.rs` runs the same workload on 200,000 messages in the normal
//! test run.

use std::process::ExitCode;
use std::time::Instant;

use doneseq::{Message, Monitor, Role, RunState, TaskConfig, ToolCall};

/// How many messages by default.
const DEFAULT_MESSAGES: u64 = 10_000_000;

/// How many messages before the first measurement: scratch buffers and the
/// allocator's pools reach their size.
const WARM_UP: u64 = 100_000;

/// Checkpoint (to JSON) and resume every this many messages.
const CHECKPOINT_EVERY: u64 = 1_000_000;

/// The most the resident size may grow between the measurements, in KiB.
const MAX_GROWTH_KIB: u64 = 1024;

/// What a soak measured.
#[derive(Debug)]
pub(crate) struct Report {
    /// Messages observed after the warm-up.
    pub(crate) messages: u64,
    /// Steps the run state counted after the warm-up and at the end (system messages
    /// are not steps).
    pub(crate) steps: (u64, u64),
    /// Verdicts that stopped the task (it goes on matching after a stop).
    pub(crate) stops: u64,
    /// The run state's heap bytes after the warm-up and at the end.
    pub(crate) heap_bytes: (usize, usize),
    /// Its checkpoint's size in bytes after the warm-up and at the end (decimal
    /// numbers: the size varies with the bits, within a bound).
    pub(crate) checkpoint_bytes: (usize, usize),
    /// The resident size in KiB after the warm-up and at the end, where known.
    pub(crate) rss_kib: Option<(u64, u64)>,
    /// Seconds spent on the messages after the warm-up.
    pub(crate) seconds: f64,
}

/// The task: a few realistic sequences, and enough others that the automaton needs
/// more than 128 positions (its state is then on the heap).
pub(crate) fn monitor() -> Monitor {
    let mut texts: Vec<String> = [
        "calc: T[calculator], A@Calculator & !E",
        "search_twice: T[search], A, T[search], A",
        "answered: L & F & !E",
        "quit: U & C[\\b(quit|bye)\\b]",
        "three_errors: E{3}",
        "db: T[query]@Database, A@Database, L",
    ]
    .map(String::from)
    .to_vec();
    texts.extend((0..40).map(|i| format!("T[tool{i}], A@agent{i}, L & !C[sorry]")));
    let mut config = TaskConfig::from_dsl(texts).expect("the task parses");
    config.done_if_response = vec![Role::User];
    Monitor::new(config).expect("the task compiles")
}

/// The messages the soak cycles through.
pub(crate) fn pool() -> Vec<Message<'static>> {
    let prose = "The quick brown fox considers the calculator's answer. ".repeat(40);
    let mut pool = vec![
        Message::system("You are a careful assistant."),
        Message::user("What is 6 times 7?"),
        Message::user("ok bye"),
        Message::llm("").with_tool_call(ToolCall::new("calculator", r#"{"x": "6*7"}"#)),
        Message::agent("42").with_responder("Calculator"),
        Message::agent("division by zero")
            .with_responder("Calculator")
            .with_error("ZeroDivisionError"),
        Message::llm("").with_tool_call(ToolCall::new("search", r#"{"q": "weather"}"#)),
        Message::agent("sunny, 21 C"),
        Message::llm("Checked twice. FINAL(42)"),
        Message::llm(format!("{prose} FINAL_VAR(answer)")),
        Message::llm(prose.clone()),
        Message::llm("I'm sorry, I cannot do that."),
        Message::llm("All DONE here."),
        Message::llm("")
            .with_tool_call(ToolCall::new("query", "SELECT 1"))
            .with_responder("Database"),
        Message::agent("1 row").with_responder("Database"),
        Message::no_response(Role::Llm),
        Message::no_response(Role::User),
    ];
    for i in (0..40).step_by(3) {
        pool.push(Message::llm("").with_tool_call(ToolCall::new(format!("tool{i}"), "{}")));
        pool.push(Message::agent(format!("result {i}")).with_responder(format!("agent{i}")));
    }
    pool
}

/// The resident size of this process in KiB (Linux only).
pub(crate) fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A small deterministic generator (xorshift64), so the order is varied but the same
/// on every run.
struct Order(u64);

impl Order {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % n as u64).expect("below n")
    }
}

fn checkpoint(monitor: &Monitor, run: &RunState) -> (RunState, usize) {
    let json = serde_json::to_string(run).expect("a state serializes");
    let state = serde_json::from_str(&json).expect("and reads back");
    (monitor.resume(state).expect("its own state"), json.len())
}

/// Observes `messages` messages, after `warm_up` more, through one monitor and one
/// run.
pub(crate) fn soak(messages: u64, warm_up: u64) -> Report {
    let monitor = monitor();
    let pool = pool();
    let mut order = Order(0x9e37_79b9_7f4a_7c15);
    let mut run = monitor.start();
    let mut stops = 0u64;
    let step = |run: &mut RunState, order: &mut Order| {
        let message = &pool[order.next(pool.len())];
        u64::from(monitor.observe(run, message).is_stop())
    };
    for _ in 0..warm_up {
        step(&mut run, &mut order);
    }
    let (resumed, checkpoint_before) = checkpoint(&monitor, &run);
    run = resumed;
    // The resumed state's scratch is cold: warm it before measuring.
    for _ in 0..1000 {
        step(&mut run, &mut order);
    }
    let heap_before = run.heap_bytes();
    let steps_before = run.steps();
    let rss_before = rss_kib();
    let start = Instant::now();
    for i in 1..=messages {
        stops += step(&mut run, &mut order);
        if i % CHECKPOINT_EVERY == 0 {
            run = checkpoint(&monitor, &run).0;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let (_, checkpoint_after) = checkpoint(&monitor, &run);
    Report {
        messages,
        steps: (steps_before, run.steps()),
        stops,
        heap_bytes: (heap_before, run.heap_bytes()),
        checkpoint_bytes: (checkpoint_before, checkpoint_after),
        rss_kib: rss_before.zip(rss_kib()),
        seconds,
    }
}

#[allow(dead_code)] // the test includes this file as a module
fn main() -> ExitCode {
    let messages = match std::env::args().nth(1).map(|a| a.parse::<u64>()) {
        None => DEFAULT_MESSAGES,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("usage: soak [MESSAGES]: {e}");
            return ExitCode::from(2);
        }
    };
    let report = soak(messages, WARM_UP);
    println!(
        "{} messages in {:.2} s ({:.0} ns per message), {} steps, {} stops",
        report.messages,
        report.seconds,
        report.seconds * 1e9 / report.messages.max(1) as f64,
        report.steps.1,
        report.stops
    );
    println!(
        "run state heap bytes: {} -> {}; checkpoint: {} -> {} bytes",
        report.heap_bytes.0,
        report.heap_bytes.1,
        report.checkpoint_bytes.0,
        report.checkpoint_bytes.1
    );
    let mut ok = report.heap_bytes.0 == report.heap_bytes.1;
    match report.rss_kib {
        Some((before, after)) => {
            let growth = after.saturating_sub(before);
            println!(
                "resident size: {before} KiB -> {after} KiB (grew {growth} KiB, at most {MAX_GROWTH_KIB})"
            );
            ok &= growth <= MAX_GROWTH_KIB;
        }
        None => println!("resident size: not available here (no /proc/self/status)"),
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        eprintln!("soak: memory grew");
        ExitCode::FAILURE
    }
}
