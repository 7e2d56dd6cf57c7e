//! CrewAI's outputs: a crew's (`CrewOutput.model_dump()`, its tasks' outputs in
//! order), a task's (`TaskOutput.model_dump()`, one a line or in a list) and an
//! agent's own run (`Agent.kickoff()`'s `LiteAgentOutput`). Each holds the messages
//! its agent exchanged with the model, its final answer (`raw`) and the tools that
//! failed (`tool_failures`).
//!
//! The messages are OpenAI's chat messages. Where the model calls tools natively they
//! are read as OpenAI's are; where CrewAI has the model write its calls as text (its
//! ReAct prompt, for models without native calls), the model's message holds
//! `Action: <tool>`, `Action Input: <arguments>` and, appended by CrewAI once the tool
//! ran, `Observation: <result>`: read as the call and the tool's result, as CrewAI's
//! own parser reads them. A task's final answer is its last message, or, where CrewAI
//! did not record it there (its ReAct loop does not), `raw`. A failed tool is marked
//! on its result: each record of `tool_failures` (a tool's name and arguments, no
//! call id) on the first result of that tool and arguments not marked yet.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem::Finder;
use regex::Regex;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::record::{Failure, Out, each};
use super::wire::{JsonLine, Str, failed, name_its_tool};
use crate::message::CallArguments;
use crate::{Message, Role, ToolCall};

/// A crew's output: its tasks' outputs (the crew's `raw` is its last task's).
#[derive(Deserialize)]
pub(super) struct CrewOutput<'a> {
    #[serde(borrow)]
    tasks_output: Vec<&'a RawValue>,
}

/// A task's output (`TaskOutput`), or an agent's (`LiteAgentOutput`): the fields
/// read (the description, summary, structured outputs and usage are not steps).
#[derive(Deserialize)]
pub(super) struct TaskOutput<'a> {
    #[serde(borrow)]
    messages: Vec<&'a RawValue>,
    /// The final answer.
    #[serde(default, borrow)]
    raw: Option<Str<'a>>,
    /// The agent's role (a task's output), the model's messages' responder.
    #[serde(default, borrow)]
    agent: Option<Str<'a>>,
    /// The agent's role (an agent's own output).
    #[serde(default, borrow)]
    agent_role: Option<Str<'a>>,
    #[serde(default, borrow)]
    tool_failures: Option<Vec<ToolFailure<'a>>>,
}

/// A tool that ran and failed (`ToolFailureRecord`): its name and arguments (CrewAI
/// keeps no call id), and what it said.
#[derive(Deserialize)]
struct ToolFailure<'a> {
    #[serde(borrow)]
    tool_name: Str<'a>,
    #[serde(borrow)]
    failure: Reported<'a>,
    /// The arguments as CrewAI parsed them (an object), or their text.
    #[serde(default, borrow)]
    tool_args: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Reported<'a> {
    #[serde(borrow)]
    message: Str<'a>,
}

/// A crew's tasks, in order, each read by `read_task` (from its text: the scanner's,
/// then serde's, as a task's output that is a record of its own).
pub(super) fn read_crew<'a>(
    crew: CrewOutput<'a>,
    out: &mut Out<'a>,
    mut read_task: impl FnMut(&'a str, &mut Out<'a>) -> Result<(), Failure<'a>>,
) -> Result<(), Failure<'a>> {
    each(
        crew.tasks_output,
        |task: &'a RawValue, _, out: &mut Out<'a>| read_task(task.get(), out),
        out,
    )
}

/// A task's output as the scanner reads it, but for its messages (each converted as
/// the chat message's serde path converts it and added by [`push`] as it is read):
/// its agent and its final answer. (A task with tool failures is left to serde.)
#[derive(Default)]
pub(super) struct Scanned<'a> {
    pub(super) raw: Option<Cow<'a, str>>,
    pub(super) agent: Option<Cow<'a, str>>,
    pub(super) agent_role: Option<Cow<'a, str>>,
}

/// A task's output the scanner read, its messages `out[start..]`.
pub(super) fn read_scanned<'a>(
    task: Scanned<'a>,
    start: usize,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let agent = task.agent.or(task.agent_role);
    finish(start, agent.as_ref(), task.raw, &[], within, out)
}

