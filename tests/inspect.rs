//! Inspect AI's eval logs (`--format inspect`): a sample and a JSON log as Inspect
//! wrote them, each kind of message and content part, usage from the model events,
//! errors; `.eval` archives (zstd, deflate, several frames) and damaged ones; a log's
//! samples each a run of a corpus.

use std::path::{Path, PathBuf};

use doneseq::corpus::{
    Runs, check_file, check_files, check_files_in_turn, count_runs, is_one_transcript,
};
use doneseq::transcript::{EvalArchive, Format, MAX_LINE_LEN, TranscriptErrorKind};
use doneseq::{Monitor, TaskConfig, VerdictKind};

use crate::formats::{read, sample_text, summary, summary_of_values};

/// A sample of the messages `messages` (JSON objects), with `rest` (more of its
/// fields, each `"key": value`).
fn sample_of(messages: &[&str], rest: &str) -> String {
    let rest = if rest.is_empty() {
        String::new()
    } else {
        format!(", {rest}")
    };
    format!(
        r#"{{"id": 1, "epoch": 1, "input": "Go.", "target": "", "messages": [{}]{rest}}}"#,
        messages.join(", ")
    )
}

/// The messages of the sample `text`, read as `auto` detects it and as its format,
/// which agree.
fn read_both(text: &str) -> String {
    let given = read(text, Format::Inspect).unwrap();
    assert_eq!(read(text, Format::Auto).unwrap(), given);
    summary(&given)
}

fn error(text: &str) -> String {
    let e = read(text, Format::Auto).unwrap_err();
    assert_eq!(e.format, Some(Format::Inspect), "{e}");
    e.to_string()
}

fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// Each sample of the `.eval` log at `name`: its name and its messages.
fn samples(name: &str) -> Vec<(String, String)> {
    let mut log = EvalArchive::open(&path(name)).unwrap();
    (0..log.len())
        .map(|i| {
            let json = log.sample(i).unwrap();
            let text = std::str::from_utf8(&json).unwrap();
            (log.name(i).to_owned(), read_both(text))
        })
        .collect()
}

#[test]
fn a_json_log_of_one_sample_as_inspect_wrote_it() {
    // Written by Inspect AI 0.3.285 (`basic_agent` with a tool `add`, its scripted
    // `mockllm` model, `--log-format=json`): the system prompt and the input; a call
    // of add and its result; a call add refused (a ToolError); an answer without a
    // call, and what basic_agent tells the model then; the submission and its
    // result. Each model call's usage from its model event.
    let text = sample_text("inspect-log.json");
    let given = read(&text, Format::Inspect).unwrap();
    assert_eq!(read(&text, Format::Auto).unwrap(), given);
    insta::assert_snapshot!(summary_of_values(&given));
}

#[test]
fn each_sample_of_an_eval_log_however_it_is_compressed() {
    // The same run, a sample that crashed beside it (its tool raised: the sample's
    // error its last message), as Inspect writes a `.eval` log (zstd), as its earlier
    // releases did (deflate), and as it does past 200 MiB (zstd, several frames).
    let zstd = samples("examples/formats/inspect.eval");
    assert_eq!(samples("tests/data/inspect-deflate.eval"), zstd);
    assert_eq!(samples("tests/data/inspect-frames.eval"), zstd);
    let names: Vec<&str> = zstd.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["crashed_epoch_1", "solved_epoch_1"]);
    insta::assert_snapshot!(zstd[0].1, @r#"
    0 system "\nYou are a helpful assistant attempting to submit the correct answer. You have\nseveral functions available to help with finding the answer. Each message\nmay perform one function call. You will see the result of the function right\nafter sending the message. If you need to perform multiple actions, you can\nalways send more messages with subsequent function calls. Do some reasoning\nbefore your actions, describing what function calls you are going to use and\nhow they fit into your plan.\n\nWhen you have completed the task and have an answer, call the submit()\nfunction to report it.\n"
    1 user "What is 1+2?"
    2 llm call boom({}) id=Some("for_tool_call_14a2c05f-2430-46ca-83fd-c02f36282f47") tokens=90+7
    3 agent error="RuntimeError('the tool crashed')"
    "#);
}

