//! `doneseq parse`: DSL text in, canonical text (or a JSON report) out.

use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;

use doneseq::{DoneSequence, ParseError, SequenceObject};

/// Arguments of `doneseq parse`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Print one JSON object per input instead of text.
    #[arg(long)]
    json: bool,
    /// The sequences to parse; none: read one per line from standard input.
    dsl: Vec<String>,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut failed = false;
    // Standard input is parsed line by line as it comes, so that memory does not grow
    // with it.
    let inputs: Box<dyn Iterator<Item = Result<String, String>>> = if args.dsl.is_empty() {
        Box::new(StdinLines::default())
    } else {
        Box::new(args.dsl.iter().cloned().map(Ok))
    };
    for input in inputs {
        let input = match input {
            Ok(input) => input,
            Err(message) => {
                let _ = out.flush();
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
        };
        let input = input.as_str();
        let result = DoneSequence::parse(input);
        failed |= result.is_err();
        let written = if args.json {
            report(input, &result)
                .map_err(io::Error::from)
                .and_then(|line| writeln!(out, "{line}"))
        } else {
            match &result {
                Ok(seq) => writeln!(out, "{seq}"),
                Err(err) => {
                    // Flush what came before so that the two streams stay in order on a
                    // terminal.
                    let _ = out.flush();
                    eprint!("{err:#}");
                    Ok(())
                }
            }
        };
        if written.is_err() {
            // Standard output is gone (a closed pipe): nothing left to report to.
            return ExitCode::from(2);
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The longest line read from standard input, in bytes: past the parser's own limit
/// ([`doneseq::dsl::MAX_DSL_LEN`], whose error is reported as any other), so that a
/// line with no end cannot make the reader grow without bound.
const MAX_INPUT_LINE: usize = 16 << 20;

/// The lines of standard input that hold a sequence, one at a time (so that memory
/// does not grow with the input). Comments, blank lines and a byte order mark that
/// starts the input are skipped (documented in `--help`); a line that cannot be read,
/// is not UTF-8 or is longer than [`MAX_INPUT_LINE`] is an error naming it, and the
/// last item.
#[derive(Default)]
struct StdinLines {
    line: usize,
    done: bool,
}

impl Iterator for StdinLines {
    type Item = Result<String, String>;

    fn next(&mut self) -> Option<Result<String, String>> {
        while !self.done {
            let mut bytes = Vec::new();
            let read = io::stdin()
                .lock()
                // The line, its line end (`\n` or `\r\n`) not counted, and one byte to
                // see it is over.
                .take(MAX_INPUT_LINE as u64 + 3)
                .read_until(b'\n', &mut bytes);
            self.line += 1;
            let n = self.line;
            let line = match read {
                Ok(0) => {
                    self.done = true;
                    return None;
                }
                Err(e) => Err(format!("cannot read standard input: {e}")),
                Ok(_) if bytes.len() - line_end(&bytes) > MAX_INPUT_LINE => {
                    Err(format!("line {n}: longer than {MAX_INPUT_LINE} bytes"))
                }
                Ok(_) => String::from_utf8(bytes).map_err(|e| format!("line {n}: not UTF-8 ({e})")),
            };
            let mut line = match line {
                Ok(line) => line,
                Err(message) => {
                    self.done = true;
                    return Some(Err(message));
                }
            };
            for end in ["\n", "\r"] {
                if line.ends_with(end) {
                    line.pop();
                }
            }
            if n == 1 && line.starts_with('\u{feff}') {
                // The byte order mark some tools write first (Windows PowerShell's
                // UTF-8, Python's `utf-8-sig`): not the line's.
                line.drain(..'\u{feff}'.len_utf8());
            }
            // The DSL's whitespace (Python's `str.strip()`: Unicode plus U+001C..U+001F),
            // so that a line the parser would see as blank is skipped, not reported.
            let trimmed = line
                .trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c));
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            return Some(Ok(line));
        }
        None
    }
}

// One line of `parse --json`: typed, fields in alphabetical order (the output's order).

/// A line that parsed.
#[derive(serde::Serialize)]
struct ParsedJson<'a> {
    canonical: String,
    input: &'a str,
    ok: bool,
    sequence: SequenceJson,
}

/// The sequence in the object form (name and events).
#[derive(serde::Serialize)]
struct SequenceJson {
    events: Vec<doneseq::object::ElementObject>,
    name: Option<String>,
}

/// A line that did not parse.
#[derive(serde::Serialize)]
struct FailedJson<'a> {
    error: ErrorJson,
    input: &'a str,
    ok: bool,
}

/// A parse error: its machine name, its message and its byte span.
#[derive(serde::Serialize)]
struct ErrorJson {
    kind: &'static str,
    message: String,
    span: [usize; 2],
}

fn report(input: &str, result: &Result<DoneSequence, ParseError>) -> serde_json::Result<String> {
    match result {
        Ok(seq) => {
            let object = SequenceObject::from(seq);
            serde_json::to_string(&ParsedJson {
                canonical: seq.to_string(),
                input,
                ok: true,
                sequence: SequenceJson {
                    events: object.events,
                    name: object.name,
                },
            })
        }
        Err(err) => serde_json::to_string(&FailedJson {
            error: ErrorJson {
                kind: err.kind().name(),
                message: err.kind().to_string(),
                span: [err.span().start, err.span().end],
            },
            input,
            ok: false,
        }),
    }
}

/// The length of the line end (`\n` or `\r\n`) that `bytes` ends with, if any.
fn line_end(bytes: &[u8]) -> usize {
    if bytes.ends_with(b"\r\n") {
        2
    } else {
        usize::from(bytes.ends_with(b"\n"))
    }
}
