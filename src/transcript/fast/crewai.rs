//! CrewAI's task outputs (`TaskOutput.model_dump()`, one a line) scanned straight
//! from their bytes: each message read as the chat scanner reads OpenAI's (converted
//! as the serde path converts it), the task's agent and final answer beside them,
//! then added by the same `crewai::read_scanned` the serde path's ends in. A task
//! with tool failures, a message with a key the chat scanner does not read, and
//! anything else it is not sure of give up, and the serde path reads the line.

use super::Chat;
use super::scan::{Scan, Seen};
use crate::Message;
use crate::transcript::crewai::{self, Scanned};
use crate::transcript::record::{self, Out};

/// The CrewAI task's output in `text` (a trimmed line), if the scanner is sure of
/// it: its `messages` added to `out` by `crewai::push` as they are read (a list of
/// them first, each moved twice more, cost 38 instructions a message; `out` given
/// `spare`'s allocation, the last line's list, where it is empty), `raw`, `agent`
/// (or an agent's `agent_role`) into `task` (a default one) and an empty
/// `tool_failures`; any other key skipped (as serde does). `None` otherwise, what it
/// added left in `out` for the caller to take back.
pub(in crate::transcript) fn task<'a>(
    text: &'a str,
    task: &mut Scanned<'a>,
    spare: &mut Vec<Message<'static>>,
    out: &mut Out<'a>,
) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        s.object(|s| {
            match_key!(s, {
                b"messages" => {
                    seen.once(0)?;
                    // Room for a task's few messages at once (growing from none
                    // costs more than allocating), in the last task's list.
                    record::reserve(out, 8, spare);
                    s.elements(2, |s| {
                        let mut chat = Chat::default();
                        s.chat(3, false, &mut chat)?;
                        // Most messages hold no tool results: added as they are
                        // (a walk of the empty list chained to the message cost 95
                        // instructions a message).
                        if chat.results.is_empty() {
                            if let Some(message) = chat.message {
                                crewai::push(message, out);
                            }
                            return Some(());
                        }
                        for message in chat.results.into_iter().chain(chat.message) {
                            crewai::push(message, out);
                        }
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
