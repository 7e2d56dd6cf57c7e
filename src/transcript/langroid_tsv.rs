//! Langroid's own task log: the tab-separated `logs/<task>.tsv` a `Task` writes as it
//! runs (`TaskConfig.enable_loggers`, on by default).
//!
//! The log has a header line, then a line per message the task logged: a mark
//! (`*` for the message a step ended with, the task's pending message; blank for a
//! responder's attempt that was not taken), the task's name, the responder, and the
//! message's `ChatDocLoggerFields` (`sender_entity`, `sender_name`, `recipient`,
//! `block`, `tool_type`, `tool`, `content`). A sub-task writes to its caller's log.
//!
//! What Langroid's done sequences match is the task's `response_sequence`: the
//! pending message after each step, added when it is a new one. So the run read here
//! is the first task's marked lines: its set-up (the system message, then the message
//! given to `run()`, the task's input), then each step's message (a task run again
//! logs its set-up again: its input is input too). An attempt, a sub-task's own
//! lines, and a marked line that repeats the one before (a step that found no valid
//! response leaves the pending message as it was, and logs it again) are not
//! messages of the run.

use std::borrow::Cow;

use super::{Format, TranscriptError, TranscriptErrorKind};
use crate::{Message, Role, ToolCall};

/// The header's first fields: how a Langroid task log starts.
const HEADER_START: &str = "\tTask\tResponder\t";

/// Whether `line` (as read, its line end not counted) is a Langroid task log's header.
pub(super) fn is_header(line: &[u8]) -> bool {
    let line = line.strip_prefix(b" ").unwrap_or(line);
    line.starts_with(HEADER_START.as_bytes())
}

/// The most fields a line may have (Langroid's logs have 10).
const MAX_FIELDS: usize = 32;

/// Where each field the reader needs is, by the header's names.
#[derive(Debug)]
struct Columns {
    task: usize,
    responder: usize,
    sender: usize,
    tool_type: usize,
    tool: usize,
    content: usize,
    /// How many fields a line has.
    count: usize,
}

/// A Langroid task log being read: its columns, and what the lines so far said.
#[derive(Debug)]
pub(super) struct Log {
    columns: Columns,
    /// The task whose run this is: the first line's.
    task: Option<Vec<u8>>,
    /// The task's last marked line, from its task field on: a marked line equal to it
    /// is the same pending message logged again.
    last: Vec<u8>,
    /// Where each field of the line split last starts (byte offsets), and one more
    /// entry: its end plus one (no allocation a line; the line is split once).
    starts: [usize; MAX_FIELDS + 1],
    /// In a run's set-up (the log's start, or a system message, which a task logs
    /// only as a run starts): its user message is the run's input.
    setup: bool,
    /// How the format came to be read, for errors: `given` or `detected`.
    how: &'static str,
}

impl Log {
    /// The log whose header is `line` (line `at` of the input); `detected` where
    /// `auto` found it.
    pub(super) fn new(line: &str, at: usize, detected: bool) -> Result<Log, TranscriptError> {
        let how = if detected { "detected" } else { "given" };
        let fail = |message: String| Log::error_in(how, at, 1, message);
        let names: Vec<&str> = line.split('\t').collect();
        if names.len() > MAX_FIELDS {
            return Err(fail(format!(
                "the header names {} columns: more than {MAX_FIELDS}",
                names.len()
            )));
        }
        let find = |name: &str| {
            names.iter().position(|n| *n == name).ok_or_else(|| {
                fail(format!(
                    "the header has no `{name}` column (a Langroid task log's header \
                     names Task, Responder, sender_entity, tool_type, tool and content)"
                ))
            })
        };
        Ok(Log {
            columns: Columns {
                task: find("Task")?,
                responder: find("Responder")?,
                sender: find("sender_entity")?,
                tool_type: find("tool_type")?,
                tool: find("tool")?,
                content: find("content")?,
                count: names.len(),
            },
            task: None,
            last: Vec::new(),
            starts: [0; MAX_FIELDS + 1],
            setup: true,
            how,
        })
    }

