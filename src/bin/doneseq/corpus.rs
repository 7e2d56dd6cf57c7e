//! `doneseq check` over a corpus: many transcripts (files, directories searched
//! recursively, globs), checked in parallel, one line per run in the order of the
//! paths, then what the stop rule would do to all of them.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use doneseq::transcript::{Format, Reader};
use doneseq::{Monitor, Role, StopReason};

/// One run of the corpus: where the stop rule stopped it, and what the recorded run
/// did after that.
#[derive(Debug, Default, serde::Serialize)]
pub(crate) struct RunSummary {
    pub(crate) path: String,
    /// The stop's kind, or `None` when the rule never stopped the run.
    pub(crate) kind: Option<&'static str>,
    /// The message index of the stop.
    pub(crate) at: Option<usize>,
    /// What fired: the condition's text or the sequence.
    pub(crate) fired: Option<String>,
    /// The stop's answer, if it has one.
    pub(crate) answer: Option<String>,
    /// Steps and tokens up to and including the stop (the whole run if none).
    pub(crate) steps: u64,
    pub(crate) tokens: u64,
    /// The recorded run: all its steps and tokens.
    pub(crate) recorded_steps: u64,
    pub(crate) recorded_tokens: u64,
    /// Whether the recorded final answer (the last `FINAL`, or else the last model
    /// answer) comes after the stop: the rule would have cut the run too early.
    pub(crate) early: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// What the run's searches past a pattern's backtracking limit say, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) warning: Option<String>,
    /// The run's messages, for the HTML report (kept only when it is asked for).
    #[serde(skip)]
    pub(crate) timeline: Timeline,
}

/// The messages of a run as the HTML report shows them: each message's first
/// [`Timeline::TEXT`] characters, at most [`Timeline::limit`] messages.
#[derive(Debug, Default)]
pub(crate) struct Timeline {
    pub(crate) rows: Vec<TimelineRow>,
    /// How many messages came after the last row kept.
    pub(crate) more: usize,
    /// The most rows kept (see [`Timeline::rows_per_run`]).
    pub(crate) limit: usize,
}

/// One message of a [`Timeline`].
#[derive(Debug)]
pub(crate) struct TimelineRow {
    pub(crate) index: usize,
    pub(crate) role: &'static str,
    /// The responder or name, if the message has one.
    pub(crate) who: Option<String>,
    /// The start of the content, then of the error if any, cut at a character
    /// boundary.
    pub(crate) text: String,
    pub(crate) cut: bool,
    pub(crate) tools: Vec<String>,
    /// The task's input, not a step.
    pub(crate) input: bool,
    pub(crate) error: bool,
}

impl Timeline {
    /// The most messages kept of one run.
    const ROWS: usize = 500;
    /// The fewest kept of one run, however large the corpus.
    const MIN_ROWS: usize = 20;
    /// The messages kept over a whole corpus (each at most [`Timeline::TEXT`]
    /// characters): what keeps a report's memory and page bounded.
    const CORPUS_ROWS: usize = 100_000;
    /// The characters of text kept per message.
    pub(crate) const TEXT: usize = 400;

    /// The messages kept per run in a corpus of `runs`: the corpus's share, between
    /// [`Timeline::MIN_ROWS`] and [`Timeline::ROWS`] (the same for every run, so the
    /// report does not depend on the order the threads finish in).
    pub(crate) fn rows_per_run(runs: usize) -> usize {
        (Self::CORPUS_ROWS / runs.max(1)).clamp(Self::MIN_ROWS, Self::ROWS)
    }

    fn push(&mut self, index: usize, message: &doneseq::Message<'_>, input: bool) {
        if self.rows.len() >= self.limit {
            self.more += 1;
            return;
        }
        let full: std::borrow::Cow<'_, str> = match message.error() {
            Some(error) if message.content().is_empty() => format!("[error: {error}]").into(),
            Some(error) => format!("{}\n[error: {error}]", message.content()).into(),
            None => message.content().into(),
        };
        let text: String = full.chars().take(Self::TEXT).collect();
        self.rows.push(TimelineRow {
            index,
            role: message.role().as_str(),
            who: message
                .responder()
                .filter(|who| !who.is_empty())
                .map(str::to_owned),
            cut: text.len() < full.len(),
            text,
            tools: message
                .tool_calls()
                .iter()
                .map(|call| call.name().to_owned())
                .collect(),
            input,
            error: message.error().is_some(),
        });
    }
}

