//! Checking recorded runs: one reader, one file, or many files in parallel.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

#[cfg(feature = "eval-archives")]
use super::sources::is_eval_log;
use super::sources::{self, Runs, Source};
use super::summary::{NO_MESSAGE, RunSummary, overrun_warning};
use crate::message::{Message, Role};
use crate::monitor::Monitor;
#[cfg(feature = "eval-archives")]
use crate::transcript::EvalArchive;
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
    reader: Reader<R>,
    each: impl FnMut(usize, &Message<'_>, bool),
) -> RunSummary {
    check_placed(monitor, path, reader, (1, 1), each)
}

/// [`check_reader_with`] of a text that starts at `(line, column)` of its file (a
/// sample of a JSON eval log): an error's position is the file's.
fn check_placed<R: BufRead>(
    monitor: &Monitor,
    path: impl Into<String>,
    mut reader: Reader<R>,
    (line, column): (usize, usize),
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
            Err(mut e) => {
                if e.line == 1 {
                    e.column = e.column.map(|c| c + column - 1);
                }
                e.line += line - 1;
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
    #[cfg(feature = "eval-archives")]
    if is_eval_log(path) {
        return match EvalArchive::open(path) {
            Ok(log) if log.len() == 1 => {
                check_archived(monitor, (0, path), 0, format, &mut Some((0, log)), each)
            }
            Ok(log) if log.is_empty() => RunSummary {
                warning: Some(NO_SAMPLE.to_owned()),
                ..RunSummary::new(name)
            },
            Ok(log) => unreadable(
                name,
                format!(
                    "an Inspect .eval log of {} samples, each its own run: check it as a \
                     corpus (check_files reads each sample as a run)",
                    log.len()
                ),
            ),
            Err(e) => unreadable(name, e.to_string()),
        };
    }
    match File::open(path) {
        Ok(file) => check_reader_with(
            monitor,
            name,
            Reader::new(BufReader::new(file), format),
            each,
        ),
        Err(e) => unreadable(name, format!("cannot open: {e}")),
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
    Runs::find(paths).check(monitor, format)
}

/// [`check_files`] on this thread alone, one run after the other: the same summaries,
/// in the same order.
#[must_use]
pub fn check_files_in_turn<P: AsRef<Path> + Sync>(
    monitor: &Monitor,
    paths: &[P],
    format: Format,
) -> Vec<RunSummary> {
    Runs::find(paths).check_in_turn(monitor, format)
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
    Runs::find(paths).check_with(monitor, format, start, each)
}

impl<P: AsRef<Path> + Sync> Runs<'_, P> {
    /// Checks the runs in parallel (a thread a core), as [`check_files`] does: a
    /// summary each, in their order.
    #[must_use]
    pub fn check(&self, monitor: &Monitor, format: Format) -> Vec<RunSummary> {
        self.check_with(monitor, format, || (), |(), _, _, _| {})
            .into_iter()
            .map(|(summary, ())| summary)
            .collect()
    }

    /// [`Runs::check`] on this thread alone, one run after the other: the same
    /// summaries, in the same order.
    #[must_use]
    pub fn check_in_turn(&self, monitor: &Monitor, format: Format) -> Vec<RunSummary> {
        check_runs(monitor, self, format, 1, &|| (), &|(), _, _, _| {})
            .into_iter()
            .map(|(summary, ())| summary)
            .collect()
    }

    /// [`Runs::check`], building beside each summary a value of its own, as
    /// [`check_files_with`] does.
    pub fn check_with<T, S, E>(
        &self,
        monitor: &Monitor,
        format: Format,
        start: S,
        each: E,
    ) -> Vec<(RunSummary, T)>
    where
        T: Send,
        S: Fn() -> T + Sync,
        E: Fn(&mut T, usize, &Message<'_>, bool) + Sync,
    {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        check_runs(monitor, self, format, cores, &start, &each)
    }
}

/// The runs `found` checked on up to `threads` threads (this one, where it is 1).
fn check_runs<P, T, S, E>(
    monitor: &Monitor,
    found: &Runs<'_, P>,
    format: Format,
    threads: usize,
    start: &S,
    each: &E,
) -> Vec<(RunSummary, T)>
where
    P: AsRef<Path> + Sync,
    T: Send,
    S: Fn() -> T + Sync,
    E: Fn(&mut T, usize, &Message<'_>, bool) + Sync,
{
    let (paths, runs) = (found.paths, &found.runs);
    let workers = threads.min(runs.len()).max(1);
    let next = AtomicUsize::new(0);
    let check = |(i, source): &(usize, Source), open: &mut Opened| {
        let mut value = start();
        let each = |index, message: &Message<'_>, step| {
            each(&mut value, index, message, step);
        };
        let path = paths[*i].as_ref();
        // (Only a `.eval` log's samples use the log kept open.)
        #[cfg(not(feature = "eval-archives"))]
        let () = *open;
        let summary = match source {
            Source::File => check_file_with(monitor, path, format, each),
            #[cfg(feature = "eval-archives")]
            Source::Archived(sample) => {
                check_archived(monitor, (*i, path), *sample, format, open, each)
            }
            Source::Within(sample, place) => {
                let name = format!("{}#{}", path.display(), sample.name);
                let text = sources::sample_text(path, sample)
                    .map_err(|e| format!("cannot read the sample: {e}"));
                check_sample(monitor, name, text, format, *place, each)
            }
        };
        (summary, value)
    };
    let work = || {
        let mut done = Vec::new();
        // The archive this thread read a sample of last, kept open for the next (a
        // log's samples come one after another).
        let mut open = Opened::default();
        loop {
            let r = next.fetch_add(1, Ordering::Relaxed);
            if r >= runs.len() {
                break done;
            }
            done.push((r, check(&runs[r], &mut open)));
        }
    };
    let done: Vec<Vec<(usize, (RunSummary, T))>> = if workers == 1 {
        vec![work()]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers).map(|_| scope.spawn(work)).collect();
            handles
                .into_iter()
                .map(|handle| match handle.join() {
                    Ok(done) => done,
                    // A panic is a bug of the crate's; raise it where the caller is.
                    Err(panic) => std::panic::resume_unwind(panic),
                })
                .collect()
        })
    };
    let mut slots: Vec<Option<(RunSummary, T)>> = (0..runs.len()).map(|_| None).collect();
    for (r, result) in done.into_iter().flatten() {
        slots[r] = Some(result);
    }
    // Every index was taken by exactly one thread, and every thread joined.
    slots.into_iter().flatten().collect()
}

