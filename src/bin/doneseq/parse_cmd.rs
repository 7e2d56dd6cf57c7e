//! `doneseq parse`: DSL text in, canonical text (or a JSON report) out.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use doneseq::{DoneSequence, ParseError, SequenceObject};
use serde_json::{Value, json};

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
    let inputs = if args.dsl.is_empty() {
        match read_stdin() {
            Ok(lines) => lines,
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
        }
    } else {
        args.dsl.clone()
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut failed = false;
    for input in &inputs {
        let result = DoneSequence::parse(input);
        failed |= result.is_err();
        let written = if args.json {
            writeln!(out, "{}", report(input, &result))
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

/// The lines of standard input that hold a sequence. Comments and blank lines are
/// skipped (documented in `--help`); a line that is not UTF-8 is an error naming it.
fn read_stdin() -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    for (n, line) in io::stdin().lock().split(b'\n').enumerate() {
        let line = line.map_err(|e| format!("cannot read standard input: {e}"))?;
        let line =
            String::from_utf8(line).map_err(|e| format!("line {}: not UTF-8 ({e})", n + 1))?;
        let line = line.strip_suffix('\r').unwrap_or(&line);
        // The DSL's whitespace (Python's `str.strip()`: Unicode plus U+001C..U+001F), so
        // that a line the parser would see as blank is skipped, not reported.
        let trimmed =
            line.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c));
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        lines.push(line.to_owned());
    }
    Ok(lines)
}

fn report(input: &str, result: &Result<DoneSequence, ParseError>) -> Value {
    match result {
        Ok(seq) => {
            let object = SequenceObject::from(seq);
            json!({
                "input": input,
                "ok": true,
                "canonical": seq.to_string(),
                "sequence": { "name": object.name, "events": object.events },
            })
        }
        Err(err) => json!({
            "input": input,
            "ok": false,
            "error": {
                "kind": err.kind().name(),
                "message": err.kind().to_string(),
                "span": [err.span().start, err.span().end],
            },
        }),
    }
}