    /// Whether `line` (line `at`, its line end not counted) is a message of the run;
    /// what the next lines are read against is updated. An error where the line is
    /// not a line of the log. (Read as bytes: a line taken is checked as UTF-8 once,
    /// by the caller, as its message is made; one not taken is checked by the caller.)
    pub(super) fn takes(&mut self, line: &[u8], at: usize) -> Result<bool, TranscriptError> {
        if is_header(line) {
            return Err(self.error(
                at,
                1,
                "a second header: one Langroid task log a file (the header starts a task's log)",
            ));
        }
        self.split(line, at)?;
        let mark = self.field(line, 0);
        let marked = match mark {
            b"*" => true,
            b" " | b"" => false,
            other => {
                let other = String::from_utf8_lossy(other);
                return Err(self.error(
                    at,
                    1,
                    format!("the mark is {other:?}: expected `*` (a step's message) or a blank"),
                ));
            }
        };
        let task = self.field(line, self.columns.task);
        match &self.task {
            None => self.task = Some(task.to_vec()),
            Some(first) if first != task => return Ok(false),
            Some(_) => {}
        }
        if !marked {
            return Ok(false);
        }
        // The fields after the mark, as one text.
        let rest = &line[mark.len()..];
        if rest == self.last {
            return Ok(false);
        }
        self.last.clear();
        self.last.extend_from_slice(rest);
        Ok(true)
    }

    /// The message line `at` stands for, borrowing its texts: the line
    /// [`Log::takes`] took last (it is not split again).
    pub(super) fn message<'t>(
        &mut self,
        line: &'t str,
        at: usize,
    ) -> Result<Message<'t>, TranscriptError> {
        let fields = |i: usize| self.text(line, i);
        let column = |i: usize| column_of(line, fields(i));
        let c = &self.columns;
        let responder = fields(c.responder);
        // A responder is an entity, or a sub-task by its name (its message then says
        // who sent it).
        let (role, sub_task) = match entity(responder) {
            Some(role) => (role, None),
            None => {
                let sender = fields(c.sender);
                let role = entity(sender).ok_or_else(|| {
                    self.error(
                        at,
                        column(c.sender),
                        format!("sender_entity {sender:?} is not one of Langroid's entities (Entity.LLM, Entity.AGENT, Entity.USER, Entity.SYSTEM)"),
                    )
                })?;
                (role, Some(responder))
            }
        };
        let content = fields(c.content);
        let mut message = Message::new(role, Cow::Borrowed(content));
        if let Some(name) = sub_task {
            if name.is_empty() {
                return Err(self.error(at, column(c.responder), "the responder is empty"));
            }
            message = message.with_responder(name);
        }
        let tool = fields(c.tool);
        match (fields(c.tool_type), tool) {
            ("", "") => {}
            ("", _) | (_, "") => {
                return Err(self.error(
                    at,
                    column(c.tool_type),
                    format!(
                        "tool_type {:?} with tool {tool:?}: both or neither",
                        fields(c.tool_type)
                    ),
                ));
            }
            ("TOOL", name) => {
                message.tool_calls = json_tools(name, content).map_err(|m| TranscriptError {
                    kind: TranscriptErrorKind::ToolSearch,
                    ..self.error(at, column(c.content), m)
                })?;
            }
            ("FUNC", name) => message.tool_calls = vec![ToolCall::new(name, "")],
            ("OAI_TOOL", names) => {
                for name in names.split(',') {
                    if name.is_empty() {
                        return Err(self.error(
                            at,
                            column(c.tool),
                            format!("tool {names:?} has an empty name"),
                        ));
                    }
                    message.tool_calls.push(ToolCall::new(name, ""));
                }
            }
            (other, _) => {
                return Err(self.error(
                    at,
                    column(c.tool_type),
                    format!("tool_type {other:?}: expected TOOL, OAI_TOOL or FUNC"),
                ));
            }
        }
        // A run's set-up logs its system message, then the message given to `run()`:
        // the input, which Langroid never adds to the sequence. (A task run again
        // logs a set-up again, in the same log.)
        let setup = std::mem::replace(&mut self.setup, false);
        if sub_task.is_none() {
            match role {
                Role::System => self.setup = true,
                Role::User if setup => return Ok(message.with_input(true)),
                _ => {}
            }
        }
        Ok(message)
    }

    /// Splits `line` into its fields, as many as the header names.
    fn split(&mut self, line: &[u8], at: usize) -> Result<(), TranscriptError> {
        let mut count = 1;
        each_tab(line, |i| {
            if count < MAX_FIELDS {
                self.starts[count] = i + 1;
            }
            count += 1;
        });
        if count != self.columns.count {
            return Err(self.error(
                at,
                1,
                format!(
                    "{count} tab-separated fields where the header names {}",
                    self.columns.count
                ),
            ));
        }
        self.starts[count] = line.len() + 1;
        Ok(())
    }

    /// Where field `i` of the line split last is.
    fn span(&self, i: usize) -> std::ops::Range<usize> {
        self.starts[i]..self.starts[i + 1] - 1
    }

    /// Field `i` of `line`, the line split last.
    fn field<'t>(&self, line: &'t [u8], i: usize) -> &'t [u8] {
        line.get(self.span(i)).unwrap_or(b"")
    }

    /// Field `i` of `line`, the line split last, as text.
    fn text<'t>(&self, line: &'t str, i: usize) -> &'t str {
        // (Tabs are ASCII: every offset is a character boundary.)
        line.get(self.span(i)).unwrap_or("")
    }

    /// The error `message` at line `at`, column `column`.
    fn error(&self, at: usize, column: usize, message: impl Into<String>) -> TranscriptError {
        Log::error_in(self.how, at, column, message)
    }

    fn error_in(
        how: &str,
        at: usize,
        column: usize,
        message: impl Into<String>,
    ) -> TranscriptError {
        let format = Format::LangroidTsv;
        TranscriptError {
            line: at,
            column: Some(column),
            kind: TranscriptErrorKind::Message,
            message: format!("{}; format {format} ({how})", message.into()),
            format: Some(format),
        }
    }
}

