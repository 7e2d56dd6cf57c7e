//! Microsoft Agent Framework's messages (`agent_framework`, AutoGen's and Semantic
//! Kernel's successor), as its `to_dict()` and `to_json()` write them: a message
//! (`{"type": "message", "role", "contents", "author_name"}`) a line, as its
//! `FileHistoryProvider` keeps a session's history (`<storage>/<session id>.jsonl`),
//! or in a JSON array; an agent's or a chat client's response (`{"type":
//! "agent_response", "messages", "usage_details"}`); a session (`{"type": "session",
//! "state"}`) whose history provider keeps its messages in the session's state (the
//! default, `InMemoryHistoryProvider`).
//!
//! A message's contents: its `text` items are its text, joined by a space as the
//! framework's own `Message.text` joins them; an assistant's `function_call` a call of
//! the model's (its `arguments` a string of JSON or an object), a hosted tool's call
//! (`mcp_server_tool_call` named by its `tool_name`, any other `*_tool_call` by its
//! kind: `code_interpreter`, `shell`, ...) a call too; each `function_result` a
//! message of its own, the result of the call its `call_id` names (its `result`, a
//! string or any JSON value, else its `items`' texts), failed where the tool raised
//! (`exception`); `usage` the message's token usage, `error` its failure. Reasoning,
//! media, files, hosted tools' results (the service gave them to the model itself),
//! approvals and consent requests hold no text of the conversation's. A response's
//! `usage_details` (the whole run's: the framework keeps no call's own) is its last
//! model message's usage, where none of its messages has its own.
//!
//! A message's contents are folded into its messages one at a time ([`Fold`]), by
//! serde's path and by the scanner of a history file's lines alike.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::parts::join_with;
use super::record::{Failure, Out, each};
use super::wire::{RawArguments, RawJson, Str, failed, tool_call};
use crate::{Message, Role, ToolCall, Usage};

/// A message as `Message.to_dict()` writes it.
#[derive(Deserialize)]
pub(super) struct AfMessage<'a> {
    #[serde(borrow)]
    role: Str<'a>,
    #[serde(default, borrow)]
    contents: Vec<Content<'a>>,
    #[serde(default, borrow)]
    author_name: Option<Str<'a>>,
}

/// One content item: the fields of the kinds read (`type` says which). (Filled by
/// serde, or by the scanner.)
#[derive(Deserialize, Default)]
pub(super) struct Content<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Str<'a>,
    #[serde(default, borrow)]
    pub(super) text: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) call_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    /// An MCP server tool call's tool.
    #[serde(default, borrow)]
    pub(super) tool_name: Option<Str<'a>>,
    #[serde(default)]
    pub(super) arguments: Option<RawArguments<'a>>,
    /// A function's result: a string, or any JSON value.
    #[serde(default, borrow)]
    pub(super) result: Option<RawJson<'a>>,
    /// A function result's content items (its text, where it has no `result`): read
    /// only then (they most often repeat the result).
    #[serde(default, borrow)]
    pub(super) items: Option<RawJson<'a>>,
    /// Set where the function raised (its text is the framework's marker, not the
    /// exception's: it redacts it).
    #[serde(default, borrow)]
    pub(super) exception: Option<Str<'a>>,
    /// An error's.
    #[serde(default, borrow)]
    pub(super) message: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) error_code: Option<Str<'a>>,
    #[serde(default)]
    pub(super) usage_details: Option<UsageDetails>,
}

/// Token counts as the framework writes them (`UsageDetails`); its total and
/// provider-specific counts are not read.
#[derive(Deserialize, Default, Clone, Copy)]
pub(super) struct UsageDetails {
    #[serde(default)]
    input_token_count: Option<u64>,
    #[serde(default)]
    output_token_count: Option<u64>,
}

impl UsageDetails {
    fn into_usage(self) -> Usage {
        Usage {
            input_tokens: self.input_token_count.unwrap_or(0),
            output_tokens: self.output_token_count.unwrap_or(0),
        }
    }
}

/// The content kinds that hold no text of the conversation's: the model's reasoning,
/// media and files, hosted tools' results (the service's, given to the model within
/// its turn), approvals and consent requests.
const SILENT: &[&str] = &[
    "text_reasoning",
    "data",
    "uri",
    "hosted_file",
    "hosted_vector_store",
    "code_interpreter_tool_result",
    "image_generation_tool_result",
    "mcp_server_tool_result",
    "search_tool_result",
    "shell_tool_result",
    "shell_command_output",
    "computer_tool_result",
    "function_approval_request",
    "function_approval_response",
    "oauth_consent_request",
];

/// The hosted tools whose calls (`<kind>_tool_call`) are the model's calls of them.
const HOSTED_CALLS: &[&str] = &[
    "code_interpreter",
    "image_generation",
    "search",
    "shell",
    "computer",
];

/// The hosted tool a content kind is a call of (`shell` of `shell_tool_call`).
fn hosted_tool(kind: &str) -> Option<&'static str> {
    let tool = kind.strip_suffix("_tool_call")?;
    HOSTED_CALLS.iter().copied().find(|&known| known == tool)
}

