//! Checking recorded runs from Python: a transcript file or many (with the GIL
//! released), summarized as the CLI's corpus lines, and the totals of summaries,
//! summed part by part as a distributed map over runs sums them.

use std::path::PathBuf;

use doneseq::Monitor;
use doneseq::corpus::{self, Aggregate, RunSummary};
use doneseq::transcript::Format;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde::Deserialize;

use crate::convert::serialized;
use crate::de::PyDe;
use crate::errors;

/// The transcript format named `name` (`auto`, `jsonl`, `openai`, ...).
pub(crate) fn format(py: Python<'_>, name: &str) -> PyResult<Format> {
    name.parse()
        .map_err(|e: String| errors::error(py, "ConfigError", e))
}

/// A path argument: `str` or `os.PathLike`.
fn path(value: &Bound<'_, PyAny>, what: &str) -> PyResult<PathBuf> {
    value.extract::<PathBuf>().map_err(|_| {
        let type_name = value
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |n| n.to_string());
        PyTypeError::new_err(format!(
            "{what} is a str or os.PathLike path, not {type_name}"
        ))
    })
}

/// Checks one transcript file to its end; its summary as a dict.
pub(crate) fn check_file(
    py: Python<'_>,
    monitor: &Monitor,
    file: &Bound<'_, PyAny>,
    format_name: &str,
) -> PyResult<Py<PyAny>> {
    let format = format(py, format_name)?;
    let file = path(file, "path")?;
    let summary = py.detach(|| corpus::check_file(monitor, &file, format));
    serialized(py, &summary)
}

/// Checks every file, on all cores (`parallel`) or one after the other on this
/// thread; their summaries as dicts, in the order of `files`.
pub(crate) fn check_files(
    py: Python<'_>,
    monitor: &Monitor,
    files: &Bound<'_, PyAny>,
    format_name: &str,
    parallel: bool,
) -> PyResult<Py<PyList>> {
    let format = format(py, format_name)?;
    if files.is_instance_of::<pyo3::types::PyString>() {
        return Err(PyTypeError::new_err(
            "paths is a list of paths, not one string (write [path])",
        ));
    }
    let files: Vec<PathBuf> = files
        .try_iter()?
        .enumerate()
        .map(|(i, item)| path(&item?, &format!("paths[{i}]")))
        .collect::<PyResult<_>>()?;
    let summaries: Vec<RunSummary> = py.detach(|| {
        if parallel {
            corpus::check_files(monitor, &files, format)
        } else {
            corpus::check_files_in_turn(monitor, &files, format)
        }
    });
    let list = PyList::empty(py);
    for summary in &summaries {
        list.append(serialized(py, summary)?)?;
    }
    Ok(list.unbind())
}

/// The totals of run summaries (dicts as `Monitor.check_file` gives them): runs by
/// kind, steps and tokens to the stop, steps and tokens saved, runs stopped before
/// their recorded final answer, runs never stopped, errors.
#[pyfunction]
pub(crate) fn aggregate(py: Python<'_>, runs: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    sum(py, runs, "runs", Aggregate::add)
}

/// The sum of totals (dicts as `aggregate` gives them): the totals of the parts of a
/// corpus merged into the whole's.
#[pyfunction]
pub(crate) fn merge_aggregates(py: Python<'_>, parts: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    sum(py, parts, "parts", Aggregate::merge)
}

/// The totals of `values` (an iterable of dicts read as `T`), each added by `add`; a
/// dict that is not a `T` is a `SummaryError` naming its index.
fn sum<T: for<'de> Deserialize<'de>>(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    what: &str,
    add: fn(&mut Aggregate, &T),
) -> PyResult<Py<PyAny>> {
    let mut total = Aggregate::default();
    for (i, value) in iterate(py, values, what)?.into_iter().enumerate() {
        let value = T::deserialize(PyDe::new(&value))
            .map_err(|e| errors::error(py, "SummaryError", format!("{what}[{i}]: {e}")))?;
        add(&mut total, &value);
    }
    serialized(py, &total)
}

/// The items of an iterable argument (a lone dict is refused: it would iterate its
/// keys).
fn iterate<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if values.is_instance_of::<pyo3::types::PyDict>() {
        return Err(errors::error(
            py,
            "SummaryError",
            format!("{what} is an iterable of dicts, not one dict (write [d])"),
        ));
    }
    values
        .try_iter()
        .map_err(|_| PyTypeError::new_err(format!("{what} is an iterable of dicts")))?
        .collect()
}
