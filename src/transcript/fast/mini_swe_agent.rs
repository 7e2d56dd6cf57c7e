//! mini-swe-agent's trajectories scanned straight from their bytes into the
//! [`Trajectory`] the serde path reads, converted by the same rules: the run's
//! `info` (its exit status and mini-swe-agent 1's regex), each message of its chat
//! models (the role, a text content, the tool calls, mini-swe-agent's `extra`: the
//! commands, the API response's usage and choices, the output's return code), the
//! trajectory's format; a Responses API model's entries (its response objects, their
//! output items and usage; its outputs). Anything the scanner is not sure of gives
//! up, and the serde path reads the trajectory.

use super::scan::{DEPTH, Scan, Seen};
use crate::transcript::mini_swe_agent::responses::OutputItem;
use crate::transcript::mini_swe_agent::{
    Action, AgentConfig, Choice, Entry, Extra, Info, Response, RunConfig, Saved, Trajectory,
};
use crate::transcript::wire::{Calls, Str, StringOrList};

/// The trajectory in `text` (a trimmed document) into `trajectory` (a default one),
/// if the scanner is sure of it: the keys the serde path reads, any other key
/// skipped (as serde does). `None` otherwise, `trajectory` then partly filled.
#[inline(never)]
pub(in crate::transcript) fn trajectory<'a>(
    text: &'a str,
    trajectory: &mut Trajectory<'a, Entry<'a>>,
) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        s.object(|s| {
            match_key!(s, {
                b"messages" => {
                    seen.once(0)?;
                    s.elements(2, |s| {
                        trajectory.messages.push(s.trajectory_entry(3)?);
                        Some(())
                    })?;
                },
                b"info" => {
                    seen.once(1)?;
                    trajectory.info = s.nullable(|s| s.run_info(2))?;
                },
                b"trajectory_format" => {
                    seen.once(2)?;
                    trajectory.trajectory_format = s.str()?;
                },
                _ => s.skip(2)?,
            });
            Some(())
        })?;
        // `messages` is required, as serde reads it.
        seen.has(0).then_some(())
    })
}

