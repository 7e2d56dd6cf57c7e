//! Replaying a recorded transcript of 1,000,000 messages, in messages per second.
//!
//! Run with `cargo bench --bench replay`. The transcript is generated into a temporary
//! directory (about 150 MB, removed afterwards; never committed): a system prompt,
//! then a 6-message cycle in doneseq's JSONL (a user question, an LLM calculator
//! call, the calculator's result, an LLM search call, its result, an LLM answer), with
//! responders, usage and tool arguments as JSON objects, as real logs have them. The
//! task has five sequences (a regex, `F`, responders, `E`) and Langroid's default
//! options (the `DONE` signal is read); none of them ends the task, so every message
//! is read, classified and matched.
//!
//! Measured:
//! - `library`: `transcript::Reader` + `Monitor::observe`, the work every mode of
//!   `doneseq check` does;
//! - the `doneseq check` binary (Cargo builds it for benches), output to /dev/null:
//!   the table (its default), `--json`, and `--summary` (no per-message rows);
//! - `doneseq check` over a corpus: the same million messages in 200 files, checked
//!   in parallel.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_main};
use doneseq::transcript::{Format, Reader};
use doneseq::{Monitor, TaskConfig};

const MESSAGES: usize = 1_000_000;

/// The runs the corpus splits the messages into.
const RUNS: usize = 200;

const SEQUENCES: &[&str] = &[
    "calc: T[calculator], A@Calculator & E",
    "quit: U & C[\\b(quit|bye)\\b]",
    "search: T[search], A@Search, U",
    "F",
    "L, L",
];

const CYCLE: [&str; 6] = [
    r#"{"role": "user", "content": "What is 17 times 23, plus 4? Then find the capital of France."}"#,
    r#"{"role": "llm", "content": "Let me compute that.", "tool_calls": [{"name": "calculator", "arguments": {"expression": "17 * 23 + 4"}}], "usage": {"input_tokens": 61, "output_tokens": 22}}"#,
    r#"{"role": "agent", "responder": "Calculator", "content": "395"}"#,
    r#"{"role": "llm", "content": "", "tool_calls": [{"id": "call_2", "name": "search", "arguments": {"query": "capital of France"}}], "usage": {"input_tokens": 97, "output_tokens": 20}}"#,
    r#"{"role": "agent", "responder": "Search", "content": "Paris is the capital and most populous city of France."}"#,
    r#"{"role": "llm", "content": "17 times 23, plus 4, is 395, and the capital of France is Paris.", "usage": {"input_tokens": 130, "output_tokens": 12}}"#,
];

/// A temporary directory with the transcript and the task's configuration, removed
/// when dropped.
struct Fixture {
    dir: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = std::env::temp_dir().join(format!("doneseq-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the temporary directory");
        write_run(&dir.join("transcript.jsonl"), MESSAGES);
        // The corpus: the same million messages as RUNS transcripts.
        let corpus = dir.join("corpus");
        std::fs::create_dir_all(&corpus).unwrap();
        for run in 0..RUNS {
            write_run(&corpus.join(format!("run{run:03}.jsonl")), MESSAGES / RUNS);
        }
        let config = serde_json::json!({ "done_sequences": SEQUENCES });
        std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
        Fixture { dir }
    }

    fn transcript(&self) -> PathBuf {
        self.dir.join("transcript.jsonl")
    }

    fn corpus(&self) -> PathBuf {
        self.dir.join("corpus")
    }

    fn config(&self) -> PathBuf {
        self.dir.join("config.json")
    }
}

