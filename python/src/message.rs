//! Message dicts into [`Message`]s: a fast path for the common shape, the core's
//! transcript schema for everything else.
//!
//! The schema (its fields, checks and errors) is the core's, read through serde
//! ([`doneseq::transcript::deserialize_message`] over [`PyDe`]). That path copies every
//! string and builds the schema's whole wire form: about half of `Run.observe`'s time.
//! The common message, an OpenAI chat message of `role`, `content`, `name`,
//! `tool_calls` (string arguments) and `tool_call_id` (and the reasoning texts
//! OpenAI-compatible providers write beside it, and the empty keys of the OpenAI
//! SDK's `model_dump()`), takes a shorter way here: keys
//! and roles are recognised by identity with interned strings, texts are borrowed from
//! their UTF-8 encoding ([`Utf8`]), and the message is built with the core's
//! constructors. Any other key, any other type of value and anything the schema
//! would refuse falls back
//! to the schema's path, which then gives its own answer or error: this path never
//! refuses a message, so it cannot disagree with the schema on what is an error, and
//! `python/tests/test_message_paths.py` checks that both build the same message.

use std::borrow::Cow;

use doneseq::{Message, Role, ToolCall};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};

use crate::de::{PyDe, type_name};
use crate::errors;
use crate::utf8::Utf8;

/// Reads `message` (a dict) and calls `f` with it; `f`'s result, or the schema's error
/// as `doneseq.MessageError`.
pub(crate) fn with_message<R>(
    py: Python<'_>,
    message: &Bound<'_, PyAny>,
    f: impl FnOnce(&Message<'_>) -> R,
) -> PyResult<R> {
    let Ok(dict) = message.cast::<PyDict>() else {
        return Err(errors::error(
            py,
            "MessageError",
            format!("a message is a dict, not {}", type_name(message)),
        ));
    };
    // `f` is called where the message is built: a message is large, and moving it
    // out and back would cost more than building it.
    if let Some(gathered) = Gathered::read(py, dict) {
        return Ok(f(&gathered.message()));
    }
    let message = read_by_schema(py, message)?;
    Ok(f(&message))
}

/// A message dict read through the core's transcript schema.
fn read_by_schema(py: Python<'_>, message: &Bound<'_, PyAny>) -> PyResult<Message<'static>> {
    // Owned already: a Python string's text is copied out of it (`PyDe` borrows
    // nothing), so the message can be `'static` without a copy.
    doneseq::transcript::deserialize_message::<'static, _>(PyDe::new(message))
        .map_err(|e| errors::error(py, "MessageError", e))
}

