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

/// How many runs [`check_files`](super::check_files) gives for `paths`: one a file,
/// but one a sample of an Inspect eval log (a `.eval` log's directory read to count
/// them, a JSON log of several samples parsed).
#[must_use]
pub fn count_runs<P: AsRef<Path>>(paths: &[P]) -> usize {
    paths.iter().map(|path| sources(path.as_ref()).len()).sum()
}

/// Whether the file at `path` is one transcript, read by a
/// [`Reader`](crate::transcript::Reader): not an Inspect eval log of a run a sample (a
/// `.eval` log, whatever it holds, or a JSON log of several samples), which
/// [`check_files`](super::check_files) reads as its runs.
///
/// ```
/// let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
/// assert!(doneseq::corpus::is_one_transcript(&examples.join("calculator.jsonl")));
/// # #[cfg(feature = "eval-archives")]
/// assert!(!doneseq::corpus::is_one_transcript(&examples.join("formats/inspect.eval")));
/// ```
#[must_use]
pub fn is_one_transcript(path: &Path) -> bool {
    #[cfg(feature = "eval-archives")]
    if is_eval_log(path) {
        return false;
    }
    matches!(sources(path).as_slice(), [Source::File])
}

/// Whether `path` names an Inspect `.eval` log.
#[cfg(feature = "eval-archives")]
pub(super) fn is_eval_log(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "eval")
}

/// The runs of the file at `path`: a sample each for an Inspect eval log of several
/// (a `.eval` log of any number but none), else the file.
pub(super) fn sources(path: &Path) -> Vec<Source> {
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
