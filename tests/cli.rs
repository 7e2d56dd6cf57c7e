//! The `doneseq` binary, run as a user would.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs the binary with `args`, writing `stdin` to it (the other CLI tests use this
/// too).
pub(crate) fn doneseq(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run doneseq");
    let mut pipe = child.stdin.take().unwrap();
    // The child may stop reading early (an input past a limit): a broken pipe is fine.
    let _ = pipe.write_all(stdin.unwrap_or_default());
    drop(pipe);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn parse_prints_the_canonical_form() {
    let out = doneseq(&["parse", "TOOL[calculator], agent", "L, L, L"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "T[calculator], A\nL{3}\n");
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn parse_renders_errors_and_exits_1() {
    let out = doneseq(&["parse", "T, A", "T[calc]]"], None);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "T, A\n");
    insta::assert_snapshot!(text(&out.stderr), @r"
    error: unexpected ']' (inside brackets, write it as '\]')
      |
    1 | T[calc]]
      |        ^
    ");
}

#[test]
fn parse_json_reports_each_input() {
    let out = doneseq(
        &["parse", "--json", "calc: T[calculator], A & !E", "C[(]"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[0],
        serde_json::json!({
            "input": "calc: T[calculator], A & !E",
            "ok": true,
            "canonical": "calc: T[calculator], A & !E",
            "sequence": {"name": "calc", "events": [
                {"event_type": "specific_tool", "tool_name": "calculator"},
                [{"event_type": "agent_response"}, {"event_type": "error", "negated": true}]
            ]}
        })
    );
    assert_eq!(
        lines[1],
        serde_json::json!({
            "input": "C[(]",
            "ok": false,
            "error": {"kind": "invalid_regex", "message": "invalid content regex: unclosed group", "span": [2, 3]}
        })
    );
    assert_eq!(lines.len(), 2);
}

#[test]
fn parse_reads_standard_input_line_by_line() {
    let input = b"# a comment\nT, A\n\n  tool  \r\nX\n";
    let out = doneseq(&["parse", "--json"], Some(input));
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let inputs: Vec<&str> = lines.iter().map(|l| l["input"].as_str().unwrap()).collect();
    assert_eq!(inputs, ["T, A", "  tool  ", "X"]);
    assert_eq!(lines[1]["canonical"], "T");
    assert_eq!(lines[2]["error"]["kind"], "unknown_event");

    let out = doneseq(&["parse"], Some(b"T, A\nL\n"));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "T, A\nL\n");
}

/// A byte order mark that starts the input (Windows PowerShell's UTF-8, Python's
/// `utf-8-sig`) is skipped; one on a later line is that line's text.
#[test]
fn parse_skips_a_byte_order_mark_that_starts_the_input() {
    let out = doneseq(&["parse"], Some(b"\xEF\xBB\xBFT, A\nL\n"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "T, A\nL\n");
    let out = doneseq(&["parse"], Some(b"T, A\n\xEF\xBB\xBFL\n"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("found '\\u{feff}'"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn parse_names_a_line_that_is_not_utf8() {
    let out = doneseq(&["parse"], Some(b"T\nA\xff\n"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("error: line 2: not UTF-8"),
        "{}",
        text(&out.stderr)
    );
}
