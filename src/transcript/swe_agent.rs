//! SWE-agent's trajectories: the `<instance id>.traj` a run saves (`sweagent run`,
//! `sweagent run-batch`; written after every step, `json.dumps(data, indent=2)`),
//! `{"environment", "trajectory", "history", "info", "replay_config"}`, SWE-agent 1's
//! and its earlier releases' alike.
//!
//! The messages are the agent's `history`: what it gave the model, OpenAI chat
//! messages with SWE-agent's own fields. The model's message (`assistant`) holds its
//! calls: a function-calling model's `tool_calls` (each named by SWE-agent's tool it
//! calls: `bash`, `str_replace_editor`, `submit`, ...), or, for a model whose command
//! SWE-agent parsed from its text, that command (`action`), a call named by the
//! command's first word (`open`, `edit`, `submit`, or the program bash runs) with
//! arguments `{"command": ...}`. The output of a command is the next message: a
//! `tool` message answering its call (`tool_call_ids`), or a `user` message right
//! after the model's message of a parsed command. A demonstration SWE-agent put
//! before the task (`is_demo`) is set-up text, a system message, whatever its role:
//! its calls were not this run's. A run that ended `submitted` ends on the output of
//! the command that submitted: that result is a stop message, its text the
//! submission (`info.submission`, the patch). A run that ended otherwise (a limit, an
//! error: `exit_cost`, `exit_context`, `submitted (exit_cost)` where SWE-agent
//! submitted the patch for it, ...) ends on a step SWE-agent wrote, not the model:
//! a message in the model's role with no command, and the output after it; it is not
//! a message (the stop conditions decide why a run stops).
//!
//! The `trajectory` (each model call's response, thought, action and observation
//! again, with the whole query it sent, and the replies SWE-agent refused and asked
//! again for, which the history does not keep), `environment`, `replay_config` and the
//! rest of `info` (costs, counts, the edited files) describe the run and give no
//! message.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::fast;
use super::parts::{Content, plain_text};
use super::record::{self, Failure, Out, parse, parse_within};
use super::wire::{self, Calls, RawArguments, Str};
use crate::{Message, ToolCall};

/// A trajectory, the fields read: its history's entries read (`E`: an [`Entry`]) or
/// kept as their text.
#[derive(Deserialize)]
#[serde(bound(deserialize = "'de: 'a, E: Deserialize<'de>"))]
pub(in crate::transcript) struct Trajectory<'a, E> {
    /// The agent's messages (absent in a retry agent's trajectory of attempts that
    /// has not chosen one yet).
    #[serde(default)]
    pub(in crate::transcript) history: Option<Vec<E>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) info: Option<Info<'a>>,
    /// A retry agent's attempts, each a trajectory of its own.
    #[serde(default)]
    pub(in crate::transcript) attempts: Option<serde::de::IgnoredAny>,
}

impl<E> Default for Trajectory<'_, E> {
    fn default() -> Self {
        Trajectory {
            history: None,
            info: None,
            attempts: None,
        }
    }
}

/// The run's info, the fields read.
#[derive(Deserialize, Default)]
pub(in crate::transcript) struct Info<'a> {
    /// Why the run ended (`submitted`, `exit_cost`, `submitted (exit_context)`, ...).
    #[serde(default, borrow)]
    pub(in crate::transcript) exit_status: Option<Str<'a>>,
    /// The patch the run submitted.
    #[serde(default, borrow)]
    pub(in crate::transcript) submission: Option<Str<'a>>,
}

/// One message of the history, the fields read: the others are SWE-agent's own
/// (`agent`, the agent's name; `message_type`; `thought`, which the content holds;
/// `thinking_blocks`, the model's reasoning, not its answer; `cache_control`, `tags`).
#[derive(Deserialize, Default)]
#[serde(bound(deserialize = "'de: 'a"))]
pub(in crate::transcript) struct Entry<'a> {
    #[serde(borrow)]
    pub(in crate::transcript) role: Str<'a>,
    #[serde(default, borrow)]
    pub(in crate::transcript) content: Option<Content<'a, RawArguments<'a>>>,
    /// A demonstration put before the task.
    #[serde(default)]
    pub(in crate::transcript) is_demo: Option<bool>,
    /// The command SWE-agent runs for the model's message (`null` in some saved
    /// demonstrations of function-calling models).
    #[serde(default, borrow)]
    pub(in crate::transcript) action: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) tool_calls: Option<Calls<'a, RawArguments<'a>>>,
    /// The call a tool's message answers (SWE-agent's list holds one).
    #[serde(default, borrow)]
    pub(in crate::transcript) tool_call_ids: Option<Vec<Str<'a>>>,
}