impl RunSummary {
    /// Whether the transcript could not be read.
    pub(crate) fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Whether two rules' runs of one transcript stop differently (where, how, or
    /// with another answer).
    pub(crate) fn differs(&self, other: &RunSummary) -> bool {
        (self.kind, self.at, &self.answer, &self.error)
            != (other.kind, other.at, &other.answer, &other.error)
    }

    /// One line: where and how it stopped.
    pub(crate) fn verdict(&self) -> String {
        if let Some(error) = &self.error {
            return format!("error: {error}");
        }
        match (self.kind, self.at) {
            (Some(kind), Some(at)) => format!(
                "{kind} at message {at}: {} (answer: {})",
                self.fired.as_deref().unwrap_or("?"),
                self.answer
                    .as_deref()
                    .map_or_else(|| "none".to_owned(), |a| format!("{a:?}"))
            ),
            _ => "not stopped".to_owned(),
        }
    }
}

/// The totals over a corpus.
#[derive(Debug, Default, serde::Serialize)]
pub(crate) struct Aggregate {
    pub(crate) runs: usize,
    pub(crate) errors: usize,
    pub(crate) done: usize,
    pub(crate) exhausted: usize,
    pub(crate) stuck: usize,
    pub(crate) failed: usize,
    pub(crate) cancelled: usize,
    pub(crate) never_stopped: usize,
    pub(crate) stopped_early: usize,
    pub(crate) steps_to_stop: u64,
    pub(crate) tokens_to_stop: u64,
    pub(crate) steps_saved: u64,
    pub(crate) tokens_saved: u64,
}

