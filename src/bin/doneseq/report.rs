//! `check --html FILE`: one self-contained page about a corpus: the totals, a
//! histogram of the steps to the stop per kind, the runs to look at, and each run's
//! timeline, opened by a click (`<details>`: the page has no script at all).
//!
//! Everything in the page that comes from a transcript or a configuration (paths,
//! texts, responder and tool names, answers, errors, the rule) goes through
//! [`escape`]: model output can carry markup and script. The page's
//! Content-Security-Policy also allows no script and no resource from anywhere, so
//! that an escape missed by mistake still could not run one.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::corpus::{Aggregate, Run, RunSummary, Timeline};

/// The kinds in the order the page lists them, then the runs never stopped.
const KINDS: [&str; 6] = [
    "done",
    "exhausted",
    "stuck",
    "failed",
    "cancelled",
    "not stopped",
];

/// The most bars of a histogram (as a count of steps and as an index bound).
const BINS: u64 = 10;
const MOST_BARS: usize = 10;

/// `text` with `&`, `<`, `>`, `"` and `'` as character references: safe as element
/// content and as a quoted attribute value.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// One configuration's results over the corpus: what a report shows, once per
/// configuration (`check` has one, `compare` two, labelled `A` and `B`).
pub(crate) struct Side<'a> {
    pub(crate) label: &'a str,
    /// The stop rule, as one condition.
    pub(crate) rule: String,
    pub(crate) runs: &'a [Run],
    pub(crate) total: &'a Aggregate,
}

