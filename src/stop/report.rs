//! What a tree says about a run: the conditions that fired at a stop, with evidence,
//! and for every condition how close it is.

use std::fmt;

use super::condition::ToolPhase;
use super::tree::{Op, Tree, TreeState};
use crate::engine::Automaton;
use crate::{FiredCondition, Message, VerdictKind};

/// The run's automaton and its bits, for the progress of `seq(...)` conditions.
#[derive(Clone, Copy)]
pub(crate) struct Seqs<'a> {
    pub(crate) automaton: &'a Automaton,
    pub(crate) bits: &'a [u64],
}

/// How one condition of a task's stop tree stands in a run
/// ([`crate::Monitor::explain_stop`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConditionReport {
    /// The condition's canonical text.
    pub condition: String,
    /// Child indices from the root.
    pub path: Vec<usize>,
    /// Whether it fires at the latest step.
    pub fired: bool,
    /// The first step at which it fired (for a child of `&`: since when it is
    /// latched).
    pub first_fired: Option<u64>,
    /// The kind it stands for when it fires (`None` for `&`, `|`).
    pub kind: Option<VerdictKind>,
    /// How close it is, e.g. `turns 7/10`, `tokens 81% (8100/10000 total)`,
    /// `sequence 1 of 2`.
    pub progress: String,
    /// The reports of its children.
    pub children: Vec<ConditionReport>,
}

impl fmt::Display for ConditionReport {
    /// One line per condition, children indented, e.g.
    /// `[ ] max_turns(10): turns 7/10`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, 0)
    }
}

impl ConditionReport {
    fn write(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        let mark = if self.fired { "[x]" } else { "[ ]" };
        write!(
            f,
            "{:indent$}{mark} {}",
            "",
            self.condition,
            indent = depth * 2
        )?;
        if !self.progress.is_empty() {
            write!(f, ": {}", self.progress)?;
        }
        writeln!(f)?;
        for child in &self.children {
            child.write(f, depth + 1)?;
        }
        Ok(())
    }
}

impl Tree {
    /// Every condition that fired at step `at` and made the root fire, in tree
    /// order: the firing children of `|`, all children of `&` (latched), `!` itself.
    pub(crate) fn fired(
        &self,
        state: &TreeState,
        seqs: Seqs<'_>,
        message: &Message,
        at: u64,
    ) -> Vec<FiredCondition> {
        let mut out = Vec::new();
        self.collect(0, state, seqs, message, at, &mut out);
        out
    }

    fn collect(
        &self,
        i: usize,
        state: &TreeState,
        seqs: Seqs<'_>,
        message: &Message,
        at: u64,
        out: &mut Vec<FiredCondition>,
    ) {
        let node = &self.nodes[i];
        match node.op {
            Op::Any => {
                for &c in &node.children {
                    if state.nodes[c as usize].last == Some(at) {
                        self.collect(c as usize, state, seqs, message, at, out);
                    }
                }
            }
            Op::All => {
                for &c in &node.children {
                    let last = state.nodes[c as usize].last;
                    self.collect(c as usize, state, seqs, message, last.unwrap_or(at), out);
                }
            }
            _ => {
                let s = state.nodes[i];
                let now = s.last == Some(state.stats.steps.saturating_sub(1));
                out.push(FiredCondition {
                    condition: node.text.clone(),
                    path: node.path.clone(),
                    kind: s.kind.unwrap_or(VerdictKind::Done),
                    at: s.last.unwrap_or(at),
                    detail: self.detail(i, state, seqs, now.then_some(message)),
                });
            }
        }
    }

    /// What a fired condition saw; `message` when it fired at the latest step.
    fn detail(
        &self,
        i: usize,
        state: &TreeState,
        seqs: Seqs<'_>,
        message: Option<&Message>,
    ) -> String {
        let stats = &state.stats;
        let node = &self.nodes[i];
        let at = state.nodes[i].last.unwrap_or(0);
        match &node.op {
            Op::Seq(s) => {
                let len = seqs.automaton.spans[*s].1 as u64;
                format!(
                    "matched steps {}..={at}",
                    at.saturating_add(1).saturating_sub(len)
                )
            }
            Op::Final => "a FINAL answer".to_owned(),
            Op::DoneSignal => "the content says DONE".to_owned(),
            Op::Not => "its condition did not fire".to_owned(),
            Op::Custom(c) => state.custom_details[*c].clone(),
            Op::Text(t) => {
                match message.and_then(|m| t.pattern.find(m.content()).map(|r| (m, r))) {
                    Some((m, r)) => {
                        format!("{:?} matched in a {} message", &m.content()[r], m.role())
                    }
                    None => format!("matched at step {at}"),
                }
            }
            Op::Tool(spec, _) => {
                let name = spec.name.as_deref().unwrap_or("a tool");
                match spec.phase {
                    ToolPhase::Requested => format!("{name} requested"),
                    ToolPhase::Executed => format!("{name} executed"),
                }
            }
            Op::NoTools => "an LLM response without tool calls".to_owned(),
            Op::Confidence(c) => match message.and_then(|m| {
                if c.key == "confidence" {
                    m.confidence()
                } else {
                    m.metric(&c.key)
                }
            }) {
                Some(v) if v >= c.threshold => format!("confidence {v} >= {}", c.threshold),
                _ => "a FINAL answer (confidence fallback)".to_owned(),
            },
            Op::Reward(r) if state.nodes[i].kind == Some(VerdictKind::Failed) => format!(
                "{} negative rewards in a row (limit {})",
                stats.negative_rewards, r.negative_streak
            ),
            Op::Reward(r) => format!("cumulative reward {} >= {}", stats.reward, r.threshold),
            _ => self.progress(i, state, seqs),
        }
    }

