//! smolagents' memory steps (one a line) scanned straight from their bytes into the
//! [`Step`] the serde path reads, converted by the same `smolagents::read`. Anything
//! the scanner is not sure of gives up, and the serde path reads the line.

use super::scan::{Scan, Seen};
use crate::transcript::smolagents::{Call, Function, OutputMessage, Step, StepError};
use crate::transcript::wire::{RawJson, Str, TokenCounts};

/// The smolagents step in `text` (a trimmed line) into `step` (a default one), if
/// the scanner is sure of it: the keys the serde path reads, any other key skipped
/// (as serde does). `None` otherwise, `step` then partly filled. (Filled where it is
/// read: the struct is large, and each move of it a copy.)
pub(in crate::transcript) fn step<'a>(text: &'a str, step: &mut Step<'a>) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        s.object(|s| {
            match_key!(s, {
                b"step_number" => {
                    seen.once(0)?;
                    step.step_number = s.nullable(|s| s.count())?;
                },
                b"tool_calls" => {
                    seen.once(1)?;
                    step.tool_calls = s.nullable(|s| s.array(2, |s| s.smolagents_call(3)))?;
                },
                b"error" => {
                    seen.once(2)?;
                    step.error = s.nullable(|s| s.step_error(2))?;
                },
                b"model_output_message" => {
                    seen.once(3)?;
                    // The message's calls are read only where the step's own are
                    // none (the conversion's rule): checked, not kept, where they
                    // came first.
                    let keep = step.tool_calls.as_ref().is_none_or(|c| c.is_empty());
                    step.model_output_message = s.nullable(|s| s.output_message(2, keep))?;
                },
                b"model_output" => {
                    seen.once(4)?;
                    step.model_output = s.nullable(|s| s.raw(2))?.map(RawJson);
                },
                b"observations" => {
                    seen.once(5)?;
                    step.observations = s.str()?;
                },
                b"action_output" => {
                    seen.once(6)?;
                    step.action_output = s.nullable(|s| s.raw(2))?.map(RawJson);
                },
                b"token_usage" => {
                    seen.once(7)?;
                    step.token_usage = s.nullable(|s| s.token_counts(2))?.map(TokenCounts::from);
                },
                b"is_final_answer" => {
                    seen.once(8)?;
                    step.is_final_answer = s.nullable(|s| s.boolean())?;
                },
                b"task" => {
                    seen.once(9)?;
                    step.task = s.str()?;
                },
                b"system_prompt" => {
                    seen.once(10)?;
                    step.system_prompt = s.str()?;
                },
                b"plan" => {
                    seen.once(11)?;
                    step.plan = s.str()?;
                },
                b"output" => {
                    // Present, whatever its value (`null` too), as serde reads it.
                    seen.once(12)?;
                    s.skip(2)?;
                    step.output = true;
                },
                _ | b"timing" | b"code_action" | b"observations_images" | b"task_images"
                | b"model_input_messages" => s.skip(2)?,
            });
            Some(())
        })?;
        Some(())
    })
}

impl<'a> Scan<'a> {
    /// A call (`id`, `function`: `name`, `arguments`; `type`, a function's
    /// `description` and any other key skipped, as serde does), its braces at nesting
    /// `depth`.
    fn smolagents_call(&mut self, depth: usize) -> Option<Call<'a>> {
        let mut seen = Seen::default();
        let mut call = Call::default();
        self.object(|s| {
            match_key!(s, {
                b"function" => {
                    seen.once(0)?;
                    call.function = s.smolagents_function(depth + 1)?;
                },
                b"id" => {
                    seen.once(1)?;
                    call.id = s.str()?;
                },
                _ | b"type" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        // `function` is required, as serde reads it.
        seen.has(0).then_some(call)
    }

    /// A call's `function`, its braces at nesting `depth`.
    fn smolagents_function(&mut self, depth: usize) -> Option<Function<'a>> {
        let mut seen = Seen::default();
        let mut function = Function::default();
        self.object(|s| {
            match_key!(s, {
                b"arguments" => {
                    seen.once(0)?;
                    function.arguments = s.raw_arguments(depth + 1)?;
                },
                b"name" => {
                    seen.once(1)?;
                    function.name = Str(s.string()?);
                },
                _ | b"description" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        // `name` is required, as serde reads it.
        seen.has(1).then_some(function)
    }

    /// The model's message (`content` as its JSON text, `tool_calls`; any other key
    /// skipped, as serde does), its braces at nesting `depth`. Its calls are checked
    /// as serde checks them but not kept unless `keep_calls`.
    fn output_message(&mut self, depth: usize, keep_calls: bool) -> Option<OutputMessage<'a>> {
        let mut seen = Seen::default();
        let mut message = OutputMessage::default();
        self.object(|s| {
            match_key!(s, {
                b"content" => {
                    seen.once(0)?;
                    message.content = s.nullable(|s| s.raw(depth + 1))?.map(RawJson);
                },
                b"tool_calls" => {
                    seen.once(1)?;
                    message.tool_calls = if keep_calls {
                        s.nullable(|s| s.array(depth + 1, |s| s.smolagents_call(depth + 2)))?
                    } else {
                        s.nullable(|s| {
                            s.elements(depth + 1, |s| s.smolagents_call(depth + 2).map(drop))
                        })?;
                        None
                    };
                },
                _ | b"role" | b"raw" | b"token_usage" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(message)
    }

    /// A step's error (`type`, `message`; any other key skipped, as serde does), its
    /// braces at nesting `depth`.
    fn step_error(&mut self, depth: usize) -> Option<StepError<'a>> {
        let mut seen = Seen::default();
        let mut error = StepError::default();
        self.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    error.kind = s.str()?;
                },
                b"message" => {
                    seen.once(1)?;
                    error.message = s.str()?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(error)
    }
}