/// Writes a transcript of `messages` messages: the system prompt, then the cycle.
fn write_run(path: &Path, messages: usize) {
    let mut out = BufWriter::new(File::create(path).unwrap());
    writeln!(
        out,
        r#"{{"role": "system", "content": "You are a careful assistant. Use the tools."}}"#
    )
    .unwrap();
    for line in CYCLE.iter().cycle().take(messages - 1) {
        writeln!(out, "{line}").unwrap();
    }
    out.flush().unwrap();
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Replays with the library: how many messages were read, and whether any stopped.
fn replay(monitor: &Monitor, transcript: &Path) -> (usize, bool) {
    let input = BufReader::with_capacity(1 << 16, File::open(transcript).unwrap());
    let mut run = monitor.start();
    let (mut count, mut stopped) = (0, false);
    let mut reader = Reader::new(input, Format::Auto);
    while let Some(message) = reader.next_borrowed() {
        stopped |= monitor.observe(&mut run, &message.unwrap()).is_stop();
        count += 1;
    }
    (count, stopped)
}

/// Reading alone: the messages the library builds, not observed.
fn read_only(transcript: &Path) -> (usize, u64) {
    let input = BufReader::with_capacity(1 << 16, File::open(transcript).unwrap());
    let mut reader = Reader::new(input, Format::Auto);
    let (mut count, mut tokens) = (0, 0);
    while let Some(message) = reader.next_borrowed() {
        let usage = message.unwrap().usage();
        tokens += usage.map_or(0, |u| u.input_tokens + u.output_tokens);
        count += 1;
    }
    (count, tokens)
}

/// The floor: each line read as the library reads it (up to memchr's `\n`, into one
/// buffer)
/// and deserialized by serde_json into a borrowed struct of the fields the file has
/// (texts borrowed, arguments as raw JSON), with nothing classified or matched.
fn serde_baseline(transcript: &Path) -> (usize, u64) {
    use std::io::BufRead;

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Line<'a> {
        role: &'a str,
        #[serde(borrow)]
        content: Option<std::borrow::Cow<'a, str>>,
        responder: Option<&'a str>,
        #[serde(borrow)]
        tool_calls: Option<Vec<Call<'a>>>,
        usage: Option<UsageWire>,
    }
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Call<'a> {
        id: Option<&'a str>,
        name: &'a str,
        #[serde(borrow)]
        arguments: &'a serde_json::value::RawValue,
    }
    #[derive(serde::Deserialize)]
    struct UsageWire {
        input_tokens: u64,
        output_tokens: u64,
    }
    let mut input = BufReader::with_capacity(1 << 16, File::open(transcript).unwrap());
    let mut buffer = Vec::new();
    let (mut count, mut tokens) = (0, 0);
    loop {
        buffer.clear();
        // A line as the library reads it: up to memchr's `\n`.
        loop {
            let available = input.fill_buf().unwrap();
            let (taken, done) = match memchr::memchr(b'\n', available) {
                Some(i) => (i + 1, true),
                None => (available.len(), available.is_empty()),
            };
            buffer.extend_from_slice(&available[..taken]);
            input.consume(taken);
            if done {
                break;
            }
        }
        if buffer.is_empty() {
            break;
        }
        let text = std::str::from_utf8(&buffer).unwrap();
        let line: Line<'_> = serde_json::from_str(text.trim()).unwrap();
        tokens += line.usage.map_or(0, |u| u.input_tokens + u.output_tokens);
        count += 1;
    }
    (count, tokens)
}

fn check(fixture: &Fixture, flags: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_doneseq"));
    command
        .arg("check")
        .args(flags)
        .arg("--config")
        .arg(fixture.config())
        .arg(fixture.transcript());
    command
}

fn replay_bench(c: &mut Criterion) {
    let fixture = Fixture::new();
    let monitor = Monitor::new(TaskConfig::from_dsl(SEQUENCES).unwrap()).unwrap();

    // Check the answers before timing them.
    assert_eq!(replay(&monitor, &fixture.transcript()), (MESSAGES, false));
    assert_eq!(
        read_only(&fixture.transcript()),
        serde_baseline(&fixture.transcript())
    );
    let table = check(&fixture, &[]).output().unwrap();
    assert!(table.status.success());
    let table = String::from_utf8(table.stdout).unwrap();
    assert_eq!(
        table.lines().count(),
        1 + MESSAGES + 1 + 1 + SEQUENCES.len()
    );
    assert!(table.contains("\nnot done\n"));
    let json = check(&fixture, &["--json"]).output().unwrap();
    assert!(json.status.success());
    let json = String::from_utf8(json.stdout).unwrap();
    assert!(json.starts_with("{\"steps\":[") && json.ends_with("\"stopped\":false}\n"));
    assert_eq!(json.matches("\"index\":").count(), MESSAGES);
    let summary = check(&fixture, &["--summary"]).output().unwrap();
    let summary = String::from_utf8(summary.stdout).unwrap();
    assert!(table.ends_with(&format!("\n\n{summary}")), "{summary}");

    let mut group = c.benchmark_group("replay 1M messages");
    group
        .throughput(Throughput::Elements(MESSAGES as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(15));
    group.bench_function("baseline (serde_json, borrowed)", |b| {
        b.iter(|| serde_baseline(&fixture.transcript()));
    });
    group.bench_function("reader (Reader::next_borrowed)", |b| {
        b.iter(|| read_only(&fixture.transcript()));
    });
    group.bench_function("library (Reader + observe)", |b| {
        b.iter(|| replay(&monitor, &fixture.transcript()));
    });
    for (name, flags) in [
        ("doneseq check (table)", &[][..]),
        ("doneseq check --json", &["--json"][..]),
        ("doneseq check --summary", &["--summary"][..]),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let status = check(&fixture, flags)
                    .stdout(Stdio::null())
                    .status()
                    .unwrap();
                assert!(status.success());
            });
        });
    }
    // The corpus mode: the same number of messages in RUNS files, checked in
    // parallel (a line per run, then the totals).
    let corpus = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_doneseq"));
        command
            .args(["check", "--config"])
            .arg(fixture.config())
            .arg(fixture.corpus());
        command
    };
    let lines = corpus().output().unwrap();
    assert!(lines.status.success());
    let lines = String::from_utf8(lines.stdout).unwrap();
    assert!(lines.contains(&format!("{RUNS} runs: 0 done")), "{lines}");
    group.bench_function(format!("doneseq check, a corpus of {RUNS} runs"), |b| {
        b.iter(|| {
            let status = corpus().stdout(Stdio::null()).status().unwrap();
            assert!(status.success());
        });
    });
    group.finish();
}

fn benches() {
    let mut c = Criterion::default().configure_from_args();
    replay_bench(&mut c);
}

criterion_main!(benches);
