//! Checking recorded runs: one reader, one file, or many files in parallel.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::summary::{NO_MESSAGE, RunSummary, overrun_warning};
use crate::message::{Message, Role};
use crate::monitor::Monitor;
use crate::transcript::{Format, Reader};

/// Checks the run `reader` reads to its end: where `monitor`'s rule stops it, and what
/// the recorded run did after that. An unreadable message ends the run with
/// [`RunSummary::error`] set (with the reader's position); the summary then holds
/// what came before it.
#[must_use]
pub fn check_reader<R: BufRead>(
    monitor: &Monitor,
    path: impl Into<String>,
    reader: Reader<R>,
) -> RunSummary {
    check_reader_with(monitor, path, reader, |_, _, _| {})
}

/// [`check_reader`], calling `each(index, message, step)` on every message read (after
/// the stop too), `step` false for the task's input and system messages: what a
/// report of the run's messages keeps.
pub fn check_reader_with<R: BufRead>(
    monitor: &Monitor,
    path: impl Into<String>,
    mut reader: Reader<R>,
    mut each: impl FnMut(usize, &Message<'_>, bool),
) -> RunSummary {
    let mut summary = RunSummary::new(path);
    let mut run = monitor.start();
    let (mut steps, mut tokens) = (0u64, 0u64);
    let mut stopped_at_step: Option<u64> = None;
    // The recorded final answer: the last FINAL's step, else the last model answer's.
    let (mut last_final, mut last_answer): (Option<u64>, Option<u64>) = (None, None);
    let mut next_index = 0;
    let mut overrun_at = None;
    // Borrowed messages: a line's texts are not copied.
    while let Some(message) = reader.next_borrowed() {
        let index = next_index;
        next_index += 1;
        let message = match message {
            Ok(message) => message,
            Err(e) => {
                summary.error = Some(e.to_string());
                break;
            }
        };
        // System messages and the task's input are not steps (decided before the
        // message is observed, as the monitor decides).
        let step = monitor.is_step(&run, &message);
        each(index, &message, step);
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
            if crate::answer::detect_final_in_text(message.content()).detected {
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
            summary.kind = Some(outcome.kind);
            summary.at = Some(index);
            summary.fired = Some(monitor.fired(outcome));
            summary.answer = outcome.answer.as_ref().map(|a| a.text.clone());
            summary.steps = steps;
            summary.tokens = tokens;
        }
    }
    summary.recorded_steps = steps;
    summary.recorded_tokens = tokens;
    summary.warning = overrun_warning(monitor, &run, overrun_at);
    if next_index == 0 {
        summary.warning = Some(NO_MESSAGE.to_owned());
    }
    match stopped_at_step {
        Some(at) => summary.early = last_final.or(last_answer).is_some_and(|end| end > at),
        None => {
            summary.steps = steps;
            summary.tokens = tokens;
        }
    }
    summary
}

/// Checks the transcript at `path` in `format` (see [`check_reader`]); a file that
/// cannot be opened is a summary with its error.
#[must_use]
pub fn check_file(monitor: &Monitor, path: &Path, format: Format) -> RunSummary {
    check_file_with(monitor, path, format, |_, _, _| {})
}

fn check_file_with(
    monitor: &Monitor,
    path: &Path,
    format: Format,
    each: impl FnMut(usize, &Message<'_>, bool),
) -> RunSummary {
    let name = path.display().to_string();
    match File::open(path) {
        Ok(file) => check_reader_with(
            monitor,
            name,
            Reader::new(BufReader::new(file), format),
            each,
        ),
        Err(e) => RunSummary {
            error: Some(format!("cannot open: {e}")),
            ..RunSummary::new(name)
        },
    }
}

/// Checks every file of `paths`, in parallel on as many threads as the machine has
/// cores, and gives their summaries in the order of `paths`, whichever thread
/// finishes first. A file that cannot be opened or read is a summary with its error;
/// the others are still checked.
///
/// ```
/// use doneseq::corpus::check_files;
/// use doneseq::transcript::Format;
/// use doneseq::{Monitor, TaskConfig};
///
/// let dir = std::env::temp_dir().join(format!("doneseq-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let good = dir.join("good.jsonl");
/// std::fs::write(&good, "{\"role\": \"llm\", \"content\": \"FINAL(42)\"}\n")?;
/// let paths = [good, dir.join("missing.jsonl")];
///
/// let mut config = TaskConfig::default();
/// config.stop = Some("final".parse()?);
/// let runs = check_files(&Monitor::new(config)?, &paths, Format::Auto);
/// assert_eq!(runs[0].answer.as_deref(), Some("42"));
/// assert!(runs[1].error.as_deref().is_some_and(|e| e.starts_with("cannot open")));
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn check_files<P: AsRef<Path> + Sync>(
    monitor: &Monitor,
    paths: &[P],
    format: Format,
) -> Vec<RunSummary> {
    check_files_with(monitor, paths, format, || (), |(), _, _, _| {})
        .into_iter()
        .map(|(summary, ())| summary)
        .collect()
}

/// [`check_files`], building beside each summary a value of its own: `start()` for
/// each run, then `each(&mut value, index, message, step)` on each message (as
/// [`check_reader_with`] calls it).
pub fn check_files_with<P, T, S, E>(
    monitor: &Monitor,
    paths: &[P],
    format: Format,
    start: S,
    each: E,
) -> Vec<(RunSummary, T)>
where
    P: AsRef<Path> + Sync,
    T: Send,
    S: Fn() -> T + Sync,
    E: Fn(&mut T, usize, &Message<'_>, bool) + Sync,
{
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(paths.len().max(1));
    let next = AtomicUsize::new(0);
    let check = |i: usize| {
        let mut value = start();
        let summary = check_file_with(
            monitor,
            paths[i].as_ref(),
            format,
            |index, message, step| {
                each(&mut value, index, message, step);
            },
        );
        (summary, value)
    };
    let done: Vec<Vec<(usize, (RunSummary, T))>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= paths.len() {
                            break done;
                        }
                        done.push((i, check(i)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| match handle.join() {
                Ok(done) => done,
                // A panic is a bug of the crate's; raise it where the caller is.
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    let mut slots: Vec<Option<(RunSummary, T)>> = (0..paths.len()).map(|_| None).collect();
    for (i, result) in done.into_iter().flatten() {
        slots[i] = Some(result);
    }
    // Every index was taken by exactly one thread, and every thread joined.
    slots.into_iter().flatten().collect()
}