#[test]
fn messages_and_content_parts() {
    insta::assert_snapshot!(read_both(&sample_of(&[
        r#"{"role": "system", "content": "Be brief."}"#,
        r#"{"role": "user", "content": "A screenshot.", "tool_call_id": ["c0"]}"#,
        r#"{"role": "user", "content": [{"type": "text", "text": "Look:"}, {"type": "image", "image": "attachment://a1"}, {"type": "text", "text": "what is it?"}], "source": "input"}"#,
        r#"{"id": "m1", "role": "assistant", "content": [{"type": "reasoning", "reasoning": "hmm", "signature": null, "redacted": false}, {"type": "text", "text": "A cat.", "refusal": null, "citations": null}], "tool_calls": null, "model": "m"}"#,
        r#"{"id": "m2", "role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "bash", "arguments": {"cmd": "ls"}, "parse_error": null, "view": null, "type": "function"}, {"id": "c2", "function": "python", "arguments": {}, "type": "function"}]}"#,
        r#"{"role": "tool", "content": "a.txt", "tool_call_id": "c1", "function": "bash", "error": null}"#,
        r#"{"role": "tool", "content": "", "tool_call_id": "c2", "function": "python", "error": {"type": "timeout", "message": "Command timed out before completing."}}"#,
        r#"{"role": "tool", "content": [{"type": "text", "text": "partial"}], "tool_call_id": "c3", "function": "python", "error": {"type": "permission", "message": ""}}"#,
        r#"{"role": "tool", "content": "late", "tool_call_id": null, "function": "python"}"#,
        r#"{"id": "m3", "role": "assistant", "content": [{"type": "tool_use", "tool_type": "web_search", "id": "ws1", "name": "web_search", "context": null, "arguments": "{\"query\": \"cats\"}", "result": "...", "error": null}, {"type": "text", "text": "attachment://t1"}]}"#,
    ], r#""attachments": {"t1": "A long answer Inspect moved aside.", "a1": "data:image/png;base64,AAAA"}"#)), @r#"
    0 system "Be brief."
    1 user "A screenshot."
    2 user "Look:\nwhat is it?"
    3 llm "A cat."
    4 llm call bash({"cmd": "ls"}) id=Some("c1") call python({}) id=Some("c2")
    5 agent "a.txt" answers=c1 tool=bash
    6 agent answers=c2 tool=python error="Command timed out before completing."
    7 agent "partial" answers=c3 tool=python error="the tool failed (permission)"
    8 agent "late" tool=python
    9 llm "A long answer Inspect moved aside." call web_search({"query": "cats"}) id=Some("ws1")
    "#);
}

#[test]
fn usage_is_the_model_event_whose_output_is_the_message() {
    let event = |id: &str, input: u64, output: u64, total: u64| {
        format!(
            r#"{{"event": "model", "model": "m", "input": [{{"role": "user", "content": "Go."}}], "tools": [], "output": {{"model": "m", "choices": [{{"message": {{"id": "{id}", "role": "assistant", "content": "x"}}, "stop_reason": "stop"}}], "usage": {{"input_tokens": {input}, "output_tokens": {output}, "total_tokens": {total}, "input_tokens_cache_read": 40}}}}}}"#
        )
    };
    let events = [
        r#"{"event": "sample_init", "sample": {"input": "Go."}, "state": {}}"#.to_owned(),
        // A scorer's model call: its output is no message of the sample's.
        event("scorer", 1, 1, 2),
        // Anthropic's: the total counts the cache reads the input does not.
        event("m2", 10, 5, 55),
        event("m1", 100, 20, 120),
    ];
    insta::assert_snapshot!(read_both(&sample_of(&[
        r#"{"role": "user", "content": "Go."}"#,
        r#"{"id": "m1", "role": "assistant", "content": "first"}"#,
        r#"{"id": "m2", "role": "assistant", "content": "second"}"#,
        r#"{"role": "assistant", "content": "no id: no usage"}"#,
    ], &format!(r#""events": [{}]"#, events.join(", ")))), @r#"
    0 user "Go."
    1 llm "first" tokens=100+20
    2 llm "second" tokens=50+5
    3 llm "no id: no usage"
    "#);
}

#[test]
fn a_samples_error_is_its_last_message() {
    insta::assert_snapshot!(read_both(&sample_of(&[
        r#"{"role": "user", "content": "Go."}"#,
    ], r#""error": {"message": "ValueError('boom')", "traceback": "...", "traceback_ansi": "..."}, "limit": null"#)), @r#"
    0 user "Go."
    1 agent error="ValueError('boom')"
    "#);
    // A limit ended it: no message.
    insta::assert_snapshot!(read_both(&sample_of(&[
        r#"{"role": "user", "content": "Go."}"#,
    ], r#""error": null, "limit": {"type": "message", "limit": 1}"#)), @r#"0 user "Go.""#);
}

#[test]
fn errors_name_the_message_and_the_field() {
    let role = error(&sample_of(
        &[
            r#"{"role": "user", "content": "Go."}"#,
            r#"{"role": "critic", "content": "no"}"#,
        ],
        "",
    ));
    assert!(
        role.contains("element 2 of 2: an Inspect message of role \"critic\""),
        "{role}"
    );
    let part = error(&sample_of(
        &[r#"{"role": "user", "content": [{"type": "hologram"}]}"#],
        "",
    ));
    assert!(
        part.contains("content part 0 has an unknown type \"hologram\" (expected one of text, tool_use, reasoning"),
        "{part}"
    );
    let call = error(&sample_of(
        &[r#"{"role": "assistant", "content": "", "tool_calls": [{"id": "c", "arguments": {}}]}"#],
        "",
    ));
    assert!(call.contains("missing field `function`"), "{call}");
    let id = error(&sample_of(
        &[r#"{"role": "tool", "content": "x", "tool_call_id": 7, "function": "f"}"#],
        "",
    ));
    assert!(
        id.contains("a tool message's tool_call_id is not a string"),
        "{id}"
    );
    let used = error(&sample_of(
        &[r#"{"role": "tool", "content": [{"type": "tool_use", "name": "x", "arguments": "{}"}]}"#],
        "",
    ));
    assert!(
        used.contains("a tool message holds a tool_use part"),
        "{used}"
    );
    // A JSON type error: its line and column.
    let text = sample_of(&["{\n\"role\": \"user\", \"content\": 7}"], "");
    let e = read(&text, Format::Inspect).unwrap_err();
    assert_eq!(
        (e.kind, e.line, e.column),
        (TranscriptErrorKind::Json, 2, Some(28))
    );
}

#[test]
fn a_json_log_holds_one_run() {
    let log = |samples: &str| {
        format!(
            r#"{{"version": 2, "status": "success", "eval": {{"task": "t"}}, "plan": {{}}, "results": null, "stats": {{}}{samples}}}"#
        )
    };
    let one = sample_of(&[r#"{"role": "user", "content": "Go."}"#], "");
    assert_eq!(
        read_both(&log(&format!(r#", "samples": [{one}]"#))),
        read_both(&one)
    );
    let two = error(&log(&format!(r#", "samples": [{one}, {one}]"#)));
    assert!(
        two.contains("an Inspect eval log of 2 samples, each its own run: check it as a corpus"),
        "{two}"
    );
    // Its header alone: no message.
    assert_eq!(read_both(&log("")), "");
    assert_eq!(read_both(&log(r#", "samples": []"#)), "");
}

/// The `.eval` fixture as Inspect's earlier releases wrote it (deflate), changed by
/// `damage`, in a file of its own.
fn damaged(name: &str, damage: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(path("tests/data/inspect-deflate.eval")).unwrap();
    damage(&mut bytes);
    let dir = std::env::temp_dir().join(format!("doneseq-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, bytes).unwrap();
    file
}

/// Where the central directory's second entry is (the first sample's: the first is
/// the journal's start).
fn first_sample_entry(bytes: &[u8]) -> usize {
    let entry = |from: usize| {
        from + bytes[from..]
            .windows(4)
            .position(|w| w == b"PK\x01\x02")
            .unwrap()
    };
    entry(entry(0) + 46 + "_journal/start.json".len())
}

#[test]
fn a_damaged_archive_is_an_error_naming_what_is_wrong() {
    let open_error = |file: &Path| EvalArchive::open(file).unwrap_err().to_string();
    let cut = damaged("cut.eval", |b| b.truncate(b.len() / 2));
    assert_eq!(
        open_error(&cut),
        "not a .eval log (a zip archive): no end of central directory"
    );
    let text = damaged("text.eval", |b| *b = b"{\"role\": \"user\"}".to_vec());
    assert!(open_error(&text).starts_with("not a .eval log"));
    // A sample's data changed: its stream or its CRC-32 says so.
    let sample_error = |file: &Path, i: usize| {
        let mut log = EvalArchive::open(file).unwrap();
        log.sample(i).unwrap_err().to_string()
    };
    let flipped = damaged("flipped.eval", |b| {
        let data = 30 + "_journal/start.json".len() + 40;
        b[data] ^= 0x55;
        let second = b[data + 1..]
            .windows(4)
            .position(|w| w == b"PK\x03\x04")
            .unwrap();
        let at = data + 1 + second + 30 + "samples/crashed_epoch_1.json".len() + 200;
        b[at] ^= 0x55;
    });
    let e = sample_error(&flipped, 0);
    assert!(
        e.starts_with("sample crashed_epoch_1: ")
            && (e.contains("deflate stream is damaged") || e.contains("CRC-32 does not match")),
        "{e}"
    );
    // Its data whole, its checksum not: the CRC-32 says so.
    let checksum = damaged("checksum.eval", |b| {
        let second = first_sample_entry(b);
        b[second + 16] ^= 1;
    });
    assert_eq!(
        sample_error(&checksum, 0),
        "sample crashed_epoch_1: its CRC-32 does not match: the archive is damaged"
    );
    // A size the directory says smaller than the data.
    let size = damaged("size.eval", |b| {
        let second = first_sample_entry(b);
        b[second + 24] ^= 0x10;
    });
    assert!(
        sample_error(&size, 0).starts_with("sample crashed_epoch_1: its deflate stream is damaged")
    );
    // A method not read (LZMA's, 14).
    let lzma = damaged("lzma.eval", |b| {
        let second = first_sample_entry(b);
        b[second + 10] = 14;
    });
    assert_eq!(
        sample_error(&lzma, 0),
        "sample crashed_epoch_1: it is compressed by method 14 (read: zstd, 93; deflate, 8; stored, 0)"
    );
    // A directory entry whose member is not where it says.
    let moved = damaged("moved.eval", |b| {
        let second = first_sample_entry(b);
        b[second + 42] ^= 1;
    });
    assert_eq!(
        sample_error(&moved, 0),
        "sample crashed_epoch_1: its local header is not where the directory says"
    );
}

#[test]
fn an_archive_damaged_anywhere_is_read_or_refused_never_a_panic() {
    // Cut at every length (in steps), and each byte of its directory and end changed:
    // each is opened and each of its samples read, or refused.
    let whole = std::fs::read(path("tests/data/inspect-deflate.eval")).unwrap();
    let directory = whole.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    let mut cases: Vec<Vec<u8>> = (0..whole.len())
        .step_by(37)
        .map(|n| whole[..n].to_vec())
        .collect();
    for at in directory..whole.len() {
        for change in [0x01, 0x80, 0xFF] {
            let mut bytes = whole.clone();
            bytes[at] ^= change;
            cases.push(bytes);
        }
    }
    let (mut opened, mut refused) = (0, 0);
    for (i, bytes) in cases.iter().enumerate() {
        let file = damaged(&format!("any-{i}.eval"), |b| b.clone_from(bytes));
        match EvalArchive::open(&file) {
            Ok(mut log) => {
                opened += 1;
                for sample in 0..log.len() {
                    let _ = log.sample(sample);
                }
            }
            Err(_) => refused += 1,
        }
        std::fs::remove_file(file).unwrap();
    }
    assert!(
        opened > 0 && refused > 0,
        "{opened} opened, {refused} refused"
    );
}

#[test]
fn each_sample_of_a_json_log_is_a_run_and_its_errors_are_placed_in_the_log() {
    // The `.eval` log's two samples, as Inspect writes them in a JSON log (indented),
    // read as that log's.
    let file = path("tests/data/inspect-log-two.json");
    let monitor = monitor("tool(submit, executed) | consecutive_errors(1)");
    let runs = check_files(&monitor, &[&file], Format::Auto);
    assert_eq!(count_runs(&[&file]), 2);
    let archived = check_files(
        &monitor,
        &[path("examples/formats/inspect.eval")],
        Format::Auto,
    );
    let strip = |r: &doneseq::corpus::RunSummary| {
        let (log, sample) = r.path.split_once('#').unwrap();
        assert!(log.ends_with(".json") || log.ends_with(".eval"), "{log}");
        let mut r = r.clone();
        r.path = sample.to_owned();
        r
    };
    assert_eq!(
        runs.iter().map(strip).collect::<Vec<_>>(),
        archived.iter().map(strip).collect::<Vec<_>>()
    );
    let whole = check_file(&monitor, &file, Format::Auto);
    assert!(
        whole.error.as_deref().is_some_and(|e| e
            .contains("an Inspect eval log of 2 samples, each its own run: check it as a corpus")),
        "{whole:?}"
    );
    // With a byte order mark first, the same.
    let mut marked = b"\xEF\xBB\xBF".to_vec();
    marked.extend(std::fs::read(&file).unwrap());
    let marked = damaged("marked.json", |b| *b = marked);
    let strip_path =
        |runs: Vec<doneseq::corpus::RunSummary>| runs.iter().map(strip).collect::<Vec<_>>();
    assert_eq!(
        strip_path(check_files(&monitor, &[&marked], Format::Auto)),
        strip_path(check_files(&monitor, &[&file], Format::Auto))
    );
    // The second sample's first tool message damaged: the error names its line in the
    // log (where the message begins).
    let text = std::fs::read_to_string(&file).unwrap();
    let second = text.find("\"id\": \"solved\"").unwrap();
    let role = second + text[second..].find("\"role\": \"tool\"").unwrap();
    let message = text[..role].rfind('{').unwrap();
    let line = 1 + text[..message].matches('\n').count();
    let bad = format!(
        "{}\"role\": \"critic\"{}",
        &text[..role],
        &text[role + 14..]
    );
    let file = damaged("bad.json", |b| *b = bad.into_bytes());
    let runs = check_files(&monitor, &[&file], Format::Auto);
    assert_eq!(runs[0].error, None);
    let error = runs[1].error.as_deref().unwrap();
    assert!(
        error.starts_with(&format!(
            "line {line}: element 4 of 10: an Inspect message of role \"critic\""
        )),
        "{error} (line {line})"
    );
    // The same log written compactly, on one line: the damaged sample's error names
    // its column in the log (the second sample's start counted on from the first's).
    let compact = minified(&text);
    let second = compact.find("\"id\":\"solved\"").unwrap();
    let role = second + compact[second..].find("\"role\":\"tool\"").unwrap();
    let bad = format!("{}\"role\":5{}", &compact[..role], &compact[role + 13..]);
    let at = role + "\"role\":5".len();
    let file = damaged("bad-compact.json", |b| *b = bad.clone().into_bytes());
    let runs = check_files(&monitor, &[&file], Format::Auto);
    assert_eq!(runs[0].error, None);
    let error = runs[1].error.as_deref().unwrap();
    assert!(
        error.starts_with(&format!("line 1, column {at}: ")),
        "{error} (column {at})"
    );
    // And with a line end before the second sample: its column counted from there.
    let start = bad[..second].rfind('{').unwrap();
    let broken = format!("{}\n{}", &bad[..start], &bad[start..]);
    let file = damaged("bad-two-lines.json", |b| *b = broken.into_bytes());
    let error = check_files(&monitor, &[&file], Format::Auto)[1]
        .error
        .clone()
        .unwrap();
    let column = at - start;
    assert!(
        error.starts_with(&format!("line 2, column {column}: ")),
        "{error} (column {column})"
    );
}

/// The JSON `text` without the whitespace between its tokens, its keys in their
/// order (as Inspect writes a log compactly).
fn minified(text: &str) -> String {
    let (mut out, mut in_string, mut escaped) = (String::new(), false, false);
    for c in text.chars() {
        if in_string {
            (in_string, escaped) = (escaped || c != '"', !escaped && c == '\\');
        } else if c.is_whitespace() {
            continue;
        } else {
            in_string = c == '"';
        }
        out.push(c);
    }
    out
}

/// A zip archive of one empty member, `name`.
fn empty_member_zip(name: &str) -> Vec<u8> {
    stored_zip(name, b"")
}

/// The CRC-32 (ISO-HDLC, as zip's) of `data`, a bit at a time.
fn crc32(data: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, entry) in (0u32..).zip(table.iter_mut()) {
        *entry = (0..8).fold(i, |c, _| {
            if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            }
        });
    }
    !data.iter().fold(!0u32, |c, &b| {
        table[usize::from(c.to_le_bytes()[0] ^ b)] ^ (c >> 8)
    })
}

/// A zip archive of one member, `name`, holding `data` stored (not compressed),
/// written field by field.
fn stored_zip(name: &str, data: &[u8]) -> Vec<u8> {
    let name = name.as_bytes();
    let len = u16::try_from(name.len()).unwrap();
    let size = u32::try_from(data.len()).unwrap().to_le_bytes();
    let mut sizes = crc32(data).to_le_bytes().to_vec();
    sizes.extend(size);
    sizes.extend(size);
    let mut zip = Vec::new();
    zip.extend(0x0403_4b50u32.to_le_bytes());
    zip.extend([20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // version, flags, method, time, date
    zip.extend(&sizes); // CRC-32, sizes
    zip.extend(len.to_le_bytes());
    zip.extend([0, 0]);
    zip.extend(name);
    zip.extend(data);
    let directory = zip.len();
    zip.extend(0x0201_4b50u32.to_le_bytes());
    zip.extend([20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    zip.extend(&sizes);
    zip.extend(len.to_le_bytes());
    zip.extend([0; 12]); // extra, comment, disk, attributes
    zip.extend(0u32.to_le_bytes()); // the local header's offset
    zip.extend(name);
    let size = u32::try_from(zip.len() - directory).unwrap();
    zip.extend(0x0605_4b50u32.to_le_bytes());
    zip.extend([0, 0, 0, 0, 1, 0, 1, 0]);
    zip.extend(size.to_le_bytes());
    zip.extend(u32::try_from(directory).unwrap().to_le_bytes());
    zip.extend([0, 0]);
    zip
}

#[test]
fn a_log_without_samples_is_a_run_said_to_hold_none() {
    let file = damaged("empty.eval", |b| *b = empty_member_zip("header.json"));
    let log = EvalArchive::open(&file).unwrap();
    assert!(log.is_empty());
    let monitor = monitor("max_turns(3)");
    let runs = check_files(&monitor, &[&file], Format::Auto);
    assert_eq!(count_runs(&[&file]), 1);
    assert_eq!(runs, [check_file(&monitor, &file, Format::Auto)]);
    assert_eq!((runs[0].kind, runs[0].error.as_deref()), (None, None));
    assert!(
        runs[0]
            .warning
            .as_deref()
            .is_some_and(|w| w.starts_with("an Inspect .eval log without samples")),
        "{runs:?}"
    );
    // A sample that is empty: an empty transcript.
    let file = damaged("blank.eval", |b| {
        *b = empty_member_zip("samples/1_epoch_1.json");
    });
    let runs = check_files(&monitor, &[&file], Format::Auto);
    assert!(runs[0].path.ends_with("blank.eval#1_epoch_1"), "{runs:?}");
    assert_eq!(
        runs[0].warning.as_deref(),
        Some(doneseq::corpus::NO_MESSAGE)
    );
}

/// A sample longer than a line may be (a long agentic run's, written on one line as
/// Inspect writes a `.eval` log's) is read, as a document: alone, and as a `.eval`
/// log's sample.
#[test]
fn a_sample_longer_than_a_line_is_read() {
    let text = "x".repeat(MAX_LINE_LEN);
    let sample = sample_of(
        &[
            &format!(r#"{{"role": "user", "content": "{text}"}}"#),
            r#"{"role": "assistant", "content": "Done.", "source": "generate"}"#,
        ],
        "",
    );
    assert!(!sample.contains('\n') && sample.len() > MAX_LINE_LEN);
    let messages = read(&sample, Format::Auto).unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0].content().len(), MAX_LINE_LEN);
    assert_eq!(messages[1].content(), "Done.");
    let file = damaged("long.eval", |b| {
        *b = stored_zip("samples/long_epoch_1.json", sample.as_bytes());
    });
    let mut log = EvalArchive::open(&file).unwrap();
    assert_eq!(log.sample(0).unwrap(), sample.as_bytes());
    let runs = check_files(&monitor("max_turns(1)"), &[&file], Format::Auto);
    assert_eq!(runs.len(), 1);
    assert!(runs[0].path.ends_with("long.eval#long_epoch_1"), "{runs:?}");
    assert_eq!(runs[0].error, None);
    assert_eq!(
        (runs[0].kind, runs[0].at),
        (Some(VerdictKind::Exhausted), Some(1))
    );
}

fn monitor(stop: &str) -> Monitor {
    let mut config = TaskConfig::default();
    config.stop = Some(stop.parse().unwrap());
    Monitor::new(config).unwrap()
}

/// A corpus's runs found once ([`Runs`]) are the ones the free functions find each
/// time, and check alike; a lone path is one transcript unless it is a log of a run
/// a sample.
#[test]
fn runs_found_once_are_the_corpus_and_check_as_it_does() {
    let monitor = monitor("tool(submit, executed) | consecutive_errors(1)");
    let calculator = path("examples/calculator.jsonl");
    let two = path("tests/data/inspect-log-two.json");
    let one = path("examples/formats/inspect-log.json");
    let archive = path("examples/formats/inspect.eval");
    let missing = path("tests/data/no-such-log.json");
    let paths = [
        calculator.clone(),
        two.clone(),
        archive.clone(),
        one.clone(),
        missing.clone(),
    ];
    let runs = Runs::find(&paths);
    assert_eq!((runs.len(), runs.is_empty()), (7, false));
    assert_eq!(runs.len(), count_runs(&paths));
    let checked = runs.check(&monitor, Format::Auto);
    assert_eq!(checked, check_files(&monitor, &paths, Format::Auto));
    assert_eq!(runs.check_in_turn(&monitor, Format::Auto), checked);
    let names: Vec<&str> = checked
        .iter()
        .map(|r| r.path.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "calculator.jsonl",
            "inspect-log-two.json#crashed_epoch_1",
            "inspect-log-two.json#solved_epoch_1",
            "inspect.eval#crashed_epoch_1",
            "inspect.eval#solved_epoch_1",
            "inspect-log.json",
            "no-such-log.json",
        ]
    );
    assert!(!runs.is_one_transcript(), "several paths");
    for (path, alone) in [
        (&calculator, true),
        (&one, true),
        (&missing, true),
        (&two, false),
        (&archive, false),
        // A `.eval` log that cannot be opened is one run, its error's, but a corpus.
        (&damaged("alone.eval", |b| b.truncate(100)), false),
    ] {
        let found = Runs::find(std::slice::from_ref(path));
        assert_eq!(found.is_one_transcript(), alone, "{}", path.display());
        assert_eq!(is_one_transcript(path), alone, "{}", path.display());
    }
    let none: [PathBuf; 0] = [];
    assert!(Runs::find(&none).is_empty() && !Runs::find(&none).is_one_transcript());
}

#[test]
fn each_sample_of_a_log_is_a_run_of_a_corpus() {
    let monitor = monitor("tool(submit, executed) | consecutive_errors(1)");
    let log = path("examples/formats/inspect.eval");
    let text = path("examples/formats/inspect-log.json");
    let paths = [
        log.clone(),
        text.clone(),
        damaged("cut2.eval", |b| b.truncate(100)),
    ];
    let runs = check_files(&monitor, &paths, Format::Auto);
    assert_eq!(count_runs(&paths), runs.len());
    assert_eq!(runs.len(), 4);
    assert_eq!(check_files_in_turn(&monitor, &paths, Format::Auto), runs);
    let seen: Vec<(String, Option<String>, Option<String>)> = runs
        .iter()
        .map(|r| {
            let name = r.path.rsplit('/').next().unwrap().to_owned();
            (name, r.fired.clone(), r.error.clone())
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "inspect.eval#crashed_epoch_1".to_owned(),
                Some("consecutive_errors(1)".to_owned()),
                None
            ),
            (
                "inspect.eval#solved_epoch_1".to_owned(),
                Some("consecutive_errors(1)".to_owned()),
                None
            ),
            (
                "inspect-log.json".to_owned(),
                Some("consecutive_errors(1)".to_owned()),
                None
            ),
            (
                "cut2.eval".to_owned(),
                None,
                Some("not a .eval log (a zip archive): no end of central directory".to_owned())
            ),
        ]
    );
    // The JSON log's sample is the archive's second, read alike.
    let strip = |r: &doneseq::corpus::RunSummary| {
        let mut r = r.clone();
        r.path.clear();
        r
    };
    assert_eq!(strip(&runs[1]), strip(&runs[2]));
    // One file, one run: a log of two samples is not one.
    let whole = check_file(&monitor, &log, Format::Auto);
    assert_eq!(
        whole.error.as_deref(),
        Some(
            "an Inspect .eval log of 2 samples, each its own run: check it as a corpus (check_files reads each sample as a run)"
        )
    );
}
