//! Langfuse's observations, as its SDK writes them on spans (`langfuse.observation.*`):
//! a `generation`'s input and output are what the model's client took and gave, as
//! JSON (chat messages, OpenAI's, Anthropic's or doneseq's; a request's
//! `{"messages": [...]}`; or a text).

use serde_json::Value;

use super::spans::AnyValue;
use crate::transcript::record::{self, Context, Kind, Out};
use crate::{Message, Role};

/// The messages of a generation's input (`langfuse.observation.input`) or output
/// (`langfuse.observation.output`, `role` its messages' role where they name none):
/// a list of chat messages, a request's `{"messages": [...]}`, one message, or a text
/// (a message of `role`: a prompt, or the model's answer). An input that is the
/// arguments of a function decorated with `@observe(as_type="generation")`
/// (`{"args": [...], "kwargs": {...}}`) is read as its messages: see [`arguments`].
pub(super) fn messages(
    value: &AnyValue,
    attribute: &str,
    role: Role,
    cx: &mut Context,
) -> Result<Vec<Message<'static>>, String> {
    let text = value.to_text();
    // Not JSON: a text as it is (the SDK writes a string so).
    let Ok(json) = serde_json::from_str::<Value>(&text) else {
        return Ok(vec![Message::new(role, text)]);
    };
    let json = match json {
        Value::Object(call) if role == Role::User && is_arguments(&call) => arguments(call)
            .ok_or_else(|| {
                format!(
                    "{attribute}: the decorated function's arguments (args, kwargs) hold no \
                     messages (a list of chat messages, or a text)"
                )
            })?,
        other => other,
    };
    let list = match json {
        Value::Array(list) => list,
        Value::Object(mut request) if request.get("messages").is_some_and(Value::is_array) => {
            match request.remove("messages") {
                Some(Value::Array(list)) => list,
                _ => Vec::new(),
            }
        }
        message @ Value::Object(_) => vec![message],
        Value::String(text) => return Ok(vec![Message::new(role, text)]),
        Value::Null => return Ok(Vec::new()),
        other => return Ok(vec![Message::new(role, other.to_string())]),
    };
    let mut messages = Vec::with_capacity(list.len());
    for (i, mut item) in list.into_iter().enumerate() {
        let at = || format!("{attribute}[{i}]");
        match &mut item {
            Value::String(text) => {
                messages.push(Message::new(role, std::mem::take(text)));
                continue;
            }
            Value::Object(fields) => {
                // The model's message as its client gave it may name no role.
                if !fields.contains_key("role") && role == Role::Llm {
                    fields.insert("role".to_owned(), Value::from("assistant"));
                }
                if let Some(Value::Array(calls)) = fields.get_mut("tool_calls") {
                    calls.iter_mut().for_each(langchain_call);
                }
            }
            other => return Err(format!("{}: not a chat message: {other}", at())),
        }
        let text = item.to_string();
        let mut out = Out::new();
        record::read(Kind::Message, &text, cx, &mut out)
            .map_err(|failure| format!("{}: {}", at(), failure.problem.into_message()))?;
        messages.extend(out.into_iter().map(Message::into_owned));
    }
    Ok(messages)
}

/// Whether an input is what Langfuse's `@observe` records of a decorated function's
/// call: `{"args": [...], "kwargs": {...}}` and nothing else.
fn is_arguments(call: &serde_json::Map<String, Value>) -> bool {
    call.len() == 2
        && call.get("args").is_some_and(Value::is_array)
        && call.get("kwargs").is_some_and(Value::is_object)
}

/// The messages among a decorated function's arguments: its `messages` keyword, else
/// its first argument that is a list; else a text, its `prompt` keyword or its first
/// text argument. `None` when there is none.
fn arguments(mut call: serde_json::Map<String, Value>) -> Option<Value> {
    let Some(Value::Object(mut kwargs)) = call.remove("kwargs") else {
        return None;
    };
    let Some(Value::Array(args)) = call.remove("args") else {
        return None;
    };
    if let Some(messages @ Value::Array(_)) = kwargs.remove("messages") {
        return Some(messages);
    }
    if let Some(list) = args.iter().find(|a| a.is_array()) {
        return Some(list.clone());
    }
    if let Some(prompt @ Value::String(_)) = kwargs.remove("prompt") {
        return Some(prompt);
    }
    args.into_iter().find(Value::is_string)
}

/// A call as LangChain writes it (`{"name", "args", "id", "type": "tool_call"}`, what
/// Langfuse's LangChain integration records) as doneseq's fields; any other as it is.
fn langchain_call(call: &mut Value) {
    let Value::Object(fields) = call else { return };
    if fields.contains_key("function") || !fields.contains_key("args") {
        return;
    }
    let mut doneseq = serde_json::Map::new();
    for (from, to) in [("id", "id"), ("name", "name"), ("args", "arguments")] {
        if let Some(value) = fields.remove(from) {
            doneseq.insert(to.to_owned(), value);
        }
    }
    *fields = doneseq;
}

/// A generation's token usage (`langfuse.observation.usage_details`, JSON): input and
/// output, by Langfuse's names or its client's (`prompt_tokens`, `input_tokens`, ...).
pub(super) fn usage(text: &str) -> (Option<u64>, Option<u64>) {
    let Ok(Value::Object(usage)) = serde_json::from_str::<Value>(text) else {
        return (None, None);
    };
    let count = |names: &[&str]| names.iter().find_map(|n| usage.get(*n)?.as_u64());
    (
        count(&["input", "prompt_tokens", "input_tokens"]),
        count(&["output", "completion_tokens", "output_tokens"]),
    )
}
