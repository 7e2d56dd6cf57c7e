//! CrewAI's task outputs (`TaskOutput.model_dump()`, one a line) scanned straight
//! from their bytes: each message read as the chat scanner reads OpenAI's (converted
//! as the serde path converts it), the task's agent and final answer beside them,
//! then added by the same `crewai::read_scanned` the serde path's ends in. A task
//! with tool failures, a message with a key the chat scanner does not read, and
//! anything else it is not sure of give up, and the serde path reads the line.

use super::Chat;
use super::scan::{Scan, Seen};
use crate::transcript::crewai::Scanned;

/// The CrewAI task's output in `text` (a trimmed line) into `task` (a default one),
/// if the scanner is sure of it: `messages`, `raw`, `agent` (or an agent's
/// `agent_role`) and an empty `tool_failures`; any other key skipped (as serde does).
pub(in crate::transcript) fn task<'a>(text: &'a str, task: &mut Scanned<'a>) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        s.object(|s| {
            match_key!(s, {
                b"messages" => {
                    seen.once(0)?;
                    // Room for a task's few messages at once (growing from none
                    // costs more than allocating).
                    task.messages.reserve(8);
                    s.elements(2, |s| {
                        let mut chat = Chat::default();
                        s.chat(3, false, &mut chat)?;
                        task.messages.append(&mut chat.results);
                        task.messages.extend(chat.message);
                        Some(())
                    })?;
                },
                b"raw" => {
                    seen.once(1)?;
                    task.raw = s.nullable(|s| s.string())?;
                },
                b"agent" => {
                    seen.once(2)?;
                    task.agent = s.nullable(|s| s.string())?;
                },
                b"agent_role" => {
                    seen.once(3)?;
                    task.agent_role = s.nullable(|s| s.string())?;
                },
                b"tool_failures" => {
                    seen.once(4)?;
                    // None (`[]` or `null`): a failure is the serde path's to read.
                    s.nullable(|s| s.elements(2, |_: &mut Scan<'a>| None))?;
                },
                _ | b"description" | b"name" | b"expected_output" | b"summary"
                | b"pydantic" | b"json_dict" | b"output_format" => s.skip(2)?,
            });
            Some(())
        })?;
        // `messages` is required, as serde reads it.
        seen.has(0).then_some(())
    })
}
