//! Codex CLI's session logs: the rollouts Codex appends to
//! `~/.codex/sessions/<year>/<month>/<day>/rollout-<time>-<session id>.jsonl`
//! (`$CODEX_HOME/sessions/...`), one record a line: `{"timestamp", "type",
//! "payload"}`.
//!
//! The conversation is in the `response_item` records, whose payloads are OpenAI
//! Responses API items, read as `openai-responses` reads them (a model call's items
//! one model turn; a tool's output its result). A model call's usage is the
//! `token_usage_record` Codex writes after the call's items: it is the open turn's.
//! Codex before those records gave a call's usage only in the `token_count` event
//! after the call's outputs: in a log without them, a turn closed by its outputs
//! waits, with them, for that event.
//! A command's output that says its process exited with a code other than 0 (Codex
//! writes the exit code in the text it gives the model) is a failed result. A
//! model turn is given once an item from outside the model follows it, or the event
//! that ends Codex's turn (`task_complete`, `turn_aborted`), or the input ends. Every
//! other record (the session's metadata, the turn's context and world state, the
//! other events Codex shows its user, which repeat the items, compactions) gives no
//! message.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::record::{Context, Failure, Out, parse_within};
use super::wire::{ProviderUsage, Str};
use super::{fast, responses};
use crate::{Message, Role};

/// One record: its type and payload (its `timestamp` not read). Read by serde where
/// the fast path's scanner (`fast/codex.rs`) is not sure of the line.
#[derive(Deserialize)]
pub(super) struct Record<'a> {
    /// Required: absent, the error says what the record is.
    #[serde(default, rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(default, borrow)]
    payload: Option<&'a RawValue>,
}

impl<'a> Record<'a> {
    /// The record's type and payload, as [`read`] takes them.
    pub(super) fn into_parts(self) -> (Option<Str<'a>>, Option<Payload<'a>>) {
        (self.kind, self.payload.map(|p| Payload::Text(p.get())))
    }
}

/// A record's payload as [`read`] takes it: its JSON text (a part of the record's
/// line), or what the scanner read of it with the record.
pub(super) enum Payload<'a> {
    /// Not read yet.
    Text(&'a str),
    /// A `response_item`'s, its item scanned with the record (Codex writes the type
    /// first), into the item [`read`] is given: the payload crossed once.
    Item(&'a str),
    /// A `token_usage_record`'s usage, scanned with the record.
    Usage(ProviderUsage),
    /// An `event_msg`'s event, scanned with the record.
    Event(Event<'a>),
}

/// A `token_usage_record`'s payload: a model call's usage (its thread, turn and
/// response ids not read). `input_tokens` counts the cached ones, as OpenAI's do.
#[derive(Deserialize)]
struct UsageRecord {
    usage: ProviderUsage,
}

/// An `event_msg`'s payload: its type, and a `token_count`'s usage of the last model
/// call (its totals and rate limits not read).
#[derive(Deserialize, Default)]
pub(super) struct Event<'a> {
    #[serde(default, rename = "type", borrow)]
    pub(super) kind: Option<Str<'a>>,
    #[serde(default)]
    pub(super) info: Option<Counts>,
}

/// A `token_count` event's counts.
#[derive(Deserialize, Default)]
pub(super) struct Counts {
    #[serde(default)]
    pub(super) last_token_usage: Option<ProviderUsage>,
}

/// What a rollout's reading carries between records for the usage of Codex before
/// its usage records, which gave a call's usage only in the `token_count` event after
/// the call's outputs: a model turn closed by its outputs waits, with them, for that
/// event (owned: their lines are gone by then).
#[derive(Debug, Default)]
pub(super) struct Rollout {
    /// The log has usage records: its `token_count` events are not read.
    usage_records: bool,
    /// A model turn without usage and its outputs so far.
    waiting: Vec<Message<'static>>,
}

impl Rollout {
    /// The waiting turn and outputs, given (before what follows them).
    pub(super) fn release(&mut self, out: &mut Out<'_>) {
        out.extend(self.waiting.drain(..));
    }

    /// Whether a turn waits.
    pub(super) fn is_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// The waiting turn and outputs, taken (by a record of another format, which they
    /// come before).
    pub(super) fn take(&mut self) -> Vec<Message<'static>> {
        std::mem::take(&mut self.waiting)
    }

    /// Puts back what [`Rollout::take`] gave, where the record then failed.
    pub(super) fn put_back(&mut self, waiting: Vec<Message<'static>>) {
        if !waiting.is_empty() {
            self.waiting = waiting;
        }
    }
}

