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
