//! `doneseq.Monitor` (compiled once, immutable, shared across threads) and
//! `doneseq.Run` (one run's state).

use std::sync::Arc;

use doneseq::stop::{Condition, LintOptions, Registry};
use doneseq::{DoneSequence, Monitor, RunState, TaskConfig};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde::Deserialize;

use crate::convert::serialized;
use crate::corpus;
use crate::de::PyDe;
use crate::errors;
use crate::message::with_message;
use crate::outcome::PyOutcome;

/// A task's stop rules, compiled: done sequences, Langroid's task options and a stop
/// condition. Immutable; share one across threads and start a run per task.
#[pyclass(frozen, name = "Monitor", module = "doneseq")]
pub(crate) struct PyMonitor {
    inner: Arc<Monitor>,
    /// What it was compiled from: what a pickle carries.
    config: TaskConfig,
}

/// The done sequences of a list: text in the DSL or Langroid's object form.
fn sequences(py: Python<'_>, list: &Bound<'_, PyAny>) -> PyResult<Vec<DoneSequence>> {
    if list.is_instance_of::<PyString>() {
        return Err(errors::error(
            py,
            "ConfigError",
            "done_sequences is a list of sequences, not one string (write [\"...\"])",
        ));
    }
    let items: Vec<Bound<'_, PyAny>> = list
        .try_iter()
        .map_err(|_| errors::error(py, "ConfigError", "done_sequences is not a list"))?
        .collect::<PyResult<_>>()?;
    items
        .iter()
        .enumerate()
        .map(|(index, item)| match item.cast::<PyString>() {
            Ok(text) => {
                DoneSequence::parse(&text.to_cow()?).map_err(|e| errors::dsl(py, &e, Some(index)))
            }
            Err(_) => DoneSequence::deserialize(PyDe::new(item)).map_err(|e| {
                errors::error(py, "ConfigError", format!("done_sequences[{index}]: {e}"))
            }),
        })
        .collect()
}

/// The stop condition: an expression, or the tagged object form.
fn stop_condition(py: Python<'_>, stop: &Bound<'_, PyAny>) -> PyResult<Condition> {
    match stop.cast::<PyString>() {
        Ok(text) => Condition::parse(&text.to_cow()?).map_err(|e| errors::expr(py, &e, None)),
        Err(_) => Condition::deserialize(PyDe::new(stop))
            .map_err(|e| errors::error(py, "ConfigError", format!("stop: {e}"))),
    }
}

