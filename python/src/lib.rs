//! doneseq for Python: the `doneseq._native` extension module. The package
//! `doneseq` (python/doneseq) re-exports it with its exceptions and adapters.

// The crate reads input from Python: no unsafe code of its own but in `utf8`, which
// borrows a string's UTF-8 from the interpreter, and `method_o`, which defines
// `Run.observe` by hand (each block with its reason).
#![deny(unsafe_code)]

mod answer;
mod convert;
mod corpus;
mod de;
mod errors;
mod message;
#[allow(unsafe_code)]
mod method_o;
mod monitor;
mod outcome;
#[allow(unsafe_code)]
mod utf8;

use doneseq::DoneSequence;
use doneseq::stop::Condition;
use pyo3::prelude::*;

/// Parses a done sequence; its canonical text.
#[pyfunction]
fn parse_sequence(py: Python<'_>, text: &str) -> PyResult<String> {
    DoneSequence::parse(text)
        .map(|s| s.to_string())
        .map_err(|e| errors::dsl(py, &e, None))
}

/// Parses a stop expression; its canonical text.
#[pyfunction]
fn parse_stop(py: Python<'_>, text: &str) -> PyResult<String> {
    Condition::parse(text)
        .map(|c| c.to_string())
        .map_err(|e| errors::expr(py, &e, None))
}

/// A done sequence in Langroid's object form (`name`, `events` with `event_type`,
/// `tool_name`, `content_pattern`, `responder`, `negated`), as a dict.
#[pyfunction]
fn sequence_object(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    let sequence = DoneSequence::parse(text).map_err(|e| errors::dsl(py, &e, None))?;
    convert::serialized(py, &doneseq::SequenceObject::from(&sequence))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_sequence, m)?)?;
    m.add_function(wrap_pyfunction!(parse_stop, m)?)?;
    m.add_function(wrap_pyfunction!(sequence_object, m)?)?;
    m.add_function(wrap_pyfunction!(message::message_debug, m)?)?;
    m.add_function(wrap_pyfunction!(utf8::set_borrowing, m)?)?;
    m.add_function(wrap_pyfunction!(answer::detect_final_in_text, m)?)?;
    m.add_function(wrap_pyfunction!(answer::detect_final_in_code, m)?)?;
    m.add_function(wrap_pyfunction!(answer::extract_code_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(answer::format_final_answer, m)?)?;
    m.add_function(wrap_pyfunction!(answer::rlm_policy, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::aggregate, m)?)?;
    m.add_function(wrap_pyfunction!(corpus::merge_aggregates, m)?)?;
    m.add_class::<monitor::PyMonitor>()?;
    m.add_class::<monitor::PyRun>()?;
    method_o::install(&m.py().get_type::<monitor::PyRun>())?;
    m.add_class::<outcome::PyOutcome>()?;
    Ok(())
}
