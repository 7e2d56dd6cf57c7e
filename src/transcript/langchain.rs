//! LangChain's messages (what a LangGraph agent's state holds), in the three shapes
//! they are saved in: `messages_to_dict()` (`{"type": "ai", "data": {...}}`), a
//! message's own `model_dump()` (`{"type": "ai", "content": ..., ...}`), and
//! LangChain's serialization, `dumpd()` (`{"lc": 1, "type": "constructor", "id":
//! [..., "AIMessage"], "kwargs": {...}}`); one a line or in a JSON array.
//!
//! `type` says what a message is: `human` is the user's, `ai` the model's (its
//! `tool_calls`, `invalid_tool_calls` and `usage_metadata` read), `tool` a tool's
//! result (`tool_call_id`, `name`, failed when its `status` is `error`), `system` the
//! system prompt, `chat` a message of the role its `role` names, `function` a legacy
//! function's result; `remove` (LangGraph's instruction to drop a message from the
//! state) is no message. `id`, `additional_kwargs`, `response_metadata` and a tool
//! message's `artifact` are not read.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::parts::{is_silent, is_text, join};
use super::record::{Failure, Out, each};
use super::wire::{RawArguments, Str, StringOrList, TokenCounts, failed, tool_call};
use crate::{Message, Role, ToolCall, Usage};

/// The message types, as `type` names them (a chunk's type names its message's with
/// `Chunk` after it, as `AIMessageChunk`).
pub(super) const TYPES: &[&str] = &[
    "human", "ai", "tool", "system", "chat", "function", "remove",
];

/// Whether `kind` is a LangChain message's `type` (a chunk's included).
pub(super) fn is_type(kind: &str) -> bool {
    TYPES.contains(&kind) || chunk_type(kind).is_some()
}

/// The `type` a chunk's `type` (`AIMessageChunk`, ...) stands for.
fn chunk_type(kind: &str) -> Option<&'static str> {
    type_of_class(kind.strip_suffix("MessageChunk")?)
}

/// The `type` of a class `dumpd()` names (`AIMessage`, `AIMessageChunk`, ...).
fn class_type(class: &str) -> Option<&'static str> {
    let class = class.strip_suffix("Chunk").unwrap_or(class);
    type_of_class(class.strip_suffix("Message")?)
}

/// The `type` of the message class named `<prefix>Message`.
fn type_of_class(prefix: &str) -> Option<&'static str> {
    Some(match prefix {
        "AI" => "ai",
        "Human" => "human",
        "Tool" => "tool",
        "System" => "system",
        "Chat" => "chat",
        "Function" => "function",
        _ => return None,
    })
}

/// One record, in any of the three shapes: the fields of a message, and those of the
/// two envelopes (`data`; `lc`, `id` and `kwargs`). (The fast path's scanner fills
/// it too.)
#[derive(Deserialize, Default)]
pub(super) struct Record<'a> {
    /// Required of a record; a message inside an envelope may leave it out (its
    /// envelope says it).
    #[serde(rename = "type", default, borrow)]
    pub(super) kind: Str<'a>,
    /// `messages_to_dict()`'s message (read in the same pass: boxed, as the type is
    /// recursive).
    #[serde(default, borrow)]
    pub(super) data: Option<Box<Record<'a>>>,
    /// `dumpd()`'s message, and its class's path (the last is its class).
    #[serde(default, borrow)]
    pub(super) kwargs: Option<Box<Record<'a>>>,
    #[serde(default, borrow)]
    pub(super) id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) content: Option<Content<'a>>,
    /// The content as the fast path's scanner read it, a list of blocks folded
    /// block by block as it read them (serde's path reads `content`, and leaves this
    /// empty).
    #[serde(skip)]
    pub(super) folded: Option<(Cow<'a, str>, Vec<ToolCall<'a>>)>,
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) tool_calls: Option<Vec<Call<'a>>>,
    #[serde(default, borrow)]
    pub(super) invalid_tool_calls: Option<Vec<Call<'a>>>,
    #[serde(default)]
    pub(super) usage_metadata: Option<TokenCounts>,
    #[serde(default, borrow)]
    pub(super) tool_call_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) status: Option<Str<'a>>,
    /// A `chat` message's role.
    #[serde(default, borrow)]
    pub(super) role: Option<Str<'a>>,
}

/// A tool call (`{"name", "args", "id", "type": "tool_call"}`, its arguments an
/// object), or one the model made that LangChain could not parse (`invalid_tool_calls`:
/// its arguments the text the model wrote, and why).
#[derive(Deserialize, Default)]
pub(super) struct Call<'a> {
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    #[serde(default)]
    pub(super) args: Option<RawArguments<'a>>,
    #[serde(default, borrow)]
    pub(super) id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) error: Option<Str<'a>>,
}

