//! Parsing cost of typical done sequences (one-time, per configuration).
//!
//! Run with `cargo bench --bench parse`. Langroid's `parse_done_sequence` takes
//! 8–16 µs per string (LANGROID.md, Benchmark); these are the same shapes.

use criterion::{Criterion, black_box, criterion_main};
use doneseq::DoneSequence;

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

// TODO(stop conditions): bench parsing typical stop expressions here, as
// `doneseq::stop::Condition: FromStr` (the issue asks for "typical DSL strings and
// stop expressions"), beside the done sequences above, once that module lands.

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
    criterion::criterion_group!(benches, super::parse, super::display);
}
criterion_main!(harness::benches);
