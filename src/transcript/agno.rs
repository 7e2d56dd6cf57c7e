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

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::parts::{Content, plain_text};
use super::record::{Failure, Out, each, parse};
use super::wire::{Calls, RawArguments, Str, TokenCounts, failed};
use crate::{Message, Role, ToolCall, Usage};

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
    let fields = message
        .into_fields()
        .map_err(|m| Failure::message(within, m))?;
    out.push(
        fields
            .into_message()
            .map_err(|m| Failure::message(within, m))?,
    );
    Ok(())
}

impl<'a> AgnoMessage<'a> {
    /// The fields read, the content as its text.
    fn into_fields(self) -> Result<Fields<'a>, String> {
        Ok(Fields {
            role: self.role.into_cow(),
            text: plain_text(self.content, "an Agno message's content")?,
            name: self.name.map(Str::into_cow),
            tool_calls: self.tool_calls.map(Calls::into_calls).transpose()?,
            tool_call_id: self.tool_call_id.map(Str::into_cow),
            tool_name: self.tool_name.map(Str::into_cow),
            tool_call_error: self.tool_call_error == Some(true),
            stop_after_tool_call: self.stop_after_tool_call == Some(true),
            usage: self.metrics.map(Into::into),
        })
    }
}

/// A message's fields as read, by serde (from an [`AgnoMessage`]) or by the scanner,
/// which both convert with [`Fields::into_message`]. (A message `from_history` is
/// not one: neither path makes its fields.)
#[derive(Default)]
pub(super) struct Fields<'a> {
    pub(super) role: Cow<'a, str>,
    pub(super) text: Cow<'a, str>,
    pub(super) name: Option<Cow<'a, str>>,
    pub(super) tool_calls: Option<Vec<ToolCall<'a>>>,
    pub(super) tool_call_id: Option<Cow<'a, str>>,
    pub(super) tool_name: Option<Cow<'a, str>>,
    pub(super) tool_call_error: bool,
    pub(super) stop_after_tool_call: bool,
    pub(super) usage: Option<Usage>,
}

impl<'a> Fields<'a> {
    /// The message, or what is wrong with it.
    pub(super) fn into_message(self) -> Result<Message<'a>, String> {
        let role = match &*self.role {
            "system" | "developer" => Role::System,
            "user" => Role::User,
            "assistant" | "model" => Role::Llm,
            "tool" => Role::Agent,
            other => {
                return Err(format!(
                    "an Agno message of role \"{other}\" (expected system, developer, user, \
                     assistant or tool)"
                ));
            }
        };
        let mut read = Message::new(role, self.text);
        if let Some(calls) = self.tool_calls {
            if role != Role::Llm {
                return Err(format!(
                    "an Agno message of role \"{}\" holds tool calls",
                    self.role
                ));
            }
            read.tool_calls = calls;
        }
        if let Some(name) = self.name.filter(|n| !n.is_empty()) {
            read.responder = Some(name);
        }
        if role == Role::Llm {
            read.usage = self.usage;
        }
        if role == Role::Agent {
            read.tool_call_id = self.tool_call_id;
            if let Some(name) = self.tool_name {
                read = read.with_tool_name(name);
            }
            if self.tool_call_error {
                read = failed(read, "the tool failed");
            }
            if self.stop_after_tool_call {
                read = read.as_stop();
            }
        }
        Ok(read)
    }
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
