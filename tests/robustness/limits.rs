//! Every limit, at and past its value, with worst-case inputs: each gives its typed
//! error, and a pathological input of a megabyte gets it at once (these inputs are
//! sized so that a hang or quadratic work would be obvious: minutes, not
//! milliseconds; no test measures time).

use doneseq::dsl::{MAX_DSL_LEN, MAX_ELEMENTS, MAX_LITERALS, MAX_PATTERNS};
use doneseq::transcript::{
    Format, MAX_DOCUMENT_LEN, MAX_JSON_DEPTH, MAX_LINE_LEN, Reader, TranscriptError,
    TranscriptErrorKind, read_transcript,
};
use doneseq::{
    CompileError, DoneSequence, MAX_PATTERN_LEN, MAX_POSITIONS, MAX_REGEX_SET_SIZE, MAX_SEQUENCES,
    MAX_TASK_PATTERNS, Monitor, ParseErrorKind, TaskConfig,
};

const MB: usize = 1 << 20;

/// `piece` repeated to `len` bytes at most.
fn fill(prefix: &str, piece: &str, len: usize) -> String {
    format!(
        "{prefix}{}",
        piece.repeat((len - prefix.len()) / piece.len())
    )
}

/// Both forms of an error render (the caret form panicked past 65,535 columns), and
/// the caret form draws a bounded part of a long line.
fn assert_renders(err: &doneseq::ParseError) {
    assert!(!err.to_string().is_empty());
    let caret = format!("{err:#}");
    for line in caret.lines().skip(1) {
        assert!(line.chars().count() < 300, "{}", &line[..300]);
    }
}

/// A megabyte of anything is refused by its length before it is parsed; just under
/// the limit, the worst pieces (brackets that never close, escapes, quotes, `&`,
/// commas, repeat counts, regexes) fail on the limit they hit or on the syntax, in one
/// pass.
#[test]
fn pathological_dsl_fails_fast() {
    use ParseErrorKind as K;
    let pieces = [
        "T,", "[", "T[", "C[", "C[[", "\\", "\"", "!", "&", "T&", "{", "é", "T{9", "@",
    ];
    for piece in pieces {
        let text = fill("", piece, MB);
        let err = DoneSequence::parse(&text).unwrap_err();
        assert_renders(&err);
        assert_eq!(
            err.kind(),
            &K::TooLong {
                len: text.len(),
                max: MAX_DSL_LEN
            },
            "{piece}"
        );
    }
    let cases: &[(&str, &str, K)] = &[
        ("", "T, ", K::TooManyElements { max: MAX_ELEMENTS }),
        ("", "T & ", K::TooManyLiterals { max: MAX_LITERALS }),
        ("", "C[a], ", K::TooManyPatterns { max: MAX_PATTERNS }),
        ("T[", "[", K::UnclosedBracket),
        ("T[", "\\]", K::UnclosedBracket),
        ("C[", "[", K::UnclosedBracket),
        ("C[", "(", K::UnclosedBracket),
        ("\"", "a", K::UnclosedQuote),
        (
            "T{",
            "9",
            K::Unexpected {
                expected: "'}' after the repeat count",
                found: None,
            },
        ),
        (
            "L, ",
            "L",
            K::UnknownEvent {
                found: String::new(),
            },
        ),
    ];
    for (prefix, piece, kind) in cases {
        let text = fill(prefix, piece, MAX_DSL_LEN);
        let err = DoneSequence::parse(&text).unwrap_err();
        assert_renders(&err);
        match (err.kind(), kind) {
            (K::UnknownEvent { found }, K::UnknownEvent { .. }) => assert!(found.len() > 60_000),
            (got, kind) => assert_eq!(got, kind, "{prefix}{piece}..."),
        }
    }
    // A regex is refused by its length before any regex parsing: 64 KiB of `\pL`
    // took seconds and most of a gigabyte in the regex parser.
    let text = fill("C[", "\\pL", MAX_DSL_LEN - 1) + "]";
    let err = DoneSequence::parse(&text).unwrap_err();
    assert_eq!(
        err.kind(),
        &K::PatternTooLong {
            len: text.len() - 3,
            max: MAX_PATTERN_LEN
        }
    );
}

