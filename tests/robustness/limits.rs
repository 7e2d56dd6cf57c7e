//! Every limit, at and past its value, with worst-case inputs: each gives its typed
//! error, and a pathological input of a megabyte gets it at once (these inputs are
//! sized so that a hang or quadratic work would be obvious: minutes, not
//! milliseconds; no test measures time).

use doneseq::transcript::{
    Format, MAX_JSON_DEPTH, MAX_LINE_LEN, Reader, TranscriptError, TranscriptErrorKind,
    read_transcript,
};

const MB: usize = 1 << 20;

fn read_err(text: &[u8], format: Format) -> TranscriptError {
    read_transcript(text, format).expect_err("a bad transcript")
}

/// A user message whose `metadata` nests `depth` arrays.
fn nested(depth: usize) -> String {
    format!(
        r#"{{"role": "user", "metadata": {}{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

#[test]
fn json_depth_is_limited_everywhere_with_its_line() {
    // The line is one level, so `metadata` may nest MAX_JSON_DEPTH - 1 arrays.
    let ok = nested(MAX_JSON_DEPTH - 1);
    assert_eq!(
        read_transcript(ok.as_bytes(), Format::Jsonl).unwrap().len(),
        1
    );
    let deep = nested(MAX_JSON_DEPTH);
    let text = format!("{ok}\n\n{deep}\n{ok}\n");
    let err = read_err(text.as_bytes(), Format::Jsonl);
    assert_eq!(
        err.kind,
        TranscriptErrorKind::TooDeep {
            max: MAX_JSON_DEPTH
        }
    );
    let column = deep.find('[').unwrap() + MAX_JSON_DEPTH;
    assert_eq!((err.line, err.column), (3, Some(column)));
    assert!(err.to_string().contains("nested deeper than 64"), "{err}");
    // In a field that is read (arguments), in a string (not nesting), in an array.
    let args = format!(
        r#"{{"role": "llm", "tool_calls": [{{"name": "f", "arguments": {}}}]}}"#,
        "{\"a\": ".repeat(MAX_JSON_DEPTH) + "1" + &"}".repeat(MAX_JSON_DEPTH)
    );
    let err = read_err(args.as_bytes(), Format::Jsonl);
    assert_eq!(err.kind, TranscriptErrorKind::TooDeep { max: 64 });
    let in_string = format!(
        r#"{{"role": "user", "content": "{}"}}"#,
        "[{".repeat(MB / 2)
    );
    assert_eq!(
        read_transcript(in_string.as_bytes(), Format::Jsonl)
            .unwrap()
            .len(),
        1
    );
    let array = format!("[\n{},\n{}\n]", nested(1), nested(MAX_JSON_DEPTH - 1));
    let err = read_err(array.as_bytes(), Format::Auto);
    assert_eq!(
        (err.kind, err.line),
        (TranscriptErrorKind::TooDeep { max: 64 }, 3)
    );
}

/// A megabyte of brackets on one line: an error at the 65th, not a stack overflow
/// (serde_json alone stops at 128, except in skipped fields, which it walks without
/// recursion: 1 MB of `[` in `metadata` was accepted).
#[test]
fn a_megabyte_of_nesting_is_refused() {
    for (prefix, open) in [
        ("", "["),
        ("", "{\"a\":"),
        (r#"{"role": "user", "metadata": "#, "["),
        (r#"{"role": "user", "content": "#, "["),
    ] {
        let line = format!("{prefix}{}", open.repeat(MB / open.len()));
        for format in [Format::Auto, Format::Jsonl, Format::Langroid] {
            let err = read_err(line.as_bytes(), format);
            assert_eq!(
                err.kind,
                TranscriptErrorKind::TooDeep { max: 64 },
                "{prefix}{open}"
            );
            assert_eq!(err.line, 1);
        }
    }
}

#[test]
fn a_line_past_the_length_limit_is_refused_without_reading_on() {
    let first = "{\"role\": \"user\"}\n";
    let long = format!(
        "{{\"role\": \"user\", \"content\": \"{}\"}}\n",
        "x".repeat(MAX_LINE_LEN)
    );
    let text = format!("{first}{long}{first}");
    let mut reader = Reader::new(text.as_bytes(), Format::Jsonl);
    assert!(reader.next().unwrap().is_ok());
    let err = reader.next().unwrap().unwrap_err();
    assert_eq!(
        (err.kind, err.line),
        (TranscriptErrorKind::TooLong { max: MAX_LINE_LEN }, 2)
    );
    assert!(reader.next().is_none());
    // A whole JSON array counts as one line.
    let array = format!("[{}]", long.trim_end());
    let err = read_err(array.as_bytes(), Format::Auto);
    assert_eq!(err.kind, TranscriptErrorKind::TooLong { max: MAX_LINE_LEN });
}

/// Every error says what kind it is.
#[test]
fn transcript_errors_are_typed() {
    use TranscriptErrorKind::{Json, Message, NotUtf8};
    let cases: &[(&[u8], TranscriptErrorKind)] = &[
        (b"not json", Json),
        (b"{\"role\": \"llm\", \"colour\": 1}", Json),
        (b"{\"content\": \"x\"}", Json),
        (b"{\"role\": \"llm\", \"content\": 3}", Json),
        (b"{\"role\": \"robot\"}", Message),
        (
            b"{\"role\": \"llm\", \"tool_calls\": [{\"arguments\": {}}]}",
            Message,
        ),
        (
            b"{\"role\": \"llm\", \"content\": [{\"type\": \"video\"}]}",
            Message,
        ),
        (b"[{\"role\": \"user\"}, {\"role\": \"nobody\"}]", Message),
        (b"{\"role\": \"user\", \"content\": \"\xff\"}", NotUtf8),
    ];
    for &(text, kind) in cases {
        assert_eq!(
            read_err(text, Format::Auto).kind,
            kind,
            "{}",
            text.escape_ascii()
        );
    }
}

/// The Langroid tool search used to stop after 64 `{` in a message, silently losing
/// any tool after them; it now has a work budget instead, and past it an error.
#[test]
fn langroid_tool_search_is_bounded_and_loses_nothing() {
    let line = |content: &str| serde_json::json!({"role": "llm", "content": content}).to_string();
    // 10,000 braces of code, then a tool: found.
    let code = "if (x) { y(); }\n".repeat(10_000);
    let text = line(&format!("{code}{{\"request\": \"search\", \"q\": \"x\"}}"));
    let messages = read_transcript(text.as_bytes(), Format::Langroid).unwrap();
    assert_eq!(messages[0].tool_calls().len(), 1);
    assert_eq!(messages[0].tool_calls()[0].name(), "search");
    // Cut-off JSON nested a few levels, then a tool: found.
    let cut = format!("{}\"x\"", "{\"a\": [".repeat(8)).repeat(1000);
    let text = line(&format!("{cut} {{\"request\": \"search\"}}"));
    let messages = read_transcript(text.as_bytes(), Format::Langroid).unwrap();
    assert_eq!(messages[0].tool_calls()[0].name(), "search");
    // A megabyte of `{"a": ` that never closes would be parsed once per `{`: an
    // error on its line instead (and no tool after it silently lost).
    let hostile = line(&"{\"a\": ".repeat(MB / 6));
    let text = format!("{}\n{hostile}\n", line("hi"));
    let err = read_err(text.as_bytes(), Format::Langroid);
    assert_eq!((err.kind, err.line), (TranscriptErrorKind::ToolSearch, 2));
    // Other formats do not search the content.
    assert_eq!(
        read_transcript(text.as_bytes(), Format::Jsonl)
            .unwrap()
            .len(),
        2
    );
}

/// The CLI reads standard input a line at a time (so `yes T | doneseq parse` runs in
/// constant memory; it used to read all of it first) and a line or a configuration
/// file only up to a bound (`--config /dev/zero` used to grow until memory ran out).
#[cfg(all(feature = "cli", target_os = "linux"))]
#[test]
fn the_cli_reads_bounded_input() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let run = |args: &[&str], stdin: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_doneseq"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stdin.take().unwrap();
        // The child may stop reading early: a broken pipe is fine.
        let _ = pipe.write_all(stdin);
        drop(pipe);
        let out = child.wait_with_output().unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let mut input = b"T, A\n".to_vec();
    input.extend(std::iter::repeat_n(b'T', 16 * MB + 1));
    let (code, stdout, stderr) = run(&["parse"], &input);
    assert_eq!(code, Some(2));
    assert_eq!(
        stdout, "T, A\n",
        "the first line is parsed before the second is read"
    );
    assert!(
        stderr.starts_with("error: line 2: longer than 16777216 bytes"),
        "{stderr}"
    );
    // A line past the DSL's limit but within the reader's is a parse error, reported.
    let long = "T, ".repeat(30_000);
    let (code, _, stderr) = run(&["parse", "--json"], long.as_bytes());
    assert_eq!(code, Some(1), "{stderr}");

    let (code, _, stderr) = run(&["check", "--config", "/dev/zero", "-"], b"");
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("/dev/zero: longer than 16777216 bytes"),
        "{stderr}"
    );
}