/// The transcript files `args` name: files as given, directories searched
/// recursively for `.jsonl` and `.json` files, globs (`*`, `?`, `**`) expanded; sorted
/// and without repeats.
pub(crate) fn expand(args: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for arg in args {
        let path = Path::new(arg);
        if arg.contains(['*', '?']) {
            let found = glob(arg);
            if found.is_empty() {
                return Err(format!("{arg}: no file matches"));
            }
            out.extend(found);
        } else if path.is_dir() {
            walk(path, &mut out);
        } else if path.is_file() {
            out.push(path.to_path_buf());
        } else {
            return Err(format!("{arg}: no such file or directory"));
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn is_transcript(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "jsonl" || e == "json")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else if is_transcript(&path) {
            out.push(path);
        }
    }
}

/// The files matching a glob: the part before the first wildcard is walked, the rest
/// matched against each file's path.
fn glob(pattern: &str) -> Vec<PathBuf> {
    let wild = pattern.find(['*', '?']).unwrap_or(pattern.len());
    let base = match pattern[..wild].rfind('/') {
        Some(slash) => &pattern[..=slash],
        None => "",
    };
    let mut files = Vec::new();
    walk_all(
        Path::new(if base.is_empty() { "." } else { base }),
        &mut files,
    );
    files
        .into_iter()
        .filter(|p| {
            let text = p.to_string_lossy();
            let text = if base.is_empty() {
                text.trim_start_matches("./")
            } else {
                &text
            };
            matches(pattern.as_bytes(), text.as_bytes())
        })
        .collect()
}

fn walk_all(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk_all(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Whether `text` matches the glob `pattern`: `*` any run of characters but `/`,
/// `**` any run at all, `?` one character but `/`.
fn matches(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.first() {
        None => text.is_empty(),
        Some(b'*') if pattern.get(1) == Some(&b'*') => {
            let rest = pattern[2..].strip_prefix(b"/").unwrap_or(&pattern[2..]);
            (0..=text.len()).any(|i| matches(rest, &text[i..]))
        }
        Some(b'*') => (0..=text.len())
            .take_while(|&i| i == 0 || text[i - 1] != b'/')
            .any(|i| matches(&pattern[1..], &text[i..])),
        Some(b'?') => {
            text.first().is_some_and(|&c| c != b'/') && matches(&pattern[1..], &text[1..])
        }
        Some(&c) => text.first() == Some(&c) && matches(&pattern[1..], &text[1..]),
    }
}

/// Checks one transcript to its end, keeping the first `timeline_rows` messages of
/// its timeline.
fn check_one(monitor: &Monitor, path: &Path, format: Format, timeline_rows: usize) -> RunSummary {
    let mut summary = RunSummary {
        path: path.display().to_string(),
        timeline: Timeline {
            limit: timeline_rows,
            ..Timeline::default()
        },
        ..RunSummary::default()
    };
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) => {
            summary.error = Some(format!("cannot open: {e}"));
            return summary;
        }
    };
    let mut run = monitor.start();
    let (mut steps, mut tokens) = (0u64, 0u64);
    let mut stopped_at_step: Option<u64> = None;
    // The recorded final answer: the last FINAL's step, else the last model answer's.
    let (mut last_final, mut last_answer): (Option<u64>, Option<u64>) = (None, None);
    // Borrowed messages: a line's texts are not copied.
    let mut reader = Reader::new(BufReader::new(file), format);
    let mut next_index = 0;
    let mut overrun_at = None;
    while let Some(message) = reader.next_borrowed() {
        let index = next_index;
        next_index += 1;
        let message = match message {
            Ok(message) => message,
            Err(e) => {
                summary.error = Some(e.to_string());
                return summary;
            }
        };
        // System messages and the task's input are not steps (decided before the
        // message is observed, as the monitor decides).
        let step = monitor.is_step(&run, &message);
        if timeline_rows > 0 {
            summary
                .timeline
                .push(index, &message, !step && message.role() != Role::System);
        }
        if !step {
            continue;
        }
        steps += 1;
        tokens += message
            .usage()
            .map_or(0, |u| u.input_tokens + u.output_tokens);
        if message.role() == Role::Llm
            && message.tool_calls().is_empty()
            && !message.is_no_response()
        {
            last_answer = Some(steps);
            if doneseq::detect_final_in_text(message.content()).detected {
                last_final = Some(steps);
            }
        }
        if stopped_at_step.is_some() {
            continue;
        }
        let verdict = monitor.observe(&mut run, &message);
        if overrun_at.is_none() && run.pattern_overruns() > 0 {
            overrun_at = Some(index);
        }
        if let Some(outcome) = verdict.outcome() {
            stopped_at_step = Some(steps);
            summary.kind = Some(outcome.kind.as_str());
            summary.at = Some(index);
            summary.fired = Some(match outcome.reason {
                StopReason::Sequence(s) => format!("sequence {s} \"{}\"", monitor.sequences()[s]),
                _ => outcome
                    .leading()
                    .map_or_else(|| "?".to_owned(), |c| c.text.to_string()),
            });
            summary.answer = outcome.answer.as_ref().map(|a| a.text.clone());
            summary.steps = steps;
            summary.tokens = tokens;
        }
    }
    summary.recorded_steps = steps;
    summary.recorded_tokens = tokens;
    summary.warning = crate::check_cmd::overrun_warning(monitor, &run, overrun_at);
    match stopped_at_step {
        Some(at) => summary.early = last_final.or(last_answer).is_some_and(|end| end > at),
        None => {
            summary.steps = steps;
            summary.tokens = tokens;
        }
    }
    summary
}

/// Prints each run's warning on standard error, with its path (and `prefix`, which
/// names the configuration when there are several).
pub(crate) fn print_warnings(runs: &[RunSummary], prefix: &str) {
    for run in runs {
        if let Some(warning) = &run.warning {
            eprintln!("warning: {prefix}{}: {warning}", run.path);
        }
    }
}

/// Checks every path, in parallel, and returns the summaries in the paths' order (with
/// their timelines, the corpus's share each, when `timelines` is set).
pub(crate) fn check_all(
    monitor: &Monitor,
    paths: &[PathBuf],
    format: Format,
    timelines: bool,
) -> Vec<RunSummary> {
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(paths.len().max(1));
    let rows = if timelines {
        Timeline::rows_per_run(paths.len())
    } else {
        0
    };
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<RunSummary>> = (0..paths.len()).map(|_| None).collect();
    let results: Vec<Vec<(usize, RunSummary)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = paths.get(i) else { break };
                        done.push((i, check_one(monitor, path, format, rows)));
                    }
                    done
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    for (i, summary) in results.into_iter().flatten() {
        slots[i] = Some(summary);
    }
    slots.into_iter().flatten().collect()
}

