//! What a plan says about a run: the conditions that fired at a stop, with typed
//! evidence, and for every condition of the stop tree how close it is.

use std::fmt;

use super::evidence::{Evidence, percent, seconds};
use super::verdict::{FiredCondition, NodeId, StopReason};
use crate::Message;
use crate::engine::Automaton;
use crate::engine::eval::confidence;
use crate::engine::plan::{Op, Origin, Plan, PlanState, RootItem};
use crate::stop::task::Rule;
use crate::stop::{ToolPhase, VerdictKind};

/// The run's automaton and its bits, for the progress of `seq(...)` conditions.
#[derive(Clone, Copy)]
pub(crate) struct Seqs<'a> {
    pub(crate) automaton: &'a Automaton,
    pub(crate) bits: &'a [u64],
}

/// How one condition of a task's stop tree stands in a run
/// ([`crate::Monitor::explain_stop`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct ConditionReport {
    /// The condition's node in the monitor's lowered tree.
    pub node: NodeId,
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

/// What a stop at step `at` reports: the plan, the run's state and the step.
pub(crate) struct Stop<'a> {
    pub(crate) plan: &'a Plan,
    pub(crate) state: &'a PlanState,
    pub(crate) seqs: Seqs<'a>,
    pub(crate) message: &'a Message<'a>,
    pub(crate) at: u64,
}

impl Stop<'_> {
    /// Every condition that fired at this step and made the root fire, in the lowered
    /// tree's order: the options' rules (each done sequence that matched), then the
    /// stop tree's (the firing children of `|`, all children of `&` (latched), `!`
    /// itself), then the cancel handle when nothing else reported a cancel.
    /// `root_fired` has bit `i` set for the root's item `i` that fired.
    pub(crate) fn fired(&self, root_fired: u32) -> Vec<FiredCondition> {
        let plan = self.plan;
        let mut out = Vec::new();
        for (i, item) in plan.root.iter().enumerate() {
            if root_fired & (1 << i) == 0 {
                continue;
            }
            match *item {
                RootItem::Sequences => {
                    for s in self.seqs.automaton.fired(self.seqs.bits) {
                        if s >= plan.task_sequences {
                            break;
                        }
                        let node = plan.first_sequence_node as usize + s;
                        out.push(self.entry(node, VerdictKind::Done, self.at));
                    }
                }
                RootItem::Node(id) => {
                    let id = id as usize;
                    match plan.nodes[id].origin {
                        Origin::Rule(Rule::Cancel) => {
                            if !out.iter().any(|c| c.kind == VerdictKind::Cancelled) {
                                out.push(self.entry(id, VerdictKind::Cancelled, self.at));
                            }
                        }
                        Origin::Rule(_) => {
                            let kind = plan.nodes[id].id.verdict_kind();
                            out.push(self.entry(id, kind.unwrap_or(VerdictKind::Done), self.at));
                        }
                        Origin::Stop | Origin::Root => self.collect(id, self.at, &mut out),
                    }
                }
            }
        }
        out
    }

    /// The stop tree's fired conditions under node `i`.
    fn collect(&self, i: usize, at: u64, out: &mut Vec<FiredCondition>) {
        let plan = self.plan;
        let node = &plan.nodes[i];
        let state_of = |c: u32| plan.slot(c as usize).map(|s| self.state.nodes[s]);
        match node.op {
            Op::Any => {
                for &c in &node.children {
                    if state_of(c).is_some_and(|s| s.last == Some(at)) {
                        self.collect(c as usize, at, out);
                    }
                }
            }
            Op::All => {
                for &c in &node.children {
                    let last = state_of(c).and_then(|s| s.last);
                    self.collect(c as usize, last.unwrap_or(at), out);
                }
            }
            _ => {
                let s = state_of(node_u32(i)).unwrap_or_default();
                out.push(self.entry(i, s.kind.unwrap_or(VerdictKind::Done), s.last.unwrap_or(at)));
            }
        }
    }

    fn entry(&self, i: usize, kind: VerdictKind, at: u64) -> FiredCondition {
        let node = &self.plan.nodes[i];
        let rule = match node.origin {
            Origin::Rule(rule) => Some(self.reason(rule)),
            Origin::Stop | Origin::Root => None,
        };
        FiredCondition {
            node: NodeId(node_u32(i)),
            id: node.id,
            text: self.plan.node_text(i),
            path: node.path.clone(),
            rule,
            kind,
            at,
            evidence: self.evidence(i, kind, at),
        }
    }

    /// The reason a rule gives.
    fn reason(&self, rule: Rule) -> StopReason {
        match rule {
            Rule::DoneIfTool => StopReason::DoneIfTool,
            Rule::Sequence(s) => StopReason::Sequence(s),
            Rule::StringSignal => StopReason::StringSignal,
            Rule::DoneIfResponse => StopReason::DoneIfResponse(self.message.role()),
            Rule::DoneIfNoResponse => StopReason::DoneIfNoResponse(self.message.role()),
            Rule::SingleRound => StopReason::SingleRound,
            Rule::MaxTurns(n) => StopReason::MaxTurns(n),
            Rule::Cancel => StopReason::Cancelled,
        }
    }

    /// What node `i` saw; its message when it fired at this step.
    fn evidence(&self, i: usize, kind: VerdictKind, fired_at: u64) -> Evidence {
        let state = self.state;
        let stats = &state.stats;
        let now = fired_at == self.at;
        let message = self.message;
        match &self.plan.nodes[i].op {
            Op::Seq(s) => {
                let len = u64::from(self.seqs.automaton.spans[*s].1);
                Evidence::Sequence {
                    matched: fired_at.saturating_add(1).saturating_sub(len)..=fired_at,
                }
            }
            Op::Final => Evidence::Final,
            Op::DoneSignal => Evidence::DoneSignal,
            Op::Not => Evidence::NotFired,
            Op::All | Op::Any => Evidence::Combined,
            Op::Custom(c) => Evidence::Custom {
                name: self.plan.custom_names[*c].to_string(),
                detail: state.custom_details[*c].clone(),
            },
            Op::Text(t, _) => match t.pattern.find(message.content()).filter(|_| now) {
                Some(r) => Evidence::Text {
                    matched: message.content()[r].to_owned(),
                    role: message.role(),
                },
                None => Evidence::TextAt { step: fired_at },
            },
            Op::Tool(spec, _) => Evidence::tool(spec.name.as_deref(), spec.phase),
            Op::NoTools => Evidence::NoToolCalls,
            Op::Confidence(c) => match confidence(message, &c.key).filter(|_| now) {
                Some(value) if value >= c.threshold => Evidence::Confidence {
                    value,
                    threshold: c.threshold,
                },
                _ => Evidence::ConfidenceFallback,
            },
            Op::Reward(r) if kind == VerdictKind::Failed => Evidence::NegativeRewards {
                streak: stats.negative_rewards,
                limit: r.negative_streak,
            },
            Op::Reward(r) => Evidence::Reward {
                total: stats.reward,
                threshold: r.threshold,
            },
            Op::MaxTurns(n) => Evidence::Turns {
                taken: stats.steps,
                limit: *n,
            },
            Op::MaxModelCalls(n) => Evidence::ModelCalls {
                made: stats.model_calls,
                limit: *n,
            },
            Op::MaxMessages(m) => Evidence::Messages {
                counted: if m.events {
                    stats.steps
                } else {
                    stats.chat_messages
                },
                limit: m.limit,
            },
            Op::StopMessage => Evidence::StopMessage,
            Op::Handoff(_) => Evidence::Handoff {
                target: message.handoff().unwrap_or_default().to_owned(),
            },
            Op::Tokens(b) => Evidence::Tokens {
                budget: (*b).into(),
                total: stats.total_tokens(),
                input: stats.input_tokens,
                output: stats.output_tokens,
            },
            Op::Timeout(ms) => Evidence::Elapsed {
                elapsed_ms: stats.elapsed_ms,
                limit_ms: *ms,
            },
            Op::Errors(n) => Evidence::Errors {
                in_a_row: stats.consecutive_errors,
                limit: *n,
            },
            Op::Loop(spec, slot) => {
                let (period, repeats) = state.loops[*slot].closest(spec);
                Evidence::Loop {
                    period,
                    repeats,
                    wanted: spec.repeats,
                }
            }
            Op::Cancelled => Evidence::Cancelled,
            Op::Response(_) => Evidence::Response {
                role: message.role(),
            },
            Op::NoResponse(_) => Evidence::NoResponse {
                role: message.role(),
            },
            Op::SingleRound(_) => Evidence::SingleRound,
        }
    }
}

