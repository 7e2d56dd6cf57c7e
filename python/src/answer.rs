//! The FINAL answer protocol and rlm-code's policy names, for Python: the functions
//! the `doneseq.rlm_code` face wraps with rlm-code's signatures.

use doneseq::answer::{self, AnswerValue};
use pyo3::prelude::*;
use serde::Deserialize;

use crate::convert::serialized;
use crate::de::PyDe;
use crate::errors;

/// `FINAL(...)`, `FINAL_VAR(...)` or `SUBMIT(...)` in model text: the detection as a
/// dict with rlm-code's field names (`detected`, `final_type`, `content`, ...).
#[pyfunction]
pub(crate) fn detect_final_in_text(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    serialized(py, &answer::detect_final_in_text(text))
}

/// The same in Python code, before it runs (a call in a comment or a string does not
/// count).
#[pyfunction]
pub(crate) fn detect_final_in_code(py: Python<'_>, code: &str) -> PyResult<Py<PyAny>> {
    serialized(py, &answer::detect_final_in_code(code))
}

/// The fenced code blocks of `text` in `language` (or untagged).
#[pyfunction]
#[pyo3(signature = (text, language = "python"))]
pub(crate) fn extract_code_blocks(text: &str, language: &str) -> Vec<String> {
    answer::extract_code_blocks(text, language)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// A final answer value as text, as rlm-code formats it.
#[pyfunction]
pub(crate) fn format_final_answer(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let value = AnswerValue::deserialize(PyDe::new(value))
        .map_err(|e| errors::error(py, "DoneseqError", format!("not an answer value: {e}")))?;
    Ok(answer::format_final_answer(&value))
}

/// rlm-code's termination policy `name` with its configuration, as doneseq's stop
/// condition (canonical text).
#[pyfunction]
#[pyo3(signature = (name, config = None))]
pub(crate) fn rlm_policy(
    py: Python<'_>,
    name: &str,
    config: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let config = match config {
        Some(c) => serde_json::Value::deserialize(PyDe::new(c))
            .map_err(|e| errors::error(py, "ConfigError", format!("{name}: {e}")))?,
        None => serde_json::Value::Null,
    };
    doneseq::compat::rlm::termination_policy(name, &config)
        .map(|c| c.to_string())
        .map_err(|e| errors::error(py, "ConfigError", e))
}
