//! Where a corpus's runs are: a file each, but one a sample of an Inspect AI eval
//! log (a `.eval` archive's members, or a JSON log's samples), whose samples are each
//! a run of their own.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::transcript::MAX_DOCUMENT_LEN;
use crate::transcript::inspect::{PlacedSample, is_json_log, json_log_samples};

/// The largest JSON eval log split into its samples (read whole, once, to find
/// them): [`MAX_DOCUMENT_LEN`]; a larger one is read as one transcript, which
/// refuses it with its error.
const MAX_JSON_LOG_LEN: u64 = MAX_DOCUMENT_LEN as u64;

/// One run of a path.
#[derive(Debug, Clone)]
pub(super) enum Source {
    /// The whole file.
    File,
    /// Sample `n` of a `.eval` log.
    #[cfg(feature = "eval-archives")]
    Archived(usize),
    /// A sample of a JSON eval log, and where it starts (its line and column).
    Within(PlacedSample, (usize, usize)),
}

/// The runs of a corpus's paths, found once: one a file, but one a sample of an
/// Inspect eval log (a `.eval` log's directory read to find them, a JSON log of
/// several samples parsed). What to know of a corpus before checking it (how many
/// runs, whether a lone path is one transcript) and what checks it
/// ([`Runs::check`], [`Runs::check_with`]), without finding its runs again (a
/// JSON eval log is parsed whole to find its samples).
///
/// ```
/// use doneseq::corpus::Runs;
/// use doneseq::transcript::Format;
/// use doneseq::{Monitor, TaskConfig};
///
/// let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
/// let paths = [examples.join("calculator.jsonl")];
/// let runs = Runs::find(&paths);
/// assert_eq!(runs.len(), 1);
/// assert!(runs.is_one_transcript());
/// let summaries = runs.check(&Monitor::new(TaskConfig::default())?, Format::Auto);
/// assert_eq!(summaries.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Runs<'p, P> {
    pub(super) paths: &'p [P],
    /// Each run: its path's index, and where in that path it is.
    pub(super) runs: Vec<(usize, Source)>,
}

impl<'p, P: AsRef<Path>> Runs<'p, P> {
    /// The runs of `paths`, in their order (a log's samples in the log's order). A path
    /// that cannot be read is one run, whose summary says why.
    #[must_use]
    pub fn find(paths: &'p [P]) -> Runs<'p, P> {
        let runs = paths
            .iter()
            .enumerate()
            .flat_map(|(i, path)| sources(path.as_ref()).into_iter().map(move |s| (i, s)))
            .collect();
        Runs { paths, runs }
    }

    /// How many runs there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// Whether there is no run (no path).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Whether the paths are one, which is one transcript, read by a
    /// [`Reader`](crate::transcript::Reader): not an Inspect eval log of a run a
    /// sample (a `.eval` log, whatever it holds, or a JSON log of several samples).
    #[must_use]
    pub fn is_one_transcript(&self) -> bool {
        // Each path is one run at least: one run is one path's.
        match self.runs.as_slice() {
            [(_i, Source::File)] => {
                #[cfg(feature = "eval-archives")]
                if is_eval_log(self.paths[*_i].as_ref()) {
                    return false;
                }
                true
            }
            _ => false,
        }
    }
}

/// How many runs [`check_files`](super::check_files) gives for `paths`: one a file,
/// but one a sample of an Inspect eval log (a `.eval` log's directory read to count
/// them, a JSON log of several samples parsed). [`Runs::find`] keeps them, to check
/// them without finding them again.
#[must_use]
pub fn count_runs<P: AsRef<Path>>(paths: &[P]) -> usize {
    Runs::find(paths).len()
}

/// Whether the file at `path` is one transcript, read by a
/// [`Reader`](crate::transcript::Reader): not an Inspect eval log of a run a sample (a
/// `.eval` log, whatever it holds, or a JSON log of several samples), which
/// [`check_files`](super::check_files) reads as its runs. [`Runs::is_one_transcript`]
/// is the same of runs kept to check.
///
/// ```
/// let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
/// assert!(doneseq::corpus::is_one_transcript(&examples.join("calculator.jsonl")));
/// # #[cfg(feature = "eval-archives")]
/// assert!(!doneseq::corpus::is_one_transcript(&examples.join("formats/inspect.eval")));
/// ```
#[must_use]
pub fn is_one_transcript(path: &Path) -> bool {
    Runs::find(&[path]).is_one_transcript()
}

/// Whether `path` names an Inspect `.eval` log.
#[cfg(feature = "eval-archives")]
pub(super) fn is_eval_log(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "eval")
}