/// How close the condition at node `i` is, in words.
pub(crate) fn progress(plan: &Plan, i: usize, state: &PlanState, seqs: Seqs<'_>) -> String {
    let stats = &state.stats;
    let node = &plan.nodes[i];
    let ns = plan.slot(i).map(|s| state.nodes[s]).unwrap_or_default();
    let since = |what: &str| match ns.last {
        Some(at) => format!("{what} at step {at}"),
        None => format!("not {what} yet"),
    };
    match &node.op {
        Op::All => {
            let latched = node
                .children
                .iter()
                .filter(|&&c| {
                    plan.slot(c as usize)
                        .is_some_and(|s| state.nodes[s].first.is_some())
                })
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
        Op::MaxModelCalls(n) => format!("model calls {}/{n}", stats.model_calls),
        Op::MaxMessages(m) => format!(
            "messages {}/{}",
            if m.events {
                stats.steps
            } else {
                stats.chat_messages
            },
            m.limit
        ),
        Op::Tokens(b) => Evidence::Tokens {
            budget: (*b).into(),
            total: stats.total_tokens(),
            input: stats.input_tokens,
            output: stats.output_tokens,
        }
        .to_string(),
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
            ToolPhase::Finished => "finished",
        }),
        Op::NoTools => since("answered without tools"),
        Op::Text(..) => since("matched"),
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
        Op::Response(_) => since("responded"),
        Op::NoResponse(_) => since("without a response"),
        Op::SingleRound(steps) => format!("steps {}/{steps}", stats.steps),
        Op::StopMessage => since("stop message"),
        Op::Handoff(_) => since("handoff"),
        Op::Custom(c) => plan.customs[*c].progress(&state.customs[*c]),
    }
}

/// The report of node `i` and its subtree.
pub(crate) fn report(plan: &Plan, i: usize, state: &PlanState, seqs: Seqs<'_>) -> ConditionReport {
    let node = &plan.nodes[i];
    let ns = plan.slot(i).map(|s| state.nodes[s]).unwrap_or_default();
    let latest = state.stats.steps.checked_sub(1);
    let kind = match &node.op {
        Op::Reward(_) | Op::Custom(_) => ns.kind.or(Some(VerdictKind::Done)),
        _ => node.id.verdict_kind(),
    };
    ConditionReport {
        node: NodeId(node_u32(i)),
        condition: plan.node_text(i).to_string(),
        path: node.path.clone(),
        fired: latest.is_some() && ns.last == latest,
        first_fired: ns.first,
        kind,
        progress: progress(plan, i, state, seqs),
        children: node
            .children
            .iter()
            .map(|&c| report(plan, c as usize, state, seqs))
            .collect(),
    }
}

#[allow(clippy::cast_possible_truncation)] // node ids fit u32 (see `Plan`)
const fn node_u32(i: usize) -> u32 {
    i as u32
}
