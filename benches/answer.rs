//! Throughput of FINAL detection (per message, so it must be cheap), in MB/s.
//!
//! Run with `cargo bench --bench answer`. Inputs, about 10 KB each: prose without a
//! signal (the common case: most messages are not final), the same prose ending in a
//! `FINAL(...)`, Python code ending in a `FINAL_VAR(...)`, and the worst case for
//! prose (nothing but unclosed `FINAL(`). The baseline is
//! rlm-code's text patterns as compiled regexes (the regex crate, so faster than
//! Python's `re`), which also give the wrong answers this crate fixes.

use criterion::{Criterion, Throughput, black_box, criterion_main};
use doneseq::answer::{FinalDetector, FinalKind, FinalOptions};
use regex::Regex;

#[path = "../tests/answer/hostile_inputs.rs"]
mod hostile_inputs;

/// About `len` bytes of assistant-style prose: apostrophes, parentheses, quotes,
/// lower-case "final", numbers, line breaks; no signal.
fn prose(len: usize) -> String {
    const SENTENCES: &[&str] = &[
        "Let me look at the data first (it's in the `context` variable).",
        "The third column holds the totals, so I'll sum it and compare with the report.",
        "We're not final(ly) done: the \"draft\" numbers differ by 3.5% from last year's.",
        "Next, I will check each chunk for errors and summarize what I find.",
        "This is the final (third) draft of the analysis, pending one more check.",
        "Results: 42 items, 7 duplicates, and 0 missing values in the sample.",
    ];
    let mut out = String::with_capacity(len + 128);
    let mut k = 0;
    while out.len() < len {
        out.push_str(SENTENCES[k % SENTENCES.len()]);
        out.push(if k % 4 == 3 { '\n' } else { ' ' });
        k += 1;
    }
    out
}

/// About `len` bytes of REPL code with comments and strings, ending in a call.
fn code(len: usize) -> String {
    const LINES: &[&str] = &[
        "chunks = [context[i:i+1000] for i in range(0, len(context), 1000)]",
        "# summarize each chunk; FINAL(x) comes at the end, not here",
        "summary = llm_query(f\"Summarize: {chunk}\")",
        "summaries.append(summary.strip())  # keep order",
        "note = 'do not call FINAL_VAR(summary) before the loop ends'",
        "combined = \"\\n\".join(summaries)",
    ];
    let mut out = String::with_capacity(len + 128);
    let mut k = 0;
    while out.len() < len {
        out.push_str(LINES[k % LINES.len()]);
        out.push('\n');
        k += 1;
    }
    out.push_str("FINAL_VAR(\"combined\")\n");
    out
}

fn detection(c: &mut Criterion) {
    let no_signal = prose(10_000);
    let with_signal = format!("{}\nFINAL(\"The answer is 42\")\n", prose(10_000));
    let code = code(10_000);
    // The worst case for prose: every few bytes a candidate, none ever closed.
    let hostile = "FINAL(".repeat(10_000 / 6);
    let text = FinalDetector::default();
    let python = FinalDetector::new(FinalOptions::code());

    // Check the answers before timing them.
    assert!(text.find(&no_signal).is_none());
    let m = text.find(&with_signal).unwrap();
    assert_eq!(&with_signal[m.arg_span()], "\"The answer is 42\"");
    assert_eq!(
        text.detect(&with_signal).content.as_deref(),
        Some("The answer is 42")
    );
    let m = python.find(&code).unwrap();
    assert_eq!(
        (m.kind(), &code[m.arg_span()]),
        (FinalKind::Variable, "combined")
    );

    let mut group = c.benchmark_group("detect FINAL");
    for (name, input, detector) in [
        ("prose, no signal (find)", &no_signal, text),
        ("prose ending in FINAL (find)", &with_signal, text),
        ("code ending in FINAL_VAR (find)", &code, python),
        ("worst case: unclosed FINAL( x 1666 (find)", &hostile, text),
    ] {
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_function(name, |b| b.iter(|| detector.find(black_box(input))));
    }
    group.throughput(Throughput::Bytes(with_signal.len() as u64));
    group.bench_function("prose ending in FINAL (detect)", |b| {
        b.iter(|| text.detect(black_box(&with_signal)));
    });
    group.finish();
}

/// The hostile inputs of `tests/answer/hostile_inputs.rs` (unclosed calls, quotes that never
/// close inside an open call), each at 20 KB and at 200 KB: the same throughput at
/// both sizes is linear time.
fn hostile(c: &mut Criterion) {
    let mut group = c.benchmark_group("hostile");
    group.sample_size(10);
    for (prefix, piece) in hostile_inputs::HOSTILE {
        for size in [20_000, 200_000] {
            let text = format!("{prefix}{}", piece.repeat(size / piece.len()));
            for options in [FinalOptions::text(), FinalOptions::code()] {
                let detector = FinalDetector::new(options);
                let mode = if options.is_code() { "code" } else { "text" };
                group.throughput(Throughput::Bytes(text.len() as u64));
                group.bench_function(
                    format!("{prefix}{piece} x{} ({mode})", size / piece.len()),
                    |b| {
                        b.iter(|| detector.detect(black_box(&text)));
                    },
                );
            }
        }
    }
    group.finish();
}

/// rlm-code's `detect_final_in_text`: FINAL_VAR patterns, then FINAL patterns, in
/// order, first match wins (the patterns of rlm-code's `termination.py`).
fn rlm_code_baseline(c: &mut Criterion) {
    let patterns: Vec<Regex> = [
        r#"FINAL_VAR\s*\(\s*['"]?(\w+)['"]?\s*\)"#,
        r#"FINAL_VAR\s*\(\s*["'](\w+)["']\s*\)"#,
        r"(?ms)FINAL\s*\(\s*(.+?)\s*\)(?:\s*$|\n)",
        r#"(?s)FINAL\s*\(\s*["'](.+?)["']\s*\)"#,
        r#"(?s)FINAL\s*\(\s*"""(.+?)"""\s*\)"#,
    ]
    .iter()
    .map(|p| Regex::new(p).unwrap())
    .collect();
    let first = |text: &str| {
        patterns
            .iter()
            .find_map(|re| re.captures(text).map(|c| c.get(1).unwrap().range()))
    };
    let no_signal = prose(10_000);
    let with_signal = format!("{}\nFINAL(\"The answer is 42\")\n", prose(10_000));
    assert!(first(&no_signal).is_none());
    // It finds the signal (and, as rlm-code does, keeps the quotes in the bare match).
    assert_eq!(
        first(&with_signal).map(|r| &with_signal[r]),
        Some("\"The answer is 42\"")
    );

    let mut group = c.benchmark_group("rlm-code regexes (baseline)");
    for (name, input) in [
        ("prose, no signal", &no_signal),
        ("prose ending in FINAL", &with_signal),
    ] {
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_function(name, |b| b.iter(|| first(black_box(input))));
    }
    group.finish();
}

// criterion's macros generate undocumented functions.
#[allow(missing_docs)]
mod harness {
    criterion::criterion_group!(
        benches,
        super::detection,
        super::hostile,
        super::rlm_code_baseline
    );
}
criterion_main!(harness::benches);
