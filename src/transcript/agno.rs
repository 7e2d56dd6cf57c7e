//! Agno's runs: its messages as `Message.to_dict()` (or `model_dump()`) writes them,
//! a run (`RunOutput.to_dict()`, a team's `TeamRunOutput`), a session with its runs
//! (`AgentSession.to_dict()`), and the rows of Agno's JSON database (`JsonDb`'s
//! `agno_runs.json`, a row a run with the run in its `run_data`).
//!
//! Agno's messages are OpenAI's chat messages with Agno's own fields: a tool's result
//! names its tool and says whether it failed (`tool_call_error`) and whether the run
//! stopped after it (`stop_after_tool_call`, a stop message), the model's message
//! carries its call's `metrics`, and a message repeated from an earlier run into a
//! run's context is marked `from_history` (read once, in its own run: skipped).

use serde::Deserialize;
use serde_json::value::RawValue;

use super::parts::{Content, plain_text};
use super::record::{Failure, Out, each, parse};
use super::wire::{Calls, RawArguments, Str, TokenCounts, failed};
use crate::{Message, Role};

/// A message, the fields read (the others, Agno's ids, times, media, citations,
/// references, reasoning and provider data, are not messages' text or steps).
#[derive(Deserialize)]
pub(super) struct AgnoMessage<'a> {
    #[serde(borrow)]
    role: Str<'a>,
    #[serde(default, borrow)]
    content: Option<Content<'a, RawArguments<'a>>>,
    /// The participant's name: the responder.
    #[serde(default, borrow)]
    name: Option<Str<'a>>,
    #[serde(default, borrow)]
    tool_calls: Option<Calls<'a, RawArguments<'a>>>,
    /// A tool's result: the call it answers, the tool's name, whether it failed.
    #[serde(default, borrow)]
    tool_call_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    tool_name: Option<Str<'a>>,
    #[serde(default)]
    tool_call_error: Option<bool>,
    /// The run stopped after this tool's result (the tool is configured so, or it
    /// raised Agno's `StopAgentRun`).
    #[serde(default)]
    stop_after_tool_call: Option<bool>,
    /// A message of an earlier run, repeated into this run's context.
    #[serde(default)]
    from_history: Option<bool>,
    /// The model's call: its tokens (`input_tokens`, `output_tokens`, as Agno counts
    /// them; its timings and cache counts are not read).
    #[serde(default)]
    metrics: Option<TokenCounts>,
}

/// A message as a record of its own (a line, or an element of a list).
pub(super) fn read_message<'a>(
    message: AgnoMessage<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if message.from_history == Some(true) {
        return Ok(());
    }
    let role = match &*message.role.0 {
        "system" | "developer" => Role::System,
        "user" => Role::User,
        "assistant" | "model" => Role::Llm,
        "tool" => Role::Agent,
        other => {
            return Err(Failure::message(
                within,
                format!(
                    "an Agno message of role \"{other}\" (expected system, developer, user, \
                     assistant or tool)"
                ),
            ));
        }
    };
    let text = plain_text(message.content, "an Agno message's content")
        .map_err(|m| Failure::message(within, m))?;
    let mut read = Message::new(role, text);
    if let Some(calls) = message.tool_calls {
        if role != Role::Llm {
            return Err(Failure::message(
                within,
                format!(
                    "an Agno message of role \"{}\" holds tool calls",
                    message.role.0
                ),
            ));
        }
        read.tool_calls = calls
            .into_calls()
            .map_err(|m| Failure::message(within, m))?;
    }
    if let Some(name) = message.name.filter(|n| !n.0.is_empty()) {
        read = read.with_responder(name.into_cow());
    }
    if let Some(metrics) = message.metrics.filter(|_| role == Role::Llm) {
        read = read.with_usage(metrics.into());
    }
    if role == Role::Agent {
        if let Some(id) = message.tool_call_id {
            read = read.with_tool_call_id(id.into_cow());
        }
        if let Some(name) = message.tool_name {
            read = read.with_tool_name(name.into_cow());
        }
        if message.tool_call_error == Some(true) {
            read = failed(read, "the tool failed");
        }
        if message.stop_after_tool_call == Some(true) {
            read = read.as_stop();
        }
    }
    out.push(read);
    Ok(())
}

