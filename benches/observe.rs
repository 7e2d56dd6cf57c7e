//! Per-message matching cost: `Monitor::observe` on LANGROID.md's benchmark workload.
//!
//! Run with `cargo bench --bench observe`. The transcript is Langroid's 6-message
//! cycle (LLM text, LLM calculator call, agent result, user text, LLM search call,
//! agent result); the K sequences are taken cyclically from Langroid's templates,
//! renamed so that none ever matches: every sequence is evaluated on every message,
//! the worst case. Langroid: ~9.8 µs/message at K = 1, ~750 µs at K = 100 (warm).

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_main};
use doneseq::naive::NaiveMatcher;
use doneseq::{Message, Monitor, TaskConfig, ToolCall};

fn templates(k: usize) -> Vec<String> {
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

fn cycle() -> Vec<Message> {
    vec![
        Message::llm("Let me think about the numbers involved here."),
        Message::llm("").with_tool_call(ToolCall::new("calculator", r#"{"expression": "6*7"}"#)),
        Message::agent("42"),
        Message::user("Thanks, now look up the capital of France."),
        Message::llm("")
            .with_tool_call(ToolCall::new("search", r#"{"query": "capital of France"}"#)),
        Message::agent("Paris is the capital of France."),
    ]
}

fn observe(c: &mut Criterion) {
    let messages = cycle();
    let mut group = c.benchmark_group("observe per message");
    group.throughput(Throughput::Elements(1));
    for k in [1usize, 10, 100, 1000] {
        let mut config = TaskConfig::from_dsl(templates(k)).unwrap();
        config.recognize_string_signals = false;
        let monitor = Monitor::new(config).unwrap();
        let mut run = monitor.start();
        // Check the answer before timing it: nothing ever fires.
        for m in messages.iter().cycle().take(600) {
            assert!(!monitor.observe(&mut run, m).is_stop());
        }
        let mut i = 0;
        group.bench_function(BenchmarkId::new("compiled", k), |b| {
            b.iter(|| {
                i = (i + 1) % messages.len();
                black_box(monitor.observe(&mut run, black_box(&messages[i])))
            });
        });
        if k <= 100 {
            let sequences: Vec<_> = monitor.sequences().to_vec();
            let mut naive = NaiveMatcher::new(&sequences);
            group.bench_function(BenchmarkId::new("naive", k), |b| {
                b.iter(|| {
                    i = (i + 1) % messages.len();
                    black_box(naive.observe(black_box(&messages[i])))
                });
            });
        }
    }
    group.finish();
}

fn benches() {
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    observe(&mut c);
}

criterion_main!(benches);