/// The task limits, each refused before anything is compiled (but the regex set's size,
/// which is what its compilation finds out).
#[test]
fn task_limits_are_typed_errors() {
    let monitor = |texts: Vec<String>| Monitor::new(TaskConfig::from_dsl(texts).unwrap());
    assert!(monitor(vec!["T".into(); MAX_SEQUENCES]).is_ok());
    let err = monitor(vec!["T".into(); MAX_SEQUENCES + 1]).unwrap_err();
    assert_eq!(
        err,
        CompileError::TooManySequences {
            count: MAX_SEQUENCES + 1,
            max: MAX_SEQUENCES
        }
    );
    let full = format!("_{{{MAX_ELEMENTS}}}");
    let sequences = MAX_POSITIONS / MAX_ELEMENTS;
    assert!(monitor(vec![full.clone(); sequences]).is_ok());
    let err = monitor(vec![full; sequences + 1]).unwrap_err();
    let count = MAX_POSITIONS + MAX_ELEMENTS;
    assert_eq!(
        err,
        CompileError::TooManyPositions {
            count,
            max: MAX_POSITIONS
        }
    );
    let distinct = |n: usize| (0..n).map(|i| format!("C[x{i}]")).collect::<Vec<_>>();
    assert!(monitor(distinct(MAX_TASK_PATTERNS)).is_ok());
    let err = monitor(distinct(MAX_TASK_PATTERNS + 1)).unwrap_err();
    let (count, max) = (MAX_TASK_PATTERNS + 1, MAX_TASK_PATTERNS);
    assert_eq!(err, CompileError::TooManyPatterns { count, max });
    // Each of these compiles alone (to over 3/4 of MAX_REGEX_SIZE, 1 MiB), and
    // together they do not fit in one set.
    let count = MAX_REGEX_SET_SIZE / (MB * 3 / 4) + 1;
    let big: Vec<String> = (0..count).map(|i| format!(r"C[{i}\d{{200}}]")).collect();
    assert!(matches!(
        monitor(big),
        Err(CompileError::RegexSetTooBig { .. })
    ));
}

/// A megabyte configuration of a quarter of a million sequences: read, then refused by
/// the sequence limit.
#[test]
fn a_megabyte_of_configuration_is_refused() {
    let config = format!(r#"{{"done_sequences": [{}"T"]}}"#, "\"T\",".repeat(MB / 4));
    let config: TaskConfig = serde_json::from_str(&config).unwrap();
    let err = Monitor::new(config).unwrap_err();
    assert!(
        matches!(err, CompileError::TooManySequences { .. }),
        "{err}"
    );
}

/// A megabyte of the inputs that are worst for FINAL detection (unclosed calls,
/// unclosed strings inside a call), in prose and in code: read in one pass.
#[test]
fn a_megabyte_of_hostile_final_calls_is_read() {
    use doneseq::answer::{FinalDetector, FinalOptions};
    for (prefix, piece) in [
        ("", "FINAL("),
        ("FINAL(", "\\'"),
        ("", "FINAL_VAR(FINAL_VAR("),
    ] {
        let text = fill(prefix, piece, MB);
        for options in [FinalOptions::text(), FinalOptions::code()] {
            let detector = FinalDetector::new(options);
            assert!(!detector.detect(&text).detected, "{prefix}{piece}");
            assert!(detector.find(&text).is_none());
        }
    }
}

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

/// The line and column (1-based, in bytes) of the first bracket of `text` one level
/// deeper than [`MAX_JSON_DEPTH`], outside strings (none in these tests' strings).
fn too_deep_at(text: &str) -> (usize, Option<usize>) {
    let mut depth = 0;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
                    return (
                        text[..i].matches('\n').count() + 1,
                        Some(i - line_start + 1),
                    );
                }
            }
            b']' | b'}' => depth -= 1,
            _ => {}
        }
    }
    panic!("not too deep: {text}");
}