/// The message the fast path reads from `message`, or `None` where it leaves the
/// message to the schema (for the tests: both paths must agree).
fn read_fast(message: &Bound<'_, PyAny>) -> Option<Message<'static>> {
    let dict = message.cast::<PyDict>().ok()?;
    let gathered = Gathered::read(message.py(), dict)?;
    Some(gathered.message().into_owned())
}

/// Test support: the message `message` reads as (its `Debug` text), by the fast path
/// (`None` where it leaves the message to the schema) or by the schema.
#[pyfunction]
#[pyo3(name = "_message_debug")]
pub(crate) fn message_debug(
    py: Python<'_>,
    message: &Bound<'_, PyAny>,
    fast: bool,
) -> PyResult<Option<String>> {
    if fast {
        return Ok(read_fast(message).map(|m| format!("{m:?}")));
    }
    read_by_schema(py, message).map(|m| Some(format!("{m:?}")))
}

/// The interned strings the fast path recognises by identity.
struct Names {
    role: Py<PyString>,
    content: Py<PyString>,
    name: Py<PyString>,
    responder: Py<PyString>,
    tool_calls: Py<PyString>,
    tool_call_id: Py<PyString>,
    id: Py<PyString>,
    kind: Py<PyString>,
    function: Py<PyString>,
    arguments: Py<PyString>,
    /// The reasoning OpenAI-compatible providers write beside the answer, not read:
    /// `reasoning_content`, `reasoning`, `thinking`.
    reasoning: [Py<PyString>; 3],
    /// The keys the OpenAI SDK's `model_dump()` writes with nothing in them most of
    /// the time: `refusal`, `function_call`, `audio` (`None`), `annotations` (`None`
    /// or empty). With that, the schema would read them as absent; with anything else
    /// they are the schema's.
    empty: [Py<PyString>; 4],
    /// The common role names and their roles (as the core parses them).
    roles: Vec<(Py<PyString>, Role)>,
}

static NAMES: PyOnceLock<Names> = PyOnceLock::new();

fn names(py: Python<'_>) -> &Names {
    NAMES.get_or_init(py, || {
        let s = |text: &str| PyString::intern(py, text).unbind();
        Names {
            role: s("role"),
            content: s("content"),
            name: s("name"),
            responder: s("responder"),
            tool_calls: s("tool_calls"),
            tool_call_id: s("tool_call_id"),
            id: s("id"),
            kind: s("type"),
            function: s("function"),
            arguments: s("arguments"),
            reasoning: [s("reasoning_content"), s("reasoning"), s("thinking")],
            empty: [
                s("refusal"),
                s("function_call"),
                s("audio"),
                s("annotations"),
            ],
            // The role each name means is the core's (`Role`'s parser): only which
            // names are worth recognising by identity is decided here.
            roles: ["assistant", "user", "tool", "system", "llm", "agent"]
                .into_iter()
                .filter_map(|n| Some((s(n), n.parse().ok()?)))
                .collect(),
        }
    })
}

/// The name among `names` that `key` is: the same object (interned, as a dict
/// literal's keys are), else, for a key built at run time (`json.loads` does not
/// intern), the same text.
fn which<const N: usize>(key: &Bound<'_, PyAny>, names: [&Py<PyString>; N]) -> Option<usize> {
    if let Some(i) = names.iter().position(|n| n.as_ptr() == key.as_ptr()) {
        return Some(i);
    }
    if !key.is_exact_instance_of::<PyString>() {
        return None;
    }
    let py = key.py();
    names
        .iter()
        .position(|n| key.eq(n.bind(py)).unwrap_or(false))
}

/// A tool call's texts.
struct Call<'py> {
    name: Utf8<'py>,
    arguments: Option<Utf8<'py>>,
    id: Option<Utf8<'py>>,
}

/// A message's texts, as UTF-8 the message borrows from.
struct Gathered<'py> {
    role: Role,
    content: Option<Utf8<'py>>,
    responder: Option<Utf8<'py>>,
    name: Option<Utf8<'py>>,
    tool_call_id: Option<Utf8<'py>>,
    calls: Vec<Call<'py>>,
}

/// A string value as UTF-8, `Some(None)` for `None`, `None` for anything else (left
/// to the schema, as is a string that has no UTF-8: a lone surrogate).
fn text<'py>(value: &Bound<'py, PyAny>) -> Option<Option<Utf8<'py>>> {
    if value.is_none() {
        return Some(None);
    }
    Utf8::of(value.cast::<PyString>().ok()?).map(Some)
}

