//! rlm-code's run logs: the events its runner (`RLMRunner.run_task`) appends to
//! `.rlm_code/rlm/runs/<run_id>.jsonl`, one a line.
//!
//! A run's task is the user's message, given once (every event repeats it). A step is
//! the planner model's turn (the text it wrote, the action it chose as a call of that
//! action, the step's token usage) and then the environment's result (the
//! observation, the step's reward, failed with the observation's error). A run that
//! completed ends with a stop carrying the answer rlm-code returned. A Pure RLM run's
//! context event describes the run and gives no message.

use std::borrow::Cow;

use serde::Deserialize;

use super::record::{Failure, Out};
use super::wire::{ProviderUsage, RawJson, Str};
use crate::message::CallArguments;
use crate::{Message, Role, ToolCall};

/// One event of a run: the union of the fields of its types that are read (the
/// others describe the run: its environment, framework, depth, timestamps, the
/// prompt's size and digest, the usage by role, the harness's metrics). (The fast
/// path's scanner fills it too.)
#[derive(Deserialize, Default)]
pub(in crate::transcript) struct Event<'a> {
    /// `step`, `final` or `context` (required: absent, the error says what the
    /// record is).
    #[serde(default, rename = "type", borrow)]
    pub(in crate::transcript) kind: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) run_id: Option<Str<'a>>,
    /// The run's task (every event but a context event repeats it).
    #[serde(default, borrow)]
    pub(in crate::transcript) task: Option<Str<'a>>,
    /// A step's action: an object whose `action` names it, its other keys its
    /// parameters (`code`, `path`, `final_response`, ...).
    #[serde(default, borrow)]
    pub(in crate::transcript) action: Option<RawJson<'a>>,
    /// What the planner model wrote (absent in a framework adapter's steps).
    #[serde(default, borrow)]
    pub(in crate::transcript) planner_raw: Option<Str<'a>>,
    /// What the environment returned for the action.
    #[serde(default, borrow)]
    pub(in crate::transcript) observation: Option<RawJson<'a>>,
    #[serde(default)]
    pub(in crate::transcript) reward: Option<f64>,
    /// A step's tokens (`prompt_tokens`, `completion_tokens`; `total_calls` not
    /// read); a final event's are the run's, not read (the steps hold them).
    #[serde(default)]
    pub(in crate::transcript) usage: Option<ProviderUsage>,
    /// A final event's: whether an action ended the run (its answer, `done`).
    #[serde(default)]
    pub(in crate::transcript) completed: Option<bool>,
    /// A final event's answer (of a run that did not complete: a summary the model
    /// was asked for after the steps, or why the run stopped; not read).
    #[serde(default, borrow)]
    pub(in crate::transcript) final_response: Option<Str<'a>>,
    /// The action's name, where the scanner read it with the action (the serde path
    /// reads it from `action`'s text).
    #[serde(skip)]
    pub(in crate::transcript) action_read: Option<Action<'a>>,
    /// The observation's fields, where the scanner read them with it.
    #[serde(skip)]
    pub(in crate::transcript) observation_read: Option<Observation<'a>>,
}

/// The action's name.
#[derive(Deserialize, Default)]
pub(in crate::transcript) struct Action<'a> {
    #[serde(default, borrow)]
    pub(in crate::transcript) action: Option<Str<'a>>,
}

/// The observation's fields read: a code action's output and its failure.
#[derive(Deserialize, Default)]
pub(in crate::transcript) struct Observation<'a> {
    #[serde(default, borrow)]
    pub(in crate::transcript) stdout: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) stderr: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) error: Option<Str<'a>>,
    #[serde(default)]
    pub(in crate::transcript) success: Option<bool>,
}

/// The run whose task was given last (a log of several runs gives each its own).
#[derive(Debug, Default)]
pub(super) struct Runs {
    task_given: Option<String>,
}

