//! Parsing cost of typical done sequences (one-time, per configuration).
//!
//! Run with `cargo bench --bench parse`. Langroid's `parse_done_sequence` takes
//! 8–16 µs per string (Langroid 0.69, measured on this machine); these are the same
//! shapes. Stop
//! expressions too (feature `serde`, on by default).

use criterion::{Criterion, black_box, criterion_main};
use doneseq::DoneSequence;
use doneseq::stop::Condition;

/// (name, DSL text, expected canonical text)
const CASES: &[(&str, &str, &str)] = &[
    ("two events", "T, A", "T, A"),
    ("specific tool", "T[calculator], A", "T[calculator], A"),
    (
        "four events",
        "L, T[calculator], A, L",
        "L, T[calculator], A, L",
    ),
    ("content regex", "C[quit|exit|bye]", "C[quit|exit|bye]"),
    (
        "extensions",
        "done: L & C[\\bDONE\\b] & !E, T[search]{2}, A@db",
        "done: L & C[\\bDONE\\b] & !E, T[search]{2}, A@db",
    ),
];

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse DoneSequence");
    for &(name, text, canonical) in CASES {
        // Check the answer before timing it.
        assert_eq!(DoneSequence::parse(text).unwrap().to_string(), canonical);
        group.bench_function(name, |b| b.iter(|| DoneSequence::parse(black_box(text))));
    }
    group.finish();
}

/// Typical stop expressions (`doneseq::stop::Condition`), each already canonical.
const STOP_CASES: &[(&str, &str)] = &[
    ("one budget", "max_turns(10)"),
    (
        "search example",
        "final | consecutive_errors(2) | loop | max_turns(12) | tokens(20000)",
    ),
    (
        "with a regex",
        r#"tool(send_summary) & confidence(0.9) | text("\bDONE\b") | max_turns(10)"#,
    ),
    (
        "with a sequence",
        r#"seq("T[calculator], A") & !consecutive_errors(1) | max_turns(3)"#,
    ),
];

fn parse_stop(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse stop Condition");
    for &(name, text) in STOP_CASES {
        // Check the answer before timing it.
        assert_eq!(text.parse::<Condition>().unwrap().to_string(), text);
        group.bench_function(name, |b| b.iter(|| black_box(text).parse::<Condition>()));
    }
    group.finish();
}

fn display(c: &mut Criterion) {
    let seq = DoneSequence::parse("L, T[calculator], A, C[quit|bye]{2}").unwrap();
    assert_eq!(seq.to_string(), "L, T[calculator], A, C[quit|bye]{2}");
    c.bench_function("display DoneSequence", |b| {
        b.iter(|| black_box(&seq).to_string());
    });
}

// criterion's macros generate undocumented functions.
#[allow(missing_docs)]
mod harness {
    criterion::criterion_group!(benches, super::parse, super::parse_stop, super::display);
}
criterion_main!(harness::benches);
