//! mini-swe-agent's trajectories: the `.traj.json` a run saves (`{"info",
//! "messages", "trajectory_format"}`, written after every step), as its agent's
//! `messages` list holds them: mini-swe-agent 2's (`mini-swe-agent-1.1`) and 1's
//! (`mini-swe-agent-1`, or no format in its first releases).
//!
//! The messages are OpenAI chat messages with mini-swe-agent's `extra`. The model's
//! message carries its calls of mini-swe-agent's one tool, `bash`: as `tool_calls`
//! (its tool-calling models), or, for its text-based models, as the one command it
//! parsed from the text (`extra.actions`), a call of `bash` with that `command`; its
//! usage is the API response's (`extra.response.usage`). A command's output (a
//! `tool` message, or a `user` message with the command's `returncode`) is a result
//! of `bash`, failed where the command exited with another code than 0 or did not
//! run (`exception_info`). A reply mini-swe-agent could not parse (`FormatError`) is
//! not in the list, but its API response is, in the message that tells the model so:
//! read as the model's turn, then that message (both count, as mini-swe-agent counts
//! the call toward its step limit). The run's end (`"role": "exit"`) is the command
//! that submitted (`Submitted`: its output, the submission, as a stop message); any
//! other exit status (`LimitsExceeded`, `TimeExceeded`, `RepeatedFormatError`, an
//! error's name) says why mini-swe-agent stopped and is not a message, as the
//! trajectory's `info` (the run's configuration, cost, exit status) is not. A
//! Responses API model's trajectory holds the same in that API's shapes
//! ([`responses`]).
//!
//! mini-swe-agent 1 kept neither the commands it parsed nor their return codes, nor
//! an end message: a model's message has the command the run's own regex
//! (`info.config.agent.action_regex`) finds in its text, if it finds exactly one,
//! as mini-swe-agent ran it; the user's message after such a message is that
//! command's output (failed where it begins `<returncode>n</returncode>`, as the
//! SWE-bench configurations render it, with n not 0), or, last in a run
//! `Submitted` (`info.exit_status`), the submission (a stop); after a model's message
//! of no command or several, what mini-swe-agent told the model; and last after
//! anything else in a run that ended on a limit, the limit's (no message).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::fast;
use super::parts::{Content, plain_text};
use super::record::{self, Failure, Out, each, parse, parse_within};
use super::wire::{Calls, JsonLine, ProviderUsage, RawArguments, Str, StringOrList};
use crate::{Message, Role, ToolCall};

mod first;
pub(in crate::transcript) mod responses;

use first::First;

/// mini-swe-agent's one tool: every command the model runs is a call of it.
const BASH: &str = "bash";

/// A trajectory, read in one pass: its messages (`M`, each read or kept as its
/// text), its format, and of its `info` (which describes the run: costs, counts,
/// the configuration, not read) what mini-swe-agent 1's messages are read by.
#[derive(Deserialize)]
#[serde(bound(deserialize = "'de: 'a, M: Deserialize<'de>"))]
pub(in crate::transcript) struct Trajectory<'a, M> {
    #[serde(default, borrow)]
    pub(in crate::transcript) info: Option<Info<'a>>,
    pub(in crate::transcript) messages: Vec<M>,
    #[serde(default, borrow)]
    pub(in crate::transcript) trajectory_format: Option<Str<'a>>,
}

impl<M> Default for Trajectory<'_, M> {
    fn default() -> Self {
        Trajectory {
            info: None,
            messages: Vec::new(),
            trajectory_format: None,
        }
    }
}

#[derive(Deserialize, Default)]
pub(in crate::transcript) struct Info<'a> {
    /// Why the run ended (`Submitted`, `LimitsExceeded`, an error's name).
    #[serde(default, borrow)]
    pub(in crate::transcript) exit_status: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) config: Option<RunConfig<'a>>,
}

#[derive(Deserialize, Default)]
pub(in crate::transcript) struct RunConfig<'a> {
    #[serde(default, borrow)]
    pub(in crate::transcript) agent: Option<AgentConfig<'a>>,
}

#[derive(Deserialize, Default)]
pub(in crate::transcript) struct AgentConfig<'a> {
    /// mini-swe-agent 1's: what its model's command is found by.
    #[serde(default, borrow)]
    pub(in crate::transcript) action_regex: Option<Str<'a>>,
}

