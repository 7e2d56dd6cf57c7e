//! OpenInference's messages, flattened into span attributes
//! (`llm.input_messages.<i>.message.role`, ...), regrouped into messages.

use super::genai::role_named;
use super::spans::AnyValue;
use crate::{Message, Role, ToolCall};

/// A tool's output as LangChain's integrations write it, the tool's message
/// serialized (OpenInference's: `{"type": "tool", "data": {"content", "tool_call_id",
/// ...}}`; Langfuse's, its fields: `{"type": "tool", "content", "tool_call_id", ...}`),
/// read as the `langchain` format reads it: its content and the call it answers.
/// `None` for any other output.
pub(super) fn langchain_tool_message(output: &AnyValue) -> Option<(String, Option<String>)> {
    let message = crate::transcript::langchain::tool_message(output.text()?)?;
    let id = message.tool_call_id().map(str::to_owned);
    Some((message.content().to_owned(), id))
}

/// OpenInference's messages, flattened into attributes (`<attribute>.<i>.message.<field>`,
/// given here as `<i>.message.<field>`): `role`, `content` (or the texts of
/// `contents.<j>.message_content.text`), `tool_calls.<j>.tool_call.id`,
/// `.function.name` and `.function.arguments`, `tool_call_id`, `name` (the
/// responder), and an older single call's `function_call_name` and
/// `function_call_arguments_json`; one message for each `<i>`, in their order (they
/// need not start at 0 nor follow each other). Images, audio and other contents hold
/// no text to classify.
pub(super) fn flat_messages(
    entries: &[(&str, &AnyValue)],
    attribute: &str,
) -> Result<Vec<Message<'static>>, String> {
    let mut fields: Vec<(usize, &str, &AnyValue)> = Vec::with_capacity(entries.len());
    for &(rest, value) in entries {
        let field = indexed(rest).and_then(|(i, f)| Some((i, f.strip_prefix("message.")?)));
        let Some((i, field)) = field else {
            return Err(format!(
                "attribute {attribute}.{rest} is not {attribute}.<index>.message.<field>"
            ));
        };
        fields.push((i, field, value));
    }
    // Stable: a message's fields keep their order.
    fields.sort_by_key(|&(i, ..)| i);
    let mut messages = Vec::new();
    for group in fields.chunk_by(|a, b| a.0 == b.0) {
        messages.push(flat_message(group, &format!("{attribute}.{}", group[0].0))?);
    }
    Ok(messages)
}

/// One message of [`flat_messages`]: its fields (`at` names it in errors).
fn flat_message(fields: &[(usize, &str, &AnyValue)], at: &str) -> Result<Message<'static>, String> {
    fn text<'v>(value: &'v AnyValue, at: &str, field: &str) -> Result<&'v str, String> {
        (value.text()).ok_or_else(|| format!("{at}.message.{field} is not a string"))
    }
    let string = |field: &str, value| text(value, at, field);
    let (mut role, mut content, mut name, mut answers) = (None, None, None, None);
    let (mut function, mut function_arguments) = (None, None);
    let mut texts: Vec<(usize, &str)> = Vec::new();
    let mut calls: Vec<(usize, &str, &AnyValue)> = Vec::new();
    for &(_, field, value) in fields {
        match field {
            "role" => role = Some(string(field, value)?),
            "content" => content = Some(string(field, value)?),
            "name" => name = Some(string(field, value)?),
            "tool_call_id" => answers = Some(string(field, value)?),
            "function_call_name" => function = Some(string(field, value)?),
            "function_call_arguments_json" => function_arguments = Some(value),
            _ => {
                let content = field.strip_prefix("contents.").and_then(indexed);
                let call = field.strip_prefix("tool_calls.").and_then(indexed);
                if let Some((j, "message_content.text")) = content {
                    texts.push((j, string(field, value)?));
                } else if let Some((j, Some(f))) =
                    call.map(|(j, f)| (j, f.strip_prefix("tool_call.")))
                {
                    calls.push((j, f, value));
                }
            }
        }
    }
    let role = role.ok_or_else(|| format!("{at} has no message.role"))?;
    let role = role_named(role).map_err(|e| format!("{at}.message.role: {e}"))?;
    let text = match content {
        Some(content) => content.to_owned(),
        None => {
            texts.sort_by_key(|&(j, _)| j);
            let texts: Vec<&str> = texts.into_iter().map(|(_, t)| t).collect();
            texts.join("\n")
        }
    };
    let mut message = Message::new(role, text);
    calls.sort_by_key(|&(j, ..)| j);
    for call in calls.chunk_by(|a, b| a.0 == b.0) {
        let j = call[0].0;
        let field = |name: &str| call.iter().find(|(_, f, _)| *f == name).map(|(.., v)| *v);
        let name = field("function.name")
            .and_then(AnyValue::text)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| format!("{at}.message.tool_calls.{j} has no tool_call.function.name"))?;
        let arguments = field("function.arguments").map_or_else(String::new, AnyValue::to_text);
        let mut tool_call = ToolCall::new(name.to_owned(), arguments);
        if let Some(id) = field("id").and_then(AnyValue::text) {
            tool_call = tool_call.with_id(id.to_owned());
        }
        message.tool_calls.push(tool_call);
    }
    if let Some(function) = function.filter(|f| !f.is_empty()) {
        if role == Role::Agent {
            // A function's result names the function.
            message = message.with_tool_name(function.to_owned());
        } else {
            let arguments = function_arguments.map_or_else(String::new, AnyValue::to_text);
            message
                .tool_calls
                .push(ToolCall::new(function.to_owned(), arguments));
        }
    }
    if let Some(id) = answers.filter(|_| role == Role::Agent) {
        message = message.with_tool_call_id(id.to_owned());
    }
    if let Some(name) = name {
        message = message.with_responder(name.to_owned());
    }
    Ok(message)
}

/// `<index>.<rest>` as the index and the rest.
fn indexed(text: &str) -> Option<(usize, &str)> {
    let (index, rest) = text.split_once('.')?;
    Some((index.parse().ok()?, rest))
}