/// A message as a record of its own (a line, or an element of a list).
pub(super) fn read_message<'a>(
    message: AfMessage<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    convert(message, out).map_err(|m| Failure::message(within, m))
}

/// A message's messages, added to `out`: the model's one; a user's, system's or
/// tool's text one, and each function result one.
fn convert<'a>(message: AfMessage<'a>, out: &mut Out<'a>) -> Result<(), String> {
    let mut fold = Fold::new(&message.role.0, out)?;
    let count = message.contents.len();
    for (i, content) in message.contents.into_iter().enumerate() {
        fold.content(i, count, content, out)?;
    }
    fold.finish(message.author_name.map(Str::into_cow), out);
    Ok(())
}

/// The framework's roles, by name.
const ROLES: [(&str, Role); 4] = [
    ("system", Role::System),
    ("user", Role::User),
    ("assistant", Role::Llm),
    ("tool", Role::Agent),
];

/// A message's contents folded into its messages as they are read (by serde, or by
/// the scanner, which builds no list of them): the text and calls of its own
/// message, each function result a message in its place.
pub(super) struct Fold<'a> {
    role: Role,
    text: Option<Cow<'a, str>>,
    calls: Vec<ToolCall<'a>>,
    usage: Option<Usage>,
    error: Option<Cow<'a, str>>,
    /// Where the message's messages begin in the caller's list.
    start: usize,
}

impl<'a> Fold<'a> {
    /// A message of `role` whose messages are added to `out`.
    pub(super) fn new(role: &str, out: &Out<'a>) -> Result<Fold<'a>, String> {
        let Some(&(_, role)) = ROLES.iter().find(|(name, _)| *name == role) else {
            return Err(format!(
                "an Agent Framework message of role \"{role}\" (expected system, user, \
                 assistant or tool)"
            ));
        };
        Ok(Fold {
            role,
            text: None,
            calls: Vec::new(),
            usage: None,
            error: None,
            start: out.len(),
        })
    }

    /// The framework's name of the message's role, for errors.
    fn role_name(&self) -> &'static str {
        ROLES
            .iter()
            .find(|&&(_, role)| role == self.role)
            .map_or("tool", |&(name, _)| name)
    }