/// A task's messages, its final answer where they do not end with it, and its
/// tools' failures marked on their results.
pub(super) fn read_task<'a>(
    task: TaskOutput<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let agent = task.agent.or(task.agent_role).map(Str::into_cow);
    let start = out.len();
    each(
        task.messages,
        |line: JsonLine<'a>, text, out: &mut Out<'a>| {
            // The tool results its content holds (Anthropic's blocks) come first,
            // added as the scanner's are.
            let mut results = Out::new();
            let message = line
                .into_message(&mut results)
                .map_err(|m| Failure::message(text, m))?;
            for message in results.into_iter().chain(message) {
                push(message, out);
            }
            Ok(())
        },
        out,
    )?;
    let failures = task.tool_failures.unwrap_or_default();
    finish(
        start,
        agent.as_ref(),
        task.raw.map(Str::into_cow),
        &failures,
        within,
        out,
    )
}

/// The end of a task whose messages are `out[start..]`: the model's answered by its
/// agent (where they do not name who answered), its final answer (`raw`) where they
/// do not end with it, and its tools' failures marked on their results. (The agent
/// set here, not as each message is added: the scanner adds them as it reads them,
/// and the agent may come after them.)
fn finish<'a>(
    start: usize,
    agent: Option<&Cow<'a, str>>,
    raw: Option<Cow<'a, str>>,
    failures: &[ToolFailure<'a>],
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if let Some(agent) = agent {
        for message in &mut out[start..] {
            if message.role == Role::Llm && message.responder.is_none() {
                message.responder = Some(agent.clone());
            }
        }
    }
    let answered = out[start..]
        .last()
        .is_some_and(|m| m.role == Role::Llm && m.tool_calls.is_empty());
    if let Some(raw) = raw.filter(|raw| !answered && !raw.is_empty()) {
        // The answer as CrewAI parsed it: not searched for a call written as text.
        let mut answer = Message::llm(raw);
        answer.responder = agent.cloned();
        out.push(answer);
    }
    for (i, failure) in failures.iter().enumerate() {
        mark_failed(failure, &mut out[start..]).map_err(|problem| {
            Failure::message(within, format!("tool failure {}: {problem}", i + 1))
        })?;
    }
    Ok(())
}

/// Adds a message of the task's: the model's (a call it wrote as text read as the
/// call and its result), a tool's result naming its tool.
pub(super) fn push<'a>(mut message: Message<'a>, out: &mut Out<'a>) {
    // As one written as text does. (Set in place: a message moved is a 136-byte copy.)
    name_its_tool(&mut message);
    if message.role != Role::Llm {
        out.push(message);
        return;
    }
    let result = if message.tool_calls.is_empty() {
        written_call(&mut message)
    } else {
        None
    };
    out.push(message);
    // (Not `extend`: its reservation for the list's length cost 20 instructions a
    // message.)
    if let Some(result) = result {
        out.push(result);
    }
}

/// CrewAI's ReAct action: `Action: <tool>` then `Action Input: <arguments>` (the
/// pattern of CrewAI's parser; a number may follow each word).
static ACTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)Action\s*\d*\s*:\s*(.*?)\s*Action\s*\d*\s*Input\s*\d*\s*:\s*(.*)")
        .unwrap_or_else(|e| unreachable!("the action pattern is valid: {e}"))
});

/// The word every action holds, searched for first (built once: a search built for
/// each message cost 47 instructions a message).
static ACTION_WORD: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("Action"));

/// What CrewAI appends to the model's action once the tool ran: its result.
const OBSERVATION: &str = "\nObservation:";

