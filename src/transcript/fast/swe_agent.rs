//! SWE-agent's trajectories scanned straight from their bytes into the
//! [`Trajectory`] the serde path reads, converted by the same rules: the history's
//! entries (the role, the content, a demonstration's flag, the parsed command, the
//! tool calls, the ids a tool's message answers), the run's exit status and
//! submission, whether it holds a retry agent's attempts; the rest (the trajectory's
//! steps, most of its bytes, the configuration, the costs) skipped, checked as JSON.
//! Anything the scanner is not sure of gives up, and the serde path reads the
//! trajectory.

use super::scan::{DEPTH, Scan, Seen};
use crate::transcript::swe_agent::{Entry, Info, Trajectory};
use crate::transcript::wire::{Calls, Str};

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
                b"history" => {
                    seen.once(0)?;
                    trajectory.history = s.nullable(|s| s.array(2, |s| s.history_entry(3)))?;
                },
                b"info" => {
                    seen.once(1)?;
                    trajectory.info = s.nullable(|s| s.swe_agent_info(2))?;
                },
                b"attempts" => {
                    seen.once(2)?;
                    trajectory.attempts = s.present(2)?;
                },
                _ | b"trajectory" | b"replay_config" | b"environment" => s.skip(2)?,
            });
            Some(())
        })
    })
}

impl<'a> Scan<'a> {
    /// The run's `info`, its braces at nesting `depth`: its exit status and its
    /// submission; the rest (costs, counts, versions, the edited files) skipped, as
    /// serde does.
    fn swe_agent_info(&mut self, depth: usize) -> Option<Info<'a>> {
        let mut seen = Seen::default();
        let mut info = Info::default();
        self.object(|s| {
            match_key!(s, {
                b"exit_status" => {
                    seen.once(0)?;
                    info.exit_status = s.str()?;
                },
                b"submission" => {
                    seen.once(1)?;
                    info.submission = s.str()?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(info)
    }

    /// One entry of the history, its braces at nesting `depth`.
    fn history_entry(&mut self, depth: usize) -> Option<Entry<'a>> {
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
                    entry.role = Str(s.string()?);
                },
                b"content" => {
                    seen.once(1)?;
                    entry.content = s.nullable(|s| s.text_content(inner))?;
                },
                b"is_demo" => {
                    seen.once(2)?;
                    entry.is_demo = s.nullable(Scan::boolean)?;
                },
                b"action" => {
                    seen.once(3)?;
                    entry.action = s.str()?;
                },
                b"tool_calls" => {
                    seen.once(4)?;
                    entry.tool_calls = s.nullable(|s| s.calls(inner).map(Calls::scanned))?;
                },
                b"tool_call_ids" => {
                    seen.once(5)?;
                    entry.tool_call_ids =
                        s.nullable(|s| s.array(inner, |s| s.string().map(Str)))?;
                },
                _ | b"agent" | b"message_type" | b"thought" | b"thinking_blocks"
                | b"cache_control" | b"tags" => s.skip(inner)?,
            });
            Some(())
        })?;
        // `role` is required, as serde reads it.
        seen.has(0).then_some(entry)
    }
}