/// The page for one configuration's runs, or two configurations' runs of the same
/// transcripts side by side.
pub(crate) fn page(sides: &[Side<'_>]) -> String {
    let mut html = String::with_capacity(16 * 1024);
    html.push_str(HEAD);
    html.push_str("<header><h1>doneseq report</h1>");
    for side in sides {
        let _ = write!(
            html,
            "<p class=\"rule\">{}Stop rule: <code>{}</code></p>",
            lead(sides, side),
            escape(&side.rule)
        );
    }
    html.push_str("</header>\n");
    totals(&mut html, sides);
    histogram(&mut html, sides);
    attention(&mut html, sides);
    every_run(&mut html, sides);
    html.push_str("</body>\n</html>\n");
    html
}

/// Writes the page for `sides` to `file`; an error says which file.
pub(crate) fn write_file(file: &std::path::Path, sides: &[Side<'_>]) -> Result<(), String> {
    std::fs::write(file, page(sides)).map_err(|e| format!("cannot write {}: {e}", file.display()))
}

/// `"A: "` before what belongs to one of two sides; nothing for a single side.
fn lead(sides: &[Side<'_>], side: &Side<'_>) -> String {
    if sides.len() > 1 {
        format!("{}: ", side.label)
    } else {
        String::new()
    }
}

const HEAD: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>doneseq report</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 72em; padding: 0 1em; color: #1b1f24; }
h1 { font-size: 1.6em; margin: 0 0 .2em; }
h2 { font-size: 1.2em; margin: 1.6em 0 .6em; border-bottom: 1px solid #d0d7de; padding-bottom: .2em; }
h3 { font-size: 1em; margin: .6em 0 .3em; }
code { font: 12px/1.4 ui-monospace, monospace; background: #f3f4f6; padding: .1em .3em; border-radius: 3px; overflow-wrap: anywhere; }
.figures { display: flex; flex-wrap: wrap; gap: .6em; margin: 0; }
.figure { border: 1px solid #d0d7de; border-radius: 6px; padding: .4em .8em; min-width: 7em; }
.figure dt { font-size: .8em; color: #57606a; }
.figure dd { margin: 0; font-size: 1.4em; font-weight: 600; }
.histograms { display: flex; flex-wrap: wrap; gap: 1.5em; }
.bars { display: flex; align-items: flex-end; gap: 3px; height: 120px; border-bottom: 1px solid #8c959f; }
.bar { width: 28px; display: flex; flex-direction: column; justify-content: flex-end; align-items: center; height: 100%; }
.bar .fill { width: 100%; background: #0969da; min-height: 1px; }
.bar .count { font-size: .75em; color: #57606a; }
.labels { display: flex; gap: 3px; }
.labels span { width: 28px; font-size: .65em; color: #57606a; text-align: center; overflow: hidden; }
.kind-done .fill { background: #1a7f37; } .kind-exhausted .fill { background: #9a6700; }
.kind-stuck .fill { background: #8250df; } .kind-failed .fill { background: #cf222e; }
.kind-cancelled .fill { background: #57606a; } .kind-not-stopped .fill { background: #afb8c1; }
.attention li { margin: .2em 0; }
details.run { border: 1px solid #d0d7de; border-radius: 6px; margin: .4em 0; }
details.run > summary { cursor: pointer; padding: .4em .6em; }
details.run[open] > summary { border-bottom: 1px solid #d0d7de; }
.verdict { color: #57606a; }
.tag { font-size: .75em; border-radius: 10px; padding: .05em .5em; margin-left: .4em; background: #ddf4ff; }
.tag.early { background: #fff8c5; } .tag.error { background: #ffebe9; } .tag.never { background: #eaeef2; }
table.timeline { border-collapse: collapse; width: 100%; font-size: .9em; }
table.timeline td, table.timeline th { border-top: 1px solid #eaeef2; padding: .25em .5em; vertical-align: top; text-align: left; }
table.timeline td.text { white-space: pre-wrap; overflow-wrap: anywhere; }
tr.input { color: #57606a; font-style: italic; }
tr.stop { background: #dafbe1; font-weight: 600; }
tr.after { color: #8c959f; }
tr.error td.text { color: #cf222e; }
p.note { color: #57606a; font-size: .85em; margin: .3em .6em; }
</style>
</head>
<body>
"#;

fn figure(html: &mut String, label: &str, value: impl std::fmt::Display) {
    let _ = write!(
        html,
        "<div class=\"figure\"><dt>{label}</dt><dd>{value}</dd></div>"
    );
}

fn totals(html: &mut String, sides: &[Side<'_>]) {
    html.push_str("<section id=\"totals\"><h2>Totals</h2>");
    for side in sides {
        let total = side.total;
        if sides.len() > 1 {
            let _ = write!(html, "<h3>{}</h3>", side.label);
        }
        html.push_str("<dl class=\"figures\">");
        figure(html, "runs", total.runs);
        figure(html, "done", total.done);
        figure(html, "exhausted", total.exhausted);
        figure(html, "stuck", total.stuck);
        figure(html, "failed", total.failed);
        figure(html, "cancelled", total.cancelled);
        figure(html, "never stopped", total.never_stopped);
        figure(html, "unreadable", total.errors);
        figure(
            html,
            "stopped before their final answer",
            total.stopped_early,
        );
        figure(html, "steps to the stop", total.steps_to_stop);
        figure(html, "tokens to the stop", total.tokens_to_stop);
        figure(html, "steps saved", total.steps_saved);
        figure(html, "tokens saved", total.tokens_saved);
        html.push_str("</dl>");
    }
    if let [a, b] = sides {
        let differing = a
            .runs
            .iter()
            .zip(b.runs)
            .filter(|(x, y)| x.summary.differs(&y.summary))
            .count();
        let _ = write!(
            html,
            "<p class=\"differing\">{differing} of {} runs stop differently under A and B.</p>",
            a.runs.len()
        );
    }
    html.push_str("</section>\n");
}

/// The kind a run is counted under, `None` for an unreadable one.
fn kind_of(run: &RunSummary) -> Option<&'static str> {
    if run.error.is_some() {
        return None;
    }
    Some(run.kind.map_or("not stopped", doneseq::VerdictKind::as_str))
}

/// Bars of the steps to the stop, one histogram per kind and side, all with the same
/// bins.
fn histogram(html: &mut String, sides: &[Side<'_>]) {
    html.push_str("<section id=\"histogram\"><h2>Steps to the stop, by kind</h2>");
    let most = sides
        .iter()
        .flat_map(|side| side.runs)
        .map(|r| &r.summary)
        .filter(|r| kind_of(r).is_some())
        .map(|r| r.steps)
        .max();
    let Some(most) = most else {
        html.push_str("<p>No run was read.</p></section>\n");
        return;
    };
    let width = (most + 1).div_ceil(BINS).max(1);
    // The width is rounded up, so most / width < BINS: at most BINS bars, and the
    // conversions never clamp (the `min`s only guard the indexing).
    let bar = |steps: u64| usize::try_from(steps / width).unwrap_or(usize::MAX);
    let bins = bar(most).saturating_add(1).min(MOST_BARS);
    for side in sides {
        if sides.len() > 1 {
            let _ = write!(html, "<h3>{}</h3>", side.label);
        }
        bars(html, side.runs, width, bins);
    }
    html.push_str("</section>\n");
}

/// One side's histograms.
fn bars(html: &mut String, runs: &[Run], width: u64, bins: usize) {
    let bar = |steps: u64| usize::try_from(steps / width).unwrap_or(usize::MAX);
    html.push_str("<div class=\"histograms\">");
    for kind in KINDS {
        let mut counts = vec![0usize; bins];
        for run in runs
            .iter()
            .map(|r| &r.summary)
            .filter(|r| kind_of(r) == Some(kind))
        {
            counts[bar(run.steps).min(bins - 1)] += 1;
        }
        let n: usize = counts.iter().sum();
        if n == 0 {
            continue;
        }
        let top = counts.iter().copied().max().unwrap_or(1).max(1);
        let _ = write!(
            html,
            "<div class=\"hist kind-{}\"><h3>{kind} <span class=\"verdict\">({n} run{})</span></h3><div class=\"bars\">",
            kind.replace(' ', "-"),
            if n == 1 { "" } else { "s" }
        );
        for &count in &counts {
            let _ = write!(
                html,
                "<div class=\"bar\"><span class=\"count\">{}</span><div class=\"fill\" style=\"height:{}%\"></div></div>",
                if count == 0 {
                    String::new()
                } else {
                    count.to_string()
                },
                count * 100 / top
            );
        }
        html.push_str("</div><div class=\"labels\">");
        for bin in 0..bins as u64 {
            let (low, high) = (bin * width, bin * width + width - 1);
            if width == 1 {
                let _ = write!(html, "<span>{low}</span>");
            } else {
                let _ = write!(html, "<span>{low}–{high}</span>");
            }
        }
        html.push_str("</div></div>");
    }
    html.push_str("</div>");
}

/// The runs a builder should read first: those the two sides stop differently, then
/// each side's runs stopped before their final answer, never stopped, unreadable, or
/// past a pattern's backtracking limit.
fn attention(html: &mut String, sides: &[Side<'_>]) {
    type Wanted<'a> = &'a dyn Fn(&RunSummary) -> bool;
    html.push_str("<section id=\"attention\"><h2>Runs to look at</h2>");
    let mut any = false;
    if let [a, b] = sides {
        let differing: Vec<usize> = (0..a.runs.len())
            .filter(|&i| a.runs[i].summary.differs(&b.runs[i].summary))
            .collect();
        if !differing.is_empty() {
            any = true;
            let _ = write!(
                html,
                "<h3>Stopped differently by A and B ({})</h3><ul class=\"attention\">",
                differing.len()
            );
            for i in differing {
                let _ = write!(
                    html,
                    "<li><a href=\"#run-{i}\">{}</a><br><span class=\"verdict\">A: {}</span><br><span class=\"verdict\">B: {}</span></li>",
                    escape(&a.runs[i].summary.path),
                    escape(&a.runs[i].summary.verdict()),
                    escape(&b.runs[i].summary.verdict())
                );
            }
            html.push_str("</ul>");
        }
    }
    let groups: [(&str, Wanted<'_>); 4] = [
        ("stopped before their recorded final answer", &|r| r.early),
        ("never stopped", &|r| r.error.is_none() && r.kind.is_none()),
        ("unreadable", &|r| r.error.is_some()),
        ("a pattern passed its backtracking limit", &|r| {
            r.warning.is_some()
        }),
    ];
    for side in sides {
        for (title, wanted) in &groups {
            let chosen: Vec<(usize, &RunSummary)> = side
                .runs
                .iter()
                .map(|r| &r.summary)
                .enumerate()
                .filter(|(_, r)| wanted(r))
                .collect();
            if chosen.is_empty() {
                continue;
            }
            any = true;
            let _ = write!(
                html,
                "<h3>{}{}{} ({})</h3><ul class=\"attention\">",
                lead(sides, side),
                title[..1].to_uppercase(),
                &title[1..],
                chosen.len()
            );
            for (i, run) in chosen {
                let _ = write!(
                    html,
                    "<li><a href=\"#run-{i}\">{}</a> <span class=\"verdict\">{}</span></li>",
                    escape(&run.path),
                    escape(&run.verdict())
                );
            }
            html.push_str("</ul>");
        }
    }
    if !any {
        html.push_str("<p>None: every run stopped, at or after its recorded final answer.</p>");
    }
    html.push_str("</section>\n");
}

fn every_run(html: &mut String, sides: &[Side<'_>]) {
    html.push_str("<section id=\"runs\"><h2>Every run</h2>");
    let Some(first) = sides.first() else {
        html.push_str("</section>\n");
        return;
    };
    for (i, run) in first.runs.iter().enumerate() {
        let kind = kind_of(&run.summary).unwrap_or("error");
        let _ = write!(
            html,
            "<details class=\"run\" id=\"run-{i}\" data-kind=\"{}\"><summary><code>{}</code>",
            kind.replace(' ', "-"),
            escape(&run.summary.path),
        );
        for side in sides {
            summary(html, &side.runs[i].summary, &lead(sides, side));
        }
        html.push_str("</summary>");
        for side in sides {
            if let Some(warning) = &side.runs[i].summary.warning {
                let _ = write!(
                    html,
                    "<p class=\"note\">{}warning: {}</p>",
                    lead(sides, side),
                    escape(warning)
                );
            }
        }
        let stops: Vec<(String, Option<usize>)> = sides
            .iter()
            .map(|side| (side.label.to_owned(), side.runs[i].summary.at))
            .collect();
        timeline(html, &run.timeline, &stops);
        html.push_str("</details>\n");
    }
    html.push_str("</section>\n");
}

/// One side's verdict in a run's summary line.
fn summary(html: &mut String, run: &RunSummary, lead: &str) {
    let _ = write!(
        html,
        " <span class=\"verdict\">{lead}{}</span>",
        escape(&run.verdict())
    );
    if run.error.is_some() {
        html.push_str("<span class=\"tag error\">unreadable</span>");
    } else if run.kind.is_none() {
        html.push_str("<span class=\"tag never\">never stopped</span>");
    } else {
        let _ = write!(
            html,
            "<span class=\"tag\">steps {}/{} · tokens {}/{}</span>",
            run.steps, run.recorded_steps, run.tokens, run.recorded_tokens
        );
    }
    if run.early {
        html.push_str("<span class=\"tag early\">before its final answer</span>");
    }
}

/// A run's messages; `stops` holds each side's label and stop.
fn timeline(html: &mut String, timeline: &Timeline, stops: &[(String, Option<usize>)]) {
    if timeline.rows.is_empty() {
        html.push_str("<p class=\"note\">No message was read.</p>");
        return;
    }
    let last_stop = stops.iter().map(|(_, at)| *at).max().flatten();
    let all_stop = stops.iter().all(|(_, at)| at.is_some());
    html.push_str(
        "<table class=\"timeline\"><thead><tr><th>#</th><th>role</th><th>who</th><th>tools</th><th>text</th><th>stop</th></tr></thead><tbody>",
    );
    for row in &timeline.rows {
        let stopping: Vec<&str> = stops
            .iter()
            .filter(|(_, at)| *at == Some(row.index))
            .map(|(label, _)| label.as_str())
            .collect();
        let mut class = Vec::new();
        if row.input {
            class.push("input");
        }
        if row.error {
            class.push("error");
        }
        if !stopping.is_empty() {
            class.push("stop");
        } else if all_stop && last_stop.is_some_and(|at| row.index > at) {
            class.push("after");
        }
        let mark = match stopping.as_slice() {
            [] => String::new(),
            _ if stops.len() == 1 => "stop".to_owned(),
            labels => labels.join(", "),
        };
        let _ = write!(
            html,
            "<tr class=\"{}\"><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td class=\"text\">{}{}</td><td>{mark}</td></tr>",
            class.join(" "),
            row.index,
            row.role,
            if row.input { " (input)" } else { "" },
            escape(row.who.as_deref().unwrap_or("")),
            escape(&row.tools.join(", ")),
            escape(&row.text),
            if row.cut { "…" } else { "" }
        );
    }
    html.push_str("</tbody></table>");
    if timeline.more > 0 {
        let _ = write!(
            html,
            "<p class=\"note\">… and {} more messages (the report keeps the first {}).</p>",
            timeline.more, timeline.limit
        );
    }
    if all_stop {
        html.push_str("<p class=\"note\">The greyed messages are what the recorded run did after the stop.</p>");
    }
}

#[cfg(test)]
mod tests {
    use super::{Side, escape, page};
    use crate::corpus::{Run, RunSummary, aggregate};
    use doneseq::VerdictKind;

    #[test]
    fn the_histogram_has_at_most_ten_bars_and_counts_every_run() {
        for most in [0u64, 1, 9, 10, 11, 99, 100, 12_345] {
            let runs: Vec<Run> = (0..=most)
                .step_by(usize::try_from(most / 50 + 1).unwrap())
                .map(|steps| {
                    let mut summary = RunSummary::new("");
                    summary.kind = Some(VerdictKind::Done);
                    summary.at = Some(0);
                    summary.steps = steps;
                    summary.recorded_steps = steps;
                    Run {
                        summary,
                        timeline: Default::default(),
                    }
                })
                .collect();
            let total = aggregate(&runs);
            let html = page(&[Side {
                label: "",
                rule: "final".into(),
                runs: &runs,
                total: &total,
            }]);
            let bars = html.matches("<div class=\"bar\">").count();
            assert!((1..=10).contains(&bars), "{most}: {bars} bars");
            let counted: usize = html
                .split("<span class=\"count\">")
                .skip(1)
                .filter_map(|rest| rest[..rest.find('<').unwrap()].parse::<usize>().ok())
                .sum();
            assert_eq!(counted, runs.len(), "{most}");
        }
    }

    #[test]
    fn escape_leaves_no_markup() {
        assert_eq!(
            escape(r#"<script>alert("x")</script> & <img src=x onerror='y'>"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=&#39;y&#39;&gt;"
        );
        assert!(matches!(
            escape("plain text"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
