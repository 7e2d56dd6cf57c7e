//! Claude Code's session logs: the records Claude Code (and the Claude Agent SDK,
//! which runs it) appends to `~/.claude/projects/<project>/<session id>.jsonl`, one a
//! line.
//!
//! The conversation is in the `user` and `assistant` records, each holding an
//! Anthropic message (`message`). Claude Code writes a model turn as it streams: one
//! `assistant` record for each content block (thinking, text, a tool use), each
//! repeating the turn's `message.id` and its usage. The consecutive records of one id
//! are one model turn (its texts joined, its calls in order, the usage its last
//! record gives, as the turn's usage is given once). A tool's result is a `user`
//! record of `tool_result` blocks (`is_error` failed); results written between a
//! turn's records (Claude Code runs a tool as soon as its call is streamed) come after
//! the turn. Claude Code's own messages in the user's place (`isMeta`: a command's
//! output, a caveat), a compacted conversation's summary (`isCompactSummary`: it
//! restates the records before it) and a sub-agent's records in its session's log
//! (`isSidechain`: its own loop, whose answer is its tool's result) give no message;
//! a sub-agent's own log (`subagents/agent-<id>.jsonl`, every record `isSidechain`)
//! is read as its loop, and its metadata (`agent-<id>.meta.json`) gives no message. An API error Claude
//! Code recorded as the model's turn (`isApiErrorMessage`) is a failed one. A turn is
//! given once another record of the conversation follows it, or the `last-prompt`
//! record Claude Code writes once it has answered a prompt, or the input ends. Every
//! other record (attachments, queue operations, summaries, snapshots of files,
//! request shapes, costs, titles, ...) describes the session and gives no message.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use super::anthropic;
use super::parts::{self, Content, Found};
use super::record::{Failure, Out};
use super::wire::{ProviderUsage, RawArguments, Str, failed};
use crate::{Message, Role};

/// One record: its type, its message and the flags read (the others describe the
/// session: ids, parents, times, the working directory, the version, the branch).
/// Filled by serde, or by the fast path's scanner (`fast/claude_code.rs`).
#[derive(Deserialize, Default)]
pub(super) struct Record<'a> {
    /// Required: absent, the error says what the record is.
    #[serde(default, rename = "type", borrow)]
    pub(super) kind: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) message: Option<Body<'a>>,
    #[serde(default, rename = "isSidechain")]
    pub(super) sidechain: Option<bool>,
    #[serde(default, rename = "isMeta")]
    pub(super) meta: Option<bool>,
    #[serde(default, rename = "isCompactSummary")]
    pub(super) compact_summary: Option<bool>,
    #[serde(default, rename = "isApiErrorMessage")]
    pub(super) api_error: Option<bool>,
    /// A sub-agent's metadata (`subagents/agent-<id>.meta.json`, beside its log).
    #[serde(default, rename = "agentType")]
    pub(super) agent_type: Option<IgnoredAny>,
    /// The keys by which a record is Claude Code's (one at least: a record of
    /// another log is not taken for one of Claude Code's that gives no message).
    #[serde(default, rename = "sessionId")]
    pub(super) session_id: Option<IgnoredAny>,
    #[serde(default, rename = "leafUuid")]
    pub(super) leaf_uuid: Option<IgnoredAny>,
    #[serde(default, rename = "isSnapshotUpdate")]
    pub(super) snapshot_update: Option<IgnoredAny>,
}

/// A record's message, read with the record (a record names its type after its
/// message): a `user` record's (its role, its content: the user's text or tools'
/// results), or an `assistant` record's, an Anthropic response message (its turn's
/// `id`, `type`, `role`, `content`, `usage`; its `model`, `stop_reason` and
/// `stop_sequence` describe the call).
#[derive(Deserialize)]
pub(super) struct Body<'a> {
    /// The turn's id, the same on each of its records.
    #[serde(default, borrow)]
    pub(super) id: Option<Str<'a>>,
    #[serde(default, rename = "type", borrow)]
    pub(super) kind: Option<Str<'a>>,
    #[serde(borrow)]
    pub(super) role: Str<'a>,
    #[serde(default, borrow)]
    pub(super) content: Blocks<'a>,
    #[serde(default)]
    pub(super) usage: Option<ProviderUsage>,
}

