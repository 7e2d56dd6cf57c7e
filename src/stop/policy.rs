//! rlm-code's face: `should_terminate(result, context) -> (bool, Option<answer>)`
//! over a compiled monitor, with the state kept inside (and `reset` between
//! episodes).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::answer::{AnswerValue, format_final_answer, resolve_final_var};
use crate::{AnswerSource, Message, Monitor, Outcome, RunState, Usage, VerdictKind};

/// One action's result, as rlm-code's `ActionResult` carries it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActionResult {
    /// `"code"`, `"final"`, ...: a `"final"` action ends the episode with its output
    /// as the answer (rlm-code's `FinalPatternTerminationPolicy`).
    pub action_type: String,
    /// Whether the action succeeded; `false` with an `error` is an error step.
    pub success: bool,
    /// What the action printed or said: the text the conditions read.
    pub output: String,
    /// The error, if the action failed.
    pub error: Option<String>,
    /// Tokens the action used (counted as output tokens).
    pub tokens_used: u64,
    /// Numbers about the action; `confidence` is the model's confidence, any other
    /// key is a metric (`confidence(..., key="name")` reads it).
    pub metadata: BTreeMap<String, f64>,
}

/// The context of one step, as rlm-code's `PolicyContext` carries it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyContext {
    /// The agent's variables, where `FINAL_VAR(name)` answers are looked up.
    pub variables: BTreeMap<String, AnswerValue>,
    /// Numbers about the run; `last_reward` is this step's reward.
    pub metrics: BTreeMap<String, f64>,
}

/// A stateful termination policy with rlm-code's interface.
///
/// Each call to [`TerminationPolicy::should_terminate`] is one step of the episode
/// (the step index is the number of calls before it, like rlm-code's
/// `context.step`), evaluated once: calling it is the only thing that advances the
/// state, so nothing can be counted twice. Unlike rlm-code, the answer is never a
/// status sentence: a run that stops for failure (a negative reward streak,
/// errors) gives `(true, None)`, and [`TerminationPolicy::outcome`] says why.
///
/// ```
/// use std::sync::Arc;
/// use doneseq::stop::{ActionResult, Condition, PolicyContext, TerminationPolicy};
/// use doneseq::{Monitor, TaskConfig};
///
/// let mut config = TaskConfig::default();
/// config.stop = Some(Condition::Final);
/// let mut policy = TerminationPolicy::new(Arc::new(Monitor::new(config)?));
/// let result = ActionResult {
///     action_type: "code".into(),
///     success: true,
///     output: "After computing, the answer is FINAL('42')".into(),
///     ..ActionResult::default()
/// };
/// assert_eq!(policy.should_terminate(&result, &PolicyContext::default()), (true, Some("42".into())));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct TerminationPolicy {
    monitor: Arc<Monitor>,
    run: RunState,
    last: Option<Outcome>,
}

impl TerminationPolicy {
    /// A policy over `monitor`, at the start of an episode.
    #[must_use]
    pub fn new(monitor: Arc<Monitor>) -> TerminationPolicy {
        let run = monitor.start();
        TerminationPolicy {
            monitor,
            run,
            last: None,
        }
    }

    /// Starts a new episode: every counter and latch back to zero.
    pub fn reset(&mut self) {
        self.run = self.monitor.start();
        self.last = None;
    }

    /// The outcome of the latest step that stopped, if any: its kind and what fired.
    #[must_use]
    pub const fn outcome(&self) -> Option<&Outcome> {
        self.last.as_ref()
    }

    /// The run's state (for checkpoints or explanations).
    #[must_use]
    pub const fn state(&self) -> &RunState {
        &self.run
    }

    /// Observes one action; whether to stop, and the final answer if there is one.
    ///
    /// The answer is the `FINAL(...)` answer, or a `FINAL_VAR(name)` resolved in
    /// `context.variables` (a name that is not there is *not* final: the episode
    /// goes on, as in the reference RLM, instead of rlm-code's answer that is the
    /// variable's name), or the output. A stop of another kind than done gives no
    /// answer.
    pub fn should_terminate(
        &mut self,
        result: &ActionResult,
        context: &PolicyContext,
    ) -> (bool, Option<String>) {
        if result.action_type == "final" {
            return (true, Some(result.output.clone()));
        }
        let message = to_message(result, context);
        let verdict = self.monitor.observe(&mut self.run, &message);
        let Some(outcome) = verdict.outcome().cloned() else {
            return (false, None);
        };
        let answer = match (&outcome.answer, outcome.kind) {
            (Some(a), VerdictKind::Done) if a.source == AnswerSource::FinalVariable => {
                match resolve_final_var(&a.text, &context.variables) {
                    Ok(value) => Some(format_final_answer(value)),
                    Err(_) => return (false, None),
                }
            }
            (Some(a), VerdictKind::Done) => Some(a.text.clone()),
            _ => None,
        };
        self.last = Some(outcome);
        (true, answer)
    }
}

fn to_message(result: &ActionResult, context: &PolicyContext) -> Message {
    let mut message = Message::llm(result.output.clone());
    if let Some(error) = &result.error {
        message = message.with_error(error.clone());
    } else if !result.success {
        message = message.with_error("the action failed");
    }
    if result.tokens_used > 0 {
        message = message.with_usage(Usage {
            input_tokens: 0,
            output_tokens: result.tokens_used,
        });
    }
    for (key, &value) in &result.metadata {
        message = if key == "confidence" {
            message.with_confidence(value)
        } else {
            message.with_metric(key.clone(), value)
        };
    }
    if let Some(&reward) = context.metrics.get("last_reward") {
        message = message.with_reward(reward);
    }
    message
}
