//! `doneseq.Outcome`: why and where a run stopped, frozen.

use doneseq::{Outcome, StopReason};
use pyo3::prelude::*;

use crate::convert::serialized;

/// Why and where a run stopped: its kind, the rule that decided, the step, the
/// answer, and every condition that fired with its evidence.
#[pyclass(frozen, name = "Outcome", module = "doneseq")]
pub(crate) struct PyOutcome {
    pub(crate) outcome: Outcome,
    /// The name of the sequence that decided, if one did and it has a name.
    pub(crate) sequence_name: Option<String>,
    /// The `FINAL` answer's literal value (`FINAL(42)` is the int 42), when the answer
    /// is one.
    pub(crate) final_value: Option<doneseq::AnswerValue>,
}

/// A unit-like core value's name as the core serializes it: the string itself, or
/// the `type` tag of a tagged enum (`{"type": "sequence", "value": 0}`).
fn serialized_name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(v) => v
            .get("type")
            .and_then(|t| t.as_str())
            .map_or_else(|| "other".to_owned(), str::to_owned),
        Err(_) => "other".to_owned(),
    }
}

#[pymethods]
impl PyOutcome {
    /// `"done"`, `"exhausted"`, `"stuck"`, `"failed"` or `"cancelled"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.outcome.kind.as_str()
    }

    /// The rule that decided: `"sequence"`, `"done_if_tool"`, `"string_signal"`,
    /// `"done_if_response"`, `"done_if_no_response"`, `"single_round"`,
    /// `"max_turns"`, `"condition"` or `"cancelled"`.
    #[getter]
    fn reason(&self) -> String {
        serialized_name(&self.outcome.reason)
    }

    /// The index of the done sequence that decided, if one did.
    #[getter]
    fn sequence(&self) -> Option<usize> {
        match self.outcome.reason {
            StopReason::Sequence(i) => Some(i),
            _ => None,
        }
    }

    /// The name of the done sequence that decided, if it has one.
    #[getter]
    fn sequence_name(&self) -> Option<&str> {
        self.sequence_name.as_deref()
    }

    /// The canonical text of the condition that decided (`max_turns(10)`), if a
    /// condition of the stop tree did.
    #[getter]
    fn condition(&self) -> Option<String> {
        match self.outcome.reason {
            StopReason::Condition(_) | StopReason::Cancelled => {
                self.outcome.leading().map(|c| c.text.to_string())
            }
            _ => None,
        }
    }

    /// Where that condition is in the stop tree: child indices from its root.
    #[getter]
    fn path(&self) -> Option<Vec<usize>> {
        match self.outcome.reason {
            StopReason::Condition(_) | StopReason::Cancelled => {
                self.outcome.leading().map(|c| c.path.clone())
            }
            _ => None,
        }
    }

    /// The step index of the message that ended the run (from 0).
    #[getter]
    fn at(&self) -> u64 {
        self.outcome.at
    }

    /// The steps the deciding sequence matched, `(first, last)`, if one decided.
    #[getter]
    fn matched(&self) -> Option<(u64, u64)> {
        let StopReason::Sequence(i) = self.outcome.reason else {
            return None;
        };
        self.outcome
            .fired
            .iter()
            .find(|m| m.sequence == i)
            .map(|m| (*m.matched.start(), *m.matched.end()))
    }

    /// The answer's text: the `FINAL` answer or the content for a `done` stop, the
    /// latest model text (partial) for another kind; `None` if there is none.
    #[getter]
    fn answer(&self) -> Option<&str> {
        self.outcome.answer.as_ref().map(|a| a.text.as_str())
    }

    /// The answer as a value: a `FINAL` answer's literal (`FINAL(42)` gives the int
    /// `42`, `FINAL([1, 2])` a list), else the answer's text; `None` without an answer.
    #[getter]
    fn answer_value(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match (&self.final_value, &self.outcome.answer) {
            (Some(value), _) => serialized(py, value),
            (None, Some(answer)) => serialized(py, &answer.text),
            (None, None) => Ok(py.None()),
        }
    }

    /// Where the answer came from: `"message"`, `"final"`, `"final_variable"` or
    /// `"done_signal"` or `"partial"`.
    #[getter]
    fn answer_source(&self) -> Option<String> {
        self.outcome
            .answer
            .as_ref()
            .map(|a| serialized_name(&a.source))
    }

    /// Every condition that fired at this step, with its evidence, as dicts.
    #[getter]
    fn conditions(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        serialized(py, &self.outcome.conditions)
    }

    /// Every done sequence that matched at this step, as dicts.
    #[getter]
    fn fired(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        serialized(py, &self.outcome.fired)
    }

    /// The whole outcome as plain Python values (the core's serialized form, with
    /// `sequence_name` and `answer_value`).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let dict = serialized(py, &self.outcome)?;
        let bound = dict.bind(py);
        bound.set_item("sequence_name", self.sequence_name.as_deref())?;
        bound.set_item("answer_value", self.answer_value(py)?)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        let mut parts = vec![
            format!("kind={:?}", self.kind()),
            format!("reason={:?}", self.reason()),
            format!("at={}", self.outcome.at),
        ];
        if let Some(s) = self.sequence() {
            parts.push(format!("sequence={s}"));
        }
        if let Some(c) = self.condition() {
            parts.push(format!("condition={c:?}"));
        }
        if let Some(a) = self.answer() {
            let cut: String = a.chars().take(60).collect();
            let more = if cut.len() < a.len() { "..." } else { "" };
            parts.push(format!("answer={cut:?}{more}"));
        }
        format!("Outcome({})", parts.join(", "))
    }
}