/// One message, the fields read: the others are the API's (`function_call`,
/// `provider_specific_fields`, reasoning, annotations, ...: not its text or steps).
#[derive(Deserialize, Default)]
pub(in crate::transcript) struct Entry<'a> {
    /// Absent in a Responses API model's response objects and output items.
    #[serde(default, borrow)]
    pub(in crate::transcript) role: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) content: Option<Content<'a, RawArguments<'a>>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) tool_calls: Option<Calls<'a, RawArguments<'a>>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) tool_call_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) extra: Option<Extra<'a>>,
    /// A Responses API model's entries: a response object (`"object": "response"`,
    /// its `output` items and `usage`), a `function_call_output` item (its
    /// `call_id` and `output`), a `message` item (it has a `role`).
    #[serde(default, rename = "type", borrow)]
    pub(in crate::transcript) kind: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) object: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) output: Option<StringOrList<'a, responses::OutputItem<'a>>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) call_id: Option<Str<'a>>,
    #[serde(default)]
    pub(in crate::transcript) usage: Option<ProviderUsage>,
}

/// mini-swe-agent's own data on a message, the fields read (the others: times,
/// costs, raw outputs, tracebacks, the submission again).
#[derive(Deserialize, Default)]
pub(in crate::transcript) struct Extra<'a> {
    /// The commands mini-swe-agent found in the model's message (or the user typed).
    #[serde(default, borrow)]
    pub(in crate::transcript) actions: Option<Vec<Action<'a>>>,
    /// The model's API response (a `model_dump()`; its `repr` where that failed).
    #[serde(default, borrow)]
    pub(in crate::transcript) response: Option<Saved<'a>>,
    /// A command's output: its exit code (`-1` where it did not run).
    #[serde(default)]
    pub(in crate::transcript) returncode: Option<i64>,
    /// A command's output: why it did not run (empty where it did).
    #[serde(default, borrow)]
    pub(in crate::transcript) exception_info: Option<Str<'a>>,
    /// An interruption's kind (`FormatError`, `UserInterruption`, ...).
    #[serde(default, borrow)]
    pub(in crate::transcript) interrupt_type: Option<Str<'a>>,
    /// A text-based model's reply that had not one command (with a `FormatError`).
    #[serde(default, borrow)]
    pub(in crate::transcript) model_response: Option<Str<'a>>,
    /// The run's end: why it ended.
    #[serde(default, borrow)]
    pub(in crate::transcript) exit_status: Option<Str<'a>>,
}

/// A command mini-swe-agent runs.
#[derive(Deserialize)]
pub(in crate::transcript) struct Action<'a> {
    #[serde(borrow)]
    pub(in crate::transcript) command: Str<'a>,
    #[serde(default, borrow)]
    pub(in crate::transcript) tool_call_id: Option<Str<'a>>,
}

/// The parts of an API response read: its usage, and (for a reply mini-swe-agent
/// could not parse) its message.
#[derive(Deserialize, Default)]
pub(in crate::transcript) struct Response<'a> {
    #[serde(default)]
    pub(in crate::transcript) usage: Option<ProviderUsage>,
    #[serde(default, borrow)]
    pub(in crate::transcript) choices: Option<Vec<Choice<'a>>>,
    /// A Responses API response's items.
    #[serde(default, borrow)]
    pub(in crate::transcript) output: Option<Vec<responses::OutputItem<'a>>>,
}

/// An API response as mini-swe-agent saves it: an object, or, where it could not
/// save that, the response's `repr` (a string: no response read). Read where it is
/// (a response is most of a model message's bytes: not kept as text and read again).
pub(in crate::transcript) struct Saved<'a>(pub(in crate::transcript) Option<Response<'a>>);

