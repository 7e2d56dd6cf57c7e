//! The monitor's side of stop conditions: evaluating the task's tree at each step,
//! reporting what fired, and explaining how close every condition is.

use super::{Monitor, RunState};
use crate::engine;
use crate::stop::tree::Ctx;
use crate::stop::{ConditionReport, Seqs};
use crate::{BaseKind, FiredCondition, Message, VerdictKind};

impl Monitor {
    /// Advances the stop tree's state with this step; whether its root fires.
    pub(super) fn eval_tree(
        &self,
        state: &mut RunState,
        message: &Message,
        base: BaseKind,
        at: u64,
    ) -> bool {
        let Some(tree) = &self.tree else {
            return false;
        };
        let now = tree.needs_clock.then(|| self.clock.now());
        tree.count(&mut state.tree, message, now);
        let final_answer =
            tree.needs_final && engine::has_final(&self.classifier.detector, message.content());
        let (automaton, bits) = (&self.automaton, &state.bits);
        let seq_fired = |s: usize| automaton.has_fired(bits, s);
        let ctx = Ctx {
            message,
            at,
            base,
            final_answer,
            cancelled: state.is_cancelled(),
            seq_fired: &seq_fired,
        };
        tree.eval(&mut state.tree, &ctx)
    }

    /// The conditions that fired at a stop; a cancel is reported even when the tree
    /// has no `cancelled` condition (or no tree at all).
    pub(super) fn tree_conditions(
        &self,
        state: &RunState,
        message: &Message,
        at: u64,
        tree_fired: bool,
        cancelled: bool,
    ) -> Vec<FiredCondition> {
        let seqs = Seqs {
            automaton: &self.automaton,
            bits: &state.bits,
        };
        let mut out = match &self.tree {
            Some(tree) if tree_fired => tree.fired(&state.tree, seqs, message, at),
            _ => Vec::new(),
        };
        if cancelled && !out.iter().any(|c| c.kind == VerdictKind::Cancelled) {
            out.push(FiredCondition {
                condition: "cancelled".to_owned(),
                path: Vec::new(),
                kind: VerdictKind::Cancelled,
                at,
                detail: "the run's cancel handle was set".to_owned(),
            });
        }
        out
    }

    /// For every condition of the task's stop tree: whether it fires at the latest
    /// step, since when, and how close it is (`turns 7/10`, `tokens 81% ...`,
    /// `sequence 1 of 2`). `None` when the task has no stop condition.
    ///
    /// ```
    /// use doneseq::stop::Condition;
    /// use doneseq::{Message, Monitor, TaskConfig};
    ///
    /// let mut config = TaskConfig::default();
    /// config.stop = Some(Condition::max_turns(10) | Condition::tokens(1000));
    /// let monitor = Monitor::new(config)?;
    /// let mut run = monitor.start();
    /// for _ in 0..7 {
    ///     monitor.observe(&mut run, &Message::llm("thinking"));
    /// }
    /// let report = monitor.explain_stop(&run).unwrap();
    /// assert_eq!(report.children[0].progress, "turns 7/10");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn explain_stop(&self, state: &RunState) -> Option<ConditionReport> {
        let tree = self.tree.as_ref()?;
        let seqs = Seqs {
            automaton: &self.automaton,
            bits: &state.bits,
        };
        Some(tree.report(0, &state.tree, seqs))
    }
}
