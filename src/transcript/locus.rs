//! locus's agent state (`locus-sdk`): a run's `AgentState` as its checkpointers save
//! it (`FileCheckpointer`'s `{"checkpoint_id", "thread_id", "state", ...}`, the
//! state's `to_checkpoint()`), or an `AgentResult`'s `model_dump()` (its `state`).
//!
//! The state's messages are OpenAI-shaped chat messages, read by the chat message's
//! schema (a tool's result names its tool, `name`). A failed tool call's message is
//! empty: the failure is in the state's `tool_executions` (`error`, by
//! `tool_call_id`), read onto the message of that call's result. The state keeps the
//! run's token totals, not each call's: no message carries usage.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::record::{Failure, Out, each};
use super::wire::{JsonLine, Str, name_its_tool};
use crate::Role;

/// A checkpoint, a result or a state: the state's messages and tool executions,
/// where each keeps them (its other fields describe the run: ids, times, counters,
/// token totals, confidence, the checkpoint's metadata).
#[derive(Deserialize)]
pub(super) struct Record<'a> {
    /// A checkpoint's or a result's state.
    #[serde(default, borrow)]
    state: Option<State<'a>>,
    /// A state's own messages (a result repeats its state's: `state` is read).
    #[serde(default, borrow)]
    messages: Option<Vec<&'a RawValue>>,
    #[serde(default, borrow)]
    tool_executions: Option<Vec<Execution<'a>>>,
}

#[derive(Deserialize)]
struct State<'a> {
    #[serde(borrow)]
    messages: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    tool_executions: Vec<Execution<'a>>,
}

/// A tool's execution: the call it ran and its error, if it failed (its tool, its
/// arguments, result, timing and cache hit are the messages' or not read).
#[derive(Deserialize)]
struct Execution<'a> {
    #[serde(borrow)]
    tool_call_id: Str<'a>,
    #[serde(default, borrow)]
    error: Option<Str<'a>>,
}

/// The messages of a record, its failed tool calls marked.
pub(super) fn read<'a>(
    record: Record<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let (messages, executions) = match (record.state, record.messages) {
        (Some(state), _) => (state.messages, state.tool_executions),
        (None, Some(messages)) => (messages, record.tool_executions.unwrap_or_default()),
        (None, None) => {
            return Err(Failure::message(
                within,
                "a locus record holds its messages in \"state\" (a checkpoint, a result) \
                 or in \"messages\" (a state)",
            ));
        }
    };
    let start = out.len();
    each(
        messages,
        |line: JsonLine<'a>, text, out: &mut Out<'a>| {
            let mut results = Out::new();
            let message = line
                .into_message(&mut results)
                .map_err(|m| Failure::message(text, m))?;
            for mut message in results.into_iter().chain(message) {
                name_its_tool(&mut message);
                out.push(message);
            }
            Ok(())
        },
        out,
    )?;
    for execution in executions {
        let Some(error) = execution.error.filter(|e| !e.is_empty()) else {
            continue;
        };
        let id = execution.tool_call_id.0;
        let result = out[start..]
            .iter_mut()
            .find(|m| m.role == Role::Agent && m.tool_call_id() == Some(&*id));
        let Some(result) = result else {
            return Err(Failure::message(
                within,
                format!(
                    "the tool call \"{id}\" failed (\"{}\"), but no tool message answers it",
                    error.0
                ),
            ));
        };
        result.rare().error = Some(error.into_cow());
    }
    Ok(())
}
