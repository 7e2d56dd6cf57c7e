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
fn stop_conditions_from_toml_and_yaml_agree() {
    let toml = stdout(&check(&[
        "--config",
        "examples/search.stop.toml",
        "examples/search.jsonl",
    ]));
    let yaml = stdout(&check(&[
        "--config",
        "examples/search.stop.yaml",
        "examples/search.jsonl",
    ]));
    assert_eq!(toml, yaml);
    insta::assert_snapshot!(toml);
}

#[test]
fn stop_expression_reports_every_condition_and_the_kind() {
    let out = check(&[
        "--stop",
        // Two turns: the user's question is the task's input, not a turn.
        r#"seq("T[calculator], A") & !consecutive_errors(1) | max_turns(2)"#,
        "--json",
        "examples/calculator.jsonl",
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["kind"], "done");
    assert_eq!(report["reason"], "condition");
    assert_eq!(report["condition"], r#"seq("T[calculator], A")"#);
    let kinds: Vec<&str> = report["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    // The negation fired too, with no kind of its own (the lowest): `seq` decides.
    assert_eq!(kinds, ["done", "exhausted", "exhausted"]);
    assert_eq!(report["conditions"][2]["detail"], "turns 2/2");
    assert_eq!(report["stop"]["children"][1]["progress"], "turns 2/2");
}

#[test]
fn not_stopped_shows_how_close_each_condition_is() {
    let out = check(&[
        "--stop",
        "max_turns(30) | tokens(input=10000) | tool(calculater)",
        "--tools",
        "calculator",
        "examples/calculator.jsonl",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.contains(r#"closest: "calculator""#), "{stderr}");
    // `check` replays anyway: its lint findings are warnings.
    assert!(
        stderr.starts_with("warning: tool(\"calculater\") can never fire"),
        "{stderr}"
    );
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn a_bad_stop_expression_is_an_input_error_with_a_caret() {
    let out = check(&["--stop", "max_turns(3", "examples/calculator.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unclosed '('"), "{stderr}");
    assert!(stderr.contains("         ^"), "{stderr}");
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
        let args = [&["check"], args, &["-"]].concat();
        stdout(&crate::cli::doneseq(&args, Some(transcript.as_bytes())))
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

fn lint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .arg("lint")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run doneseq")
}

#[test]
fn lint_exits_1_on_an_error_and_0_on_warnings() {
    let dir = std::env::temp_dir().join(format!("doneseq-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let error = dir.join("error.json");
    std::fs::write(&error, r#"{"stop": "tool(serch) | max_turns(0)"}"#).unwrap();
    let out = lint(&[error.to_str().unwrap(), "--tools", "search"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("error: tool(\"serch\") can never fire"),
        "{text}"
    );
    assert!(lines[0].ends_with("(at root.1.0)"), "{text}");
    assert!(lines[1].starts_with("warning: max_turns(0)"), "{text}");

    let warning = dir.join("warning.toml");
    std::fs::write(&warning, "stop = \"!final\"\n").unwrap();
    let out = lint(&[warning.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let finding: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(finding["severity"], "warning");
    assert_eq!(finding["kind"], "negation_only");
    assert_eq!(finding["path"], serde_json::json!([1]));

    // The bundled examples are clean.
    for config in [
        "examples/calculator.config.json",
        "examples/search.stop.toml",
    ] {
        let out = lint(&[config]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{config}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // A configuration that does not read is an error.
    let out = lint(&["examples/missing.json"]);
    assert_eq!(out.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

/// `--follow` prints each message's row as it arrives, before the log is complete,
/// and exits at the stop with the verdict.
#[test]
fn follow_prints_rows_as_the_log_grows_and_exits_at_the_stop() {
    let log = std::fs::read_to_string("examples/calculator.jsonl").unwrap();
    let lines: Vec<&str> = log.lines().collect();
    let args = ["--config", "examples/calculator.config.json"];
    // The first three messages: their rows arrive while the log is still growing.
    let (rows, last) = follow("jsonl", &args, &lines, 3, 3);
    assert_eq!(rows[2]["events"], serde_json::json!(["T", "T[calculator]"]));
    assert_eq!(
        (last["kind"].as_str(), last["at"].as_u64()),
        (Some("done"), Some(5))
    );
}

/// A Langroid task's own log, followed as Langroid writes it: the rows of its steps
/// only (not of the attempts between them), and the stop.
#[test]
fn follow_reads_a_langroid_task_log_as_langroid_writes_it() {
    let log = std::fs::read_to_string("examples/formats/langroid-task.tsv").unwrap();
    let lines: Vec<&str> = log.lines().collect();
    let args = ["--seq", "T[calculator], A, L, U@helper, L"];
    // The header, the set-up, two attempts and the first call: three rows.
    let (rows, last) = follow("tsv", &args, &lines, 6, 3);
    assert_eq!(rows[1]["input"], serde_json::json!(true));
    assert_eq!(rows[2]["events"], serde_json::json!(["T", "T[calculator]"]));
    // (`at` is the message's index: the set-up's two messages are not steps.)
    assert_eq!(
        (last["kind"].as_str(), last["at"].as_u64()),
        (Some("done"), Some(8))
    );
}

/// `check --follow --json ARGS` of a log that grows: its first `first` lines
/// written, the `rows` rows they give read while the log is still growing, then the
/// rest written. The rows read, and the verdict.
fn follow(
    extension: &str,
    args: &[&str],
    lines: &[&str],
    first: usize,
    rows: usize,
) -> (Vec<serde_json::Value>, serde_json::Value) {
    use std::io::{BufRead, BufReader, Write};
    let path =
        std::env::temp_dir().join(format!("doneseq-follow-{}.{extension}", std::process::id()));
    std::fs::write(&path, "").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .args(["check", "--follow", "--json"])
        .args(args)
        .arg(&path)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A watchdog: a regression that never stops must fail the test, not hang it.
    let pid = child.id();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(60));
        let _ = Command::new("kill").arg(pid.to_string()).status();
    });
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let append = |text: &str| {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        writeln!(file, "{text}").unwrap();
    };
    for line in &lines[..first] {
        append(line);
    }
    let mut read = Vec::new();
    for _ in 0..rows {
        let mut row = String::new();
        out.read_line(&mut row).unwrap();
        read.push(serde_json::from_str::<serde_json::Value>(&row).unwrap());
    }
    for line in &lines[first..] {
        append(line);
    }
    let status = child.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert!(status.success());
    let last = serde_json::from_str(rest.lines().last().unwrap()).unwrap();
    std::fs::remove_file(&path).ok();
    (read, last)
}

#[test]
fn check_help_lists_every_format() {
    let out = check(&["--help"]);
    let help = stdout(&out);
    for format in ["auto", "jsonl", "openai", "langroid"] {
        assert!(help.contains(format), "{format}: {help}");
    }
}

/// `check` over a corpus: directories searched recursively and globs, one line per
/// run in the paths' order, then the totals; JSON Lines with `--json`.
#[test]
fn a_corpus_gives_a_line_per_run_and_the_totals() {
    let dir = std::env::temp_dir().join(format!("doneseq-corpus-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("b/deeper")).unwrap();
    std::fs::copy("examples/calculator.jsonl", dir.join("a.jsonl")).unwrap();
    std::fs::copy("examples/search.jsonl", dir.join("b/deeper/c.jsonl")).unwrap();
    let out = check(&[
        "--config",
        "examples/calculator.config.json",
        "--json",
        dir.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0]["path"].as_str().unwrap().ends_with("a.jsonl"));
    assert_eq!(
        (lines[0]["kind"].as_str(), lines[0]["at"].as_u64()),
        (Some("done"), Some(5))
    );
    // The calculator's recorded final answer comes after the stop: too early.
    assert_eq!(lines[0]["early"], true);
    assert_eq!(
        (
            lines[0]["steps"].as_u64(),
            lines[0]["recorded_steps"].as_u64()
        ),
        // The question is the task's input: four steps to the stop, five recorded.
        (Some(4), Some(5))
    );
    assert!(lines[1]["path"].as_str().unwrap().ends_with("c.jsonl"));
    assert_eq!(lines[1]["kind"], serde_json::Value::Null);
    let total = &lines[2]["aggregate"];
    assert_eq!(
        (total["runs"].as_u64(), total["done"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(total["never_stopped"].as_u64(), Some(1));
    assert_eq!(total["steps_saved"].as_u64(), Some(1));
    // A glob finds the same runs; the text form ends with the totals.
    let pattern = format!("{}/**/*.jsonl", dir.display());
    let out = check(&["--config", "examples/calculator.config.json", &pattern]);
    let text = stdout(&out);
    assert!(text.contains("2 runs: 1 done"), "{text}");
    // A transcript that does not read is a line of its own, and the exit status is 1.
    std::fs::write(dir.join("broken.jsonl"), "{not json\n").unwrap();
    let out = check(&[
        "--config",
        "examples/calculator.config.json",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("broken.jsonl  error:"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `compare`: two configurations over one corpus, the runs where they differ, then both
/// sets of totals.
#[test]
fn compare_lists_the_runs_whose_verdicts_differ() {
    let dir = std::env::temp_dir().join(format!("doneseq-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let budget = dir.join("budget.json");
    std::fs::write(&budget, r#"{"stop": "max_turns(3)"}"#).unwrap();
    let same = dir.join("same.json");
    std::fs::copy("examples/calculator.config.json", &same).unwrap();
    let run = |b: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_doneseq"))
            .args([
                "compare",
                "--json",
                "--config",
                "examples/calculator.config.json",
                "--config",
            ])
            .arg(b)
            .args(["examples/calculator.jsonl", "examples/search.jsonl"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap()
    };
    let text = stdout(&run(&budget));
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("calculator.jsonl")
    );
    assert_eq!(
        (
            lines[0]["a"]["kind"].as_str(),
            lines[0]["b"]["kind"].as_str()
        ),
        (Some("done"), Some("exhausted"))
    );
    assert_eq!(lines[0]["a"]["answer"], "395");
    let totals = &lines[2]["aggregate"];
    assert_eq!(totals["differing"], 2);
    assert_eq!(
        (
            totals["a"]["done"].as_u64(),
            totals["b"]["exhausted"].as_u64()
        ),
        (Some(1), Some(2))
    );
    // The same rules: no run differs.
    let text = stdout(&run(&same));
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(
        (
            text.lines().count(),
            last["aggregate"]["differing"].as_u64()
        ),
        (1, Some(0))
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn help_lists_every_format_and_a_corpus_of_every_format_is_read() {
    let help = stdout(&check(&["--help"]));
    for format in doneseq::transcript::Format::ALL {
        assert!(
            help.contains(format.name()),
            "{} missing from:\n{help}",
            format.name()
        );
    }
    // The whole directory of samples, each detected on its own.
    let out = check(&["--stop", "final | done_signal", "examples/formats"]);
    let text = stdout(&out);
    assert!(
        text.contains("48 runs: 8 done") && text.contains(" 0 errors"),
        "{text}"
    );
    for name in [
        "anthropic-request.json",
        "adk-session.json",
        "autogen-task-result.json",
        "gemini-contents.json",
        "langchain-messages.json",
        "langroid-task.tsv",
        "otel-genai.json",
        "otel-genai-log-details.json",
        "otel-genai-logs.jsonl",
        "otel-langfuse.json",
        "otel-openinference.json",
        "openai-responses.json",
        "pydantic-ai-messages.json",
        "smolagents-code-steps.jsonl",
        "smolagents-steps.json",
        "strands-messages.json",
        "strands-session.jsonl",
        "strands-snapshot.json",
        "agno-runs.json",
        "llamaindex-memory.jsonl",
        "crewai-crew.json",
        "crewai-react.json",
        "otel-strands.json",
        "otel-strands-latest.json",
        "ollama-chat.jsonl",
        "openai-compatible.jsonl",
        "rlm-code-run.jsonl",
        "rlm-code-pure-rlm.jsonl",
        "locus-checkpoint.json",
        "claude-code-session.jsonl",
        "codex-rollout.jsonl",
        "codex-rollout-0.133.jsonl",
        "mini-swe-agent.traj.json",
        "mini-swe-agent-1.traj.json",
        "mini-swe-agent-responses.traj.json",
        "swe-agent.traj",
        "swe-agent-text.traj",
        "agent-framework-history.jsonl",
        "agent-framework-response.json",
    ] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
}

#[test]
fn a_pattern_past_its_backtracking_limit_is_a_warning_with_where() {
    let dir = std::env::temp_dir().join(format!("doneseq-overrun-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.jsonl");
    let slow = format!("{}b", "a".repeat(40));
    let log = format!(
        "{{\"role\":\"user\",\"content\":\"go\"}}\n{{\"role\":\"assistant\",\"content\":\"ok\"}}\n\
         {{\"role\":\"assistant\",\"content\":\"{slow}\"}}\n{{\"role\":\"assistant\",\"content\":\"bye\"}}\n"
    );
    std::fs::write(&path, log).unwrap();
    let path = path.to_str().unwrap();
    let expected = "warning: C[^(a|a)*\\1$] passed its backtracking limit (1000000 steps) on 1 \
                    message, first at message 2: taken as no match there";
    for extra in [&[][..], &["--json"], &["--summary"]] {
        let mut args = vec!["--seq", r"C[^(a|a)*\1$]", "--seq", "C[bye]"];
        args.extend_from_slice(extra);
        args.push(path);
        let out = check(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{extra:?}: {stderr}");
        // The other pattern still stops the run, at its message.
        assert!(stdout(&out).contains('3'), "{extra:?}");
    }
    // A corpus names the transcript.
    let copy = dir.join("copy.jsonl");
    std::fs::copy(path, &copy).unwrap();
    let out = check(&["--seq", r"C[^(a|a)*\1$]", path, copy.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("passed its backtracking limit").count(),
        2,
        "{stderr}"
    );
    assert!(stderr.contains(&format!("warning: {path}: C[")), "{stderr}");
    // So does compare, with the configuration's letter.
    let config = dir.join("slow.json");
    std::fs::write(&config, r#"{"done_sequences": ["C[^(a|a)*\\1$]"]}"#).unwrap();
    let plain = dir.join("plain.json");
    std::fs::write(&plain, r#"{"done_sequences": ["C[bye]"]}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .args(["compare", "--config", plain.to_str().unwrap()])
        .args(["--config", config.to_str().unwrap(), path])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("warning: B: {path}: C[")),
        "{stderr}"
    );
    assert!(!stderr.contains("warning: A:"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--json`'s rows against the library, message by message: the events are
/// `Monitor::classify`'s labels (null for what is not a step) and the progress lists
/// exactly the sequences with some (`Monitor::progress` not 0), keyed by their index;
/// with 130 sequences the automaton spans several words.
#[test]
fn json_rows_are_the_librarys_events_and_progress() {
    use doneseq::transcript::{Format, Reader};
    use doneseq::{DoneSequence, Monitor, TaskConfig};
    let extra: Vec<String> = (0..130)
        .map(|i| {
            [
                "L, A".to_owned(),
                format!("T[search], A, C[{i}]"),
                "U, L, A, L".to_owned(),
                "A@Search, L".to_owned(),
                "F".to_owned(),
            ][i % 5]
                .clone()
        })
        .collect();
    let cases = [
        (
            "examples/calculator.config.json",
            "examples/calculator.jsonl",
        ),
        ("examples/search.config.json", "examples/search.jsonl"),
        (
            "examples/weather.config.json",
            "examples/weather.openai.json",
        ),
    ];
    for (config_path, transcript) in cases {
        for extra in [&[][..], &extra[..]] {
            let mut args = vec!["--json", "--all", "--config", config_path];
            for seq in extra {
                args.extend(["--seq", seq]);
            }
            args.push(transcript);
            let report: serde_json::Value = serde_json::from_str(&stdout(&check(&args))).unwrap();
            let rows = report["steps"].as_array().unwrap();

            let text = std::fs::read_to_string(config_path).unwrap();
            let mut config: TaskConfig = serde_json::from_str(&text).unwrap();
            let mut sequences = config.done_sequences.clone().into_vec();
            sequences.extend(extra.iter().map(|s| DoneSequence::parse(s).unwrap()));
            config.done_sequences = sequences.into();
            let monitor = Monitor::new(config).unwrap();
            let mut run = monitor.start();
            let file = std::fs::File::open(transcript).unwrap();
            let mut reader = Reader::new(std::io::BufReader::new(file), Format::Auto);
            let mut index = 0;
            while let Some(message) = reader.next_borrowed() {
                let message = message.unwrap();
                let step = monitor.is_step(&run, &message);
                monitor.observe(&mut run, &message);
                let row = &rows[index];
                assert_eq!(row["index"], index);
                let events = step.then(|| monitor.classify(&message).labels());
                assert_eq!(
                    row["events"],
                    serde_json::json!(events),
                    "{transcript} {index}"
                );
                let progress: serde_json::Map<String, serde_json::Value> =
                    (0..monitor.sequences().len())
                        .map(|s| (s, monitor.progress(&run, s)))
                        .filter(|&(_, p)| p > 0)
                        .map(|(s, p)| (s.to_string(), p.into()))
                        .collect();
                assert_eq!(row["progress"], serde_json::Value::Object(progress));
                index += 1;
            }
            assert_eq!(index, rows.len(), "{transcript}: a row per message");
        }
    }
}

/// With `--json`, the rows go out as they are read: a transcript that breaks off
/// leaves one JSON object holding the rows read and the error, and exit status 1.
#[test]
fn a_bad_line_ends_the_json_rows_with_the_error() {
    let dir = std::env::temp_dir().join(format!("doneseq-check-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"role\": \"user\", \"content\": \"hi\"}\n{\"role\": \"llm\", \"content\": \"x\"}\n\
         {\"role\": \"llm\", \"contnet\": \"x\"}\n",
    )
    .unwrap();
    let out = check(&["--json", "--seq", "L, L", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["steps"].as_array().unwrap().len(), 2);
    assert_eq!(report["steps"][1]["progress"], serde_json::json!({"0": 1}));
    let error = report["error"].as_str().unwrap();
    assert!(
        error.contains("line 3") && error.contains("contnet"),
        "{error}"
    );
    assert!(
        report.get("done").is_none(),
        "no verdict for a run that did not read"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 3"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A reader that goes away (`check --json ... | head`): the rows' writer thread
/// cannot write, and the command ends with "cannot write" and exit status 1, neither
/// hanging nor panicking.
#[test]
fn json_rows_to_a_closed_pipe_end_with_cannot_write() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("doneseq-check-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("long.jsonl");
    let line = "{\"role\": \"llm\", \"content\": \"thinking it over\"}\n";
    std::fs::write(&log, line.repeat(50_000)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .args(["check", "--json", "--seq", "L, A", log.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut start = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut start).unwrap();
    assert!(start.starts_with(b"{\"steps\":[{\"index\":0,"));
    // The read end is closed here (dropped above).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "check hangs on a closed pipe"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write") && !err.contains("panicked"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A configuration written with the byte order mark some tools put first (Windows
/// PowerShell's UTF-8, Python's `utf-8-sig`) reads as it reads without it, in each of
/// its languages.
#[test]
fn a_configuration_starting_with_a_byte_order_mark_reads_the_same() {
    let dir = std::env::temp_dir().join(format!("doneseq-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (config, transcript) in [
        ("calculator.config.json", "examples/calculator.jsonl"),
        ("search.stop.toml", "examples/search.jsonl"),
        ("search.stop.yaml", "examples/search.jsonl"),
    ] {
        let plain = format!("examples/{config}");
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(std::fs::read(&plain).unwrap());
        let marked = dir.join(config);
        std::fs::write(&marked, bytes).unwrap();
        let expected = stdout(&check(&["--config", &plain, transcript]));
        let read = stdout(&check(&["--config", marked.to_str().unwrap(), transcript]));
        assert_eq!(read, expected, "{config}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A directory with no transcript in it is an error that says so (it was checked as
/// no runs, exit 0), and counts the compressed ones it skipped.
#[test]
fn a_directory_without_transcripts_is_an_error_naming_what_it_holds() {
    let dir = std::env::temp_dir().join(format!("doneseq-empty-corpus-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    std::fs::write(dir.join("README.md"), "not a transcript\n").unwrap();
    let path = dir.to_str().unwrap();
    let out = check(&["--seq", "A", path]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.contains("no transcript in it"), "{stderr}");
    assert!(!stderr.contains("compressed"), "{stderr}");
    std::fs::write(dir.join("nested/run.jsonl.gz"), b"\x1f\x8b").unwrap();
    std::fs::write(dir.join("run.json.zst"), b"\x28\xb5\x2f\xfd").unwrap();
    let out = check(&["--seq", "A", path]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        stderr.contains("2 compressed (.gz, .zst): decompress them first"),
        "{stderr}"
    );
    // With a transcript beside them, the corpus is that one run; with a trajectory
    // as SWE-bench's published runs name theirs (`<instance>.traj`), two.
    std::fs::copy("examples/calculator.jsonl", dir.join("calculator.jsonl")).unwrap();
    let out = check(&["--seq", "A", path]);
    assert!(stdout(&out).contains("1 runs:"));
    let trajectory = dir.join("nested/django__django-11099.traj");
    std::fs::copy("examples/formats/mini-swe-agent-1.traj.json", &trajectory).unwrap();
    let out = check(&["--seq", "A", path]);
    let text = stdout(&out);
    assert!(
        text.contains("2 runs:") && text.contains("django__django-11099.traj"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A transcript with no message (an empty file, blank lines, an empty array) is
/// checked (not done) with a warning that says it held none.
#[test]
fn a_transcript_without_messages_is_said_to_hold_none() {
    let dir = std::env::temp_dir().join(format!("doneseq-no-messages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [
        ("empty.jsonl", ""),
        ("blank.jsonl", "\n  \n"),
        ("array.json", "[]"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let out = check(&["--seq", "A", path.to_str().unwrap()]);
        assert!(stdout(&out).contains("not done"), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(stderr.contains("no message in it"), "{name}: {stderr}");
    }
    let out = check(&["--seq", "A", "examples/calculator.jsonl"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("no message"));
    std::fs::remove_dir_all(&dir).ok();
}

/// An Inspect AI JSON log of several samples is a corpus of them, alone, with
/// `--html`, and refused by `--all` with a hint; one of one sample is one transcript.
/// A pipe is one transcript; a lone file that is not there is one transcript that
/// cannot be opened, said so (not refused as a corpus `--follow` cannot follow).
#[test]
fn a_json_log_of_several_samples_is_a_corpus_of_them() {
    let log = "tests/data/inspect-log-two.json";
    let text = stdout(&check(&["--seq", "A", log]));
    assert!(
        text.contains(&format!("{log}#crashed_epoch_1  done at message 3"))
            && text.contains(&format!("{log}#solved_epoch_1  done at message 3"))
            && text.contains("2 runs: 2 done"),
        "{text}"
    );
    let report = std::env::temp_dir().join(format!("doneseq-two-{}.html", std::process::id()));
    let out = check(&["--seq", "A", "--html", report.to_str().unwrap(), log]);
    assert_eq!(out.status.code(), Some(0));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("crashed_epoch_1") && html.contains("solved_epoch_1"),
        "the report names both samples"
    );
    std::fs::remove_file(&report).unwrap();
    let out = check(&["--all", "--seq", "A", log]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("give one sample's JSON"), "{stderr}");
    // A log of one sample: the table of one transcript; with `--html`, a corpus of
    // one, reported.
    let one = "examples/formats/inspect-log.json";
    let text = stdout(&check(&["--seq", "A", one]));
    assert!(text.starts_with("#  role"), "{text}");
    let out = check(&["--seq", "A", "--html", report.to_str().unwrap(), one]);
    assert!(stdout(&out).contains("1 runs: 1 done"), "{}", stdout(&out));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("inspect-log.json"),
        "the report names the log"
    );
    std::fs::remove_file(&report).ok();
    // A pipe is one transcript too (`<(zcat log.gz)`; here `/dev/stdin`).
    let mut piped = Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .args(["check", "--seq", "A", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let log_text =
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(one)).unwrap();
    std::io::Write::write_all(&mut piped.stdin.take().unwrap(), &log_text).unwrap();
    let out = piped.wait_with_output().unwrap();
    assert_eq!(stdout(&out), text, "piped");
    for flag in ["--follow", "--all"] {
        let out = check(&[flag, "--seq", "A", "no-such-file.jsonl"]);
        assert_eq!(out.status.code(), Some(1), "{flag}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("error: cannot open no-such-file.jsonl:"),
            "{flag}: {stderr}"
        );
    }
}

/// An Inspect AI `.eval` log is a run a sample: checked alone it is a corpus (its
/// samples, each named), found in a directory, and compared run by run.
#[test]
#[cfg(feature = "eval-archives")]
fn an_eval_log_is_a_corpus_of_its_samples() {
    let log = "examples/formats/inspect.eval";
    let text = stdout(&check(&["--stop", "consecutive_errors(1)", log]));
    assert!(
        text.contains(&format!("{log}#crashed_epoch_1  failed at message 3"))
            && text.contains(&format!("{log}#solved_epoch_1  failed at message 5"))
            && text.contains("2 runs: 0 done, 0 exhausted, 0 stuck, 2 failed"),
        "{text}"
    );
    // One run at a time takes one run.
    let out = check(&["--all", "--seq", "A", log]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--follow and --all take one transcript (an Inspect AI eval log holds a run a sample: give one sample's JSON)"),
        "{stderr}"
    );
    let dir = std::env::temp_dir().join(format!("doneseq-eval-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    std::fs::copy(log, dir.join("logs/run.eval")).unwrap();
    let text = stdout(&check(&["--seq", "A", dir.to_str().unwrap()]));
    assert!(
        text.contains("run.eval#solved_epoch_1") && text.contains("2 runs:"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
    let out = Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .args(["compare", "--config", "examples/calculator.config.json"])
        .args(["--config", "examples/search.config.json", log])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(text.starts_with("0 of 2 runs differ\nA: 2 runs:"), "{text}");
}