/// A content block (a list's item that is not a string): the fields the blocks read
/// here carry.
#[derive(Deserialize, Default)]
pub(super) struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    pub(super) kind: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) text: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    /// A `tool_call` block's arguments; a `tool_use` block's are its `input`.
    #[serde(default)]
    pub(super) args: Option<RawArguments<'a>>,
    #[serde(default)]
    pub(super) input: Option<RawArguments<'a>>,
    #[serde(default, borrow)]
    pub(super) id: Option<Str<'a>>,
}

/// LangChain's own block types that hold no text: reasoning, media, the provider's
/// own tools, calls still streaming, citations and what a provider adds of its own.
const NOT_TEXT: &[&str] = &[
    "reasoning",
    "image",
    "audio",
    "video",
    "file",
    "text-plain",
    "citation",
    "non_standard",
    "tool_call_chunk",
    "invalid_tool_call",
    "server_tool_call",
    "server_tool_call_chunk",
    "server_tool_result",
    "server_tool_use",
    "mcp_tool_use",
    "mcp_tool_result",
];

/// The messages of one record.
pub(super) fn read<'a>(
    record: Record<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    // `messages_to_dict()`: the message is `data`, of the type given beside it.
    if let Some(mut message) = record.data {
        if message.kind.is_empty() {
            message.kind = record.kind;
        }
        return convert(*message, within, out);
    }
    // `dumpd()`: the message is `kwargs`, of the class `id` names.
    if record.kind.0 == "constructor" {
        let mut message = (record.kwargs)
            .ok_or_else(|| Failure::message(within, "a constructor has no \"kwargs\""))?;
        let class = class_of(record.id).ok_or_else(|| {
            Failure::message(
                within,
                "a constructor's \"id\" names no LangChain message class",
            )
        })?;
        // Older versions left `type` out of `kwargs`.
        if message.kind.is_empty() {
            message.kind = Str(Cow::Borrowed(class));
        }
        return convert(*message, within, out);
    }
    convert(record, within, out)
}

/// The message type of the class a `dumpd()` record's `id` names, if it is one.
fn class_of(id: Option<&RawValue>) -> Option<&'static str> {
    let path: Vec<Str<'_>> = serde_json::from_str(id?.get()).ok()?;
    class_type(&path.last()?.0)
}

/// The message a record's fields (its envelope's, if any, taken off) stand for.
fn convert<'a>(
    mut record: Record<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let message = message(&mut record).map_err(|m| Failure::message(within, m))?;
    out.extend(message);
    Ok(())
}

/// A record's message (none for `remove`), or what is wrong with it.
/// (Its fields are taken from `record`, which the fast path fills in place: a record
/// moved in is a copy of it.)
pub(super) fn message<'a>(record: &mut Record<'a>) -> Result<Option<Message<'a>>, String> {
    let kind = std::mem::take(&mut record.kind.0);
    let kind = chunk_type(&kind).unwrap_or(&kind);
    let role = match kind {
        "human" => Role::User,
        "ai" => Role::Llm,
        "tool" | "function" => Role::Agent,
        "system" => Role::System,
        "chat" => {
            let role = (record.role.as_ref()).ok_or("a chat message has no \"role\"")?;
            role.0
                .parse()
                .map_err(|e| format!("a chat message's role: {e}"))?
        }
        "remove" => return Ok(None),
        "" => return Err("a message has no \"type\"".to_owned()),
        other => {
            return Err(format!(
                "unknown LangChain message type \"{other}\" (expected one of {}, or a chunk's)",
                TYPES.join(", ")
            ));
        }
    };
    let (text, block_calls) = match record.folded.take() {
        Some(folded) => folded,
        None => content(record.content.take())?,
    };
    if role != Role::Llm && !block_calls.is_empty() {
        return Err(format!(
            "a {kind} message's content holds tool calls (only the model's may)"
        ));
    }
    let mut message = Message::new(role, text);
    if let Some(name) = record.name.take().filter(|n| !n.is_empty()) {
        message = match role {
            Role::Agent => message.with_tool_name(name.into_cow()),
            _ => message.with_responder(name.into_cow()),
        };
    }
    if role == Role::Agent {
        if let Some(id) = record.tool_call_id.take() {
            message = message.with_tool_call_id(id.into_cow());
        }
        if record.status.as_ref().is_some_and(|s| s.0 == "error") {
            message = failed(message, "the tool failed");
        }
        return Ok(Some(message));
    }
    if role != Role::Llm {
        return Ok(Some(message));
    }
    let mut calls = Vec::new();
    for (i, call) in record.tool_calls.take().into_iter().flatten().enumerate() {
        let Some(name) = call.name.filter(|n| !n.is_empty()) else {
            return Err(format!("tool call {} has no \"name\"", i + 1));
        };
        calls.push(tool_call(name.into_cow(), call.args, call.id));
    }
    // The calls the content's blocks hold, where `tool_calls` has none (LangChain
    // fills it from them: otherwise each would be read twice).
    if calls.is_empty() {
        calls = block_calls;
    }
    let mut errors = Vec::new();
    for call in record.invalid_tool_calls.take().into_iter().flatten() {
        let name = call.name.filter(|n| !n.is_empty());
        let error = call.error.map(Str::into_cow).unwrap_or_default();
        let what = name.as_ref().map_or("", |n| &*n.0);
        errors.push(format!("invalid call of \"{what}\": {error}"));
        if let Some(name) = name {
            calls.push(tool_call(name.into_cow(), call.args, call.id));
        }
    }
    message.tool_calls = calls;
    if !errors.is_empty() {
        message = message.with_error(errors.join("; "));
    }
    message.usage = record.usage_metadata.take().map(Usage::from);
    Ok(Some(message))
}

