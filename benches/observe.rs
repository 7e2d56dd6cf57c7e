//! Per-message cost of `Monitor::observe`, and of compiling a task.
//!
//! Run with `cargo bench --bench observe` (one group: `cargo bench --bench observe --
//! 'observe, no patterns'`). The transcript is a 6-message cycle of a tool-using agent (LLM
//! text, LLM calculator call, agent result, user text, LLM search call, agent
//! result); the K sequences are taken cyclically from templates chosen so that none
//! ever matches: every sequence is evaluated on every message, the worst case.
//! Langroid 0.69's own done-sequence matching, measured on the same cycle and
//! templates: ~9.8 µs/message at K = 1, ~750 µs at K = 100 (warm).
//!
//! Groups:
//! - `observe, no patterns`: templates without `C[...]` (nor `F`), so no pass over
//!   the content; the automaton's own cost. Compiled beside the naive oracle.
//! - `observe, Langroid workload`: the five templates Langroid was measured with, two of which are
//!   content regexes. Compiled beside the naive oracle.
//! - `observe, content patterns`: 100 sequences without patterns plus P `C[...]`
//!   sequences, on the short cycle and on 10 KB messages (ASCII, and with some
//!   non-ASCII text): one pass of the regex set, whatever P.
//! - `observe, look-around`: 100 sequences without patterns plus one `C[...]` that
//!   needs backtracking: a look-behind (`(?<!not )\bapproved\b`, whose relaxed form
//!   rarely matches) and a backreference (`\b(\w+) \1\b`, whose relaxed form
//!   matches almost every message), on the short cycle, on 10 KB messages, and on 10
//!   KB messages holding "not approved" twenty times (each a place to try the exact
//!   form).
//! - `observe, 10 KB messages`: the no-pattern templates with Langroid's default
//!   options (the `DONE` string signal scans the content), on 10 KB messages.
//! - `compile`: `Monitor::new` for K sequences (a one-time cost per task).
//!
//! The string signal is off except in the 10 KB group, as Langroid's figures time
//! the done-sequence block alone.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_main};
use doneseq::naive::NaiveMatcher;
use doneseq::{Message, Monitor, TaskConfig, ToolCall};

/// The templates Langroid was measured with: two of the five are content regexes.
fn langroid_templates(k: usize) -> Vec<String> {
    (0..k)
        .map(|i| match i % 5 {
            0 => format!("T[tool_{i}], A"),
            1 => format!("C[\\bstopword_{i}\\b]"),
            2 => format!("L, T[tool_{i}], A, L"),
            3 => format!("T, A, C[finished_{i}]"),
            _ => "U, L, L".to_owned(),
        })
        .collect()
}

/// The same shapes without any content pattern: a responder where Langroid's has a
/// regex alone, an error where it ends in one. Nothing reads the content.
fn plain_templates(k: usize) -> Vec<String> {
    (0..k)
        .map(|i| match i % 5 {
            0 => format!("T[tool_{i}], A"),
            1 => format!("L@agent_{i}"),
            2 => format!("L, T[tool_{i}], A, L"),
            3 => "T, A, E".to_owned(),
            _ => "U, L, L".to_owned(),
        })
        .collect()
}

/// `p` content patterns, none of which matches the benchmark's messages.
fn pattern_templates(p: usize) -> Vec<String> {
    (0..p)
        .map(|i| {
            if i % 2 == 0 {
                format!("C[\\bstopword_{i}\\b]")
            } else {
                format!("L & C[finished (task|job) {i}]")
            }
        })
        .collect()
}