/// A configuration from its parts: the options go through `TaskConfig`'s schema (an
/// unknown one is an error), the sequences and the stop condition through their
/// parsers (errors with positions).
fn config(
    py: Python<'_>,
    done_sequences: Option<&Bound<'_, PyAny>>,
    stop: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<TaskConfig> {
    let mut config = match options {
        Some(options) => TaskConfig::deserialize(PyDe::new(options.as_any()))
            .map_err(|e| errors::error(py, "ConfigError", e))?,
        None => TaskConfig::default(),
    };
    if let Some(list) = done_sequences.filter(|l| !l.is_none()) {
        config.done_sequences = sequences(py, list)?.into();
    }
    if let Some(stop) = stop.filter(|s| !s.is_none()) {
        config.stop = Some(stop_condition(py, stop)?);
    }
    Ok(config)
}

fn compile(py: Python<'_>, config: TaskConfig) -> PyResult<PyMonitor> {
    let monitor = Monitor::new(config.clone()).map_err(|e| errors::error(py, "ConfigError", e))?;
    Ok(PyMonitor {
        inner: Arc::new(monitor),
        config,
    })
}

#[pymethods]
impl PyMonitor {
    #[new]
    #[pyo3(signature = (done_sequences = None, stop = None, **options))]
    fn new(
        py: Python<'_>,
        done_sequences: Option<&Bound<'_, PyAny>>,
        stop: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyMonitor> {
        compile(py, config(py, done_sequences, stop, options)?)
    }

    /// A monitor from a configuration with the CLI's schema: a dict, or the path of
    /// a JSON, TOML or YAML file (by its extension).
    #[staticmethod]
    fn from_config(py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<PyMonitor> {
        if let Ok(dict) = config.cast::<PyDict>() {
            let options = dict.copy()?;
            let sequences = options.get_item("done_sequences")?;
            let stop = options.get_item("stop")?;
            options.del_item("done_sequences").ok();
            options.del_item("stop").ok();
            return compile(
                py,
                self::config(py, sequences.as_ref(), stop.as_ref(), Some(&options))?,
            );
        }
        let path = match config.extract::<std::path::PathBuf>() {
            Ok(path) => path,
            Err(_) => {
                return Err(errors::error(
                    py,
                    "ConfigError",
                    "from_config takes a dict or the path of a configuration file",
                ));
            }
        };
        // (Read as the CLI reads one: at most 16 MiB of UTF-8, a byte order mark
        // skipped, the language by the extension.)
        let config = TaskConfig::from_file(&path)
            .map_err(|e| errors::error(py, "ConfigError", e.to_string()))?;
        compile(py, config)
    }

    /// A new run, at its start.
    fn start(&self) -> PyRun {
        PyRun {
            monitor: Arc::clone(&self.inner),
            state: self.inner.start(),
        }
    }

    /// A run resumed from a checkpoint (`Run.to_json()`) of this monitor.
    fn resume(&self, py: Python<'_>, checkpoint: &str) -> PyResult<PyRun> {
        let state: RunState = serde_json::from_str(checkpoint)
            .map_err(|e| errors::error(py, "StateError", format!("bad checkpoint: {e}")))?;
        let state = self
            .inner
            .resume(state)
            .map_err(|e| errors::error(py, "StateError", e))?;
        Ok(PyRun {
            monitor: Arc::clone(&self.inner),
            state,
        })
    }

    /// What can never work in this configuration, each a dict with `severity`
    /// (`"error"` or `"warning"`), `kind`, `path` and `message`.
    #[pyo3(signature = (tools = None))]
    fn lint(&self, py: Python<'_>, tools: Option<Vec<String>>) -> PyResult<Py<PyList>> {
        let mut options = LintOptions::default().with_custom(Registry::default().names());
        if let Some(tools) = tools {
            options = options.with_tools(tools);
        }
        let list = PyList::empty(py);
        for lint in self.inner.lowered().lint(&options) {
            let dict = PyDict::new(py);
            dict.set_item("severity", lint.severity().to_string())?;
            dict.set_item("kind", lint.kind.name())?;
            dict.set_item("path", lint.path.clone())?;
            dict.set_item("message", lint.message.clone())?;
            list.append(dict)?;
        }
        Ok(list.unbind())
    }

    /// The done sequences, as canonical DSL text.
    #[getter]
    fn done_sequences(&self) -> Vec<String> {
        self.inner
            .sequences()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// The whole stop rule as one condition: the options lowered in Langroid's
    /// order, then the stop condition.
    #[getter]
    fn lowered(&self) -> String {
        self.inner.lowered().to_string()
    }

    /// The configuration it was compiled from, as a dict with the schema of
    /// configuration files (`Monitor.from_config` reads it back).
    #[getter]
    fn config(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        serialized(py, &self.config)
    }

    /// Checks the transcript at `path` (a recorded run, in `format`) to its end: a
    /// dict with `path`, `kind` (`None` when the rule never stops the run), `at`,
    /// `fired`, `answer`, `steps` and `tokens` to the stop, `recorded_steps`,
    /// `recorded_tokens`, `early` (the stop comes before the recorded final answer),
    /// and `error` or `warning` when there are any: a line of `doneseq check --json`
    /// over a corpus. An unreadable transcript is a summary with its `error`, not an
    /// exception.
    #[pyo3(signature = (path, format = "auto"))]
    fn check_file(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        format: &str,
    ) -> PyResult<Py<PyAny>> {
        corpus::check_file(py, &self.inner, path, format)
    }

    /// `check_file` of every path, on all cores (`parallel`) or one after the other;
    /// the summaries in the order of `paths`, an Inspect AI `.eval` log's a run a
    /// sample.
    #[pyo3(signature = (paths, format = "auto", parallel = true))]
    fn check_files(
        &self,
        py: Python<'_>,
        paths: &Bound<'_, PyAny>,
        format: &str,
        parallel: bool,
    ) -> PyResult<Py<PyList>> {
        corpus::check_files(py, &self.inner, paths, format, parallel)
    }

    /// A monitor from the JSON text of `Monitor.config` (what unpickling calls).
    #[staticmethod]
    fn _from_json(py: Python<'_>, text: &str) -> PyResult<PyMonitor> {
        let config: TaskConfig = serde_json::from_str(text)
            .map_err(|e| errors::error(py, "ConfigError", format!("bad configuration: {e}")))?;
        compile(py, config)
    }

    /// Pickles as its configuration, compiled again where it is unpickled: what
    /// shipping a monitor to the workers of Dask or Ray takes.
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, (String,))> {
        let text = serde_json::to_string(&self.config)
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        let rebuild = py.import("doneseq")?.getattr("_monitor_from_json")?;
        Ok((rebuild.unbind(), (text,)))
    }

    fn __repr__(&self) -> String {
        format!("Monitor({})", self.lowered())
    }
}

/// One run of a task: feed it each message with `observe`.
#[pyclass(name = "Run", module = "doneseq")]
pub(crate) struct PyRun {
    monitor: Arc<Monitor>,
    state: RunState,
}

impl PyRun {
    /// `Run.observe`: defined by hand as a one-argument method ([`crate::method_o`]),
    /// which Python calls without building a tuple of arguments.
    pub(crate) fn observe(
        &mut self,
        py: Python<'_>,
        message: &Bound<'_, PyAny>,
    ) -> PyResult<Option<PyOutcome>> {
        let (monitor, state) = (&self.monitor, &mut self.state);
        with_message(py, message, |message| observe(monitor, state, message))
    }
}

#[pymethods]
impl PyRun {
    /// What `observe` would say of this message, without changing the run: a
    /// what-if (a candidate response a framework has not accepted yet).
    fn peek(&self, py: Python<'_>, message: &Bound<'_, PyAny>) -> PyResult<Option<PyOutcome>> {
        let mut state = self.state.clone();
        with_message(py, message, |message| {
            observe(&self.monitor, &mut state, message)
        })
    }

    /// How many messages the run has observed.
    #[getter]
    fn steps(&self) -> u64 {
        self.state.steps()
    }

    /// How many messages a `C[...]` pattern with look-around or backreferences could
    /// not be decided on (past its backtracking limit; taken as no match there).
    #[getter]
    fn pattern_overruns(&self) -> u64 {
        self.state.pattern_overruns()
    }

    /// The first such message's step and the pattern as written, or `None`.
    #[getter]
    fn pattern_overrun(&self) -> Option<(u64, String)> {
        self.monitor
            .pattern_overrun(&self.state)
            .map(|(at, pattern)| (at, pattern.to_owned()))
    }

    /// How far each done sequence has come, as dicts.
    fn explain(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        serialized(py, &self.monitor.explain(&self.state))
    }

    /// How close every condition is to stopping the run (`turns 7/10`), as a tree of
    /// dicts; `None` without a stop condition.
    fn explain_stop(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.monitor.explain_stop(&self.state) {
            Some(report) => serialized(py, &report),
            None => Ok(py.None()),
        }
    }

    /// A checkpoint of the run, as JSON text: `Monitor.resume(text)` goes on from it.
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.state)
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))
    }
}

/// One step of a run; the outcome, with its sequence's name, if it stops.
fn observe(
    monitor: &Monitor,
    state: &mut RunState,
    message: &doneseq::Message,
) -> Option<PyOutcome> {
    let verdict = monitor.observe(state, message);
    verdict.outcome().map(|outcome| {
        let sequence_name = match outcome.reason {
            doneseq::StopReason::Sequence(i) => monitor
                .sequences()
                .get(i)
                .and_then(|s| s.name())
                .map(str::to_owned),
            _ => None,
        };
        let final_value = match &outcome.answer {
            Some(a) if a.source == doneseq::AnswerSource::Final => {
                doneseq::detect_final_in_text(message.content()).value
            }
            _ => None,
        };
        PyOutcome {
            outcome: outcome.clone(),
            sequence_name,
            final_value,
        }
    })
}