impl Saved<'_> {
    /// The response's usage, if it was saved and has one.
    fn usage(self) -> Option<crate::Usage> {
        self.0.and_then(|r| r.usage).map(ProviderUsage::into_usage)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Saved<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Saved<'a>, D::Error> {
        struct SavedVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for SavedVisitor<'a> {
            type Value = Saved<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an API response (an object, or its repr)")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                map: M,
            ) -> Result<Saved<'a>, M::Error> {
                let map = serde::de::value::MapAccessDeserializer::new(map);
                Response::deserialize(map).map(|r| Saved(Some(r)))
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Saved<'a>, E> {
                Ok(Saved(None))
            }
        }
        deserializer.deserialize_any(SavedVisitor(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
pub(in crate::transcript) struct Choice<'a> {
    /// The message's JSON text, read only for a reply mini-swe-agent could not parse.
    #[serde(borrow, deserialize_with = "super::wire::json_text")]
    pub(in crate::transcript) message: &'a str,
}

/// mini-swe-agent 2's trajectory format.
const CURRENT: &str = "mini-swe-agent-1.1";

/// mini-swe-agent 1's (its first releases wrote none).
const FIRST: &str = "mini-swe-agent-1";

/// The messages of the trajectory `text`.
pub(super) fn read<'a>(text: &'a str, out: &mut Out<'a>) -> Result<(), Failure<'a>> {
    // One pass over the messages (a trajectory is mostly their bytes); where anything
    // is wrong, a second, which says where.
    let start = out.len();
    let read =
        record::scan_or_parse::<Trajectory<'a, Entry<'a>>>(text, fast::mini_swe_agent::trajectory);
    if let Ok(trajectory) = read {
        let count = trajectory.messages.len();
        let read = Rules::of(trajectory.info, trajectory.trajectory_format, count, text).and_then(
            |mut rules| {
                trajectory
                    .messages
                    .into_iter()
                    .try_for_each(|entry| rules.read(entry, text, out))
            },
        );
        if read.is_ok() {
            return Ok(());
        }
        out.truncate(start);
    }
    let located: Trajectory<'a, &'a RawValue> = parse(text)?;
    let count = located.messages.len();
    let mut rules = Rules::of(located.info, located.trajectory_format, count, text)?;
    each(
        located.messages,
        |entry, within, out| rules.read(entry, within, out),
        out,
    )
}

/// What a trajectory's messages are read by: its format's rules, and where the
/// reading is.
struct Rules {
    /// mini-swe-agent 1's rules, for a trajectory of its format.
    first: Option<First>,
    /// How many messages the trajectory holds, and how many were read.
    count: usize,
    read: usize,
    /// How many commands the message read last held, if it was the model's
    /// (mini-swe-agent 1's: what the next message is follows from it).
    commands: Option<usize>,
}

impl Rules {
    /// The rules of a trajectory of `format` holding `count` messages, or an error
    /// where it is none of mini-swe-agent's (or its regex is not one doneseq runs).
    fn of<'a>(
        info: Option<Info<'a>>,
        format: Option<Str<'a>>,
        count: usize,
        within: &'a str,
    ) -> Result<Rules, Failure<'a>> {
        let first = match format.as_ref().map(|f| &*f.0) {
            Some(CURRENT) => None,
            None | Some(FIRST) => Some(First::of(info, within)?),
            Some(other) => {
                return Err(Failure::message(
                    within,
                    format!(
                        "a mini-swe-agent trajectory of format \"{other}\" (expected \
                         \"{CURRENT}\", mini-swe-agent 2's, or \"{FIRST}\", 1's)"
                    ),
                ));
            }
        };
        Ok(Rules {
            first,
            count,
            read: 0,
            commands: None,
        })
    }

    /// The messages of the trajectory's next message.
    fn read<'a>(
        &mut self,
        entry: Entry<'a>,
        within: &'a str,
        out: &mut Out<'a>,
    ) -> Result<(), Failure<'a>> {
        self.read += 1;
        let commands = self.commands.take();
        match &self.first {
            None => read_entry(entry, within, out),
            Some(first) => {
                let last = self.read == self.count;
                self.commands = first.read(entry, commands, last, within, out)?;
                Ok(())
            }
        }
    }
}