/// A message's `content`: a string, or a list of strings and blocks (each read once
/// its type is known).
type Content<'a> = StringOrList<'a, &'a RawValue>;

/// A message's text (a string, or its text blocks joined by newlines) and the calls
/// its blocks hold (LangChain's `tool_call`, Anthropic's `tool_use`).
fn content(content: Option<Content<'_>>) -> Result<(Cow<'_, str>, Vec<ToolCall<'_>>), String> {
    let items = match content {
        None => return Ok((Cow::Borrowed(""), Vec::new())),
        Some(StringOrList::Text(text)) => return Ok((text, Vec::new())),
        Some(StringOrList::List(items)) => items,
    };
    let mut fold = Fold::default();
    for (i, item) in items.into_iter().enumerate() {
        let at = i + 1;
        if item.get().starts_with('"') {
            let piece: Str<'_> =
                serde_json::from_str(item.get()).map_err(|e| format!("content block {at}: {e}"))?;
            fold.text(piece.into_cow());
            continue;
        }
        let block: Block<'_> = serde_json::from_str(item.get())
            .map_err(|e| format!("content block {at}: a string or a block: {e}"))?;
        fold.block(at, block)?;
    }
    Ok(fold.finish())
}

/// A content list read item by item (by serde's path, or as the fast path's scanner
/// reads each): the text so far and the calls its blocks hold.
#[derive(Default)]
pub(super) struct Fold<'a> {
    text: Option<Cow<'a, str>>,
    calls: Vec<ToolCall<'a>>,
}

impl<'a> Fold<'a> {
    /// A string item: text.
    pub(super) fn text(&mut self, piece: Cow<'a, str>) {
        self.text = Some(join(self.text.take(), piece));
    }

    /// Block `at` (counted from 1): its text, its call, nothing (a block without
    /// text), or what is wrong with it.
    pub(super) fn block(&mut self, at: usize, block: Block<'a>) -> Result<(), String> {
        let kind = block
            .kind
            .ok_or_else(|| format!("content block {at} has no \"type\""))?;
        match &*kind.0 {
            kind if is_text(kind) => {
                let piece = block.text.ok_or_else(|| {
                    format!("content block {at} of type \"{kind}\" has no \"text\"")
                })?;
                self.text(piece.into_cow());
            }
            kind @ ("tool_call" | "tool_use") => {
                let name = (block.name).filter(|n| !n.is_empty()).ok_or_else(|| {
                    format!("content block {at} of type \"{kind}\" has no \"name\"")
                })?;
                self.calls.push(tool_call(
                    name.into_cow(),
                    block.args.or(block.input),
                    block.id,
                ));
            }
            kind if NOT_TEXT.contains(&kind) || is_silent(kind) => {}
            other => {
                return Err(format!(
                    "content block {at} has an unknown type \"{other}\" (expected text, \
                     tool_call, tool_use, or a block without text: {}, or OpenAI's or \
                     Anthropic's media and reasoning)",
                    NOT_TEXT.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// The text and the calls.
    pub(super) fn finish(self) -> (Cow<'a, str>, Vec<ToolCall<'a>>) {
        (self.text.unwrap_or_default(), self.calls)
    }
}

/// The tool's message `text` is, if it is one in any of LangChain's shapes (what
/// LangChain's integrations record as a tool's output in a trace).
pub(super) fn tool_message(text: &str) -> Option<Message<'_>> {
    let mut out = Out::new();
    read(serde_json::from_str(text).ok()?, text, &mut out).ok()?;
    let message = out.pop().filter(|_| out.is_empty())?;
    (message.role() == Role::Agent).then_some(message)
}

/// A LangGraph state's `{"messages": [...]}` of LangChain messages (its other keys
/// are the graph's own).
#[derive(Deserialize)]
pub(super) struct State<'a> {
    #[serde(borrow)]
    messages: Vec<&'a RawValue>,
}

/// The messages of a state.
pub(super) fn read_state<'a>(state: State<'a>, out: &mut Out<'a>) -> Result<(), Failure<'a>> {
    each::<Record<'a>>(state.messages, read, out)
}