impl<'py> Gathered<'py> {
    /// The texts of a dict of the common shape; `None` for any other.
    fn read(py: Python<'py>, dict: &Bound<'py, PyDict>) -> Option<Gathered<'py>> {
        let names = names(py);
        let mut role = None;
        let mut gathered = Gathered {
            role: Role::User,
            content: None,
            responder: None,
            name: None,
            tool_call_id: None,
            calls: Vec::new(),
        };
        let keys = [
            &names.role,
            &names.content,
            &names.tool_calls,
            &names.name,
            &names.responder,
            &names.tool_call_id,
            &names.reasoning[0],
            &names.reasoning[1],
            &names.reasoning[2],
            &names.empty[0],
            &names.empty[1],
            &names.empty[2],
            &names.empty[3],
        ];
        for (key, value) in dict.iter() {
            match which(&key, keys)? {
                0 => role = Some(Self::role(names, &value)?),
                1 => gathered.content = text(&value)?,
                2 if value.is_none() => {}
                2 => gathered.calls = Self::calls(names, value.cast::<PyList>().ok()?)?,
                3 => gathered.name = text(&value)?,
                4 => gathered.responder = text(&value)?,
                5 => gathered.tool_call_id = text(&value)?,
                // Reasoning is not read, but a text as the schema takes it (UTF-8),
                // or the schema says what it is.
                6..=8 => drop(text(&value)?),
                9..=11 if value.is_none() => {}
                // `annotations`: `None`, or an empty list.
                12 if value.is_none() || value.cast::<PyList>().is_ok_and(|l| l.is_empty()) => {}
                _ => return None,
            }
        }
        gathered.role = role?;
        Some(gathered)
    }

    fn role(names: &Names, value: &Bound<'_, PyAny>) -> Option<Role> {
        if let Some((_, role)) = names
            .roles
            .iter()
            .find(|(n, _)| n.as_ptr() == value.as_ptr())
        {
            return Some(*role);
        }
        value.cast::<PyString>().ok()?.to_cow().ok()?.parse().ok()
    }

    /// Tool calls of OpenAI's shape (`function` with string arguments) or doneseq's
    /// (`name`, string `arguments`), each with an optional `id` and string `type`.
    fn calls(names: &Names, list: &Bound<'py, PyList>) -> Option<Vec<Call<'py>>> {
        let mut calls = Vec::with_capacity(list.len());
        for item in list.iter() {
            let call = item.cast::<PyDict>().ok()?;
            let (mut name, mut arguments, mut id, mut function) = (None, None, None, None);
            let keys = [
                &names.name,
                &names.arguments,
                &names.id,
                &names.function,
                &names.kind,
            ];
            for (key, value) in call.iter() {
                match which(&key, keys)? {
                    0 => name = Some(text(&value)??),
                    1 => arguments = Some(text(&value)?),
                    2 => id = text(&value)?,
                    3 => function = Some(value),
                    // `type` is not read, as by the schema; a string, so no depth to
                    // check.
                    _ => drop(value.cast::<PyString>().ok()?),
                }
            }
            let (name, arguments) = match (name, function) {
                (Some(name), None) => (name, arguments.flatten()),
                (None, Some(function)) if arguments.is_none() => {
                    let (mut name, mut arguments) = (None, None);
                    for (key, value) in function.cast::<PyDict>().ok()?.iter() {
                        match which(&key, [&names.name, &names.arguments])? {
                            0 => name = Some(text(&value)??),
                            _ => arguments = text(&value)?,
                        }
                    }
                    (name?, arguments)
                }
                // What the schema refuses, it says why.
                _ => return None,
            };
            if name.as_str().is_empty() {
                return None;
            }
            calls.push(Call {
                name,
                arguments,
                id,
            });
        }
        Some(calls)
    }

    /// The message, borrowing the texts.
    #[inline(always)]
    fn message(&self) -> Message<'_> {
        let content = self.content.as_ref().map_or("", Utf8::as_str);
        let mut message = Message::new(self.role, Cow::Borrowed(content));
        if let Some(responder) = self.responder.as_ref().or(self.name.as_ref()) {
            message = message.with_responder(responder.as_str());
        }
        for call in &self.calls {
            let arguments = call.arguments.as_ref().map_or("", Utf8::as_str);
            let mut tool = ToolCall::new(call.name.as_str(), arguments);
            if let Some(id) = &call.id {
                tool = tool.with_id(id.as_str());
            }
            message = message.with_tool_call(tool);
        }
        if let Some(id) = &self.tool_call_id {
            message = message.with_tool_call_id(id.as_str());
        }
        message
    }
}