/// The 6-message cycle, every content replaced by `fill(k)` when given.
fn cycle(fill: Option<&dyn Fn(usize) -> String>) -> Vec<Message<'static>> {
    let text = |k: usize, short: &str| fill.map_or_else(|| short.to_owned(), |f| f(k));
    vec![
        Message::llm(text(0, "Let me think about the numbers involved here.")),
        Message::llm(text(1, ""))
            .with_tool_call(ToolCall::new("calculator", r#"{"expression": "6*7"}"#)),
        Message::agent(text(2, "42")),
        Message::user(text(3, "Thanks, now look up the capital of France.")),
        Message::llm(text(4, ""))
            .with_tool_call(ToolCall::new("search", r#"{"query": "capital of France"}"#)),
        Message::agent(text(5, "Paris is the capital of France.")),
    ]
}

/// About `len` bytes of assistant-style prose, without `DONE`, `FINAL` or any of the
/// patterns' words; `unicode` mixes in typographic quotes, dashes and accents, as
/// model output has.
fn prose(len: usize, seed: usize, unicode: bool) -> String {
    const ASCII: &[&str] = &[
        "Let me look at the data first (it's in the `context` variable).",
        "The third column holds the totals, so I'll sum it and compare with the report.",
        "We're not done yet: the \"draft\" numbers differ by 3.5% from last year's.",
        "Next, I will check each chunk for errors and summarize what I find.",
        "This is the third draft of the analysis, pending one more check.",
        "Results: 42 items, 7 duplicates, and 0 missing values in the sample.",
    ];
    const UNICODE: &[&str] = &[
        "Let me look at the data first — it’s in the “context” variable.",
        "The café’s totals differ by 3.5 % from last year’s (see § 4).",
    ];
    let mut out = String::with_capacity(len + 128);
    let mut k = seed;
    while out.len() < len {
        let s = if unicode && k.is_multiple_of(3) {
            UNICODE[k % UNICODE.len()]
        } else {
            ASCII[k % ASCII.len()]
        };
        out.push_str(s);
        out.push(if k % 4 == 3 { '\n' } else { ' ' });
        k += 1;
    }
    out
}

fn monitor(texts: Vec<String>, string_signals: bool) -> Monitor {
    let mut config = TaskConfig::from_dsl(texts).expect("templates parse");
    config.recognize_string_signals = string_signals;
    Monitor::new(config).expect("templates compile")
}

/// Checks the answer before timing it: over many cycles, nothing ever stops.
fn assert_never_stops(monitor: &Monitor, messages: &[Message]) {
    let mut run = monitor.start();
    for m in messages.iter().cycle().take(60 * messages.len()) {
        assert!(!monitor.observe(&mut run, m).is_stop(), "{m:?}");
    }
}

/// Times `observe` over the cycle, one message per iteration, on a warm run.
fn bench_compiled(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: BenchmarkId,
    monitor: &Monitor,
    messages: &[Message],
) {
    assert_never_stops(monitor, messages);
    let mut run = monitor.start();
    for m in messages {
        monitor.observe(&mut run, m);
    }
    let mut i = 0;
    group.bench_function(id, |b| {
        b.iter(|| {
            i = (i + 1) % messages.len();
            black_box(monitor.observe(&mut run, black_box(&messages[i])))
        });
    });
}

fn bench_naive(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: BenchmarkId,
    monitor: &Monitor,
    messages: &[Message],
) {
    let mut naive = NaiveMatcher::new(monitor.sequences());
    for m in messages.iter().cycle().take(60 * messages.len()) {
        assert!(naive.observe(m).is_empty());
    }
    let mut i = 0;
    group.bench_function(id, |b| {
        b.iter(|| {
            i = (i + 1) % messages.len();
            black_box(naive.observe(black_box(&messages[i])))
        });
    });
}

const KS: [usize; 4] = [1, 10, 100, 1000];

fn no_patterns(c: &mut Criterion) {
    compiled_and_naive(c, "observe, no patterns", plain_templates);
}

fn langroid_workload(c: &mut Criterion) {
    compiled_and_naive(c, "observe, Langroid workload", langroid_templates);
}

/// The compiled monitor and the naive matcher on the same messages, for each K of
/// `templates(K)`.
fn compiled_and_naive(c: &mut Criterion, name: &str, templates: fn(usize) -> Vec<String>) {
    let messages = cycle(None);
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(1));
    for k in KS {
        let monitor = monitor(templates(k), false);
        bench_compiled(
            &mut group,
            BenchmarkId::new("compiled", k),
            &monitor,
            &messages,
        );
        bench_naive(
            &mut group,
            BenchmarkId::new("naive", k),
            &monitor,
            &messages,
        );
    }
    group.finish();
}

fn content_patterns(c: &mut Criterion) {
    let short = cycle(None);
    let ascii = cycle(Some(&|k| prose(10_000, k, false)));
    let unicode = cycle(Some(&|k| prose(10_000, k, true)));
    let mut group = c.benchmark_group("observe, content patterns");
    for (input, messages) in [
        ("short", &short),
        ("10 KB", &ascii),
        ("10 KB non-ASCII", &unicode),
    ] {
        let bytes: usize = messages.iter().map(|m| m.content().len()).sum();
        group.throughput(Throughput::Bytes((bytes / messages.len()) as u64));
        for p in [0usize, 1, 10, 100] {
            let mut texts = plain_templates(100);
            texts.extend(pattern_templates(p));
            let monitor = monitor(texts, false);
            let id = BenchmarkId::new(format!("K=100, {input}"), format!("P={p}"));
            bench_compiled(&mut group, id, &monitor, messages);
        }
    }
    group.finish();
}

fn look_around(c: &mut Criterion) {
    let short = cycle(None);
    let ascii = cycle(Some(&|k| prose(10_000, k, false)));
    let near_misses = cycle(Some(&|k| {
        let mut text = prose(10_000, k, false);
        for at in (1..=20).map(|i| i * 480) {
            let at = (0..=at)
                .rev()
                .find(|&a| text.is_char_boundary(a))
                .unwrap_or(0);
            text.insert_str(at, " not approved ");
        }
        text
    }));
    let mut group = c.benchmark_group("observe, look-around");
    for (input, messages) in [
        ("short", &short),
        ("10 KB", &ascii),
        ("10 KB, 20 near misses", &near_misses),
    ] {
        let bytes: usize = messages.iter().map(|m| m.content().len()).sum();
        group.throughput(Throughput::Bytes((bytes / messages.len()) as u64));
        for (name, pattern) in [
            ("look-behind", r"C[(?<!not )\bapproved\b]"),
            ("backreference", r"C[\b(\w+) \1\b]"),
        ] {
            let mut texts = plain_templates(100);
            texts.push(pattern.to_owned());
            let monitor = monitor(texts, false);
            let id = BenchmarkId::new(format!("K=100, {input}"), name);
            bench_compiled(&mut group, id, &monitor, messages);
        }
    }
    group.finish();
}

fn long_messages(c: &mut Criterion) {
    let messages = cycle(Some(&|k| prose(10_000, k, false)));
    let mut group = c.benchmark_group("observe, 10 KB messages");
    group.throughput(Throughput::Bytes(10_000));
    for k in KS {
        let monitor = monitor(plain_templates(k), true);
        bench_compiled(
            &mut group,
            BenchmarkId::new("compiled", k),
            &monitor,
            &messages,
        );
    }
    group.finish();
}

fn compile(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    group.sample_size(10);
    for k in KS {
        for (name, texts) in [
            ("no patterns", plain_templates(k)),
            ("Langroid workload", langroid_templates(k)),
        ] {
            let config = TaskConfig::from_dsl(texts).expect("templates parse");
            assert_eq!(Monitor::new(config.clone()).unwrap().sequences().len(), k);
            group.bench_function(BenchmarkId::new(name, k), |b| {
                b.iter(|| Monitor::new(black_box(config.clone())));
            });
        }
    }
    group.finish();
}

fn benches() {
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    no_patterns(&mut c);
    langroid_workload(&mut c);
    content_patterns(&mut c);
    look_around(&mut c);
    long_messages(&mut c);
    compile(&mut c);
}

criterion_main!(benches);
