//! Pydantic AI's message history: the `ModelRequest`s and `ModelResponse`s of a run
//! as its `all_messages_json()` or `ModelMessagesTypeAdapter` writes them (a JSON
//! array), or one a line.
//!
//! A request is the parts Pydantic AI sends the model: its system prompt, the user's
//! prompt, the tools' returns, its own feedback on a response it could not use; a
//! response is the model's turn: its text, its tool calls, its usage. Each request
//! part is a message of its own; a response is one message, followed by the results
//! of the provider's built-in tools it holds. A request's `instructions` (sent with
//! every request as its system prompt) are a system message where they first come
//! and where they change. Timestamps, ids, the model's name, run and conversation ids
//! and metadata are not read.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::parts::join;
use super::record::{Context, Failure, Out};
use super::wire::{RawArguments, Str, failed};
use crate::{Message, Role, ToolCall};

/// One `ModelRequest` or `ModelResponse` (`kind` says which). (The fast path's
/// scanner fills it too.)
#[derive(Deserialize, Default)]
pub(super) struct ModelMessage<'a> {
    #[serde(borrow)]
    pub(super) kind: Str<'a>,
    #[serde(borrow)]
    pub(super) parts: Vec<Part<'a>>,
    /// A request's instructions.
    #[serde(default, borrow)]
    pub(super) instructions: Option<Str<'a>>,
    /// A response's usage.
    #[serde(default)]
    pub(super) usage: Option<Usage>,
}

/// A part of either: the union of the fields the parts read here carry (`part_kind`
/// says which it is). Other fields (timestamps, ids, provider details, a tool
/// return's metadata and retry counts) are not read.
#[derive(Deserialize, Default)]
pub(super) struct Part<'a> {
    #[serde(borrow)]
    pub(super) part_kind: Str<'a>,
    /// Text, a user prompt's list of items, or a tool's return (any JSON).
    #[serde(default, borrow)]
    pub(super) content: Option<PartContent<'a>>,
    #[serde(default, borrow)]
    pub(super) tool_name: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) tool_call_id: Option<Str<'a>>,
    /// A tool call's arguments: a JSON object, or its JSON text.
    #[serde(default)]
    pub(super) args: Option<RawArguments<'a>>,
    /// A tool return's outcome: `success`, or how the call failed.
    #[serde(default, borrow)]
    pub(super) outcome: Option<Str<'a>>,
    /// Speech's transcript.
    #[serde(default, borrow)]
    pub(super) transcript: Option<Str<'a>>,
}

/// A part's `content`: a string's text, decoded (as the fast path's scanner reads a
/// string), or a value's JSON text (as serde's path keeps any value, a string's too:
/// decoded only where the part's kind reads its text, so that a part whose content is
/// not read is never refused for it).
pub(super) enum PartContent<'a> {
    Text(Cow<'a, str>),
    Json(&'a str),
}

impl<'de: 'a, 'a> Deserialize<'de> for PartContent<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<PartContent<'a>, D::Error> {
        Ok(PartContent::Json(
            <&'de RawValue>::deserialize(deserializer)?.get(),
        ))
    }
}

/// A response's token usage. Pydantic AI counts cache reads and writes within
/// `input_tokens` (earlier versions wrote `request_tokens` and `response_tokens`).
#[derive(Deserialize, Default)]
pub(super) struct Usage {
    #[serde(default, alias = "request_tokens")]
    pub(super) input_tokens: Option<u64>,
    #[serde(default, alias = "response_tokens")]
    pub(super) output_tokens: Option<u64>,
}

/// The instructions read last, so that a request that repeats them (each does) is
/// not a system message again.
#[derive(Debug, Default)]
pub(super) struct Instructions(Option<String>);

/// Request parts that are not messages: changes to the run's set-up (tools,
/// capabilities, settings, instructions, which `instructions` holds rendered) and a
/// compacted history.
const REQUEST_SET_UP: &[&str] = &[
    "tool-availability-delta",
    "capability-load-delta",
    "model-settings-delta",
    "instruction-delta",
    "instruction-baseline",
    "instruction-digest",
    "compaction",
];

/// Response parts that are not the model's answer: its thoughts, a compacted
/// history, a file it made.
const RESPONSE_SILENT: &[&str] = &["thinking", "compaction", "file"];

/// The part kinds read, for the error on an unknown one.
const KNOWN: &str = "system-prompt, user-prompt, tool-return, retry-prompt, \
    retry-feedback, speech and the set-up deltas in a request; text, tool-call, \
    builtin-tool-call, builtin-tool-return, thinking, file, speech in a response; \
    any kind ending in -call or -return as a tool's call or return";

