//! smolagents' memory: the steps of a run as `agent.memory.get_full_steps()` (or
//! `get_succinct_steps()`) gives them, each step's `dict()`, in a JSON array or one a
//! line.
//!
//! A task step is the user's message. An action step is the model's turn (its output,
//! its tool calls, its token usage) and then what came of it: the observations (the
//! tools' results, or a code action's logs) as the agent's message, failed with the
//! step's error; the step that gave the final answer ends with a stop. A planning step
//! is the model's plan. The final answer's step's `action_output` is the answer. A
//! step's `model_input_messages` (the history it was given), timing and images are not
//! read.

use std::borrow::Cow;

use serde::Deserialize;

use super::parts::join;
use super::record::{Failure, Out};
use super::wire::{RawArguments, RawJson, Str, TokenCounts, tool_call};
use crate::{Message, Role, ToolCall, Usage};

/// One step: the union of the fields of the kinds read (the keys present say which
/// it is). (The fast path's scanner fills it too.)
#[derive(Deserialize, Default)]
pub(super) struct Step<'a> {
    /// A task step's task.
    #[serde(default, borrow)]
    pub(super) task: Option<Str<'a>>,
    /// A system prompt step's prompt.
    #[serde(default, borrow)]
    pub(super) system_prompt: Option<Str<'a>>,
    /// A planning step's plan.
    #[serde(default, borrow)]
    pub(super) plan: Option<Str<'a>>,
    /// An action step's number (counted from 1).
    #[serde(default)]
    pub(super) step_number: Option<u64>,
    /// An action step's calls, as the agent ran them (a code action's is one call of
    /// `python_interpreter`, its code the arguments; a call that failed is left out:
    /// the model's message holds it).
    #[serde(default, borrow)]
    pub(super) tool_calls: Option<Vec<Call<'a>>>,
    #[serde(default, borrow)]
    pub(super) model_output_message: Option<OutputMessage<'a>>,
    /// The model's output as text (or a list of content blocks).
    #[serde(default, borrow)]
    pub(super) model_output: Option<RawJson<'a>>,
    #[serde(default, borrow)]
    pub(super) observations: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) error: Option<StepError<'a>>,
    #[serde(default)]
    pub(super) token_usage: Option<TokenCounts>,
    #[serde(default)]
    pub(super) is_final_answer: Option<bool>,
    /// What the step's action returned: the answer, in the final answer's step.
    #[serde(default, borrow)]
    pub(super) action_output: Option<RawJson<'a>>,
    /// A final answer step's output, present (it repeats the last action step's; it
    /// may be `null`).
    #[serde(default, deserialize_with = "present")]
    pub(super) output: bool,
}

/// `true` for a key that is present, whatever its value.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(d).map(|_| true)
}

/// A call: `{"id", "type": "function", "function": {"name", "arguments"}}`.
#[derive(Deserialize, Default)]
pub(super) struct Call<'a> {
    #[serde(default, borrow)]
    pub(super) id: Option<Str<'a>>,
    #[serde(borrow)]
    pub(super) function: Function<'a>,
}

#[derive(Deserialize, Default)]
pub(super) struct Function<'a> {
    #[serde(borrow)]
    pub(super) name: Str<'a>,
    /// An object, or a text (a code action's code).
    #[serde(default)]
    pub(super) arguments: Option<RawArguments<'a>>,
}

/// The model's message: its content and calls (its own usage and raw response are
/// the step's too).
#[derive(Deserialize, Default)]
pub(super) struct OutputMessage<'a> {
    #[serde(default, borrow)]
    pub(super) content: Option<RawJson<'a>>,
    #[serde(default, borrow)]
    pub(super) tool_calls: Option<Vec<Call<'a>>>,
}

/// What went wrong in the step: `type` the agent's error class
/// (`AgentToolExecutionError`, `AgentParsingError`, `AgentMaxStepsError`, ...).
#[derive(Deserialize, Default)]
pub(super) struct StepError<'a> {
    #[serde(default, rename = "type", borrow)]
    pub(super) kind: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) message: Option<Str<'a>>,
}

