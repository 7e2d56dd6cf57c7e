//! Codex CLI's session logs: the rollouts Codex appends to
//! `~/.codex/sessions/<year>/<month>/<day>/rollout-<time>-<session id>.jsonl`
//! (`$CODEX_HOME/sessions/...`), one record a line: `{"timestamp", "type",
//! "payload"}`.
//!
//! The conversation is in the `response_item` records, whose payloads are OpenAI
//! Responses API items, read as `openai-responses` reads them (a model call's items
//! one model turn; a tool's output its result). A model call's usage is the
//! `token_usage_record` Codex writes after the call's items: it is the open turn's.
//! A command's output that says its process exited with a code other than 0 (Codex
//! writes the exit code in the text it gives the model) is a failed result. A
//! model turn is given once an item from outside the model follows it, or the event
//! that ends Codex's turn (`task_complete`, `turn_aborted`), or the input ends. Every
//! other record (the session's metadata, the turn's context and world state, the
//! other events Codex shows its user, which repeat the items, compactions) gives no
//! message.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::record::{Context, Failure, Out};
use super::wire::{ProviderUsage, Str};
use super::{fast, responses};
use crate::Role;

/// One record: its type and payload (its `timestamp` not read).
#[derive(Deserialize)]
pub(super) struct Record<'a> {
    /// Required: absent, the error says what the record is.
    #[serde(default, rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(default, borrow)]
    payload: Option<&'a RawValue>,
}

/// A `token_usage_record`'s payload: a model call's usage (its thread, turn and
/// response ids not read). `input_tokens` counts the cached ones, as OpenAI's do.
#[derive(Deserialize)]
struct UsageRecord {
    usage: ProviderUsage,
}

/// An `event_msg`'s payload: its type (its other fields not read).
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(default, rename = "type", borrow)]
    kind: Option<Str<'a>>,
}

/// The messages of one record.
pub(super) fn read<'a>(
    record: Record<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let Some(kind) = record.kind else {
        return Err(Failure::message(
            within,
            "a Codex record without a \"type\" (\"response_item\", \"event_msg\", ...)",
        ));
    };
    if !matches!(
        &*kind.0,
        "response_item" | "token_usage_record" | "event_msg"
    ) {
        return Ok(());
    }
    let Some(payload) = record.payload else {
        return Err(Failure::message(
            within,
            format!("a Codex \"{}\" record without its \"payload\"", kind.0),
        ));
    };
    let text = payload.get();
    if kind.0 == "event_msg" {
        // The end of Codex's turn (the prompt answered, or stopped): the model turn
        // open is over (a live log, followed, shows the answer then). The other
        // events repeat the items for Codex's user.
        let event: Event = serde_json::from_str(text).map_err(|e| Failure::json(text, e))?;
        if event
            .kind
            .is_some_and(|k| matches!(&*k.0, "task_complete" | "turn_aborted"))
        {
            cx.responses.close(out);
        }
        return Ok(());
    }
    if kind.0 == "token_usage_record" {
        let record: UsageRecord = serde_json::from_str(text).map_err(|e| Failure::json(text, e))?;
        // (A call that gave no item has no turn to carry its usage: Codex writes its
        // record after the items, and its tokens are not counted.)
        cx.responses.set_usage(record.usage.into_usage());
        return Ok(());
    }
    let mut item = responses::Item::default();
    if fast::responses_item(text, &mut item).is_none() {
        item = serde_json::from_str(text).map_err(|e| Failure::json(text, e))?;
    }
    let start = out.len();
    responses::read_item(&mut item, text, cx, out)?;
    for result in &mut out[start..] {
        if result.role == Role::Agent && result.error().is_none() && exited_badly(&result.content) {
            // The output is the error (it holds the command's code and its stderr).
            let error = result.content.clone();
            result.rare().error = Some(error);
        }
    }
    Ok(())
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