    /// How close the condition at node `i` is, in words.
    pub(crate) fn progress(&self, i: usize, state: &TreeState, seqs: Seqs<'_>) -> String {
        let stats = &state.stats;
        let node = &self.nodes[i];
        let ns = state.nodes[i];
        let since = |what: &str| match ns.last {
            Some(at) => format!("{what} at step {at}"),
            None => format!("not {what} yet"),
        };
        match &node.op {
            Op::All => {
                let latched = node
                    .children
                    .iter()
                    .filter(|&&c| state.nodes[c as usize].first.is_some())
                    .count();
                format!("{latched} of {} fired", node.children.len())
            }
            Op::Any | Op::Not => String::new(),
            Op::Seq(s) => {
                let len = seqs.automaton.spans[*s].1 as usize;
                let done = seqs.automaton.progress(seqs.bits, *s);
                format!("sequence {done} of {len}")
            }
            Op::Final => since("FINAL answer"),
            Op::DoneSignal => since("DONE said"),
            Op::MaxTurns(n) => format!("turns {}/{n}", stats.steps),
            Op::Tokens(b) => {
                let mut parts = Vec::new();
                for (name, limit, used) in [
                    ("total", b.total, stats.total_tokens()),
                    ("input", b.input, stats.input_tokens),
                    ("output", b.output, stats.output_tokens),
                ] {
                    if let Some(limit) = limit {
                        parts.push(format!("{} ({used}/{limit} {name})", percent(used, limit)));
                    }
                }
                format!("tokens {}", parts.join(", "))
            }
            Op::Timeout(ms) => format!(
                "elapsed {} of {} ({})",
                seconds(stats.elapsed_ms),
                seconds(*ms),
                percent(stats.elapsed_ms, *ms)
            ),
            Op::Errors(n) => format!("errors in a row {}/{n}", stats.consecutive_errors),
            Op::Tool(spec, _) => since(match spec.phase {
                ToolPhase::Requested => "called",
                ToolPhase::Executed => "executed",
            }),
            Op::NoTools => since("answered without tools"),
            Op::Text(_) => since("matched"),
            Op::Confidence(_) => since("confident"),
            Op::Reward(r) => format!(
                "cumulative reward {} of {}; negative streak {}/{}",
                stats.reward, r.threshold, stats.negative_rewards, r.negative_streak
            ),
            Op::Loop(spec, slot) => {
                let (period, repeats) = state.loops[*slot].closest(spec);
                format!(
                    "longest repeat {repeats} of {} (period {period})",
                    spec.repeats
                )
            }
            Op::Cancelled => since("cancelled"),
            Op::Custom(c) => self.customs[*c].progress(&state.customs[*c]),
        }
    }

    /// The report of node `i` and its subtree.
    pub(crate) fn report(&self, i: usize, state: &TreeState, seqs: Seqs<'_>) -> ConditionReport {
        let node = &self.nodes[i];
        let ns = state.nodes[i];
        let latest = state.stats.steps.checked_sub(1);
        let kind = match &node.op {
            Op::All | Op::Any => None,
            Op::Not
            | Op::Seq(_)
            | Op::Final
            | Op::DoneSignal
            | Op::Tool(..)
            | Op::NoTools
            | Op::Text(_)
            | Op::Confidence(_) => Some(VerdictKind::Done),
            Op::MaxTurns(_) | Op::Tokens(_) | Op::Timeout(_) => Some(VerdictKind::Exhausted),
            Op::Errors(_) => Some(VerdictKind::Failed),
            Op::Loop(..) => Some(VerdictKind::Stuck),
            Op::Cancelled => Some(VerdictKind::Cancelled),
            Op::Reward(_) | Op::Custom(_) => ns.kind.or(Some(VerdictKind::Done)),
        };
        ConditionReport {
            condition: node.text.clone(),
            path: node.path.clone(),
            fired: latest.is_some() && ns.last == latest,
            first_fired: ns.first,
            kind,
            progress: self.progress(i, state, seqs),
            children: node
                .children
                .iter()
                .map(|&c| self.report(c as usize, state, seqs))
                .collect(),
        }
    }
}

fn percent(used: u64, limit: u64) -> String {
    if limit == 0 {
        return "100%".to_owned();
    }
    format!("{}%", u128::from(used) * 100 / u128::from(limit))
}

fn seconds(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{}.{:03}s", ms / 1000, ms % 1000)
    }
}
