//! Chat requests (`{"messages": [...]}`, OpenAI's or Anthropic's, with Anthropic's
//! top-level `system`) and Anthropic's response messages.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::parts::{self, Content, Found};
use super::record::{Context, Failure, Out, Texts, each, message};
use super::wire::{JsonLine, ProviderUsage, RawArguments, Str};
use crate::{Message, Role, ToolCall};

/// A request's messages. Anthropic gives the system prompt as `system` (a string or
/// text blocks), OpenAI as the first message. The request's other fields (`model`,
/// `tools`, `max_tokens`, ...) are its settings, not messages.
#[derive(Deserialize)]
pub(super) struct Request<'a> {
    #[serde(borrow)]
    messages: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    system: Option<Texts<'a>>,
}

/// The messages of a request: its system prompt, then each message.
pub(super) fn read_request<'a>(
    request: Request<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if let Some(system) = request.system {
        let text = system
            .into_text()
            .map_err(|m| Failure::message(within, format!("\"system\": {m}")))?;
        out.push(Message::new(Role::System, text));
    }
    each::<JsonLine<'a>>(
        request.messages,
        |line, text, out| message(line, text, cx, out),
        out,
    )
}

/// An Anthropic response: `{"type": "message", "role": "assistant", "content":
/// [blocks], "usage": {...}}`. `id`, `model`, `stop_reason`, `stop_sequence` and
/// `container` describe the call. Read by serde where the fast path's scanner is not
/// sure of the line (the scanner builds the message itself, through [`reply`]).
#[derive(Deserialize)]
pub(super) struct Response<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Str<'a>,
    #[serde(borrow)]
    pub(super) role: Str<'a>,
    #[serde(borrow)]
    pub(super) content: Content<'a, RawArguments<'a>>,
    #[serde(default)]
    pub(super) usage: Option<ProviderUsage>,
}

/// The model's message of a response.
pub(super) fn read_response<'a>(
    response: Response<'a>,
    within: &'a str,
) -> Result<Message<'a>, Failure<'a>> {
    check_response(&response.kind.0, &response.role.0, within)?;
    let mut found = Found::default();
    let text =
        parts::text(Some(response.content), &mut found).map_err(|m| Failure::message(within, m))?;
    read_reply(text, found, response.usage, within)
}

/// Refuses a response whose `type` is not `message` or whose `role` is not
/// `assistant`.
pub(super) fn check_response<'a>(
    kind: &str,
    role: &str,
    within: &'a str,
) -> Result<(), Failure<'a>> {
    if kind != "message" || role != "assistant" {
        return Err(Failure::message(
            within,
            format!(
                "an Anthropic response has \"type\": \"message\" and \"role\": \"assistant\", \
                 not \"{kind}\" and \"{role}\""
            ),
        ));
    }
    Ok(())
}

/// The model's message of a checked response whose content is read (its text, and
/// the calls and results its blocks hold): refused if it holds tool results.
pub(super) fn read_reply<'a>(
    text: Cow<'a, str>,
    found: Found<'a>,
    usage: Option<ProviderUsage>,
    within: &'a str,
) -> Result<Message<'a>, Failure<'a>> {
    if !found.results.is_empty() {
        return Err(Failure::message(within, "a response holds tool results"));
    }
    Ok(reply(text, found.calls, usage))
}

/// The model's message of a response whose type and role are checked and that holds
/// no tool results: its content's text and calls, and its usage.
pub(super) fn reply<'a>(
    text: Cow<'a, str>,
    calls: Vec<ToolCall<'a>>,
    usage: Option<ProviderUsage>,
) -> Message<'a> {
    let mut reply = Message::new(Role::Llm, text);
    reply.tool_calls = calls;
    reply.usage = usage.map(ProviderUsage::into_usage);
    reply
}