/// A JSON document is refused too deep at its bracket one level too deep, however its
/// reading goes: its nesting is checked where serde first reads it, known where the
/// scanner reads it whole, else after the reading (a mini-swe-agent trajectory too
/// deep for the scanner, deep where serde reads it or in a key nothing reads; an
/// array whose elements are each shallow enough alone; a document of no known kind;
/// one cut short after its deep part), as it was when every document was walked first.
#[test]
fn a_document_too_deep_is_refused_where_it_is_however_it_is_read() {
    let trajectory = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/formats/mini-swe-agent.traj.json"
    ))
    .unwrap();
    let arrays = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let with = |key: &str, value: &str| {
        trajectory.replacen("{\n", &format!("{{\n  \"{key}\": {value},\n"), 1)
    };
    let documents = [
        // In the trajectory (one level), a key no reader reads.
        with("deep", &arrays(MAX_JSON_DEPTH)),
        // In `info` (two levels), a key read by serde's path.
        trajectory.replacen(
            "\"info\": {",
            &format!("\"info\": {{\"config\": {},", arrays(MAX_JSON_DEPTH - 1)),
            1,
        ),
        // A chat array, its second message 64 levels deep alone, 65 in the array.
        format!("[\n{},\n{}\n]", nested(1), nested(MAX_JSON_DEPTH - 1)),
        // No format's keys.
        format!("{{\"nothing\": {}}}", arrays(MAX_JSON_DEPTH)),
        // Cut short after its deep part.
        format!("{{\"messages\": {}", "[".repeat(MAX_JSON_DEPTH + 3)),
        // Past serde_json's own limit (128), where its look at the keys gave up and
        // `auto` took the first kind: told by its keys now, refused the same.
        with("deep", &arrays(MAX_JSON_DEPTH * 4)),
        format!("{{\"messages\": [{}]}}", nested(MAX_JSON_DEPTH * 4)),
    ];
    for document in &documents {
        for format in [Format::Auto, Format::MiniSweAgent] {
            let err = read_err(document.as_bytes(), format);
            assert_eq!(
                (err.kind, err.line, err.column),
                (
                    TranscriptErrorKind::TooDeep {
                        max: MAX_JSON_DEPTH
                    },
                    too_deep_at(document).0,
                    too_deep_at(document).1
                ),
                "{format:?}: {err}\n{document}"
            );
        }
    }
    // At the limit, read (by the scanner, and by serde where the scanner gives up).
    let at_limit = with("deep", &arrays(MAX_JSON_DEPTH - 1));
    let beyond_scanner = with("deep", &arrays(40));
    let messages = read_transcript(trajectory.as_bytes(), Format::Auto).unwrap();
    assert_eq!(messages.len(), 11);
    for document in [&at_limit, &beyond_scanner] {
        assert_eq!(
            read_transcript(document.as_bytes(), Format::Auto).unwrap(),
            messages
        );
    }
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
    // Escapes in strings: an escaped quote does not end its string (the brackets
    // after it are text), an escaped backslash before a quote does (the brackets after
    // it nest).
    let brackets = "[".repeat(MAX_JSON_DEPTH + 1);
    let escaped_quote = format!(r#"{{"role": "user", "content": "a\\\"{brackets}"}}"#);
    assert_eq!(
        read_transcript(escaped_quote.as_bytes(), Format::Jsonl)
            .unwrap()
            .len(),
        1
    );
    let deep_array = format!(
        "{}{}",
        "[".repeat(MAX_JSON_DEPTH),
        "]".repeat(MAX_JSON_DEPTH)
    );
    let escaped_backslash =
        format!(r#"{{"role": "user", "content": "a\\\\", "metadata": {deep_array}}}"#);
    let err = read_err(escaped_backslash.as_bytes(), Format::Jsonl);
    let column = escaped_backslash.find("[[").unwrap() + MAX_JSON_DEPTH;
    assert_eq!(
        (err.kind, err.column),
        (TranscriptErrorKind::TooDeep { max: 64 }, Some(column))
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

/// A line (or array) of exactly `MAX_LINE_LEN` bytes, its newline not counted, is read.
#[test]
fn a_line_at_the_length_limit_is_read() {
    let frame = "{\"role\": \"user\", \"content\": \"\"}".len();
    let line = |len: usize| {
        format!(
            "{{\"role\": \"user\", \"content\": \"{}\"}}",
            "x".repeat(len - frame)
        )
    };
    let at = line(MAX_LINE_LEN);
    assert_eq!(at.len(), MAX_LINE_LEN);
    for end in ["", "\n", "\r\n"] {
        // Also as the last line, with no newline.
        let text = format!("{{\"role\": \"llm\"}}\n{at}{end}");
        let messages = read_transcript(text.as_bytes(), Format::Jsonl).unwrap();
        assert_eq!(messages.len(), 2, "{end:?}");
        assert_eq!(messages[1].content().len(), MAX_LINE_LEN - frame);
    }
    let over = format!("{}\n", line(MAX_LINE_LEN + 1));
    let err = read_err(over.as_bytes(), Format::Jsonl);
    assert_eq!(
        (err.kind, err.line),
        (TranscriptErrorKind::TooLong { max: MAX_LINE_LEN }, 1)
    );
    // A JSON array on one line is a document, bounded as one (by MAX_DOCUMENT_LEN),
    // not as a line, where the format reads documents: read past MAX_LINE_LEN, also
    // as a line that ends right past it (the next line not taken into it).
    let array = |len: usize| format!("[{}]", line(len - 2));
    for len in [MAX_LINE_LEN, MAX_LINE_LEN + 1] {
        for end in ["", "\n", "\r\n"] {
            let text = format!("{}{end}", array(len));
            let messages = read_transcript(text.as_bytes(), Format::Auto).unwrap();
            assert_eq!(messages.len(), 1, "{len} {end:?}");
            assert_eq!(messages[0].content().len(), len - 2 - frame);
        }
    }
    // So is one message on one line, in a format that reads documents; a second
    // record is read as its own line.
    for (len, end) in [(MAX_LINE_LEN + 1, "\n"), (MAX_LINE_LEN + 2, "\r\n")] {
        let text = format!("{}{end}{{\"role\": \"assistant\"}}\n", line(len));
        let messages = read_transcript(text.as_bytes(), Format::OpenAi).unwrap();
        assert_eq!(messages.len(), 2, "{len} {end:?}");
        assert_eq!(messages[0].content().len(), len - frame);
        let bad = format!("{}{end}{{\"role\": 5}}\n", line(len));
        let err = read_err(bad.as_bytes(), Format::OpenAi);
        assert_eq!((err.kind, err.line), (TranscriptErrorKind::Json, 2));
        let long = format!("{}{end}{}\n", line(len), line(len));
        let err = read_err(long.as_bytes(), Format::OpenAi);
        assert_eq!(
            (err.kind, err.line),
            (TranscriptErrorKind::TooLong { max: MAX_LINE_LEN }, 2)
        );
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
    // In a format that reads documents, as the input's first record it would be one;
    // after it, it is a line, refused as one.
    let err = read_err(text.as_bytes(), Format::OpenAi);
    assert_eq!(
        (err.kind, err.line),
        (TranscriptErrorKind::TooLong { max: MAX_LINE_LEN }, 2)
    );
    // As a log of one record a line, even the first line is only a line.
    let array = format!("[{}]", long.trim_end());
    let err = read_err(array.as_bytes(), Format::Jsonl);
    assert_eq!(
        (err.kind, err.line),
        (TranscriptErrorKind::TooLong { max: MAX_LINE_LEN }, 1)
    );
}

/// An input that never ends: `head`, then `fill` over and over; it counts the bytes
/// it gave.
struct Endless {
    head: &'static [u8],
    fill: Vec<u8>,
    given: usize,
}

impl Endless {
    fn new(head: &'static [u8], fill: u8) -> Endless {
        Endless {
            head,
            fill: vec![fill; MB],
            given: 0,
        }
    }
}

impl std::io::Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = std::io::BufRead::fill_buf(self)?.len().min(buf.len());
        buf[..n].copy_from_slice(&std::io::BufRead::fill_buf(self)?[..n]);
        std::io::BufRead::consume(self, n);
        Ok(n)
    }
}

impl std::io::BufRead for Endless {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(if self.head.is_empty() {
            &self.fill
        } else {
            self.head
        })
    }

    fn consume(&mut self, n: usize) {
        self.given += n;
        if !self.head.is_empty() {
            self.head = &self.head[n..];
        }
    }
}

/// An input that never ends is refused at its bound, having been read no further: a
/// JSON document (on its first line, or on many) at MAX_DOCUMENT_LEN, anything else at
/// MAX_LINE_LEN.
#[test]
fn an_endless_input_is_refused_at_its_bound() {
    let cases: [(&[u8], u8, Format, usize); 5] = [
        (
            b"[{\"role\": \"user\", \"content\": \"",
            b'x',
            Format::Auto,
            MAX_DOCUMENT_LEN,
        ),
        (
            b"\n  {\"role\": \"user\", \"content\": \"",
            b'x',
            Format::Inspect,
            MAX_DOCUMENT_LEN,
        ),
        (b"[\n", b' ', Format::OpenAi, MAX_DOCUMENT_LEN),
        (b"", b'x', Format::Auto, MAX_LINE_LEN),
        (b"[", b' ', Format::Jsonl, MAX_LINE_LEN),
    ];
    for (head, fill, format, max) in cases {
        let mut input = Endless::new(head, fill);
        let mut reader = Reader::new(&mut input, format);
        let err = reader.next().unwrap().unwrap_err();
        assert_eq!(
            (err.kind, err.line),
            (
                TranscriptErrorKind::TooLong { max },
                1 + usize::from(head.first() == Some(&b'\n'))
            ),
            "{format}"
        );
        assert!(reader.next().is_none());
        drop(reader);
        // The bound, its line end and the byte that shows it is past it; no more
        // than one of the input's buffers (the first line's reading may end inside
        // one).
        assert!(input.given <= max + 3 + MB, "{format}: {}", input.given);
        assert!(input.given > max, "{format}: {}", input.given);
    }
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
    let run = |args: &[&str], stdin: &[u8]| {
        let out = crate::cli::doneseq(args, Some(stdin));
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
    // A line of exactly 16 MiB, newline not counted, is read (and is a DSL error).
    let mut input = vec![b'T'; 16 * MB];
    input.push(b'\n');
    let (code, _, stderr) = run(&["parse"], &input);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stderr.contains("longer than 16777216"), "{stderr}");
    // A line past the DSL's limit but within the reader's is a parse error, reported
    // (in text mode, with the line cut around the span: it panicked).
    let long = "T, ".repeat(30_000);
    let (code, _, stderr) = run(&["parse", "--json"], long.as_bytes());
    assert_eq!(code, Some(1), "{stderr}");
    let (code, _, stderr) = run(&["parse"], long.as_bytes());
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.starts_with("error: done sequence text is 90000 bytes long"));
    assert!(stderr.len() < 1000, "{stderr}");
    // A transcript's responders and tool names may be wider than `format!` pads
    // (65,535): the table cuts them to 60 characters (it panicked; and with many
    // distinct short names beside a long one, it padded every one to the long one's
    // width: 600 MB for a 1 MB transcript).
    let dir = std::env::temp_dir().join(format!("doneseq-wide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wide = dir.join("wide.jsonl");
    let name = "R".repeat(70_000);
    let log = format!(
        "{{\"role\": \"llm\", \"responder\": \"{name}\", \"content\": \"hi\"}}\n\
         {{\"role\": \"llm\", \"tool_calls\": [{{\"name\": \"{name}\"}}]}}\n"
    );
    std::fs::write(&wide, log).unwrap();
    let (code, stdout, stderr) = run(&["check", "--seq", "L, T", wide.to_str().unwrap()], b"");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, Some(0), "{stderr}");
    let rows: Vec<&str> = stdout.lines().collect();
    let cut = format!("{}…", "R".repeat(59));
    assert!(
        rows[1].starts_with(&format!("0  llm    {cut}  L @")),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].contains(&format!("T T[{}…", "R".repeat(55))),
        "{}",
        rows[2]
    );
    assert!(stdout.len() < 1000, "{stdout}");

    let (code, _, stderr) = run(&["check", "--config", "/dev/zero", "-"], b"");
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("/dev/zero: longer than 16777216 bytes"),
        "{stderr}"
    );
}

