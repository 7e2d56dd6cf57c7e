//! LlamaIndex's chat messages: `ChatMessage.model_dump()` (a message's `role`, its
//! `blocks` and `additional_kwargs`), one a line or in a JSON array, as an agent's
//! memory holds them; a `SimpleChatStore` as it persists them (`{"store": {key:
//! [messages]}}`), and a `ChatMemoryBuffer`'s `to_dict()` (its store and key).
//!
//! A message's text is its text blocks' (a citable block's too); a `tool_call` block
//! is a call of the model's (where a message has none, the OpenAI calls its
//! `additional_kwargs` carry); a tool's result is a `tool` message whose
//! `additional_kwargs` name the call it answers. LlamaIndex keeps neither a call's
//! token usage nor whether a tool failed in its messages: neither is read.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::parts::join;
use super::record::{Failure, Out, each};
use super::wire::{Calls, RawArguments, Str, tool_call};
use crate::{Message, Role, ToolCall};

/// A message as `model_dump()` writes it.
#[derive(Deserialize)]
pub(super) struct LlamaMessage<'a> {
    #[serde(borrow)]
    role: Str<'a>,
    #[serde(default, borrow)]
    blocks: Option<Vec<Block<'a>>>,
    /// The text of a message written before LlamaIndex kept blocks (`content`).
    #[serde(default, borrow)]
    content: Option<Str<'a>>,
    #[serde(default, borrow)]
    additional_kwargs: Option<Kwargs<'a>>,
}

/// What a message's `additional_kwargs` hold that is read: the model's calls as its
/// provider gave them (OpenAI's), and the call a tool's result answers (with the
/// tool's name, where it is kept). Anything else there is the provider's.
#[derive(Deserialize)]
struct Kwargs<'a> {
    /// Read only where the blocks hold no call (they most often repeat them).
    #[serde(default, borrow)]
    tool_calls: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tool_call_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    name: Option<Str<'a>>,
}

/// A content block: the fields of the kinds read (`block_type` says which). (Filled
/// by serde, or by the scanner, which leaves a citable block to serde.)
#[derive(Deserialize)]
pub(super) struct Block<'a> {
    #[serde(borrow)]
    pub(super) block_type: Str<'a>,
    #[serde(default, borrow)]
    pub(super) text: Option<Str<'a>>,
    /// A `tool_call` block's call.
    #[serde(default, borrow)]
    pub(super) tool_call_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) tool_name: Option<Str<'a>>,
    #[serde(default)]
    pub(super) tool_kwargs: Option<RawArguments<'a>>,
    /// A `citable` block's content (text and images; a `thinking` block's is its
    /// text, not read): read once the kind is known.
    #[serde(default, borrow)]
    pub(super) content: Option<&'a RawValue>,
}

/// The block kinds that hold no text of the message's: media, a cache point, the
/// model's thinking, and a citation (the cited source's text, not the message's).
const SILENT: &[&str] = &[
    "image", "audio", "video", "document", "cache", "thinking", "citation",
];

/// A message as a record of its own (a line, or an element of a list).
pub(super) fn read_message<'a>(
    message: LlamaMessage<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    out.push(convert(message).map_err(|m| Failure::message(within, m))?);
    Ok(())
}

/// The message, or what is wrong with it.
fn convert(message: LlamaMessage<'_>) -> Result<Message<'_>, String> {
    let mut read = Read {
        text: message.content.map(Str::into_cow),
        ..Read::default()
    };
    for (i, block) in message.blocks.unwrap_or_default().into_iter().enumerate() {
        fold(i, block, &mut read.text, &mut read.calls)?;
    }
    if let Some(kwargs) = message.additional_kwargs {
        read.kwarg_calls = kwargs.tool_calls.map(RawValue::get);
        read.call_id = kwargs.tool_call_id.map(Str::into_cow);
        read.name = kwargs.name.map(Str::into_cow);
    }
    read.into_message(&message.role.0)
}

/// A message as read, its blocks folded, by serde ([`convert`]) or by the scanner,
/// which both finish it with [`Read::into_message`].
#[derive(Default)]
pub(super) struct Read<'a> {
    pub(super) text: Option<Cow<'a, str>>,
    /// The `tool_call` blocks' calls.
    pub(super) calls: Vec<ToolCall<'a>>,
    /// `additional_kwargs`' `tool_calls`, as JSON text (read only where the blocks hold
    /// no call: they most often repeat them).
    pub(super) kwarg_calls: Option<&'a str>,
    pub(super) call_id: Option<Cow<'a, str>>,
    pub(super) name: Option<Cow<'a, str>>,
}

