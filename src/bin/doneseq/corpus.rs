//! `doneseq check` over a corpus: many transcripts (files, directories searched
//! recursively, globs), checked in parallel, one line per run in the order of the
//! paths, then what the stop rule would do to all of them.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use doneseq::corpus::Runs;
pub(crate) use doneseq::corpus::{Aggregate, RunSummary};
use doneseq::transcript::Format;
use doneseq::{Monitor, Role};

/// One run of the corpus: its summary, and its messages for the HTML report.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) summary: RunSummary,
    /// Empty unless a report is asked for.
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

/// The transcript files `args` name: files as given, directories searched
/// recursively for `.jsonl`, `.json`, `.tsv` (Langroid's task logs) and `.traj`
/// (trajectories as SWE-bench's published runs name them) files, globs (`*`, `?`,
/// `**`) expanded; sorted and without repeats.
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
            let before = out.len();
            let mut compressed = 0;
            walk(path, &mut out, &mut compressed);
            if out.len() == before {
                // Nothing to check is said, not totalled as no runs.
                let hint = if compressed > 0 {
                    format!("; {compressed} compressed (.gz, .zst): decompress them first")
                } else {
                    String::new()
                };
                return Err(format!(
                    "{arg}: no transcript in it (.jsonl, .json, .tsv, .traj or .eval files, \
                     searched recursively){hint}"
                ));
            }
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
        .is_some_and(|e| e == "jsonl" || e == "json" || e == "tsv" || e == "traj" || e == "eval")
}

/// Whether `path` is a transcript compressed (`.jsonl.gz`, `.json.zst`, ...): not read,
/// but counted, so that a directory of them is not said to hold nothing.
fn is_compressed_transcript(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz" || e == "zst")
        && path
            .file_stem()
            .is_some_and(|stem| is_transcript(Path::new(stem)))
}

/// The transcripts under `dir`, added to `out`; the compressed ones counted in
/// `compressed`. A directory that cannot be read is said on standard error, and the
/// walk goes on (one unreadable directory of a tree does not stop the others).
fn walk(dir: &Path, out: &mut Vec<PathBuf>, compressed: &mut usize) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            eprintln!(
                "warning: {}: cannot read the directory ({e}): its files are not checked",
                dir.display()
            );
            return;
        }
    };
    for entry in entries {
        let path = match entry {
            Ok(entry) => entry.path(),
            Err(e) => {
                eprintln!(
                    "warning: {}: cannot read an entry ({e}): not checked",
                    dir.display()
                );
                continue;
            }
        };
        if path.is_dir() {
            walk(&path, out, compressed);
        } else if is_transcript(&path) {
            out.push(path);
        } else if is_compressed_transcript(&path) {
            *compressed += 1;
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

/// Prints each run's warning on standard error, with its path (and `prefix`, which
/// names the configuration when there are several).
pub(crate) fn print_warnings(runs: &[Run], prefix: &str) {
    for Run { summary: run, .. } in runs {
        if let Some(warning) = &run.warning {
            eprintln!("warning: {prefix}{}: {warning}", run.path);
        }
    }
}

/// Checks every run, in parallel, and returns the summaries in the runs' order, each
/// with its timeline (the corpus's share of messages each, when `timelines` is set;
/// else empty).
pub(crate) fn check_all(
    monitor: &Monitor,
    runs: &Runs<'_, PathBuf>,
    format: Format,
    timelines: bool,
) -> Vec<Run> {
    let limit = if timelines {
        // A run a file, but a run a sample of an Inspect eval log.
        Timeline::rows_per_run(runs.len())
    } else {
        0
    };
    let start = || Timeline {
        limit,
        ..Timeline::default()
    };
    let each = |timeline: &mut Timeline, index, message: &doneseq::Message<'_>, step: bool| {
        if limit > 0 {
            timeline.push(index, message, !step && message.role() != Role::System);
        }
    };
    runs.check_with(monitor, format, start, each)
        .into_iter()
        .map(|(summary, timeline)| Run { summary, timeline })
        .collect()
}

/// The totals of `runs`.
pub(crate) fn aggregate(runs: &[Run]) -> Aggregate {
    runs.iter().map(|run| &run.summary).collect()
}

/// Writes the runs, then the totals: one line each, or JSON Lines.
pub(crate) fn write(
    out: &mut impl Write,
    runs: &[Run],
    total: &Aggregate,
    json: bool,
) -> io::Result<()> {
    if json {
        for run in runs {
            serde_json::to_writer(&mut *out, &run.summary)?;
            out.write_all(b"\n")?;
        }
        serde_json::to_writer(&mut *out, &serde_json::json!({ "aggregate": total }))?;
        return out.write_all(b"\n");
    }
    for Run { summary: run, .. } in runs {
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