    /// Content `i` of `count`, added to what the contents before it made.
    pub(super) fn content(
        &mut self,
        i: usize,
        count: usize,
        content: Content<'a>,
        out: &mut Out<'a>,
    ) -> Result<(), String> {
        let at = || format!("content {} of {count}", i + 1);
        match &*content.kind.0 {
            "text" => {
                let piece = content
                    .text
                    .ok_or_else(|| format!("{} (text) has no \"text\"", at()))?;
                self.text = Some(join_spaced(self.text.take(), piece.into_cow()));
            }
            kind if kind == "function_call"
                || kind == "mcp_server_tool_call"
                || hosted_tool(kind).is_some() =>
            {
                if self.role != Role::Llm {
                    return Err(format!(
                        "{} is a call ({kind}) in a message of role \"{}\"",
                        at(),
                        self.role_name()
                    ));
                }
                // A function's name, an MCP server's tool's, or the hosted tool's
                // own (`shell` for `shell_tool_call`).
                let name = match kind {
                    "function_call" => content.name.map(Str::into_cow),
                    "mcp_server_tool_call" => content.tool_name.map(Str::into_cow),
                    hosted => hosted_tool(hosted).map(Cow::Borrowed),
                };
                let name = name
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| format!("{} ({kind}) names no tool", at()))?;
                self.calls
                    .push(tool_call(name, content.arguments, content.call_id));
            }
            "function_result" => {
                if self.role == Role::Llm {
                    return Err(format!(
                        "{} is a function_result in the assistant's message",
                        at()
                    ));
                }
                // The text before it is a message before it.
                if let Some(said) = self.text.take() {
                    out.push(Message::new(self.role, said));
                }
                out.push(result(content).map_err(|m| format!("{}: {m}", at()))?);
            }
            "usage" => {
                let counts = content.usage_details.unwrap_or_default().into_usage();
                self.usage = Some(match self.usage {
                    None => counts,
                    Some(sum) => Usage {
                        input_tokens: sum.input_tokens.saturating_add(counts.input_tokens),
                        output_tokens: sum.output_tokens.saturating_add(counts.output_tokens),
                    },
                });
            }
            "error" => {
                let said = content.message.map(Str::into_cow);
                self.error = Some(match (content.error_code.map(Str::into_cow), said) {
                    (Some(code), Some(said)) => Cow::Owned(format!("{code}: {said}")),
                    (None, Some(said)) => said,
                    (Some(code), None) => code,
                    (None, None) => Cow::Borrowed("an error"),
                });
            }
            kind if SILENT.contains(&kind) => {}
            other => {
                return Err(format!(
                    "{} has an unknown type \"{other}\" (known: text, function_call, \
                     function_result, usage, error, mcp_server_tool_call, {}, {})",
                    at(),
                    HOSTED_CALLS
                        .iter()
                        .map(|t| format!("{t}_tool_call"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    SILENT.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// The message's own message, once its contents are read: the model's always;
    /// another role's where it has text, an error, or nothing else (an image alone).
    /// Each of the message's messages is the author's.
    pub(super) fn finish(self, author: Option<Cow<'a, str>>, out: &mut Out<'a>) {
        if self.role == Role::Llm
            || self.text.is_some()
            || self.error.is_some()
            || out.len() == self.start
        {
            let mut own = Message::new(self.role, self.text.unwrap_or_default());
            own.tool_calls = self.calls;
            own.usage = self.usage;
            if let Some(error) = self.error {
                own = own.with_error(error);
            }
            out.push(own);
        }
        if let Some(author) = author {
            for message in &mut out[self.start..] {
                message.responder = Some(author.clone());
            }
        }
    }
}

/// `text` and `piece` joined by a space, as `Message.text` joins a message's texts.
fn join_spaced<'a>(text: Option<Cow<'a, str>>, piece: Cow<'a, str>) -> Cow<'a, str> {
    join_with(text, piece, ' ')
}

/// A function result's message: its result's text, answering its call, failed where
/// the function raised.
fn result(content: Content<'_>) -> Result<Message<'_>, String> {
    let text: Cow<'_, str> = match content.result.map(|raw| raw.0) {
        Some(raw) if raw.starts_with('"') => serde_json::from_str::<Str<'_>>(raw)
            .map_err(|e| format!("its result: {e}"))?
            .into_cow(),
        Some("null") | None => {
            let items: Vec<Content<'_>> = match content.items {
                Some(items) => {
                    serde_json::from_str(items.0).map_err(|e| format!("its items: {e}"))?
                }
                None => Vec::new(),
            };
            let mut text = None;
            for item in items {
                if item.kind.0 == "text"
                    && let Some(piece) = item.text
                {
                    text = Some(join_spaced(text, piece.into_cow()));
                }
            }
            text.unwrap_or_default()
        }
        Some(raw) => super::compact(raw),
    };
    let mut message = Message::new(Role::Agent, text);
    if let Some(id) = content.call_id.filter(|id| !id.is_empty()) {
        message.tool_call_id = Some(id.into_cow());
    }
    Ok(match content.exception {
        Some(exception) => failed(message, format!("the function raised ({})", exception.0)),
        None => message,
    })
}

/// An agent's or a chat client's response (`AgentResponse.to_dict()`,
/// `ChatResponse.to_dict()`).
#[derive(Deserialize)]
pub(super) struct Response<'a> {
    #[serde(borrow)]
    messages: Vec<&'a RawValue>,
    #[serde(default)]
    usage_details: Option<UsageDetails>,
}

/// A response's messages, its usage on its last model message where none has its own.
pub(super) fn read_response<'a>(
    response: Response<'a>,
    _within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let start = out.len();
    each(response.messages, read_message, out)?;
    let read = &mut out[start..];
    if let Some(usage) = response.usage_details
        && !read.iter().any(|m| m.usage.is_some())
        && let Some(last) = read.iter_mut().rev().find(|m| m.role == Role::Llm)
    {
        last.usage = Some(usage.into_usage());
    }
    Ok(())
}

/// A session (`AgentSession.to_dict()`): its state, a value each context provider.
#[derive(Deserialize)]
pub(super) struct Session<'a> {
    #[serde(borrow)]
    state: BTreeMap<Cow<'a, str>, &'a RawValue>,
    #[serde(default, borrow)]
    session_id: Option<Str<'a>>,
}

/// A provider's state, where it is an object: the messages a history provider keeps.
#[derive(Deserialize)]
struct ProviderState<'a> {
    #[serde(default, borrow)]
    messages: Option<Vec<&'a RawValue>>,
}

/// The messages the session's one history provider keeps in its state.
pub(super) fn read_session<'a>(
    session: Session<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let mut histories = Vec::new();
    for (provider, state) in session.state {
        if !state.get().starts_with('{') {
            continue;
        }
        let state: ProviderState<'a> = serde_json::from_str(state.get())
            .map_err(|e| Failure::message(within, format!("its state's \"{provider}\": {e}")))?;
        if let Some(messages) = state.messages {
            histories.push((provider, messages));
        }
    }
    let mut histories = histories.into_iter();
    match (histories.next(), histories.len()) {
        (Some((_, messages)), 0) => each(messages, read_message, out),
        (None, _) => {
            let file = session
                .session_id
                .map_or(Cow::Borrowed("<session id>"), Str::into_cow);
            Err(Failure::message(
                within,
                format!(
                    "an Agent Framework session whose state keeps no messages: its history \
                     provider keeps them elsewhere (a FileHistoryProvider in \
                     <storage path>/{file}.jsonl, which this format reads; a service, \
                     where the session has a service_session_id)"
                ),
            ))
        }
        (Some((first, _)), more) => Err(Failure::message(
            within,
            format!(
                "an Agent Framework session whose state keeps {} histories (\"{first}\", \
                 ...): a transcript is one (take one out: jq '.state[\"{first}\"].messages')",
                more + 1
            ),
        )),
    }
}