/// A message's `content`: as serde reads it (a string or a list of blocks, `null`
/// or absent none), read into its text, calls and results only where the record
/// gives messages (a block a skipped record holds is not looked at); or as the
/// scanner reads it, read so as it is scanned (where the scanner would refuse a
/// block, it gives up, and serde reads the record).
pub(super) enum Blocks<'a> {
    /// As serde reads it.
    Parsed(Option<Content<'a, RawArguments<'a>>>),
    /// Read by the scanner: the text, the calls and results the blocks hold.
    Read(Cow<'a, str>, Found<'a>),
}

impl Default for Blocks<'_> {
    fn default() -> Self {
        Blocks::Parsed(None)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Blocks<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Option::deserialize(deserializer).map(Blocks::Parsed)
    }
}

impl<'a> Blocks<'a> {
    /// Whether there is no content (`null`, or no `content` at all).
    fn is_none(&self) -> bool {
        matches!(self, Blocks::Parsed(None))
    }

    /// The content's text, and the calls and results its blocks hold; the error of
    /// a block the conversion refuses.
    fn read(self) -> Result<(Cow<'a, str>, Found<'a>), String> {
        match self {
            Blocks::Parsed(content) => {
                let mut found = Found::default();
                let text = parts::text(content, &mut found)?;
                Ok((text, found))
            }
            Blocks::Read(text, found) => Ok((text, found)),
        }
    }
}

/// The model turn being read: its id, its message so far, and the tools' results
/// written before its last record, which come after it. And the loop the log is
/// of: the main one's (a session's log), or a sub-agent's (its own log, every record
/// `isSidechain`), known from the log's first record of the conversation.
#[derive(Debug, Default)]
pub(super) struct Session {
    open: Option<Turn>,
    sidechain: Option<bool>,
}

/// A model turn open: its id, its message so far, the results waiting for it.
#[derive(Debug)]
pub(super) struct Turn {
    id: Option<String>,
    message: Message<'static>,
    results: Vec<Message<'static>>,
}

impl Turn {
    /// The turn's message, then the results that waited for it.
    pub(super) fn give(self, out: &mut Out<'_>) {
        out.push(self.message);
        for result in self.results {
            out.push(result);
        }
    }
}

impl Session {
    /// Ends the open turn, if any: its message, then the results that waited for it.
    pub(super) fn close(&mut self, out: &mut Out<'_>) {
        if let Some(turn) = self.open.take() {
            turn.give(out);
        }
    }

    /// Whether a turn is open.
    pub(super) fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// The open turn, taken (by a record of another format, which it comes before).
    pub(super) fn take(&mut self) -> Option<Turn> {
        self.open.take()
    }

    /// Puts back the turn [`Session::take`] gave, where the record then failed.
    pub(super) fn put_back(&mut self, turn: Option<Turn>) {
        if turn.is_some() {
            self.open = turn;
        }
    }
}

