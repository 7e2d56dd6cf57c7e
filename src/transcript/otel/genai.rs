//! The GenAI conventions' messages: `gen_ai.system_instructions`,
//! `gen_ai.input.messages` and `gen_ai.output.messages` (JSON lists of parts), and the
//! older span events.

use serde_json::Value;

use super::spans::{AnyValue, Event, KeyValue};
use crate::transcript::bedrock;
use crate::transcript::detect::converse_content;
use crate::transcript::parts::Found;
use crate::{Message, Role, ToolCall};

/// `gen_ai.system_instructions`: a list of parts (text parts are the prompt).
pub(super) fn system_messages(value: &AnyValue) -> Result<Vec<Message<'static>>, String> {
    let parts = list(value, "gen_ai.system_instructions", "parts")?;
    let mut found = Found::default();
    let text = read_parts(&parts, &mut found, "gen_ai.system_instructions")?;
    Ok(vec![Message::new(Role::System, text)])
}

/// A list attribute: JSON text (on spans), or the list itself (a structured value, as
/// log records hold it).
fn list(value: &AnyValue, attribute: &str, of: &str) -> Result<Vec<Value>, String> {
    match value.text() {
        Some(text) => serde_json::from_str(text)
            .map_err(|e| format!("{attribute} is not a JSON list of {of}: {e}")),
        None => match value.json() {
            Value::Array(list) => Ok(list),
            other => Err(format!("{attribute} is not a list of {of}: {other}")),
        },
    }
}

/// The messages of `gen_ai.input.messages` or `gen_ai.output.messages`:
/// `[{"role", "parts": [...], "name"?, "finish_reason"?}]`.
pub(super) fn messages(value: &AnyValue, attribute: &str) -> Result<Vec<Message<'static>>, String> {
    let list = list(value, attribute, "messages")?;
    let mut messages = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let at = format!("{attribute}[{i}]");
        let role = item
            .get("role")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{at} has no \"role\""))?;
        let role = role_named(role).map_err(|e| format!("{at}: {e}"))?;
        let parts = match item.get("parts") {
            Some(Value::Array(parts)) => parts.as_slice(),
            None | Some(Value::Null) => &[],
            Some(_) => return Err(format!("{at}: \"parts\" is not a list")),
        };
        let mut found = Found::default();
        let text = read_parts(parts, &mut found, &at)?;
        let name = item.get("name").and_then(Value::as_str).map(str::to_owned);
        // A tool message's responses are each a tool's result.
        let only_results = !found.results.is_empty() && text.is_empty() && found.calls.is_empty();
        messages.extend(found.results);
        if only_results {
            continue;
        }
        let mut message = Message::new(role, text);
        message.tool_calls = found.calls;
        if let Some(name) = name {
            message = message.with_responder(name);
        }
        messages.push(message);
    }
    Ok(messages)
}

/// A message's role, as the conventions' instrumentations write it: doneseq's names,
/// and `model` (Gemini's name for the model's messages).
pub(super) fn role_named(name: &str) -> Result<Role, crate::RoleError> {
    if name.eq_ignore_ascii_case("model") {
        return Ok(Role::Llm);
    }
    name.parse()
}

/// A JSON value as text: a string as it is, any other value as JSON, nothing as
/// empty.
pub(super) fn json_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The text of semantic-convention parts (text parts' `content`, joined by newlines),
/// with their tool calls and responses in `found`. Reasoning, media (`blob`, `uri`,
/// `file`) and other parts hold no text to classify.
fn read_parts(parts: &[Value], found: &mut Found<'static>, at: &str) -> Result<String, String> {
    let mut texts: Vec<&str> = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let kind = part
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{at} part {i} has no \"type\""))?;
        match kind {
            "text" => texts.push(part.get("content").and_then(Value::as_str).ok_or_else(|| {
                format!("{at} part {i} of type \"text\" has no \"content\" string")
            })?),
            "tool_call" | "server_tool_call" => {
                let name = part
                    .get("name")
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| format!("{at} part {i} of type \"{kind}\" has no \"name\""))?;
                let arguments = json_text(part.get("arguments"));
                let mut call = ToolCall::new(name.to_owned(), arguments);
                if let Some(id) = part.get("id").and_then(Value::as_str) {
                    call = call.with_id(id.to_owned());
                }
                found.calls.push(call);
            }
            "tool_call_response" => {
                let response = part.get("response").or_else(|| part.get("result"));
                // Strands Agents records a tool's response as its Converse blocks.
                let blocks = (response.filter(|r| r.is_array()))
                    .and_then(|r| bedrock::result_blocks_text(&r.to_string()));
                let content = blocks.unwrap_or_else(|| json_text(response));
                let mut result = Message::new(Role::Agent, content);
                if let Some(id) = part.get("id").and_then(Value::as_str) {
                    result = result.with_tool_call_id(id.to_owned());
                }
                found.results.push(result);
            }
            _ => {}
        }
    }
    Ok(texts.join("\n"))
}