/// The answer protocol's limits, at and past their values.
#[test]
fn answer_limits_at_and_past_their_values() {
    use doneseq::answer::{
        AnswerValue, FinalDetector, FinalOptions, LiteralError, MAX_LITERAL_DEPTH,
        MAX_SUBMIT_FIELDS, RejectReason,
    };
    let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let mut value = AnswerValue::parse(&nested(MAX_LITERAL_DEPTH)).unwrap();
    for _ in 0..MAX_LITERAL_DEPTH {
        let AnswerValue::List(mut items) = value else {
            panic!("{value:?}")
        };
        value = items.pop().unwrap();
    }
    assert_eq!(value, AnswerValue::Int(1));
    assert_eq!(
        AnswerValue::parse(&nested(MAX_LITERAL_DEPTH + 1)),
        Err(LiteralError::TooDeep {
            at: MAX_LITERAL_DEPTH
        })
    );
    // A megabyte of nesting: the same error, at the same place.
    assert_eq!(
        AnswerValue::parse(&"[".repeat(MB)),
        Err(LiteralError::TooDeep {
            at: MAX_LITERAL_DEPTH
        })
    );

    let submit = |fields: usize| {
        let fields: Vec<String> = (0..fields).map(|i| format!("f{i}={i}")).collect();
        format!("SUBMIT({})", fields.join(", "))
    };
    let detector = FinalDetector::new(FinalOptions::text());
    let at = detector.detect(&submit(MAX_SUBMIT_FIELDS));
    assert!(at.rejected.is_empty(), "{:?}", at.rejected);
    assert!(at.detected);
    let past = detector.detect(&submit(MAX_SUBMIT_FIELDS + 1));
    assert!(!past.detected);
    assert_eq!(past.rejected[0].reason, RejectReason::TooManyFields);
}