/// The messages of one record.
pub(super) fn read<'a>(
    record: Record<'a>,
    within: &'a str,
    session: &mut Session,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let claude_codes = record.session_id.is_some()
        || record.sidechain.is_some()
        || record.leaf_uuid.is_some()
        || record.snapshot_update.is_some()
        || record.agent_type.is_some();
    if !claude_codes {
        return Err(Failure::message(
            within,
            "not a record of Claude Code's (it has none of \"sessionId\", \"isSidechain\", \
             \"leafUuid\", \"isSnapshotUpdate\", \"agentType\")",
        ));
    }
    let Some(kind) = record.kind else {
        if record.agent_type.is_some() {
            // A sub-agent's metadata (its type, its tool call, its model): no message.
            return Ok(());
        }
        return Err(Failure::message(
            within,
            "a Claude Code record without a \"type\" (\"user\", \"assistant\", ...)",
        ));
    };
    let user = match &*kind.0 {
        "user" => true,
        "assistant" => false,
        // Written once Claude Code has answered a prompt: the turn is over (a live
        // log, followed, shows the answer then, not at the next prompt).
        "last-prompt" => {
            session.close(out);
            return Ok(());
        }
        _ => return Ok(()),
    };
    let Some(message) = record.message else {
        return Err(Failure::message(
            within,
            format!(
                "a Claude Code \"{}\" record without its \"message\"",
                kind.0
            ),
        ));
    };
    // A sub-agent's records in its session's log are its own loop (its answer is
    // its tool's result there); its own log is all of them.
    let sidechain = record.sidechain == Some(true);
    if *session.sidechain.get_or_insert(sidechain) != sidechain
        || record.meta == Some(true)
        || record.compact_summary == Some(true)
    {
        return Ok(());
    }
    if user {
        return read_prompt(message, within, session, out);
    }
    let id = message.id;
    if message.content.is_none() {
        return Err(Failure::message(
            within,
            "a Claude Code \"assistant\" record's message has no \"content\"",
        ));
    }
    let kind = message.kind.as_ref().map_or("", |kind| &kind.0);
    anthropic::check_response(kind, &message.role.0, within)?;
    let (text, found) = message
        .content
        .read()
        .map_err(|m| Failure::message(within, m))?;
    let mut message = anthropic::read_reply(text, found, message.usage, within)?;
    if record.api_error == Some(true) {
        message = failed(message, "the API call failed");
    }
    match &mut session.open {
        Some(turn) if id.is_some() && turn.id.as_deref() == id.as_ref().map(|id| &*id.0) => {
            join(&mut turn.message, message);
        }
        _ => {
            session.close(out);
            session.open = Some(Turn {
                id: id.map(|id| id.0.into_owned()),
                message: message.into_owned(),
                results: Vec::new(),
            });
        }
    }
    Ok(())
}

/// A `user` record's messages: the tools' results it holds, then the user's text.
/// Results only, while a turn is open, wait for the turn's end (its other records
/// may follow).
fn read_prompt<'a>(
    prompt: Body<'a>,
    text: &'a str,
    session: &mut Session,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if prompt.role.0 != "user" {
        return Err(Failure::message(
            text,
            format!(
                "a Claude Code \"user\" record's message has \"role\": \"user\", not \"{}\"",
                prompt.role.0
            ),
        ));
    }
    let (content, found) = prompt
        .content
        .read()
        .map_err(|m| Failure::message(text, m))?;
    if !found.calls.is_empty() {
        return Err(Failure::message(text, "a user's message holds tool uses"));
    }
    if content.is_empty()
        && !found.results.is_empty()
        && let Some(turn) = &mut session.open
    {
        // (Owned in place: the list is the turn's where it has none yet.)
        let results = found.results.into_iter().map(Message::into_owned).collect();
        turn.results = parts::appended(std::mem::take(&mut turn.results), results);
        return Ok(());
    }
    session.close(out);
    let only_results = content.is_empty() && !found.results.is_empty();
    for result in found.results {
        out.push(result);
    }
    if !only_results {
        out.push(Message::new(Role::User, content));
    }
    Ok(())
}

/// A later record of the open turn joined to it: its text after a newline, its calls
/// after the turn's, its usage (the turn's whole, repeated on each record) the turn's.
fn join(turn: &mut Message<'static>, record: Message<'_>) {
    let record = record.into_owned();
    if !record.content.is_empty() {
        let content = std::mem::take(&mut turn.content);
        turn.content = parts::join(Some(content).filter(|c| !c.is_empty()), record.content);
    }
    turn.tool_calls = parts::appended(std::mem::take(&mut turn.tool_calls), record.tool_calls);
    if record.usage.is_some() {
        turn.usage = record.usage;
    }
    if let Some(error) = record.rare.and_then(|rare| rare.error) {
        turn.rare().error = Some(error);
    }
}
