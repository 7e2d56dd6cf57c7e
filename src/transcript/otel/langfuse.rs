//! Langfuse's observations, as its SDK writes them on spans (`langfuse.observation.*`):
//! a `generation`'s input and output are what the model's client took and gave, as
//! JSON (chat messages, OpenAI's, Anthropic's or doneseq's; a request's
//! `{"messages": [...]}`; or a text).

use serde_json::Value;

use super::spans::AnyValue;
use crate::transcript::record::{self, Context, Kind, Out, Problem};
use crate::{Message, Role};

/// The messages of a generation's input (`langfuse.observation.input`) or output
/// (`langfuse.observation.output`, `role` its messages' role where they name none):
/// a list of chat messages, a request's `{"messages": [...]}`, one message, or a text
/// (a message of `role`: a prompt, or the model's answer).
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
        record::read(Kind::Message, &text, cx, &mut out).map_err(|failure| {
            let problem = match failure.problem {
                Problem::Message(_, message) => message,
                Problem::Json(e) => e.to_string(),
                Problem::TooDeep(_) => "JSON nested too deep".to_owned(),
            };
            format!("{}: {problem}", at())
        })?;
        messages.extend(out.into_iter().map(Message::into_owned));
    }
    Ok(messages)
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