/// The input and output of a chat call recorded the older way, as events: a span's,
/// whose body is the `gen_ai.event.content` attribute (JSON) or the attributes
/// themselves, or log records', whose body is the record's.
pub(super) fn events(
    events: &[Event<'_>],
) -> Result<(Vec<Message<'static>>, Vec<Message<'static>>), String> {
    let (mut input, mut output) = (Vec::new(), Vec::new());
    for event in events {
        let role = match &*event.name.0 {
            "gen_ai.system.message" => Role::System,
            "gen_ai.user.message" => Role::User,
            "gen_ai.assistant.message" | "gen_ai.choice" => Role::Llm,
            "gen_ai.tool.message" => Role::Agent,
            _ => continue,
        };
        // Strands Agents writes a message's content (a choice's `message`) as JSON
        // text of its Converse content blocks.
        let blocks = (event.body.is_none())
            .then(|| event.attributes.iter().find_map(converse_blocks))
            .flatten();
        if let Some(blocks) = blocks {
            let read = bedrock::blocks_messages(role, blocks)
                .map_err(|e| format!("event {}: {e}", event.name.0))?;
            if event.name.0 == "gen_ai.choice" {
                output.extend(read);
            } else {
                input.extend(read);
            }
            continue;
        }
        let body = match &event.body {
            Some(body) => record_body(body),
            None => body(&event.attributes),
        };
        let body = body.map_err(|e| format!("event {}: {e}", event.name.0))?;
        let body = match (&*event.name.0, body.get("message")) {
            ("gen_ai.choice", Some(message)) => message.clone(),
            _ => body,
        };
        let content = json_text(body.get("content"));
        let mut message = Message::new(role, content);
        if let Some(Value::Array(calls)) = body.get("tool_calls") {
            for call in calls {
                let function = call.get("function").unwrap_or(call);
                let Some(name) = function
                    .get("name")
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty())
                else {
                    return Err(format!("event {}: a tool call has no name", event.name.0));
                };
                let arguments = json_text(function.get("arguments"));
                let mut tool_call = ToolCall::new(name.to_owned(), arguments);
                if let Some(id) = call.get("id").and_then(Value::as_str) {
                    tool_call = tool_call.with_id(id.to_owned());
                }
                message.tool_calls.push(tool_call);
            }
        }
        if role == Role::Agent
            && let Some(id) = body.get("id").and_then(Value::as_str)
        {
            message = message.with_tool_call_id(id.to_owned());
        }
        if event.name.0 == "gen_ai.choice" {
            output.push(message);
        } else {
            input.push(message);
        }
    }
    Ok((input, output))
}

/// An event's `content` (or a choice's `message`) that is JSON text of Converse
/// content blocks.
fn converse_blocks<'e>(kv: &'e KeyValue<'_>) -> Option<&'e str> {
    match &*kv.key.0 {
        "content" | "message" => kv.value.as_ref()?.text().filter(|t| converse_content(t)),
        _ => None,
    }
}

/// An event's body: the JSON of `gen_ai.event.content`, or its attributes as fields
/// (strings holding JSON lists or objects parsed).
fn body(attributes: &[KeyValue<'_>]) -> Result<Value, String> {
    let mut map = serde_json::Map::new();
    for kv in attributes {
        let Some(value) = &kv.value else { continue };
        if kv.key.0 == "gen_ai.event.content" {
            let text = value.text().unwrap_or("null");
            return serde_json::from_str(text)
                .map_err(|e| format!("gen_ai.event.content is not JSON: {e}"));
        }
        let mut json = value.json();
        if let Value::String(s) = &json
            && matches!(&*kv.key.0, "tool_calls" | "message")
        {
            json = serde_json::from_str(s).map_err(|e| format!("{} is not JSON: {e}", kv.key.0))?;
        }
        map.insert(kv.key.0.to_string(), json);
    }
    Ok(Value::Object(map))
}

/// A log record's body: a map (or JSON text of one).
fn record_body(body: &AnyValue) -> Result<Value, String> {
    let json = match body.text() {
        Some(text) => {
            serde_json::from_str(text).map_err(|e| format!("the body is not JSON: {e}"))?
        }
        None => body.json(),
    };
    match json {
        Value::Object(_) => Ok(json),
        other => Err(format!("the body is not a map: {other}")),
    }
}