/// Where the model's text (of a message without native calls) is a call written as
/// CrewAI's ReAct prompt asks: the call added to `message`, its text cut before the
/// result CrewAI appended, and that result as the tool's message. The text before
/// that result is read as CrewAI's parser read it before the tool ran: a final answer
/// first (the model's answer, not a call), then an action.
fn written_call<'a>(message: &mut Message<'a>) -> Option<Message<'a>> {
    let text = &*message.content;
    // Most of the model's messages are not actions: one search for the word the
    // pattern needs spares them the rest.
    ACTION_WORD.find(text.as_bytes())?;
    let (asked, result) = match text.find(OBSERVATION) {
        // CrewAI writes `"\nObservation: {result}"`: the result is what follows the
        // space.
        Some(at) => {
            let result = &text[at + OBSERVATION.len()..];
            (
                &text[..at],
                Some(result.strip_prefix(' ').unwrap_or(result)),
            )
        }
        None => (text, None),
    };
    if asked.contains("Final Answer:") {
        return None;
    }
    let found = ACTION.captures(asked)?;
    let (tool, input) = (found.get(1)?, found.get(2)?);
    let name = tool.as_str().trim().trim_matches('*').trim();
    if name.is_empty() {
        return None;
    }
    let arguments = input.as_str().trim().trim_matches('"');
    let call = ToolCall::with_arguments(
        Cow::Owned(name.to_owned()),
        CallArguments::Owned(arguments.to_owned()),
    );
    let result = result.map(|r| {
        Message::new(Role::Agent, r.to_owned())
            .with_responder(name.to_owned())
            .with_tool_name(name.to_owned())
    });
    let cut = asked.len();
    message.content = match std::mem::take(&mut message.content) {
        Cow::Borrowed(text) => Cow::Borrowed(&text[..cut]),
        Cow::Owned(mut text) => {
            text.truncate(cut);
            Cow::Owned(text)
        }
    };
    message.tool_calls.push(call);
    result
}

/// Marks the result of `failure`'s call failed: the first tool result in `messages`
/// not failed yet whose call is of that tool with those arguments (or, where none
/// has those arguments, the first of that tool).
fn mark_failed<'a>(failure: &ToolFailure<'a>, messages: &mut [Message<'a>]) -> Result<(), String> {
    let tool = &*failure.tool_name.0;
    let arguments = failure
        .tool_args
        .filter(|a| a.get() != "null")
        .map(|a| serde_json::from_str::<serde_json::Value>(a.get()))
        .transpose()
        .map_err(|e| format!("its tool_args are not JSON: {e}"))?;
    let candidates = results_of(tool, messages);
    let same = |call: &ToolCall<'_>| match &arguments {
        None => true,
        Some(serde_json::Value::String(text)) => *call.arguments() == **text,
        Some(value) => {
            serde_json::from_str::<serde_json::Value>(&call.arguments()).is_ok_and(|v| v == *value)
        }
    };
    let found = candidates
        .iter()
        .find(|(_, call)| call.is_none_or(&same))
        .or(candidates.first())
        .map(|(at, _)| *at);
    let Some(at) = found else {
        return Err(format!(
            "the tool \"{tool}\" failed (\"{}\"), but no result of it that has not \
             failed is in the task's messages",
            failure.failure.message.0
        ));
    };
    let message = std::mem::replace(&mut messages[at], Message::new(Role::Agent, ""));
    messages[at] = failed(message, failure.failure.message.0.clone());
    Ok(())
}

/// The results of `tool` in `messages` that have not failed: each one's place and
/// the call it answers, where it is in view (found by its id, or, for a call the
/// model wrote as text, the call just before it).
fn results_of<'m, 'a>(
    tool: &str,
    messages: &'m [Message<'a>],
) -> Vec<(usize, Option<&'m ToolCall<'a>>)> {
    let mut found = Vec::new();
    for (at, message) in messages.iter().enumerate() {
        if message.role != Role::Agent || message.error().is_some() {
            continue;
        }
        let call = match message.tool_call_id() {
            Some(id) => messages[..at]
                .iter()
                .rev()
                .flat_map(|m| m.tool_calls.iter())
                .find(|c| c.id() == Some(id)),
            None => at
                .checked_sub(1)
                .and_then(|before| messages[before].tool_calls.last()),
        };
        let name = call
            .map(ToolCall::name)
            .or(message.tool_name())
            .or(message.responder());
        if name == Some(tool) {
            found.push((at, call));
        }
    }
    found
}