/// The items of a user prompt given as a list that are not text.
const MEDIA: &[&str] = &[
    "image-url",
    "audio-url",
    "video-url",
    "document-url",
    "binary",
    "uploaded-file",
    "cache-point",
];

/// The messages of one request or response.
pub(super) fn read<'a>(
    message: ModelMessage<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    // On an error, what was added is dropped by the reader with the record.
    let read = match &*message.kind.0 {
        "request" => request(message, &mut cx.pydantic_ai, out),
        "response" => response(message, out),
        other => Err(format!(
            "a Pydantic AI message has \"kind\" \"request\" or \"response\", not \"{other}\""
        )),
    };
    read.map_err(|m| Failure::message(within, m))
}

/// A request: its instructions where they are new, then a message a part.
fn request<'a>(
    message: ModelMessage<'a>,
    seen: &mut Instructions,
    out: &mut Out<'a>,
) -> Result<(), String> {
    let count = message.parts.len();
    let mut instructions = None;
    if let Some(text) = message.instructions.filter(|t| !t.is_empty())
        && seen.0.as_deref() != Some(&*text.0)
    {
        out.push(Message::new(Role::System, text.0.clone()));
        instructions = Some(text.0.into_owned());
    }
    for (i, mut part) in message.parts.into_iter().enumerate() {
        let kind = std::mem::take(&mut part.part_kind.0);
        let kind = &*kind;
        let at = || format!("part {} of {count} (\"{kind}\")", i + 1);
        match kind {
            "system-prompt" => out.push(Message::new(Role::System, string(part.content, &at)?)),
            "user-prompt" => out.push(Message::new(Role::User, prompt(part.content, &at)?)),
            "speech" => out.push(Message::new(Role::User, speech(part.transcript))),
            "retry-prompt" if part.tool_name.is_none() => {
                out.push(feedback(part.content, &at)?);
            }
            "retry-prompt" => out.push(tool_return(part, Some("retried"), &at)?),
            "retry-feedback" => out.push(feedback(part.content, &at)?),
            kind if kind.ends_with("-return") => out.push(tool_return(part, None, &at)?),
            kind if REQUEST_SET_UP.contains(&kind) => {}
            _ => return Err(unknown(&at())),
        }
    }
    if instructions.is_some() {
        seen.0 = instructions;
    }
    Ok(())
}

/// A response: the model's message (its texts joined by newlines, its calls, its
/// usage), then the returns of the built-in tools it ran.
fn response<'a>(message: ModelMessage<'a>, out: &mut Out<'a>) -> Result<(), String> {
    let count = message.parts.len();
    let mut text = None;
    let mut calls = Vec::new();
    let mut returns = Vec::new();
    for (i, mut part) in message.parts.into_iter().enumerate() {
        let kind = std::mem::take(&mut part.part_kind.0);
        let kind = &*kind;
        let at = || format!("part {} of {count} (\"{kind}\")", i + 1);
        match kind {
            "text" => text = Some(join(text, string(part.content, &at)?)),
            "speech" => text = Some(join(text, speech(part.transcript))),
            kind if kind.ends_with("-call") => calls.push(tool_call(part, &at)?),
            kind if kind.ends_with("-return") => returns.push(tool_return(part, None, &at)?),
            kind if RESPONSE_SILENT.contains(&kind) => {}
            _ => return Err(unknown(&at())),
        }
    }
    let mut reply = Message::new(Role::Llm, text.unwrap_or_default());
    reply.tool_calls = calls;
    reply.usage = message.usage.map(|u| crate::Usage {
        input_tokens: u.input_tokens.unwrap_or(0),
        output_tokens: u.output_tokens.unwrap_or(0),
    });
    out.push(reply);
    out.extend(returns);
    Ok(())
}

/// A tool call (`tool-call`, or a built-in tool's, the provider's).
fn tool_call<'a>(part: Part<'a>, at: &dyn Fn() -> String) -> Result<ToolCall<'a>, String> {
    let name = (part.tool_name)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| format!("{} has no \"tool_name\"", at()))?;
    Ok(super::wire::tool_call(
        name.into_cow(),
        part.args,
        part.tool_call_id,
    ))
}

/// A tool's return: its content as text (a string as it is, any other value its
/// JSON), its tool and call; failed unless its outcome is `success` (`outcome`
/// overrides the part's own: a legacy retry prompt has none).
fn tool_return<'a>(
    part: Part<'a>,
    outcome: Option<&str>,
    at: &dyn Fn() -> String,
) -> Result<Message<'a>, String> {
    let name = (part.tool_name)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| format!("{} has no \"tool_name\"", at()))?;
    let text = any_text(part.content, at)?;
    let outcome = match (outcome, &part.outcome) {
        (Some(given), _) => given,
        (None, Some(own)) => &*own.0,
        (None, None) => "success",
    };
    let mut result = Message::new(Role::Agent, text).with_tool_name(name.into_cow());
    if let Some(id) = part.tool_call_id {
        result = result.with_tool_call_id(id.into_cow());
    }
    if outcome != "success" {
        result = failed(result, format!("the tool call was {outcome}"));
    }
    Ok(result)
}