/// Calls `each` with the offset of every tab in `line`, in order.
///
/// Eight bytes at a time: the fields are short (a search call per tab costs more than
/// the search), and most of a line's bytes are not tabs.
fn each_tab(line: &[u8], mut each: impl FnMut(usize)) {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const TABS: u64 = u64::from_ne_bytes([b'\t'; 8]);
    let chunks = line.chunks_exact(8);
    let rest = chunks.remainder();
    for (k, chunk) in chunks.enumerate() {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word) ^ TABS;
        // A high bit for each byte that is zero (a tab), and perhaps for a byte just
        // above one (the subtraction's borrow): each is checked.
        let mut candidates = x.wrapping_sub(ONES) & !x & HIGHS;
        while candidates != 0 {
            let byte = candidates.trailing_zeros() as usize / 8;
            if chunk[byte] == b'\t' {
                each(k * 8 + byte);
            }
            candidates &= candidates - 1;
        }
    }
    let base = line.len() - rest.len();
    for (i, &b) in rest.iter().enumerate() {
        if b == b'\t' {
            each(base + i);
        }
    }
}

/// The role a Langroid entity as the log writes it (`Entity.LLM`, or its value
/// `LLM`) stands for; `None` for any other text.
fn entity(text: &str) -> Option<Role> {
    let name = text.strip_prefix("Entity.").unwrap_or(text);
    [
        ("LLM", Role::Llm),
        ("AGENT", Role::Agent),
        ("USER", Role::User),
        ("SYSTEM", Role::System),
    ]
    .into_iter()
    .find_map(|(entity, role)| name.eq_ignore_ascii_case(entity).then_some(role))
}

/// A message's Langroid tool calls, whose first is named `name`: those in `content`
/// where it holds them whole, with their arguments; else (the log shortens a long
/// content) the one call the log names, its arguments unknown.
///
/// # Errors
///
/// The search for tools in `content` would parse more than it may (as the `langroid`
/// format's; never on a content Langroid shortened).
fn json_tools<'t>(name: &'t str, content: &'t str) -> Result<Vec<ToolCall<'t>>, String> {
    let calls = super::langroid::tool_calls(content)?;
    Ok(if calls.first().is_some_and(|call| call.name() == name) {
        calls
    } else {
        vec![ToolCall::new(name, "")]
    })
}

/// The 1-based column (in bytes) where `field`, a part of `line`, starts.
fn column_of(line: &str, field: &str) -> usize {
    super::offset_in(field, line) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tabs `each_tab` finds are the line's, wherever they are: in every place
    /// of a word, beside bytes that the word-at-a-time test could take for one (a
    /// byte one above a tab, after a tab), and in the bytes after the last word.
    #[test]
    fn each_tab_finds_every_tab_and_nothing_else() {
        let pieces: [&[u8]; 6] = [b"\t", b"\x08", b"\x0a", b"a", b"\xc3\xa9", b"\x89"];
        let mut line = Vec::new();
        for n in 0..4000u32 {
            line.clear();
            let mut k = n;
            for _ in 0..(n % 23) {
                line.extend_from_slice(pieces[(k % 6) as usize]);
                k = k / 6 + n;
            }
            let mut found = Vec::new();
            each_tab(&line, |i| found.push(i));
            let expected: Vec<usize> = (line.iter().enumerate())
                .filter(|(_, b)| **b == b'\t')
                .map(|(i, _)| i)
                .collect();
            assert_eq!(found, expected, "{line:?}");
        }
    }

    #[test]
    fn entities_by_name_and_by_value() {
        for (text, role) in [
            ("Entity.LLM", Some(Role::Llm)),
            ("LLM", Some(Role::Llm)),
            ("Entity.AGENT", Some(Role::Agent)),
            ("Agent", Some(Role::Agent)),
            ("user", Some(Role::User)),
            ("Entity.SYSTEM", Some(Role::System)),
            ("Entity.", None),
            ("helper", None),
            ("", None),
        ] {
            assert_eq!(entity(text), role, "{text}");
        }
    }
}
