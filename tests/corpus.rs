//! `doneseq::corpus`: runs checked one by one and in parallel agree, the totals are
//! the same however the corpus is split, summaries round-trip through JSON, and the
//! CLI's corpus lines are the library's summaries.

use std::path::PathBuf;
use std::process::Command;

use doneseq::corpus::{
    Aggregate, NO_MESSAGE, RunSummary, check_file, check_files, check_reader_with,
};
use doneseq::transcript::{Format, Reader};
use doneseq::{Monitor, TaskConfig, VerdictKind};

/// A small deterministic generator (xorshift), so that the corpus is the same on
/// every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// One transcript: an input, then model answers, tool calls and results, some with
/// `FINAL(...)`, each with its token usage.
fn transcript(rng: &mut Rng) -> String {
    let mut lines = vec![r#"{"role": "user", "content": "the task"}"#.to_owned()];
    for step in 0..rng.below(12) {
        let tokens = rng.below(500);
        let line = match rng.below(6) {
            0 => format!(
                r#"{{"role": "llm", "content": "", "tool_calls": [{{"name": "search"}}], "usage": {{"input_tokens": {tokens}, "output_tokens": 3}}}}"#
            ),
            1 => format!(r#"{{"role": "tool", "content": "result {step}"}}"#),
            2 => format!(
                r#"{{"role": "llm", "content": "FINAL(answer {step})", "usage": {{"input_tokens": {tokens}, "output_tokens": 9}}}}"#
            ),
            3 => format!(r#"{{"role": "user", "content": "go on {step}"}}"#),
            _ => format!(
                r#"{{"role": "llm", "content": "thinking {step}", "usage": {{"input_tokens": {tokens}, "output_tokens": 5}}}}"#
            ),
        };
        lines.push(line);
    }
    lines.join("\n") + "\n"
}

fn monitor() -> Monitor {
    let config: TaskConfig = serde_json::from_str(
        r#"{"done_sequences": ["T[search], A"], "stop": "final | max_turns(6) | tokens(2000)"}"#,
    )
    .unwrap();
    Monitor::new(config).unwrap()
}

/// A corpus in a directory of the test's own: `runs` transcripts, then one whose
/// third line is not JSON.
fn corpus(name: &str, runs: usize) -> (PathBuf, Vec<PathBuf>) {
    let dir = std::env::temp_dir().join(format!("doneseq-corpus-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut paths = Vec::new();
    for i in 0..runs {
        let path = dir.join(format!("run-{i:03}.jsonl"));
        std::fs::write(&path, transcript(&mut rng)).unwrap();
        paths.push(path);
    }
    let bad = dir.join("run-bad.jsonl");
    std::fs::write(
        &bad,
        "{\"role\": \"user\", \"content\": \"x\"}\n{\"role\": \"llm\", \"content\": \"y\"}\nnot json\n",
    )
    .unwrap();
    paths.push(bad);
    (dir, paths)
}

#[test]
fn files_checked_in_parallel_are_each_checked_alone_in_order() {
    let (dir, mut paths) = corpus("parallel", 60);
    paths.push(dir.join("missing.jsonl"));
    let monitor = monitor();
    let runs = check_files(&monitor, &paths, Format::Auto);
    assert_eq!(runs.len(), paths.len());
    for (run, path) in runs.iter().zip(&paths) {
        assert_eq!(run, &check_file(&monitor, path, Format::Auto));
        assert_eq!(run.path, path.display().to_string());
    }
    let kinds: std::collections::HashSet<_> = runs.iter().map(|r| r.kind).collect();
    assert!(
        kinds.len() >= 3,
        "the corpus has several outcomes: {kinds:?}"
    );
    let bad = &runs[runs.len() - 2];
    assert!(
        bad.error.as_deref().is_some_and(|e| e.contains("line 3")),
        "{bad:?}"
    );
    let missing = runs.last().unwrap();
    assert!(
        missing
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("cannot open")),
        "{missing:?}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_totals_are_the_same_however_the_corpus_is_split() {
    let (dir, paths) = corpus("split", 40);
    let runs = check_files(&monitor(), &paths, Format::Auto);
    let whole: Aggregate = runs.iter().collect();
    assert_eq!(whole.runs, runs.len());
    assert_eq!(whole.errors, 1);
    assert_eq!(
        whole.done
            + whole.exhausted
            + whole.stuck
            + whole.failed
            + whole.cancelled
            + whole.never_stopped
            + whole.errors,
        whole.runs
    );
    assert!(
        whole.steps_saved > 0 && whole.stopped_early > 0,
        "{whole:?}"
    );
    for parts in [1, 2, 3, 7, runs.len()] {
        let mut merged = Aggregate::default();
        for chunk in runs.chunks(runs.len().div_ceil(parts)) {
            merged.merge(&chunk.iter().collect());
        }
        assert_eq!(merged, whole, "{parts} parts");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn summaries_and_totals_round_trip_through_json() {
    let (dir, paths) = corpus("json", 20);
    let runs = check_files(&monitor(), &paths, Format::Auto);
    for run in &runs {
        let json = serde_json::to_string(run).unwrap();
        assert_eq!(&serde_json::from_str::<RunSummary>(&json).unwrap(), run);
    }
    let total: Aggregate = runs.iter().collect();
    let json = serde_json::to_string(&total).unwrap();
    assert_eq!(serde_json::from_str::<Aggregate>(&json).unwrap(), total);
    let error = serde_json::from_str::<Aggregate>(r#"{"runs": 1, "rnus": 2}"#).unwrap_err();
    assert!(error.to_string().contains("rnus"), "{error}");
    let error =
        serde_json::from_str::<RunSummary>(r#"{"path": "a", "kind": "finished"}"#).unwrap_err();
    assert!(error.to_string().contains("finished"), "{error}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_message_is_seen_with_whether_it_is_a_step() {
    let log = "{\"role\": \"system\", \"content\": \"be brief\"}\n\
               {\"role\": \"user\", \"content\": \"6*7?\"}\n\
               {\"role\": \"llm\", \"content\": \"FINAL(42)\"}\n\
               {\"role\": \"llm\", \"content\": \"after the stop\"}\n";
    let mut config = TaskConfig::default();
    config.stop = Some("final".parse().unwrap());
    let monitor = Monitor::new(config).unwrap();
    let mut seen = Vec::new();
    let run = check_reader_with(
        &monitor,
        "inline",
        Reader::new(log.as_bytes(), Format::Jsonl),
        |index, message, step| seen.push((index, message.content().to_owned(), step)),
    );
    assert_eq!(
        seen,
        [
            (0, "be brief".to_owned(), false),
            (1, "6*7?".to_owned(), false),
            (2, "FINAL(42)".to_owned(), true),
            (3, "after the stop".to_owned(), true),
        ]
    );
    assert_eq!(run.kind, Some(VerdictKind::Done));
    assert_eq!(run.answer.as_deref(), Some("42"));
    assert_eq!((run.at, run.steps, run.recorded_steps), (Some(2), 1, 2));
    // The last model answer comes after the stop, but the recorded final answer is the
    // last FINAL: the stop is not early.
    assert!(!run.early);
}

#[test]
fn the_clis_corpus_lines_are_the_librarys_summaries() {
    let (dir, paths) = corpus("cli", 30);
    let config = dir.join("config.json");
    std::fs::write(
        &config,
        r#"{"done_sequences": ["T[search], A"], "stop": "final | max_turns(6) | tokens(2000)"}"#,
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_doneseq"));
    command.args(["check", "--json", "--config"]).arg(&config);
    command.args(&paths);
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "one transcript is bad");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let runs = check_files(&monitor(), &paths, Format::Auto);
    assert_eq!(lines.len(), runs.len() + 1);
    for (line, run) in lines.iter().zip(&runs) {
        assert_eq!(serde_json::from_str::<RunSummary>(line).unwrap(), *run);
    }
    let total: serde_json::Value = serde_json::from_str(lines[runs.len()]).unwrap();
    let expected: Aggregate = runs.iter().collect();
    assert_eq!(total["aggregate"], serde_json::to_value(&expected).unwrap());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_transcript_of_no_message_is_a_warning() {
    // An empty log, and a Claude Code sub-agent's metadata (which sits beside its
    // log in a session's directory): each a warning, in the library's summary and on
    // the CLI's standard error, beside a run that has messages.
    let dir = std::env::temp_dir().join(format!("doneseq-corpus-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "\n\n").unwrap();
    let meta = dir.join("agent-a1.meta.json");
    std::fs::write(&meta, r#"{"agentType": "general-purpose"}"#).unwrap();
    let run = dir.join("run.jsonl");
    std::fs::write(&run, "{\"role\": \"user\", \"content\": \"hi\"}\n").unwrap();
    let paths = [empty, meta, run];
    let runs = check_files(&monitor(), &paths, Format::Auto);
    let warnings: Vec<Option<&str>> = runs.iter().map(|r| r.warning.as_deref()).collect();
    assert_eq!(warnings, [Some(NO_MESSAGE), Some(NO_MESSAGE), None]);
    let out = Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .args(["check", "--stop", "max_turns(9)"])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    for path in &paths[..2] {
        let line = format!("warning: {}: {NO_MESSAGE}", path.display());
        assert!(stderr.contains(&line), "{line} not in:\n{stderr}");
    }
    assert_eq!(stderr.matches("warning:").count(), 2, "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}