impl Entry<'_> {
    /// Whether this is the step SWE-agent writes in the model's role as it ends a run
    /// itself (why: `status`): no calls, and an empty action (SWE-agent 1's), or as
    /// its action the name of the limit or error the status names (its earlier
    /// releases': `exit_cost` in a run of `exit_cost` or `submitted (exit_cost)`).
    fn is_exit_step(&self, status: &str) -> bool {
        let Some(action) = self.action.as_ref().map(|a| a.0.trim()) else {
            return false;
        };
        let exit = status
            .strip_prefix("submitted (")
            .and_then(|s| s.strip_suffix(')'))
            .unwrap_or(status);
        &*self.role.0 == "assistant"
            && self.tool_calls.is_none()
            && (action.is_empty() || EXITS.contains(&action) && action == exit)
    }
}

/// How a run that the agent submitted ended.
const SUBMITTED: &str = "submitted";

/// The actions SWE-agent's earlier releases wrote for the step that ended a run on a
/// limit or an error.
const EXITS: [&str; 5] = [
    "exit_context",
    "exit_cost",
    "exit_error",
    "exit_format",
    "exit_api",
];

/// The messages of the trajectory `text`.
pub(super) fn read<'a>(text: &'a str, out: &mut Out<'a>) -> Result<(), Failure<'a>> {
    // One pass (a trajectory is read whole: scanned, else by serde); where anything
    // is wrong, a second, which keeps each entry's text to say where.
    let start = out.len();
    let read =
        record::scan_or_parse::<Trajectory<'a, Entry<'a>>>(text, fast::swe_agent::trajectory);
    if let Ok(trajectory) = read {
        let read = history(trajectory.history, trajectory.attempts.is_some(), text)
            .and_then(|history| read_history(history, |_| text, trajectory.info, out));
        if read.is_ok() {
            return Ok(());
        }
        out.truncate(start);
    }
    let located: Trajectory<'a, &'a RawValue> = parse(text)?;
    let raw = history(located.history, located.attempts.is_some(), text)?;
    let entries = raw
        .iter()
        .map(|raw| parse_within::<Entry<'a>>(raw.get()))
        .collect::<Result<_, _>>()?;
    read_history(entries, |i| raw[i].get(), located.info, out)
}

/// The trajectory's history, or an error where it has none (`attempts`: a retry
/// agent's trajectory of attempts).
fn history<'a, E>(
    history: Option<Vec<E>>,
    attempts: bool,
    text: &'a str,
) -> Result<Vec<E>, Failure<'a>> {
    history.ok_or_else(|| {
        Failure::message(
            text,
            if attempts {
                "a SWE-agent retry agent's trajectory of attempts without the one it chose \
                 (its history): read each attempt's own trajectory \
                 (attempt_<n>/<instance>.traj beside it)"
            } else {
                "a SWE-agent trajectory without its history"
            },
        )
    })
}