/// The messages of a step.
pub(super) fn read<'a>(
    step: Step<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let read = if let Some(task) = step.task {
        out.push(Message::new(Role::User, task.into_cow()));
        Ok(())
    } else if let Some(prompt) = step.system_prompt {
        out.push(Message::new(Role::System, prompt.into_cow()));
        Ok(())
    } else if let Some(plan) = step.plan {
        let mut turn = Message::new(Role::Llm, plan.into_cow());
        turn.usage = step.token_usage.map(Usage::from);
        out.push(turn);
        Ok(())
    } else if step.step_number.is_some() {
        action(step, out)
    } else if step.output {
        // The final answer step repeats the last action step's answer.
        Ok(())
    } else {
        Err(
            "a smolagents step has a \"task\", \"system_prompt\", \"plan\", \
             \"step_number\" (an action step) or \"output\" (a final answer step)"
                .to_owned(),
        )
    };
    read.map_err(|m| Failure::message(within, m))
}

/// An action step: the model's turn, then its observations or error.
fn action<'a>(step: Step<'a>, out: &mut Out<'a>) -> Result<(), String> {
    let start = out.len();
    let (content, message_calls) = match step.model_output_message {
        Some(m) => (m.content, m.tool_calls),
        None => (None, None),
    };
    // The calls the agent ran; where it ran none (the call failed), the model's.
    let calls = match step.tool_calls {
        Some(calls) if !calls.is_empty() => Some(calls),
        _ => message_calls,
    };
    let calls = calls.unwrap_or_default();
    // The results of a step of one call are that call's.
    let single = match calls.as_slice() {
        [call] => Some((
            call.function.name.0.clone(),
            call.id.as_ref().map(|i| i.0.clone()),
        )),
        _ => None,
    };
    let calls = (calls.into_iter().enumerate())
        .map(|(i, call)| {
            if call.function.name.is_empty() {
                return Err(format!("tool call {} has an empty name", i + 1));
            }
            Ok(tool_call(
                call.function.name.into_cow(),
                call.function.arguments,
                call.id,
            ))
        })
        .collect::<Result<Vec<ToolCall<'a>>, String>>()?;
    let text = match step.model_output.or(content) {
        Some(raw) => text_of(raw)?,
        None => None,
    };
    // A step whose model call failed has no turn of the model's.
    if text.is_some() || !calls.is_empty() || step.token_usage.is_some() {
        let mut turn = Message::new(Role::Llm, text.unwrap_or_default());
        turn.usage = step.token_usage.map(Usage::from);
        turn.tool_calls = calls;
        out.push(turn);
    }
    let error = step.error.map(|e| {
        let message = e.message.map(Str::into_cow).unwrap_or_default();
        match e.kind {
            Some(kind) if message.is_empty() => kind.into_cow(),
            _ => message,
        }
    });
    let final_step = step.is_final_answer == Some(true);
    // What came of the turn: the observations (in the final answer's step, the
    // answer, where the step records it), failed with the error; or the error.
    let answer = match step.action_output.map(|r| r.0) {
        Some(json) if final_step && json != "null" => Some(
            super::value_text(json).map_err(|e| format!("the step's \"action_output\": {e}"))?,
        ),
        _ => None,
    };
    if step.observations.is_some() || error.is_some() || answer.is_some() {
        let observed = answer.or(step.observations.map(Str::into_cow));
        let text = match (&observed, &error) {
            (Some(observed), _) => observed.clone(),
            (None, Some(error)) => error.clone(),
            (None, None) => Cow::Borrowed(""),
        };
        let mut result = Message::new(Role::Agent, text);
        if let Some((tool, id)) = single {
            result = result.with_tool_name(tool);
            if let Some(id) = id {
                result = result.with_tool_call_id(id);
            }
        }
        if let Some(error) = error {
            result = result.with_error(error);
        }
        out.push(result);
    }
    if final_step && let Some(last) = out[start..].last_mut() {
        last.rare().stop = true;
    }
    Ok(())
}

/// A model's output: a text, or a list of content blocks whose texts are joined.
fn text_of(raw: RawJson<'_>) -> Result<Option<Cow<'_, str>>, String> {
    match raw.0.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<Str<'_>>(raw.0)
            .map(|t| Some(t.into_cow()))
            .map_err(|e| format!("the model's output: {e}")),
        Some(b'n') => Ok(None),
        Some(b'[') => {
            let blocks = serde_json::from_str::<Vec<Block<'_>>>(raw.0)
                .map_err(|e| format!("the model's output: {e}"))?;
            let mut text = None;
            for block in blocks {
                if let Some(piece) = block.text.filter(|_| block.kind.0 == "text") {
                    text = Some(join(text, piece.into_cow()));
                }
            }
            Ok(text)
        }
        _ => Err("the model's output is neither a text nor a list of content blocks".into()),
    }
}

/// A content block of a model's output.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Str<'a>,
    #[serde(default, borrow)]
    text: Option<Str<'a>>,
}