impl<'a> Read<'a> {
    /// The message of `role`, or what is wrong with it.
    pub(super) fn into_message(mut self, role_text: &str) -> Result<Message<'a>, String> {
        let role = match role_text {
            "system" | "developer" => Role::System,
            "user" => Role::User,
            "assistant" | "chatbot" | "model" => Role::Llm,
            "tool" | "function" => Role::Agent,
            other => {
                return Err(format!(
                    "a LlamaIndex message of role \"{other}\" (expected system, developer, \
                     user, assistant, chatbot, model, tool or function)"
                ));
            }
        };
        if self.calls.is_empty()
            && let Some(listed) = self.kwarg_calls
        {
            let listed: Option<Calls<'a, RawArguments<'a>>> = serde_json::from_str(listed)
                .map_err(|e| format!("its additional_kwargs' tool_calls: {e}"))?;
            self.calls = listed
                .map(Calls::into_calls)
                .transpose()?
                .unwrap_or_default();
        }
        if !self.calls.is_empty() && role != Role::Llm {
            return Err(format!(
                "a LlamaIndex message of role \"{role_text}\" holds tool calls"
            ));
        }
        let mut read = Message::new(role, self.text.unwrap_or_default());
        read.tool_calls = self.calls;
        if role == Role::Agent {
            read.tool_call_id = self.call_id;
            if let Some(name) = self.name {
                read = read.with_tool_name(name);
            }
        }
        Ok(read)
    }
}

/// Block `i` added to what the blocks before it made: its text joined to `text`, its
/// call added to `calls`.
pub(super) fn fold<'a>(
    i: usize,
    block: Block<'a>,
    text: &mut Option<Cow<'a, str>>,
    calls: &mut Vec<ToolCall<'a>>,
) -> Result<(), String> {
    match &*block.block_type.0 {
        "text" => {
            let piece = block
                .text
                .ok_or_else(|| format!("block {i} of type \"text\" has no \"text\""))?;
            *text = Some(join(text.take(), piece.into_cow()));
        }
        "citable" => {
            let inner: Vec<Block<'a>> = match block.content {
                Some(content) => serde_json::from_str(content.get())
                    .map_err(|e| format!("block {i} of type \"citable\": its content: {e}"))?,
                None => Vec::new(),
            };
            for (j, inner) in inner.into_iter().enumerate() {
                match &*inner.block_type.0 {
                    "text" | "image" => fold(j, inner, text, calls)?,
                    other => {
                        return Err(format!(
                            "block {i} of type \"citable\" holds a block of type \"{other}\""
                        ));
                    }
                }
            }
        }
        "tool_call" => {
            let name = block
                .tool_name
                .map(Str::into_cow)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| format!("block {i} of type \"tool_call\" has no \"tool_name\""))?;
            calls.push(tool_call(name, block.tool_kwargs, block.tool_call_id));
        }
        kind if SILENT.contains(&kind) => {}
        other => {
            return Err(format!(
                "block {i} has an unknown type \"{other}\" (known: text, tool_call, citable, \
                 {})",
                SILENT.join(", ")
            ));
        }
    }
    Ok(())
}

/// A `SimpleChatStore` as it persists (`{"store": {key: [messages]}, "class_name"}`):
/// the conversation it holds (one: a store of several is an error naming them).
#[derive(Deserialize)]
pub(super) struct ChatStore<'a> {
    #[serde(borrow)]
    store: BTreeMap<Cow<'a, str>, Vec<&'a RawValue>>,
}

/// A store's one conversation.
pub(super) fn read_store<'a>(
    store: ChatStore<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let mut conversations = store.store.into_iter();
    match (conversations.next(), conversations.len()) {
        (Some((_, messages)), 0) => each(messages, read_message, out),
        (None, _) => Err(Failure::message(
            within,
            "a LlamaIndex chat store of no conversation",
        )),
        (Some((first, _)), more) => Err(Failure::message(
            within,
            format!(
                "a LlamaIndex chat store of {} conversations (\"{first}\", ...): a transcript \
                 is one (take one out: jq '.store[\"{first}\"]')",
                more + 1
            ),
        )),
    }
}

/// A `ChatMemoryBuffer`'s `to_dict()`: its store's conversation of its key.
#[derive(Deserialize)]
pub(super) struct MemoryBuffer<'a> {
    #[serde(borrow)]
    chat_store: ChatStore<'a>,
    #[serde(borrow)]
    chat_store_key: Str<'a>,
}

/// The buffer's conversation.
pub(super) fn read_memory<'a>(
    memory: MemoryBuffer<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let key = memory.chat_store_key.0;
    let mut store = memory.chat_store.store;
    match store.remove(&key) {
        Some(messages) => each(messages, read_message, out),
        None => Err(Failure::message(
            within,
            format!("a LlamaIndex memory whose store holds no conversation \"{key}\""),
        )),
    }
}
