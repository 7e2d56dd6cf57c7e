//! `doneseq check` on the bundled examples: the classification tables are snapshots.

use std::process::{Command, Output};

fn check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .arg("check")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run doneseq")
}

fn stdout(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn calculator_example() {
    let out = check(&[
        "--config",
        "examples/calculator.config.json",
        "examples/calculator.jsonl",
    ]);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn search_example() {
    let out = check(&[
        "--config",
        "examples/search.config.json",
        "examples/search.jsonl",
    ]);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn openai_example() {
    let out = check(&[
        "--config",
        "examples/weather.config.json",
        "examples/weather.openai.json",
    ]);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn not_done_explains_each_sequence() {
    let out = check(&[
        "--seq",
        "L, L",
        "--seq",
        "named: T[search], A",
        "examples/calculator.jsonl",
    ]);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn json_report_with_all_matches() {
    let out = check(&[
        "--json",
        "--all",
        "--seq",
        "T, A",
        "examples/calculator.jsonl",
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["done"], true);
    assert_eq!(report["at"], 3);
    assert_eq!(report["fired"]["canonical"], "T, A");
    assert_eq!(report["fired"]["matched"], serde_json::json!([2, 3]));
    assert_eq!(report["all_matches"], serde_json::json!([3, 5]));
    // The first stop's answer: an error message is never an answer.
    assert_eq!(report["answer"], serde_json::Value::Null);
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 7, "--all reads the whole transcript");
    assert_eq!(
        steps[3]["events"],
        serde_json::json!(["A", "E", "@Calculator"])
    );
    assert_eq!(
        steps[0]["events"],
        serde_json::Value::Null,
        "system messages are not steps"
    );
}

#[test]
fn without_all_the_replay_stops_at_the_first_stop() {
    let out = check(&["--json", "--seq", "T, A", "examples/calculator.jsonl"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["steps"].as_array().unwrap().len(), 4);
    assert!(report.get("all_matches").is_none());
}

#[test]
fn input_errors_exit_1_with_the_line() {
    let dir = std::env::temp_dir().join(format!("doneseq-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"role\": \"user\", \"content\": \"hi\"}\n{\"role\": \"llm\", \"contnet\": \"x\"}\n",
    )
    .unwrap();
    let out = check(&["--seq", "L", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 2, column"), "{err}");
    assert!(err.contains("unknown field `contnet`"), "{err}");

    let out = check(&["--seq", "C[(]", "examples/calculator.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: --seq 1: ") && err.contains("invalid content regex"),
        "{err}"
    );
    assert!(err.contains("1 | C[(]"), "the caret drawing follows: {err}");

    let out = check(&["examples/calculator.jsonl"]);
    assert_eq!(out.status.code(), Some(1), "nothing to check");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn summary_prints_the_verdict_without_rows() {
    for (args, last_lines) in [
        (
            &["--config", "examples/calculator.config.json"][..],
            2, // the verdict and the answer
        ),
        (&["--seq", "L, L", "--seq", "named: T[search], A"][..], 3),
    ] {
        let table = stdout(&check(&[args, &["examples/calculator.jsonl"]].concat()));
        let summary = stdout(&check(
            &[args, &["--summary", "examples/calculator.jsonl"]].concat(),
        ));
        let tail: Vec<&str> = table.lines().rev().take(last_lines).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        assert_eq!(summary.lines().collect::<Vec<_>>(), tail, "{table}");
    }

    let full = check(&[
        "--json",
        "--all",
        "--seq",
        "T, A",
        "examples/calculator.jsonl",
    ]);
    let mut full: serde_json::Value = serde_json::from_str(&stdout(&full)).unwrap();
    let summary = check(&[
        "--json",
        "--all",
        "--summary",
        "--seq",
        "T, A",
        "examples/calculator.jsonl",
    ]);
    let summary: serde_json::Value = serde_json::from_str(&stdout(&summary)).unwrap();
    assert!(full.as_object_mut().unwrap().remove("steps").is_some());
    assert_eq!(summary, full);
}

/// System messages are not steps: indices map back to the transcript's around them.
#[test]
fn indices_are_the_transcripts_around_system_messages() {
    let transcript = [
        r#"{"role": "system", "content": "s"}"#,
        r#"{"role": "llm", "content": "", "tool_calls": [{"name": "calc"}]}"#,
        r#"{"role": "system", "content": "s"}"#,
        r#"{"role": "system", "content": "s"}"#,
        r#"{"role": "agent", "content": "42"}"#,
        r#"{"role": "llm", "content": "it is 42"}"#,
        r#"{"role": "system", "content": "s"}"#,
    ]
    .join("\n");
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_doneseq"))
            .arg("check")
            .args(args)
            .arg("-")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("run doneseq");
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(transcript.as_bytes())
            .unwrap();
        stdout(&child.wait_with_output().unwrap())
    };
    let text = run(&["--seq", "T, A, L", "--summary"]);
    assert_eq!(
        text,
        "done at message 5: sequence 0 \"T, A, L\" matched messages 1..=5\nanswer: it is 42\n"
    );
    let report: serde_json::Value =
        serde_json::from_str(&run(&["--seq", "T, A, L", "--json"])).unwrap();
    assert_eq!(report["fired"]["matched"], serde_json::json!([1, 4, 5]));
    let text = run(&["--seq", "T, A, U", "--summary"]);
    assert!(text.ends_with("element 3 failed on message 5\n"), "{text}");
}