/// The messages of one event.
pub(super) fn read<'a>(
    event: Event<'a>,
    within: &'a str,
    runs: &mut Runs,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let Some(kind) = event.kind.as_ref().map(|k| k.0.clone()) else {
        return Err(Failure::message(
            within,
            "an rlm-code event without a \"type\": the runner's run logs (.rlm_code/rlm/runs) \
             have one; the events of rlm-code's TrajectoryLogger and SessionRecorder \
             (\"event_type\") are not read",
        ));
    };
    if !matches!(&*kind, "step" | "final" | "context") {
        return Err(Failure::message(
            within,
            format!(
                "an rlm-code event of type {:?}: its runner writes \"step\", \"final\" and \
                 \"context\" events",
                &*kind
            ),
        ));
    }
    if let Some(task) = event.task.as_ref() {
        let run = event.run_id.as_ref().map_or("", |r| &*r.0);
        if runs.task_given.as_deref() != Some(run) {
            runs.task_given = Some(run.to_owned());
            out.push(Message::new(Role::User, task.0.clone()));
        }
    }
    let read = match &*kind {
        "step" => step(event, out),
        "final" => {
            if event.completed == Some(true) {
                let answer = event
                    .final_response
                    .map_or(Cow::Borrowed(""), Str::into_cow);
                let mut end = Message::new(Role::Agent, answer);
                end.rare().stop = true;
                out.push(end);
            }
            Ok(())
        }
        _ => Ok(()),
    };
    read.map_err(|m| Failure::message(within, m))
}

/// A step: the model's turn (its text, its action as a call, the step's tokens),
/// then the environment's result.
fn step<'a>(event: Event<'a>, out: &mut Out<'a>) -> Result<(), String> {
    let (action, named) = object("action", event.action, event.action_read)?;
    let name = match named.action {
        Some(name) if !name.is_empty() => name.into_cow(),
        _ => return Err("the step's \"action\" has no name (its \"action\" key)".into()),
    };
    let (observation, seen) = object("observation", event.observation, event.observation_read)?;
    let mut turn = Message::new(
        Role::Llm,
        event.planner_raw.map_or(Cow::Borrowed(""), Str::into_cow),
    );
    turn.tool_calls = vec![ToolCall::with_arguments(
        name.clone(),
        CallArguments::Borrowed(action),
    )];
    turn.usage = event.usage.map(ProviderUsage::into_usage);
    out.push(turn);
    // A code action's printout is its result; any other observation (a file written,
    // a search's matches, the runner's word that the run is complete) its JSON.
    let text = match seen.stdout {
        Some(stdout) => stdout.into_cow(),
        None => super::compact(observation),
    };
    let mut result = Message::new(Role::Agent, text).with_tool_name(name);
    let error = match (seen.error, seen.success) {
        (Some(error), _) if !error.is_empty() => Some(error.into_cow()),
        (_, Some(false)) => Some(match seen.stderr {
            Some(stderr) if !stderr.is_empty() => stderr.into_cow(),
            _ => Cow::Borrowed("the action failed"),
        }),
        _ => None,
    };
    if let Some(error) = error {
        result = result.with_error(error);
    }
    if let Some(reward) = event.reward {
        result = result.with_reward(reward);
    }
    out.push(result);
    Ok(())
}

/// A step's `what` (its `action` or its `observation`): its JSON text, and its fields
/// as the scanner read them with it, else read from that text.
fn object<'a, T: Deserialize<'a>>(
    what: &str,
    raw: Option<RawJson<'a>>,
    read: Option<T>,
) -> Result<(&'a str, T), String> {
    let Some(RawJson(text)) = raw else {
        return Err(format!("an rlm-code step has no \"{what}\""));
    };
    // (serde would read a list as the struct's fields in order.)
    if !text.starts_with('{') {
        let kind = match text.as_bytes().first() {
            Some(b'"') => "a string",
            Some(b'[') => "a list",
            Some(b't' | b'f') => "a boolean",
            _ => "a number",
        };
        return Err(format!("the step's \"{what}\" is {kind}, not an object"));
    }
    let fields = match read {
        Some(fields) => fields,
        None => serde_json::from_str(text).map_err(|e| format!("the step's \"{what}\": {e}"))?,
    };
    Ok((text, fields))
}
