//! rlm-code's run events (one a line) scanned straight from their bytes into the
//! [`Event`] the serde path reads, converted by the same `rlm_code::read`; a step's
//! action and observation scanned in the same pass, their text kept as written
//! beside the fields the conversion reads. Anything the scanner is not sure of gives
//! up, and the serde path reads the line.

use super::scan::{Scan, Seen};
use crate::transcript::rlm_code::{Action, Event, Observation};
use crate::transcript::wire::{RawJson, Str};

/// The rlm-code event in `text` (a trimmed line) into `event` (a default one), if the
/// scanner is sure of it: the keys the serde path reads, any other key skipped (as
/// serde does). `None` otherwise, `event` then partly filled. (Filled where it is
/// read: the struct is large, and each move of it a copy.)
pub(in crate::transcript) fn event<'a>(text: &'a str, event: &mut Event<'a>) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        s.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    event.kind = Some(Str(s.string()?));
                },
                b"run_id" => {
                    seen.once(1)?;
                    event.run_id = s.str()?;
                },
                b"task" => {
                    seen.once(2)?;
                    event.task = s.str()?;
                },
                b"action" => {
                    seen.once(3)?;
                    if let Some((action, text)) = s.nullable(|s| s.spanned(|s| s.action(2)))? {
                        event.action = Some(RawJson(text));
                        event.action_read = Some(action);
                    }
                },
                b"planner_raw" => {
                    seen.once(4)?;
                    event.planner_raw = s.str()?;
                },
                b"observation" => {
                    seen.once(5)?;
                    if let Some((observation, text)) = s.nullable(|s| s.spanned(|s| s.observation(2)))? {
                        event.observation = Some(RawJson(text));
                        event.observation_read = Some(observation);
                    }
                },
                b"reward" => {
                    seen.once(6)?;
                    event.reward = s.nullable(|s| s.float())?;
                },
                b"usage" => {
                    seen.once(7)?;
                    event.usage = s.nullable(|s| s.provider_usage(2))?;
                },
                b"completed" => {
                    seen.once(8)?;
                    event.completed = s.nullable(|s| s.boolean())?;
                },
                b"final_response" => {
                    seen.once(9)?;
                    event.final_response = s.str()?;
                },
                _ | b"environment" | b"framework" | b"timestamp" | b"step" | b"depth"
                | b"parent_run_id" | b"root_prompt_chars" | b"root_prompt_sha256"
                | b"role_usage" | b"steps" | b"total_reward" | b"cancelled" | b"harness" => {
                    s.skip(2)?;
                },
            });
            Some(())
        })?;
        // `type` is required, as serde reads it.
        seen.has(0).then_some(())
    })
}

impl<'a> Scan<'a> {
    /// A step's action: its name (`action`; any other key skipped, as serde does),
    /// its braces at nesting `depth`.
    fn action(&mut self, depth: usize) -> Option<Action<'a>> {
        let mut seen = Seen::default();
        let mut action = Action::default();
        self.object(|s| {
            match_key!(s, {
                b"action" => {
                    seen.once(0)?;
                    action.action = s.str()?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(action)
    }

    /// A step's observation (`stdout`, `stderr`, `error`, `success`; any other key
    /// skipped, as serde does), its braces at nesting `depth`.
    fn observation(&mut self, depth: usize) -> Option<Observation<'a>> {
        let mut seen = Seen::default();
        let mut observation = Observation::default();
        self.object(|s| {
            match_key!(s, {
                b"stdout" => {
                    seen.once(0)?;
                    observation.stdout = s.str()?;
                },
                b"stderr" => {
                    seen.once(1)?;
                    observation.stderr = s.str()?;
                },
                b"error" => {
                    seen.once(2)?;
                    observation.error = s.str()?;
                },
                b"success" => {
                    seen.once(3)?;
                    observation.success = s.nullable(|s| s.boolean())?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(observation)
    }
}