/// Found by a review for quadratic work: a message's metrics were each looked up in
/// the ones before (a line of 80,000 took 37 s), `Monitor::classify` looked each tool
/// name up in the ones before (80,000 calls: 43 s), and `tool(x, executed)` searched
/// and shifted its pending ids for each result (40,000 calls and results: 27 s). Each
/// is linear or linear-logarithmic now: 100,000 of each (nothing is timed; quadratic
/// work would take minutes).
#[test]
fn many_metrics_calls_and_results_take_linear_time() {
    use doneseq::stop::Condition;
    use doneseq::{Message, Role, ToolCall};
    const N: usize = 100_000;
    let metrics: Vec<String> = (0..N).map(|i| format!("\"m{i}\": {i}")).collect();
    let line = format!(
        "{{\"role\": \"llm\", \"metrics\": {{{}}}}}",
        metrics.join(", ")
    );
    let messages = read_transcript(line.as_bytes(), Format::Jsonl).unwrap();
    assert_eq!(messages[0].metrics().len(), N);

    let mut config = TaskConfig::default();
    config.stop = Some(Condition::parse("tool(x, executed)").unwrap());
    let monitor = Monitor::new(config).unwrap();
    let mut request = Message::new(Role::Llm, "");
    for i in 0..N {
        request =
            request.with_tool_call(ToolCall::new(format!("t{i}"), "").with_id(format!("c{i}")));
        request = request.with_tool_call(ToolCall::new("x", "").with_id(format!("x{i}")));
    }
    assert_eq!(monitor.classify(&request).tools.len(), N + 1);
    let mut run = monitor.start();
    assert!(monitor.observe(&mut run, &request).outcome().is_none());
    // A result for no call of `x` is not its execution.
    let other = Message::new(Role::Agent, "ok").with_tool_call_id("c7");
    assert!(monitor.observe(&mut run, &other).outcome().is_none());
    // Answered in reverse order, the worst for a list searched from the front: each
    // answer is an execution (the run goes on matching after its stop), and a second
    // answer to the same call is not.
    let result = |i: usize| Message::new(Role::Agent, "ok").with_tool_call_id(format!("x{i}"));
    for i in (0..N).rev() {
        assert!(
            monitor.observe(&mut run, &result(i)).outcome().is_some(),
            "{i}"
        );
        if i % 1000 == 0 {
            assert!(
                monitor.observe(&mut run, &result(i)).outcome().is_none(),
                "{i}"
            );
        }
    }
}