/// The messages of one of a trajectory's messages.
fn read_entry<'a>(
    mut entry: Entry<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let fail = |m: String| Failure::message(within, m);
    let Some(role) = entry.role.take() else {
        let extra = entry.extra.take().unwrap_or_default();
        out.push(responses::read_item(entry, &extra).map_err(fail)?);
        return Ok(());
    };
    let extra = entry.extra.unwrap_or_default();
    let text = || plain_text(entry.content, "a mini-swe-agent message's content");
    match &*role.0 {
        "system" => out.push(Message::system(text().map_err(fail)?)),
        "user"
            if extra
                .interrupt_type
                .as_ref()
                .is_some_and(|t| t.0 == "FormatError") =>
        {
            out.push(unparsed_reply(extra, within)?);
            out.push(Message::user(text().map_err(fail)?));
        }
        "user" if extra.returncode.is_some() => {
            out.push(output(Message::agent(text().map_err(fail)?), &extra));
        }
        "user" => out.push(Message::user(text().map_err(fail)?)),
        "assistant" => {
            let mut message = Message::llm(text().map_err(fail)?);
            let calls = match entry.tool_calls {
                Some(calls) => calls.into_calls().map_err(fail)?,
                None => Vec::new(),
            };
            message.tool_calls = if calls.is_empty() {
                commands(extra.actions.unwrap_or_default())
            } else {
                calls
            };
            if let Some(usage) = extra.response.and_then(Saved::usage) {
                message = message.with_usage(usage);
            }
            out.push(message);
        }
        "tool" => {
            let mut message = output(Message::agent(text().map_err(fail)?), &extra);
            if let Some(id) = entry.tool_call_id {
                message = message.with_tool_call_id(id.into_cow());
            }
            out.push(message);
        }
        "exit" => {
            if extra
                .exit_status
                .as_ref()
                .is_some_and(|s| s.0 == "Submitted")
            {
                out.push(submission(text().map_err(fail)?));
            }
        }
        other => {
            return Err(fail(format!(
                "a mini-swe-agent message of role \"{other}\" (expected system, user, \
                 assistant, tool or exit)"
            )));
        }
    }
    Ok(())
}

/// A command's output as a result of `bash`: failed where the command exited with
/// another code than 0, or did not run.
fn output<'a>(message: Message<'a>, extra: &Extra<'a>) -> Message<'a> {
    let message = message.with_tool_name(BASH);
    match (&extra.exception_info, extra.returncode) {
        (Some(info), _) if !info.0.is_empty() => message.with_error(info.0.clone()),
        (_, Some(code)) if code != 0 => {
            message.with_error(format!("the command exited with code {code}"))
        }
        _ => message,
    }
}

/// The submission (the output of the command that submitted): a result of `bash`
/// and a stop message, its text the run's answer.
fn submission(text: Cow<'_, str>) -> Message<'_> {
    Message::agent(text).with_tool_name(BASH).as_stop()
}

/// A call of `bash` running `command` (its arguments `{"command": ...}`, as
/// mini-swe-agent's tool-calling models give them).
fn bash<'a>(command: &str) -> ToolCall<'a> {
    super::wire::command_call(BASH, command)
}

/// The commands a text-based model's message gave (or the user typed), as calls of
/// `bash` with the command as its `command`.
fn commands(actions: Vec<Action<'_>>) -> Vec<ToolCall<'_>> {
    actions
        .into_iter()
        .map(|action| {
            let call = bash(&action.command.0);
            match action.tool_call_id {
                Some(id) => call.with_id(id.into_cow()),
                None => call,
            }
        })
        .collect()
}

/// The model's turn of a reply mini-swe-agent could not parse, from its API response
/// (its first choice's message, its usage); where the response was not saved, the
/// reply's text (a text-based model's) or nothing.
fn unparsed_reply<'a>(extra: Extra<'a>, within: &'a str) -> Result<Message<'a>, Failure<'a>> {
    let (usage, choice, items) = match extra.response.and_then(|r| r.0) {
        Some(response) => (
            response.usage,
            response.choices.and_then(|c| c.into_iter().next()),
            response.output,
        ),
        None => (None, None, None),
    };
    let mut message = match (choice, items) {
        (None, Some(items)) => responses::turn(items)
            .map_err(|m| Failure::message(within, format!("a FormatError's API response's {m}")))?,
        (Some(choice), _) => {
            let line: JsonLine<'a> = parse_within(choice.message)?;
            let mut results = Out::new();
            let message = line.into_message(&mut results).map_err(|m| {
                Failure::message(within, format!("a FormatError's API response: {m}"))
            })?;
            match message {
                Some(message) if results.is_empty() && message.role == Role::Llm => message,
                _ => {
                    return Err(Failure::message(
                        within,
                        "a FormatError's API response whose message is not the model's",
                    ));
                }
            }
        }
        (None, None) => Message::llm(
            extra
                .model_response
                .map_or(Cow::Borrowed(""), Str::into_cow),
        ),
    };
    if let Some(usage) = usage {
        message = message.with_usage(usage.into_usage());
    }
    Ok(message)
}