/// Pydantic AI's feedback on a response it could not use (no tool's): a message of
/// the agent's code, failed with the feedback.
fn feedback<'a>(
    content: Option<PartContent<'a>>,
    at: &dyn Fn() -> String,
) -> Result<Message<'a>, String> {
    let feedback = Message::new(Role::Agent, any_text(content, at)?);
    Ok(failed(feedback, "the response could not be used"))
}

/// A content that is a string.
fn string<'a>(
    content: Option<PartContent<'a>>,
    at: &dyn Fn() -> String,
) -> Result<Cow<'a, str>, String> {
    match content.ok_or_else(|| format!("{} has no \"content\"", at()))? {
        PartContent::Text(text) => Ok(text),
        PartContent::Json(raw) if raw.starts_with('"') => serde_json::from_str::<Str<'a>>(raw)
            .map(Str::into_cow)
            // (Its JSON was checked as it was read: what does not decode is a lone
            // surrogate's escape, which is no text.)
            .map_err(|_| {
                format!(
                    "{}: \"content\" holds an unpaired surrogate escape (\\ud800 to \\udfff), \
                     which is no text",
                    at()
                )
            }),
        PartContent::Json(_) => Err(format!("{}: \"content\" is not a string", at())),
    }
}

/// A content of any JSON: a string is its text, any other value its JSON text,
/// compact as Pydantic AI gives it to the model (`null` or none: no text).
fn any_text<'a>(
    content: Option<PartContent<'a>>,
    at: &dyn Fn() -> String,
) -> Result<Cow<'a, str>, String> {
    match content {
        None => Ok(Cow::Borrowed("")),
        Some(PartContent::Text(text)) => Ok(text),
        Some(PartContent::Json("null")) => Ok(Cow::Borrowed("")),
        Some(PartContent::Json(raw)) => {
            super::value_text(raw).map_err(|_| format!("{}: \"content\" is not a string", at()))
        }
    }
}

/// A user prompt's text: a string, or a list of items whose texts (a string, or a
/// `text-content` or `structured-content` item's `content`) are joined by newlines;
/// images, audio, video, documents and files are not text.
fn prompt<'a>(
    content: Option<PartContent<'a>>,
    at: &dyn Fn() -> String,
) -> Result<Cow<'a, str>, String> {
    let raw = match content.ok_or_else(|| format!("{} has no \"content\"", at()))? {
        PartContent::Json(raw) if !raw.starts_with('"') => raw,
        string => return self::string(Some(string), at),
    };
    let items = serde_json::from_str::<Vec<&'a RawValue>>(raw)
        .map_err(|_| format!("{}: \"content\" is neither a string nor a list", at()))?;
    let mut text = None;
    for (i, item) in items.into_iter().enumerate() {
        let item_at = || format!("{}, item {}", at(), i + 1);
        if item.get().starts_with('"') {
            let piece = string(Some(PartContent::Json(item.get())), &item_at)?;
            text = Some(join(text, piece));
            continue;
        }
        let item = serde_json::from_str::<Item<'a>>(item.get())
            .map_err(|e| format!("{}: a string or an object with a \"kind\": {e}", item_at()))?;
        match &*item.kind.0 {
            "text-content" | "structured-content" => {
                text = Some(join(text, string(item.content, &item_at)?));
            }
            kind if MEDIA.contains(&kind) => {}
            other => {
                return Err(format!(
                    "{}: an item of unknown kind \"{other}\" (expected a string, \
                     text-content, structured-content, or one of {})",
                    item_at(),
                    MEDIA.join(", ")
                ));
            }
        }
    }
    Ok(text.unwrap_or_default())
}

/// An item of a user prompt's list that is not a string.
#[derive(Deserialize)]
struct Item<'a> {
    #[serde(borrow)]
    kind: Str<'a>,
    #[serde(default, borrow)]
    content: Option<PartContent<'a>>,
}

/// Speech's transcript (none when it was not transcribed).
fn speech(transcript: Option<Str<'_>>) -> Cow<'_, str> {
    transcript.map(Str::into_cow).unwrap_or_default()
}

/// The error for a part of unknown kind.
fn unknown(at: &str) -> String {
    format!("{at} is of a kind not known (expected one of {KNOWN})")
}