/// The `.eval` log a thread has open, by its path's index.
#[cfg(feature = "eval-archives")]
type Opened = Option<(usize, EvalArchive)>;
#[cfg(not(feature = "eval-archives"))]
type Opened = ();

/// What a `.eval` log without samples is: a run of no message, said.
#[cfg(feature = "eval-archives")]
const NO_SAMPLE: &str = "an Inspect .eval log without samples (an eval cancelled before its \
    first, or logged without them): no run to check";

/// Checks sample `sample` of the `.eval` log at `path` (the `i`th path), a run named
/// `<path>#<sample>` (`<id>_epoch_<n>`).
#[cfg(feature = "eval-archives")]
fn check_archived(
    monitor: &Monitor,
    (i, path): (usize, &Path),
    sample: usize,
    format: Format,
    open: &mut Opened,
    each: impl FnMut(usize, &Message<'_>, bool),
) -> RunSummary {
    let name = path.display().to_string();
    if open.as_ref().is_none_or(|(at, _)| *at != i) {
        *open = match EvalArchive::open(path) {
            Ok(log) => Some((i, log)),
            Err(e) => {
                return unreadable(name, e.to_string());
            }
        };
    }
    let Some((_, log)) = open.as_mut().filter(|(_, log)| sample < log.len()) else {
        return unreadable(name, "the log changed while it was checked");
    };
    let name = format!("{name}#{}", log.name(sample));
    let json = log.sample(sample).map_err(|e| e.to_string());
    check_sample(monitor, name, json, format, (1, 1), each)
}

/// Checks a sample of an eval log, its JSON read (or why it could not be), that
/// starts at `place` (line, column) of its file.
fn check_sample(
    monitor: &Monitor,
    name: String,
    json: Result<Vec<u8>, String>,
    format: Format,
    place: (usize, usize),
    each: impl FnMut(usize, &Message<'_>, bool),
) -> RunSummary {
    match json {
        Ok(json) => check_placed(
            monitor,
            name,
            Reader::new(std::io::Cursor::new(json), format),
            place,
            each,
        ),
        Err(error) => unreadable(name, error),
    }
}

/// The summary of a run that could not be read, and why.
fn unreadable(name: String, error: impl Into<String>) -> RunSummary {
    RunSummary {
        error: Some(error.into()),
        ..RunSummary::new(name)
    }
}