/// The totals of `runs`.
pub(crate) fn aggregate(runs: &[RunSummary]) -> Aggregate {
    let mut total = Aggregate {
        runs: runs.len(),
        ..Aggregate::default()
    };
    for run in runs {
        if run.error.is_some() {
            total.errors += 1;
            continue;
        }
        match run.kind {
            Some("done") => total.done += 1,
            Some("exhausted") => total.exhausted += 1,
            Some("stuck") => total.stuck += 1,
            Some("failed") => total.failed += 1,
            Some(_) => total.cancelled += 1,
            None => total.never_stopped += 1,
        }
        total.stopped_early += usize::from(run.early);
        total.steps_to_stop += run.steps;
        total.tokens_to_stop += run.tokens;
        total.steps_saved += run.recorded_steps - run.steps;
        total.tokens_saved += run.recorded_tokens - run.tokens;
    }
    total
}

/// Writes the runs, then the totals: one line each, or JSON Lines.
pub(crate) fn write(
    out: &mut impl Write,
    runs: &[RunSummary],
    total: &Aggregate,
    json: bool,
) -> io::Result<()> {
    if json {
        for run in runs {
            serde_json::to_writer(&mut *out, run)?;
            out.write_all(b"\n")?;
        }
        serde_json::to_writer(&mut *out, &serde_json::json!({ "aggregate": total }))?;
        return out.write_all(b"\n");
    }
    for run in runs {
        if let Some(error) = &run.error {
            writeln!(out, "{}  error: {error}", run.path)?;
            continue;
        }
        match (run.kind, run.at) {
            (Some(kind), Some(at)) => writeln!(
                out,
                "{}  {kind} at message {at}: {}  steps {}/{}  tokens {}/{}{}",
                run.path,
                run.fired.as_deref().unwrap_or("?"),
                run.steps,
                run.recorded_steps,
                run.tokens,
                run.recorded_tokens,
                if run.early {
                    "  (before its final answer)"
                } else {
                    ""
                }
            )?,
            _ => writeln!(
                out,
                "{}  not stopped  steps {}  tokens {}",
                run.path, run.steps, run.tokens
            )?,
        }
    }
    writeln!(out)?;
    write_totals(out, total, "")
}

/// The totals, on two lines, each after `lead`.
pub(crate) fn write_totals(out: &mut impl Write, total: &Aggregate, lead: &str) -> io::Result<()> {
    writeln!(
        out,
        "{lead}{} runs: {} done, {} exhausted, {} stuck, {} failed, {} cancelled, {} never stopped, {} errors",
        total.runs,
        total.done,
        total.exhausted,
        total.stuck,
        total.failed,
        total.cancelled,
        total.never_stopped,
        total.errors
    )?;
    writeln!(
        out,
        "{lead}to the stop: {} steps, {} tokens; saved against the recorded runs: {} steps, {} tokens; stopped before their final answer: {}",
        total.steps_to_stop,
        total.tokens_to_stop,
        total.steps_saved,
        total.tokens_saved,
        total.stopped_early
    )
}

#[cfg(test)]
mod tests {
    use super::{Timeline, matches};

    #[test]
    fn a_corpus_shares_its_timeline_rows() {
        assert_eq!(Timeline::rows_per_run(0), 500);
        assert_eq!(Timeline::rows_per_run(1), 500);
        assert_eq!(Timeline::rows_per_run(1_000), 100);
        assert_eq!(Timeline::rows_per_run(1_000_000), 20);
    }

    #[test]
    fn globs_match_as_shells_do() {
        for (pattern, text, expected) in [
            ("logs/*.jsonl", "logs/a.jsonl", true),
            ("logs/*.jsonl", "logs/sub/a.jsonl", false),
            ("logs/**/*.jsonl", "logs/sub/a.jsonl", true),
            ("logs/**/*.jsonl", "logs/a.jsonl", true),
            ("run-?.json", "run-1.json", true),
            ("run-?.json", "run-10.json", false),
        ] {
            assert_eq!(
                matches(pattern.as_bytes(), text.as_bytes()),
                expected,
                "{pattern} {text}"
            );
        }
    }
}
