//! The trajectories of mini-swe-agent's Responses API models (`LitellmResponseModel`
//! and its kin): the model's turn is the whole response object (its `output` items:
//! its messages' text, its `function_call`s of `bash`; its `usage`), a command's
//! output a `function_call_output` item, what mini-swe-agent tells the model a
//! `message` item in the user's role (read as a chat message: it has a `role`).

use std::borrow::Cow;

use serde::Deserialize;

use super::{Entry, Extra, output};
use crate::transcript::parts::{Content, plain_text};
use crate::transcript::wire::{ArgumentsText, Listed, RawArguments, Str, StringOrList};
use crate::{Message, ToolCall};

/// An item of a response's output, the fields read (ids and statuses are not).
#[derive(Deserialize)]
pub(in crate::transcript) struct OutputItem<'a> {
    #[serde(rename = "type", borrow)]
    pub(in crate::transcript) kind: Str<'a>,
    /// A message's parts (`output_text`).
    #[serde(default, borrow)]
    pub(in crate::transcript) content: Option<Content<'a, RawArguments<'a>>>,
    /// A function call's.
    #[serde(default, borrow)]
    pub(in crate::transcript) name: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) arguments: Option<RawArguments<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) call_id: Option<Str<'a>>,
}

impl Listed for OutputItem<'_> {
    const EXPECTING: &'static str = "a response's output items, or an output's text";
}

/// The model's turn of a response's output items: its messages' texts (joined by
/// newlines), its function calls; its reasoning is not its answer (as no format's
/// reasoning is).
pub(super) fn turn(items: Vec<OutputItem<'_>>) -> Result<Message<'_>, String> {
    let mut texts: Vec<Cow<'_, str>> = Vec::new();
    let mut calls = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        match &*item.kind.0 {
            "message" => texts.push(plain_text(
                item.content,
                format_args!("output item {i}'s content"),
            )?),
            "function_call" => {
                let name = item
                    .name
                    .ok_or_else(|| format!("output item {i}, a function call, has no \"name\""))?;
                let arguments = item.arguments.map(ArgumentsText::into_arguments);
                let call = ToolCall::with_arguments(
                    name.into_cow(),
                    arguments.unwrap_or_else(|| crate::message::CallArguments::text("{}")),
                );
                calls.push(match item.call_id {
                    Some(id) => call.with_id(id.into_cow()),
                    None => call,
                });
            }
            "reasoning" => {}
            other => {
                return Err(format!(
                    "output item {i} is of type \"{other}\" (expected message, \
                     function_call or reasoning)"
                ));
            }
        }
    }
    let text = match texts.len() {
        0 => Cow::Borrowed(""),
        1 => texts.pop().unwrap_or_default(),
        _ => Cow::Owned(texts.join("\n")),
    };
    let mut message = Message::llm(text);
    message.tool_calls = calls;
    Ok(message)
}

/// The messages of an entry without a role: a response object (the model's turn),
/// or a `function_call_output` item (a command's output, a result of `bash`).
pub(super) fn read_item<'a>(entry: Entry<'a>, extra: &Extra<'a>) -> Result<Message<'a>, String> {
    let object = entry.object.as_ref().map(|o| &*o.0);
    let kind = entry.kind.as_ref().map(|k| &*k.0);
    match (object, kind, entry.output) {
        (Some("response"), _, Some(StringOrList::List(items))) => {
            let message = turn(items).map_err(|m| format!("a response object's {m}"))?;
            Ok(match entry.usage {
                Some(usage) => message.with_usage(usage.into_usage()),
                None => message,
            })
        }
        (_, Some("function_call_output"), text) => {
            let text = match text {
                Some(StringOrList::Text(text)) => text,
                None => Cow::Borrowed(""),
                Some(StringOrList::List(_)) => {
                    return Err("a function_call_output whose output is not a text".to_owned());
                }
            };
            let message = output(Message::agent(text), extra);
            Ok(match entry.call_id {
                Some(id) => message.with_tool_call_id(id.into_cow()),
                None => message,
            })
        }
        _ => Err(
            "a message without a \"role\" (or a Responses model's response object or \
             function_call_output item)"
                .to_owned(),
        ),
    }
}
