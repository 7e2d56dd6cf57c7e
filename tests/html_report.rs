//! `doneseq check --html`: the report of a corpus, opened in a real headless browser
//! (Debian's chromium; `DONESEQ_CHROMIUM` names another binary). The page's element
//! structure, as the browser built it, is a snapshot; a transcript carrying markup and
//! script must show as text and run nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Markup a model could write: each piece, if it ran, would mark the body.
const PAYLOADS: [&str; 4] = [
    "<script>document.body.setAttribute('data-pwned','script')</script>",
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">",
    "'\"><svg onload=document.body.setAttribute('data-pwned','svg')>",
    "</td></tr></table></details><script>document.title='pwned'</script>",
];

/// A corpus of four runs: one stopped by the sequence, one cut before its final
/// answer by the turn budget, one never stopped, one unreadable; every text, name
/// and answer of the second carries the payloads.
fn corpus(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let line = |v: serde_json::Value| v.to_string();
    let write = |name: &str, lines: Vec<String>| {
        std::fs::write(dir.join(name), lines.join("\n") + "\n").unwrap();
    };
    write(
        "a-done.jsonl",
        vec![
            line(serde_json::json!({"role": "user", "content": "What is 6*7?"})),
            line(
                serde_json::json!({"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "calculator", "arguments": "{}"}]}),
            ),
            line(serde_json::json!({"role": "tool", "tool_call_id": "c1", "content": "42"})),
            line(serde_json::json!({"role": "assistant", "content": "The answer is 42."})),
        ],
    );
    write(
        "b-hostile.jsonl",
        vec![
            line(serde_json::json!({"role": "system", "content": PAYLOADS[0]})),
            line(serde_json::json!({"role": "user", "content": PAYLOADS[1]})),
            line(
                serde_json::json!({"role": "assistant", "name": PAYLOADS[2], "content": PAYLOADS[3]}),
            ),
            line(serde_json::json!({"role": "user", "content": PAYLOADS[0]})),
            line(serde_json::json!({"role": "assistant", "content": PAYLOADS[2]})),
            line(serde_json::json!({"role": "user", "content": PAYLOADS[1]})),
            line(
                serde_json::json!({"role": "assistant", "content": format!("FINAL('{}')", PAYLOADS[0])}),
            ),
        ],
    );
    write(
        "c-never.jsonl",
        vec![
            line(serde_json::json!({"role": "user", "content": "Hi"})),
            line(serde_json::json!({"role": "assistant", "content": "Hello."})),
        ],
    );
    std::fs::write(
        dir.join("d-broken.jsonl"),
        "{\"role\": \"user\", \"content\": \"x\"\n",
    )
    .unwrap();
}

/// Runs doneseq with `args`; it must exit 1 (one transcript of the corpus is
/// unreadable, and the report is written all the same).
fn doneseq(args: &[&std::ffi::OsStr]) {
    let out = Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .args(args)
        .output()
        .expect("run doneseq");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The report of the corpus in a fresh directory (named after `name`).
fn report(name: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("doneseq-html-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    corpus(&dir.join("runs"));
    let page = dir.join("report.html");
    let runs = dir.join("runs");
    doneseq(&[
        "check".as_ref(),
        "--seq".as_ref(),
        "T[calculator], A".as_ref(),
        "--stop".as_ref(),
        "max_turns(3)".as_ref(),
        "--html".as_ref(),
        page.as_os_str(),
        runs.as_os_str(),
    ]);
    let html = std::fs::read_to_string(&page).expect("the report is written");
    (dir, html)
}

fn chromium(dir: &Path, args: &[&str], page: &str) -> std::process::Output {
    let binary = std::env::var("DONESEQ_CHROMIUM").unwrap_or_else(|_| "chromium".to_owned());
    Command::new(&binary)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .args(args)
        .arg(page)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {binary} ({e}): the report's browser test needs Debian's chromium \
                 (scripts/test installs it), or DONESEQ_CHROMIUM naming a Chromium binary"
            )
        })
}

/// The DOM as the browser built it, after loading the page.
fn rendered_dom(dir: &Path, page: &Path) -> String {
    let out = chromium(dir, &["--dump-dom"], &format!("file://{}", page.display()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The elements of serialized HTML, one a line, indented by depth: the tag, its id,
/// classes and `data-kind` (no text, no other attribute).
fn outline(html: &str) -> String {
    const VOID: [&str; 6] = ["meta", "br", "img", "input", "link", "hr"];
    let mut out = String::new();
    let mut depth = 0usize;
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let end = rest.find('>').expect("a tag ends");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(closing) = tag.strip_prefix('/') {
            let _ = closing;
            depth = depth.saturating_sub(1);
            continue;
        }
        let name = tag.split_whitespace().next().unwrap_or("");
        let attr = |key: &str| {
            tag.find(&format!(" {key}=\"")).map(|at| {
                let value = &tag[at + key.len() + 3..];
                value[..value.find('"').unwrap()].to_owned()
            })
        };
        let mut line = format!("{}{name}", "  ".repeat(depth));
        if let Some(id) = attr("id") {
            line += &format!("#{id}");
        }
        if let Some(class) = attr("class") {
            for c in class.split_whitespace() {
                line += &format!(".{c}");
            }
        }
        if let Some(kind) = attr("data-kind") {
            line += &format!("[{kind}]");
        }
        out += &line;
        out.push('\n');
        if !VOID.contains(&name) && !tag.ends_with('/') {
            depth += 1;
        }
        // The style element's text holds no tags; skip it whole.
        if name == "style" {
            let close = rest.find("</style>").unwrap();
            rest = &rest[close..];
        }
    }
    out
}

#[test]
fn everything_from_a_transcript_is_escaped_in_the_page() {
    let (dir, html) = report("escaped");
    let lower = html.to_lowercase();
    for tag in ["<script", "<img", "<svg", "<iframe", "<object"] {
        assert!(!lower.contains(tag), "{tag} in the report");
    }
    // Shown as text: the payloads, escaped.
    assert!(html.contains("&lt;script&gt;document.body.setAttribute(&#39;data-pwned&#39;,&#39;script&#39;)&lt;/script&gt;"));
    assert!(html.contains("&lt;img src=x onerror=&quot;"));
    // A policy that allows no script, in case an escape were ever missed.
    assert!(html.contains(
        "Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\""
    ));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn in_a_browser_the_report_runs_nothing_and_has_its_structure() {
    let (dir, _) = report("browser");
    let page = dir.join("report.html");
    let dom = rendered_dom(&dir, &page);
    // Nothing ran: no payload marked the body or changed the title.
    assert!(!dom.contains("data-pwned=\""), "a payload ran");
    assert!(dom.contains("<title>doneseq report</title>"));
    // The browser built no element from a transcript's text.
    let lower = dom.to_lowercase();
    assert!(!lower.contains("<script") && !lower.contains("<img") && !lower.contains("<svg"));
    // Yet the text is there, as text.
    assert!(dom.contains("&lt;script&gt;document.body.setAttribute('data-pwned','script')"));
    insta::assert_snapshot!(outline(&dom));

    // A screenshot: a PNG of the window's size, with more drawn on it than on a
    // blank page.
    let shot = |target: &str, file: &str| {
        let path = dir.join(file);
        let out = chromium(
            &dir,
            &[
                "--window-size=1000,1400",
                &format!("--screenshot={}", path.display()),
            ],
            target,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read(path).unwrap()
    };
    let png = shot(&format!("file://{}", page.display()), "report.png");
    let blank = shot("about:blank", "blank.png");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&png[12..16], b"IHDR");
    let size = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (1000, 1400));
    assert!(
        png.len() > 4 * blank.len(),
        "{} against {}",
        png.len(),
        blank.len()
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_comparison_report_marks_where_each_configuration_stops() {
    let dir = std::env::temp_dir().join(format!("doneseq-html-compare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    corpus(&dir.join("runs"));
    std::fs::write(
        dir.join("a.json"),
        r#"{"done_sequences": ["T[calculator], A"]}"#,
    )
    .unwrap();
    std::fs::write(dir.join("b.json"), r#"{"stop": "max_turns(1)"}"#).unwrap();
    let page = dir.join("compare.html");
    let (a, b, runs) = (dir.join("a.json"), dir.join("b.json"), dir.join("runs"));
    doneseq(&[
        "compare".as_ref(),
        "--config".as_ref(),
        a.as_os_str(),
        "--config".as_ref(),
        b.as_os_str(),
        "--html".as_ref(),
        page.as_os_str(),
        runs.as_os_str(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    // Both rules, both totals, the runs stopped differently (all three readable ones:
    // A stops only the first, B every one at its first step).
    assert!(html.contains("A: Stop rule: <code>seq(&quot;T[calculator], A&quot;)"));
    assert!(html.contains("B: Stop rule: <code>"));
    assert!(html.contains("<h3>Stopped differently by A and B (3)</h3>"));
    assert!(html.contains("3 of 4 runs stop differently under A and B."));
    // In the first run, B stops at the model's call (message 1), A at its result.
    let first = &html[html.find("id=\"run-0\"").unwrap()..];
    let first = &first[..first.find("</details>").unwrap()];
    assert!(first.contains("<tr class=\"stop\"><td>1</td>") && first.contains("<td>B</td></tr>"));
    assert!(first.contains("<tr class=\"stop\"><td>2</td>") && first.contains("<td>A</td></tr>"));
    assert!(first.contains("<tr class=\"after\"><td>3</td>"));
    // In a browser, nothing from the transcripts runs here either.
    let dom = rendered_dom(&dir, &page);
    assert!(!dom.contains("data-pwned=\""), "a payload ran");
    let lower = dom.to_lowercase();
    assert!(!lower.contains("<script") && !lower.contains("<img") && !lower.contains("<svg"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_report_of_standard_input_is_refused_with_a_reason() {
    let out = Command::new(env!("CARGO_BIN_EXE_doneseq"))
        .args([
            "check",
            "--stop",
            "final",
            "--html",
            "never-written.html",
            "-",
        ])
        .output()
        .expect("run doneseq");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("standard input ('-') is one transcript"),
        "{stderr}"
    );
    assert!(!std::path::Path::new("never-written.html").exists());
}