impl<'a> Scan<'a> {
    /// The run's `info`, its braces at nesting `depth`: its exit status and its
    /// configuration's agent's regex; the rest (costs, counts, versions, the
    /// submission) skipped, as serde does.
    fn run_info(&mut self, depth: usize) -> Option<Info<'a>> {
        let mut seen = Seen::default();
        let mut info = Info::default();
        self.object(|s| {
            match_key!(s, {
                b"exit_status" => {
                    seen.once(0)?;
                    info.exit_status = s.str()?;
                },
                b"config" => {
                    seen.once(1)?;
                    info.config = s.nullable(|s| s.run_config(depth + 1))?;
                },
                _ | b"model_stats" | b"mini_version" | b"submission" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(info)
    }

    /// The run's configuration (its braces at nesting `depth`): its agent's
    /// `action_regex`, nothing else read.
    fn run_config(&mut self, depth: usize) -> Option<RunConfig<'a>> {
        let mut seen = Seen::default();
        let mut config = RunConfig::default();
        self.object(|s| {
            match_key!(s, {
                b"agent" => {
                    seen.once(0)?;
                    config.agent = s.nullable(|s| {
                        let mut seen = Seen::default();
                        let mut agent = AgentConfig::default();
                        s.object(|s| {
                            match_key!(s, {
                                b"action_regex" => {
                                    seen.once(0)?;
                                    agent.action_regex = s.str()?;
                                },
                                _ => s.skip(depth + 2)?,
                            });
                            Some(())
                        })?;
                        Some(agent)
                    })?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(config)
    }

    /// One message of a trajectory (a chat model's, or a Responses API model's
    /// response object or output item), its braces at nesting `depth`.
    fn trajectory_entry(&mut self, depth: usize) -> Option<Entry<'a>> {
        if depth > DEPTH {
            return None;
        }
        let mut seen = Seen::default();
        let mut entry = Entry::default();
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"role" => {
                    seen.once(0)?;
                    entry.role = s.str()?;
                },
                b"content" => {
                    seen.once(1)?;
                    entry.content = s.nullable(|s| s.text_content(inner))?;
                },
                b"tool_calls" => {
                    seen.once(2)?;
                    entry.tool_calls = s.nullable(|s| s.calls(inner).map(Calls::scanned))?;
                },
                b"tool_call_id" => {
                    seen.once(3)?;
                    entry.tool_call_id = s.str()?;
                },
                b"extra" => {
                    seen.once(4)?;
                    entry.extra = s.nullable(|s| s.entry_extra(inner))?;
                },
                b"type" => {
                    seen.once(5)?;
                    entry.kind = s.str()?;
                },
                b"object" => {
                    seen.once(6)?;
                    entry.object = s.str()?;
                },
                b"output" => {
                    seen.once(7)?;
                    entry.output = s.nullable(|s| {
                        if s.peek()? == b'"' {
                            return s.string().map(StringOrList::Text);
                        }
                        s.array(inner, |s| s.output_item(inner + 1))
                            .map(StringOrList::List)
                    })?;
                },
                b"call_id" => {
                    seen.once(8)?;
                    entry.call_id = s.str()?;
                },
                b"usage" => {
                    seen.once(9)?;
                    entry.usage = s.nullable(|s| s.provider_usage(inner))?;
                },
                _ | b"function_call" | b"provider_specific_fields" | b"id" | b"created_at"
                | b"error" | b"incomplete_details" | b"instructions" | b"metadata" | b"model"
                | b"parallel_tool_calls" | b"temperature" | b"tool_choice" | b"tools"
                | b"top_p" | b"max_output_tokens" | b"previous_response_id" | b"reasoning"
                | b"status" | b"text" | b"truncation" | b"user" | b"store" => s.skip(inner)?,
            });
            Some(())
        })?;
        Some(entry)
    }

    /// mini-swe-agent's `extra` on a message, its braces at nesting `depth`.
    fn entry_extra(&mut self, depth: usize) -> Option<Extra<'a>> {
        let mut seen = Seen::default();
        let mut extra = Extra::default();
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"actions" => {
                    seen.once(0)?;
                    extra.actions = s.nullable(|s| s.array(inner, |s| s.command_run(inner + 1)))?;
                },
                b"response" => {
                    seen.once(1)?;
                    extra.response = s.nullable(|s| s.saved_response(inner))?;
                },
                b"returncode" => {
                    seen.once(2)?;
                    extra.returncode = s.nullable(|s| s.integer())?;
                },
                b"exception_info" => {
                    seen.once(3)?;
                    extra.exception_info = s.str()?;
                },
                b"interrupt_type" => {
                    seen.once(4)?;
                    extra.interrupt_type = s.str()?;
                },
                b"model_response" => {
                    seen.once(5)?;
                    extra.model_response = s.str()?;
                },
                b"exit_status" => {
                    seen.once(6)?;
                    extra.exit_status = s.str()?;
                },
                _ | b"cost" | b"timestamp" | b"raw_output" | b"submission" => s.skip(inner)?,
            });
            Some(())
        })?;
        Some(extra)
    }

    /// A command mini-swe-agent ran, its braces at nesting `depth`.
    fn command_run(&mut self, depth: usize) -> Option<Action<'a>> {
        let mut seen = Seen::default();
        let (mut command, mut tool_call_id) = (None, None);
        self.object(|s| {
            match_key!(s, {
                b"command" => {
                    seen.once(0)?;
                    command = Some(Str(s.string()?));
                },
                b"tool_call_id" => {
                    seen.once(1)?;
                    tool_call_id = s.str()?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(Action {
            command: command?,
            tool_call_id,
        })
    }

    /// A saved API response, at nesting `depth`: an object (its usage, its choices
    /// or a Responses API response's output items), or its `repr`, a string.
    fn saved_response(&mut self, depth: usize) -> Option<Saved<'a>> {
        if self.peek()? == b'"' {
            self.string()?;
            return Some(Saved(None));
        }
        let mut seen = Seen::default();
        let mut response = Response::default();
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"usage" => {
                    seen.once(0)?;
                    response.usage = s.nullable(|s| s.provider_usage(inner))?;
                },
                b"choices" => {
                    seen.once(1)?;
                    response.choices = s.nullable(|s| s.array(inner, |s| s.response_choice(inner + 1)))?;
                },
                b"output" => {
                    seen.once(2)?;
                    response.output = s.nullable(|s| s.array(inner, |s| s.output_item(inner + 1)))?;
                },
                _ | b"id" | b"created" | b"model" | b"object" | b"system_fingerprint"
                | b"service_tier" => s.skip(inner)?,
            });
            Some(())
        })?;
        Some(Saved(Some(response)))
    }

    /// An item of a Responses API response's output, its braces at nesting `depth`:
    /// its type, a message's content, a function call's name, arguments and id; the
    /// rest (ids, statuses, a reasoning's summary) skipped, as serde does.
    fn output_item(&mut self, depth: usize) -> Option<OutputItem<'a>> {
        let mut seen = Seen::default();
        let (mut kind, mut content, mut name, mut arguments, mut call_id) =
            (None, None, None, None, None);
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    kind = Some(Str(s.string()?));
                },
                b"content" => {
                    seen.once(1)?;
                    content = s.nullable(|s| s.text_content(inner))?;
                },
                b"name" => {
                    seen.once(2)?;
                    name = s.str()?;
                },
                b"arguments" => {
                    seen.once(3)?;
                    arguments = s.raw_arguments(inner)?;
                },
                b"call_id" => {
                    seen.once(4)?;
                    call_id = s.str()?;
                },
                _ | b"id" | b"status" | b"role" | b"summary" | b"encrypted_content" => {
                    s.skip(inner)?;
                },
            });
            Some(())
        })?;
        Some(OutputItem {
            kind: kind?,
            content,
            name,
            arguments,
            call_id,
        })
    }

    /// One of a response's choices, its braces at nesting `depth`: its message's
    /// JSON text (read only where mini-swe-agent could not parse the reply).
    fn response_choice(&mut self, depth: usize) -> Option<Choice<'a>> {
        let mut seen = Seen::default();
        let mut message = None;
        self.object(|s| {
            match_key!(s, {
                b"message" => {
                    seen.once(0)?;
                    message = Some(s.raw(depth + 1)?);
                },
                _ | b"finish_reason" | b"index" | b"provider_specific_fields" | b"logprobs" => {
                    s.skip(depth + 1)?;
                },
            });
            Some(())
        })?;
        Some(Choice { message: message? })
    }
}
