//! `check --follow`: a live log, read as it grows, one row per message printed as it
//! arrives.

use std::fs::File;
use std::io::{self, Read, Write};
use std::time::Duration;

use doneseq::Message;

/// How long to wait for a growing file to grow.
const POLL: Duration = Duration::from_millis(100);

/// A file read as it grows: at its end, wait for more rather than end.
pub(crate) struct Tail {
    file: File,
}

impl Tail {
    pub(crate) fn new(file: File) -> Tail {
        Tail { file }
    }
}

impl Read for Tail {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let n = self.file.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            std::thread::sleep(POLL);
        }
    }
}

/// One message's row, as JSON.
#[derive(serde::Serialize)]
struct RowJson<'a> {
    index: usize,
    role: &'static str,
    responder: Option<&'a str>,
    events: Option<&'a [String]>,
    /// Present (`true`) on the task's input only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    input: bool,
}

/// Prints one message's row and flushes it: its index, role, responder and the events
/// it satisfies (none for a system message or the task's input, which are not steps).
pub(crate) fn row(
    out: &mut impl Write,
    json: bool,
    index: usize,
    message: &Message,
    events: Option<&[String]>,
    input: bool,
) -> io::Result<()> {
    if json {
        let row = RowJson {
            index,
            role: message.role().as_str(),
            responder: message.responder(),
            events,
            input,
        };
        serde_json::to_writer(&mut *out, &row)?;
        out.write_all(b"\n")?;
    } else {
        let events = match events {
            Some(e) => e.join(" "),
            None if input => "input".to_owned(),
            None => "-".to_owned(),
        };
        writeln!(
            out,
            "{index}  {}  {}  {events}",
            message.role().as_str(),
            message.responder().unwrap_or("-")
        )?;
    }
    out.flush()
}