/// The messages of one record, of type `kind` and payload `payload`; `item` a default
/// one, or the payload's item where the scanner read it ([`Payload::Item`]).
pub(super) fn read<'a>(
    kind: Option<Str<'a>>,
    payload: Option<Payload<'a>>,
    item: &mut responses::Item<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let Some(kind) = kind else {
        return Err(Failure::message(
            within,
            "a Codex record without a \"type\" (\"response_item\", \"event_msg\", ...)",
        ));
    };
    // (Every record of Codex's has its payload: a record without one is another
    // log's, not one of Codex's that gives no message.)
    let Some(payload) = payload else {
        return Err(Failure::message(
            within,
            format!("a Codex \"{}\" record without its \"payload\"", kind.0),
        ));
    };
    if !matches!(
        &*kind.0,
        "response_item" | "token_usage_record" | "event_msg"
    ) {
        return Ok(());
    }
    let text = match payload {
        Payload::Text(text) => text,
        Payload::Item(text) => return read_item(item, text, cx, out),
        Payload::Usage(usage) => {
            used(usage, cx, out);
            return Ok(());
        }
        Payload::Event(event) => {
            happened(event, cx, out);
            return Ok(());
        }
    };
    if kind.0 == "event_msg" {
        happened(parse_within(text)?, cx, out);
        return Ok(());
    }
    if kind.0 == "token_usage_record" {
        let record: UsageRecord = parse_within(text)?;
        used(record.usage, cx, out);
        return Ok(());
    }
    if fast::responses_item(text, item).is_none() {
        *item = parse_within(text)?;
    }
    read_item(item, text, cx, out)
}

/// An `event_msg`'s event. The end of Codex's turn (the prompt answered, or stopped)
/// ends the model turn open (a live log, followed, shows the answer then); a
/// `token_count`, in a log without usage records, gives the last call's usage. The
/// other events repeat the items for Codex's user.
fn happened(event: Event<'_>, cx: &mut Context, out: &mut Out<'_>) {
    match event.kind.as_ref().map(|k| &*k.0) {
        Some("task_complete" | "turn_aborted") => {
            cx.codex.release(out);
            cx.responses.close(out);
        }
        Some("token_count") if !cx.codex.usage_records => {
            if let Some(usage) = event.info.and_then(|i| i.last_token_usage) {
                counted(usage.into_usage(), cx, out);
            }
        }
        _ => {}
    }
}

/// A `token_usage_record`'s usage: the open model turn's. (A call that gave no item
/// has no turn to carry its usage: Codex writes its record after the items, and its
/// tokens are not counted.)
fn used(usage: ProviderUsage, cx: &mut Context, out: &mut Out<'_>) {
    cx.codex.usage_records = true;
    cx.codex.release(out);
    cx.responses.set_usage(usage.into_usage());
}

/// The messages of a `response_item`'s payload `text`, read into `item`.
fn read_item<'a>(
    item: &mut responses::Item<'a>,
    text: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let start = out.len();
    responses::read_item(item, text, cx, out)?;
    for result in &mut out[start..] {
        if result.role == Role::Agent && result.error().is_none() && exited_badly(&result.content) {
            // The output is the error (it holds the command's code and its stderr).
            let error = result.content.clone();
            result.rare().error = Some(error);
        }
    }
    let read = &out[start..];
    let outputs = !read.is_empty() && read.iter().all(|m| m.role == Role::Agent);
    if cx.codex.is_waiting() {
        if outputs {
            // More of the waiting turn's outputs.
            wait(out, start, cx);
            return Ok(());
        }
        // Anything else (a model item, a user's message) comes after the waiting.
        let mut before = Out::new();
        cx.codex.release(&mut before);
        out.insert_many(start, before);
        return Ok(());
    }
    let unpriced = read
        .first()
        .is_some_and(|m| m.role == Role::Llm && m.usage.is_none());
    if !cx.codex.usage_records && unpriced {
        // A turn closed by its outputs, its usage to come in a `token_count` event.
        wait(out, start, cx);
    }
    Ok(())
}

/// The messages of `out` from `start` on wait (owned) for the usage of their turn.
fn wait(out: &mut Out<'_>, start: usize, cx: &mut Context) {
    cx.codex
        .waiting
        .extend(out.drain(start..).map(Message::into_owned));
}

/// A `token_count` event's usage of the last model call: the waiting turn's (given
/// then, with its outputs), else the open turn's.
fn counted(usage: crate::Usage, cx: &mut Context, out: &mut Out<'_>) {
    if let Some(turn) = cx.codex.waiting.first_mut() {
        turn.usage = Some(usage);
        cx.codex.release(out);
    } else {
        cx.responses.set_usage(usage);
    }
}

/// Whether a tool's output is a command's that exited with a code other than 0, as
/// Codex writes it: a header of lines (`Chunk ID: ...`, `Wall time: ...`, `Process
/// exited with code <n>`, ...) before the line `Output:`, or (Codex before its unified
/// exec) `{"output": ..., "metadata": {"exit_code": <n>, ...}}`.
fn exited_badly(output: &str) -> bool {
    if output.starts_with("{\"output\"") {
        #[derive(Deserialize)]
        struct Shell {
            metadata: Metadata,
        }
        #[derive(Deserialize)]
        struct Metadata {
            exit_code: i64,
        }
        return serde_json::from_str::<Shell>(output).is_ok_and(|s| s.metadata.exit_code != 0);
    }
    for line in output.lines().take(8) {
        if line == "Output:" {
            break;
        }
        if let Some(code) = line.strip_prefix("Process exited with code ") {
            return code.trim() != "0";
        }
    }
    false
}