/// The messages of the history's `entries` (the `i`th's errors placed at `within(i)`),
/// in a run that ended as `info` says.
fn read_history<'a>(
    entries: Vec<Entry<'a>>,
    within: impl Fn(usize) -> &'a str,
    info: Option<Info<'a>>,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let info = info.unwrap_or_default();
    let count = entries.len();
    let status = info.exit_status.as_ref().map(|s| &*s.0);
    let submitted = status == Some(SUBMITTED);
    // A run SWE-agent ended: its last step is its own, if it is one (the model's
    // message of no command, then at most its output).
    let end = entries
        .iter()
        .rposition(|e| &*e.role.0 == "assistant")
        .filter(|&i| {
            status.is_some_and(|status| status != SUBMITTED && entries[i].is_exit_step(status))
                && count - i <= 2
        })
        .unwrap_or(count);
    // The submission (the patch; none where it was blank), the stop of a run that
    // submitted.
    let patch = info
        .submission
        .map(Str::into_cow)
        .filter(|p| !p.trim().is_empty());
    // The calls of the model's last message (name, id); right after it, whether its
    // command was parsed from its text (then its output is the `user` message after
    // it).
    let mut waiting: Vec<Waiting<'a>> = Vec::new();
    let mut after_turn: Option<bool> = None;
    for (i, entry) in entries.into_iter().enumerate().take(end) {
        let last = i + 1 == count;
        let fail = |m: String| {
            Failure::message(
                within(i),
                format!("history entry {} of {count}: {m}", i + 1),
            )
        };
        let text = plain_text(entry.content, "a SWE-agent message's content").map_err(fail)?;
        if entry.is_demo == Some(true) {
            out.push(Message::system(text));
            continue;
        }
        let parsed = after_turn.take() == Some(true);
        let call = match &*entry.role.0 {
            "system" => {
                out.push(Message::system(text));
                continue;
            }
            "assistant" => {
                let mut calls = match entry.tool_calls {
                    Some(calls) => calls.into_calls().map_err(fail)?,
                    None => Vec::new(),
                };
                let from_text = calls.is_empty();
                if from_text {
                    calls.extend(entry.action.and_then(|a| command(&a.0)));
                }
                waiting.clear();
                let mut turn = Message::llm(text);
                for call in calls {
                    let (name, arguments, id) = call.into_parts();
                    waiting.push(Waiting {
                        name: Some(name.clone()),
                        id: id.clone(),
                    });
                    turn = turn.with_tool_call(ToolCall::from_parts(name, arguments, id));
                }
                after_turn = (!waiting.is_empty()).then_some(from_text);
                out.push(turn);
                continue;
            }
            "tool" => match entry.tool_call_ids.as_deref() {
                None | Some([]) => waiting.first().cloned().unwrap_or_default(),
                Some([id]) => Waiting {
                    name: waiting
                        .iter()
                        .find(|c| c.id.as_deref() == Some(&*id.0))
                        .and_then(|c| c.name.clone()),
                    id: Some(id.0.clone()),
                },
                Some(ids) => {
                    return Err(fail(format!(
                        "a tool's message answering {} calls (SWE-agent's answer one)",
                        ids.len()
                    )));
                }
            },
            "user" if parsed => waiting.first().cloned().unwrap_or_default(),
            "user" => {
                out.push(Message::user(text));
                continue;
            }
            other => {
                return Err(fail(format!(
                    "a SWE-agent message of role \"{other}\" (expected system, user, \
                     assistant or tool)"
                )));
            }
        };
        // A command's output; the last of a run that submitted, the submission, where
        // it shows the patch (else the history stopped before the command that
        // submitted: the submission follows).
        if last && submitted && shows(&text, patch.as_deref()) {
            out.push(submission(patch, call));
            return Ok(());
        }
        out.push(answering(Message::agent(text), call));
    }
    if submitted {
        // The history ends before the submission (an earlier release's ends on the
        // model's message of the command that submitted): it follows, the result of
        // that command where its call waits.
        let call = match after_turn {
            Some(_) => waiting.first().cloned().unwrap_or_default(),
            None => Waiting::default(),
        };
        out.push(submission(patch, call));
    }
    Ok(())
}

/// Whether a command's output `text` shows the submission `patch` (its first line:
/// the output may be cut short, and the shell's line ends are `\r\n`); a blank
/// submission's output is SWE-agent's own words for no output.
fn shows(text: &str, patch: Option<&str>) -> bool {
    patch
        .and_then(|p| p.lines().map(str::trim).find(|l| !l.is_empty()))
        .is_none_or(|first| text.contains(first))
}

/// A call of the model's last message that waits for its output: its name and id.
#[derive(Clone, Default)]
struct Waiting<'a> {
    name: Option<Cow<'a, str>>,
    id: Option<Cow<'a, str>>,
}

/// The submission: the result of the command that submitted (`call`, where known)
/// and a stop message, its text the patch (empty where the submission was blank).
fn submission<'a>(patch: Option<Cow<'a, str>>, call: Waiting<'a>) -> Message<'a> {
    answering(Message::agent(patch.unwrap_or_default()), call).as_stop()
}

/// `message` as the result of `call`, where its name and id are known.
fn answering<'a>(mut message: Message<'a>, call: Waiting<'a>) -> Message<'a> {
    if let Some(name) = call.name {
        message = message.with_tool_name(name);
    }
    if let Some(id) = call.id {
        message = message.with_tool_call_id(id);
    }
    message
}

/// A command SWE-agent parsed from the model's text, as a call: named by its first
/// word, its arguments `{"command": ...}` (the command without the whitespace that
/// ends it). `None` for no command.
fn command<'a>(action: &str) -> Option<ToolCall<'a>> {
    let action = action.trim_end();
    let name = action.split_whitespace().next()?;
    Some(wire::command_call(name.to_owned(), action))
}