/// A run (`RunOutput.to_dict()`), or a row of Agno's database holding one in its
/// `run_data`.
#[derive(Deserialize)]
pub(super) struct Run<'a> {
    #[serde(default, borrow)]
    session_id: Option<Str<'a>>,
    /// The team's run this run is a member's part of.
    #[serde(default, borrow)]
    parent_run_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    messages: Option<Vec<&'a RawValue>>,
    #[serde(default, borrow)]
    run_data: Option<&'a RawValue>,
}

/// A session with its runs (`AgentSession.to_dict()`, a team's). (The rows of Agno's
/// database of sessions hold no runs: its runs are kept apart.)
#[derive(Deserialize)]
pub(super) struct Session<'a> {
    #[serde(borrow)]
    session_id: Str<'a>,
    #[serde(default, borrow)]
    runs: Option<Vec<&'a RawValue>>,
}

/// Which runs are read: a session's (one transcript is one session).
#[derive(Debug, Default)]
pub(super) struct Sessions {
    /// The session of the runs read so far.
    first: Option<String>,
}

impl Sessions {
    /// An error where `id` is another session than the runs' before it.
    fn same<'a>(&mut self, id: Option<Str<'a>>, within: &'a str) -> Result<(), Failure<'a>> {
        let Some(id) = id else {
            return Ok(());
        };
        match &self.first {
            None => self.first = Some(id.0.into_owned()),
            Some(first) if *first == id.0 => {}
            Some(first) => {
                return Err(Failure::message(
                    within,
                    format!(
                        "a run of session \"{}\" after runs of session \"{first}\" (a \
                         transcript is one session: split the runs by their session_id)",
                        id.0
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A run's messages: those of its own (not repeated from earlier runs). Where `in_session`
/// (a session's runs, the database's rows), a member's run of a team (its
/// `parent_run_id` set) is not read: the team's run holds the task it was given and its
/// answer.
fn read_run_in<'a>(
    run: Run<'a>,
    within: &'a str,
    in_session: bool,
    sessions: &mut Sessions,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if let Some(data) = run.run_data {
        // A database row: the run is its `run_data` (its ids repeated beside it).
        let inner = parse::<Run<'a>>(data.get())?;
        if inner.run_data.is_some() {
            return Err(Failure::message(within, "a run_data holding a run_data"));
        }
        return read_run_in(inner, data.get(), true, sessions, out);
    }
    sessions.same(run.session_id, within)?;
    if in_session && run.parent_run_id.is_some() {
        return Ok(());
    }
    let Some(messages) = run.messages else {
        return Err(Failure::message(
            within,
            "an Agno run without messages (a workflow's run, or one stored without them)",
        ));
    };
    each(messages, read_message, out)
}

/// A run as a record of its own (`RunOutput.to_dict()`), or a row of Agno's database.
pub(super) fn read_run<'a>(
    run: Run<'a>,
    within: &'a str,
    sessions: &mut Sessions,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    read_run_in(run, within, false, sessions, out)
}

/// A session's runs, in their order.
pub(super) fn read_session<'a>(
    session: Session<'a>,
    within: &'a str,
    sessions: &mut Sessions,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let Some(runs) = session.runs else {
        return Err(Failure::message(
            within,
            "an Agno session without its runs (Agno's database keeps a session's runs \
             apart from it: read them, e.g. JsonDb's agno_runs.json)",
        ));
    };
    sessions.same(Some(session.session_id), within)?;
    each(
        runs,
        |run: Run<'a>, text, out: &mut Out<'a>| read_run_in(run, text, true, sessions, out),
        out,
    )
}