/// The runs of the file at `path`: a sample each for an Inspect eval log of several
/// (a `.eval` log of any number but none), else the file.
fn sources(path: &Path) -> Vec<Source> {
    #[cfg(feature = "eval-archives")]
    if is_eval_log(path) {
        // One that cannot be opened, or holds no sample, is one run, whose error or
        // warning says so.
        let samples = crate::transcript::EvalArchive::open(path).map_or(0, |log| log.len());
        if samples > 0 {
            return (0..samples).map(Source::Archived).collect();
        }
    }
    json_log(path).unwrap_or_else(|| vec![Source::File])
}

#[cfg(test)]
thread_local! {
    /// The JSON eval logs read whole on this thread to find their samples (what
    /// finding a corpus's runs costs is tested).
    static PARSED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The samples of the JSON eval log at `path`, if it is one of several.
fn json_log(path: &Path) -> Option<Vec<Source>> {
    if path.extension().is_none_or(|e| e != "json") {
        return None;
    }
    let mut file = File::open(path).ok()?;
    let mut head = [0u8; 256];
    let read = file.read(&mut head).ok()?;
    if !is_json_log(&head[..read]) || file.metadata().ok()?.len() > MAX_JSON_LOG_LEN {
        return None;
    }
    #[cfg(test)]
    PARSED.set(PARSED.get() + 1);
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_to_string(&mut text).ok()?;
    // A byte order mark some tools write first is not the JSON's (its offsets are
    // the file's).
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let samples = json_log_samples(&text[bom..])?;
    // Each sample's line and column, counted on from the sample before it (the log
    // holds them in order): one pass over the log, however many samples it holds.
    let bytes = text.as_bytes();
    let (mut at, mut line, mut line_start) = (0, 1, 0);
    Some(
        samples
            .into_iter()
            .map(|mut sample| {
                sample.start += bom;
                if sample.start < at {
                    (at, line, line_start) = (0, 1, 0);
                }
                let between = &bytes[at..sample.start];
                line += memchr::memchr_iter(b'\n', between).count();
                if let Some(i) = memchr::memrchr(b'\n', between) {
                    line_start = at + i + 1;
                }
                at = sample.start;
                Source::Within(sample, (line, at - line_start + 1))
            })
            .collect(),
    )
}

/// The text of `sample`, read from the log at `path`.
pub(super) fn sample_text(path: &Path, sample: &PlacedSample) -> std::io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(sample.start as u64))?;
    let mut text = vec![0u8; sample.len];
    file.read_exact(&mut text)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{PARSED, Runs, count_runs};
    use crate::transcript::Format;
    use crate::{Monitor, TaskConfig};

    /// A JSON eval log's samples are found once by [`Runs::find`], and checking them
    /// does not find them again (as each free function of a corpus does).
    #[test]
    fn a_logs_samples_are_found_once() {
        let paths =
            [PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/inspect-log-two.json")];
        let parsed = || PARSED.get();
        let before = parsed();
        let runs = Runs::find(&paths);
        assert_eq!((runs.len(), parsed() - before), (2, 1));
        let monitor = Monitor::new(TaskConfig::default()).unwrap();
        let summaries = runs.check_in_turn(&monitor, Format::Auto);
        assert_eq!(summaries.len(), 2);
        assert!(summaries.iter().all(|s| s.error.is_none()), "{summaries:?}");
        assert!(!runs.is_one_transcript());
        assert_eq!(parsed() - before, 1, "checked without finding them again");
        assert_eq!(count_runs(&paths), 2);
        assert_eq!(parsed() - before, 2);
    }
}
