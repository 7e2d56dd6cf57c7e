//! The compiled monitor against the naive oracle, on sequences and messages built from
//! the fuzzer's bytes: the same matches and progress at every step, a checkpoint
//! anywhere that changes nothing, and forged checkpoints that are refused or harmless.
#![no_main]

use doneseq::{DoneSequence, Message};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/robustness/checks.rs"]
#[allow(dead_code)]
mod checks;

/// An element: one of the pool's (which covers every kind of literal), or free text
/// (which the parser may refuse: then the sequence is left out).
#[derive(Arbitrary, Debug)]
enum Element {
    Pool(u8),
    Text(String),
}

#[derive(Arbitrary, Debug)]
enum Content {
    Pool(u8),
    Text(String),
}

#[derive(Arbitrary, Debug)]
struct Msg {
    role: u8,
    responder: u8,
    content: Content,
    tools: Vec<u8>,
    error: bool,
    none: bool,
}

#[derive(Arbitrary, Debug)]
struct Forged {
    steps: u64,
    bits: Vec<u64>,
    prev: Vec<u64>,
    stopped_at: Option<u64>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    sequences: Vec<Vec<Element>>,
    messages: Vec<Msg>,
    cut: u16,
    forged: Option<Forged>,
}

fn pick<T: Copy>(pool: &[T], i: u8) -> T {
    pool[i as usize % pool.len()]
}

fuzz_target!(|input: Input| {
    let sequences: Vec<DoneSequence> = input
        .sequences
        .iter()
        .take(8)
        .filter_map(|elements| {
            let texts: Vec<&str> = elements
                .iter()
                .take(8)
                .map(|e| match e {
                    Element::Pool(i) => pick(checks::ELEMENTS, *i),
                    Element::Text(t) => t.as_str(),
                })
                .collect();
            texts.join(", ").parse().ok()
        })
        .collect();
    if sequences.is_empty() {
        return;
    }
    let messages: Vec<Message> = input
        .messages
        .iter()
        .take(64)
        .map(|m| {
            let content = match &m.content {
                Content::Pool(i) => pick(checks::CONTENTS, *i),
                Content::Text(t) => t.as_str(),
            };
            let tools: Vec<&str> = m
                .tools
                .iter()
                .take(4)
                .map(|&t| pick(checks::TOOLS, t))
                .collect();
            let responder = pick(checks::RESPONDERS, m.responder);
            checks::message(m.role, responder, content, &tools, m.error, m.none)
        })
        .collect();
    checks::differential(&sequences, &messages, usize::from(input.cut));
    if let Some(f) = &input.forged {
        checks::forged_checkpoint(
            &sequences,
            f.steps,
            &f.bits,
            &f.prev,
            f.stopped_at,
            &messages,
        );
    }
});
