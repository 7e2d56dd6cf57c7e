//! Rust errors as the package's Python exceptions (defined in `doneseq._errors`), with
//! spans in characters of the Python string beside the core's UTF-8 byte spans.

use std::fmt;

use doneseq::SyntaxError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// An instance of the exception class `name` of `doneseq._errors`.
fn raise(py: Python<'_>, name: &str, args: (String,), kwargs: Option<&Bound<'_, PyDict>>) -> PyErr {
    let made = py
        .import("doneseq._errors")
        .and_then(|m| m.getattr(name))
        .and_then(|class| class.call(args, kwargs));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

/// A plain error of class `name` (`MessageError`, `ConfigError`, `StateError`).
pub(crate) fn error(py: Python<'_>, name: &str, message: impl fmt::Display) -> PyErr {
    raise(py, name, (message.to_string(),), None)
}

/// The character offset of byte offset `at` of `text` (a char boundary).
fn chars_before(text: &str, at: usize) -> usize {
    text.get(..at).map_or(0, |s| s.chars().count())
}

/// A positioned error of class `name` (`DslError`, `StopExprError`): its message is
/// the caret rendering, its span in characters.
pub(crate) fn text_error<K: fmt::Display>(
    py: Python<'_>,
    name: &str,
    err: &SyntaxError<K>,
    kind: &str,
    index: Option<usize>,
) -> PyErr {
    let input = err.input();
    let bytes = err.span();
    let chars = (
        chars_before(input, bytes.start),
        chars_before(input, bytes.end),
    );
    let rendered = format!("{err:#}");
    let message = match index {
        Some(i) => format!("entry {i}: {}", rendered.trim_end()),
        None => rendered.trim_end().to_owned(),
    };
    let kwargs = PyDict::new(py);
    let set = || -> PyResult<()> {
        kwargs.set_item("kind", kind)?;
        kwargs.set_item("span", chars)?;
        kwargs.set_item("byte_span", (bytes.start, bytes.end))?;
        kwargs.set_item("input", input)?;
        kwargs.set_item("index", index)?;
        Ok(())
    };
    if let Err(e) = set() {
        return e;
    }
    raise(py, name, (message,), Some(&kwargs))
}

/// A DSL error (`DslError`).
pub(crate) fn dsl(py: Python<'_>, err: &doneseq::ParseError, index: Option<usize>) -> PyErr {
    text_error(py, "DslError", err, err.kind().name(), index)
}

/// A stop-expression error (`StopExprError`).
pub(crate) fn expr(py: Python<'_>, err: &doneseq::stop::ExprError, index: Option<usize>) -> PyErr {
    text_error(py, "StopExprError", err, err.kind().name(), index)
}
