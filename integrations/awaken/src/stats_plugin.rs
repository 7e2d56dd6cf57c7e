//! [`StatsPolicyPlugin`]: a stop plugin that keeps its own copy of awaken's stop
//! statistics, so that its policies see each model call once.

use std::sync::Arc;

use async_trait::async_trait;
use awaken_runtime::plugins::{Plugin, PluginDescriptor, PluginRegistrar};
use awaken_runtime::policies::{StopDecision, StopPolicy, StopPolicyStats};
use awaken_runtime::state::{StateCommand, StateKeyOptions};
use awaken_runtime::{PhaseContext, PhaseHook};
use awaken_runtime_contract::model::Phase;
use awaken_runtime_contract::state::StateKey;
use awaken_runtime_contract::{StateError, now_ms};
use serde::{Deserialize, Serialize};

/// The plugin's name, and the id its hooks are registered under.
pub const STATS_PLUGIN_NAME: &str = "doneseq-stats";

/// How many recent model texts the statistics keep (as awaken keeps them).
const RECENT_TEXTS: usize = 64;

/// An awaken plugin that evaluates stop policies (a [`crate::StatsPolicy`], or any
/// awaken `StopPolicy`) after each model call, on statistics it keeps itself.
///
/// Why not awaken's own `StopConditionPlugin`: every agent already has one (awaken
/// adds it for `max_rounds` and the spec's `stop_conditions`), both update the same
/// run statistics at each model call, and in awaken-runtime 0.6.0 the second sees
/// the first's update: every count after the first model call is doubled (the
/// crate's tests show it). This plugin keeps its statistics under its own state key
/// and builds them as awaken does: one step per model call, its prompt and
/// completion tokens, the time since the run started, failed calls in a row (a
/// successful call resets them), the latest call's tool names and text, the last 64
/// non-empty texts.
///
/// The first policy (in list order) that says stop ends the run, with the reason
/// `stopped:<code>`, before any tool the call requested runs.
#[derive(Clone)]
pub struct StatsPolicyPlugin {
    policies: Vec<Arc<dyn StopPolicy>>,
}

impl StatsPolicyPlugin {
    /// A plugin evaluating `policies` in this order.
    #[must_use]
    pub fn new(policies: Vec<Arc<dyn StopPolicy>>) -> StatsPolicyPlugin {
        StatsPolicyPlugin { policies }
    }
}

impl Plugin for StatsPolicyPlugin {
    fn descriptor(&self) -> PluginDescriptor {
        PluginDescriptor {
            name: STATS_PLUGIN_NAME,
        }
    }

    fn register(&self, registrar: &mut PluginRegistrar) -> Result<(), StateError> {
        registrar.register_key::<StatsKey>(StateKeyOptions::default())?;
        registrar.register_phase_hook(STATS_PLUGIN_NAME, Phase::RunStart, StartHook)?;
        registrar.register_phase_hook(
            STATS_PLUGIN_NAME,
            Phase::AfterInference,
            EvaluateHook {
                policies: self.policies.clone(),
            },
        )
    }
}

/// The counters, as awaken's stop plugin keeps them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Stats {
    step_count: u32,
    total_input_tokens: u64,
    total_output_tokens: u64,
    start_time_ms: u64,
    consecutive_errors: u32,
    recent_response_texts: Vec<String>,
}

/// Run-scoped: cleared when a run starts, checkpointed with it.
struct StatsKey;

impl StateKey for StatsKey {
    const KEY: &'static str = "doneseq.stop_stats";
    type Value = Stats;
    type Update = Stats;

    fn apply(value: &mut Stats, update: Stats) {
        *value = update;
    }
}

/// Starts the clock at the run's start, before its first model call.
struct StartHook;

#[async_trait]
impl PhaseHook for StartHook {
    async fn run(&self, ctx: &PhaseContext) -> Result<StateCommand, StateError> {
        let mut stats = ctx.state::<StatsKey>().cloned().unwrap_or_default();
        if stats.start_time_ms == 0 {
            stats.start_time_ms = now_ms();
        }
        let mut cmd = StateCommand::new();
        cmd.update::<StatsKey>(stats);
        Ok(cmd)
    }
}

struct EvaluateHook {
    policies: Vec<Arc<dyn StopPolicy>>,
}

/// The statistics after this model call, and what the policies see.
fn count(ctx: &PhaseContext) -> (Stats, StopPolicyStats) {
    let now = now_ms();
    let mut stats = ctx.state::<StatsKey>().cloned().unwrap_or_default();
    if stats.start_time_ms == 0 {
        stats.start_time_ms = now;
    }
    stats.step_count = stats.step_count.saturating_add(1);
    let mut last_tool_names = Vec::new();
    let mut last_response_text = String::new();
    match ctx.llm_response.as_ref().map(|r| &r.outcome) {
        Some(Ok(result)) => {
            let usage = result.usage.as_ref();
            let tokens = crate::messages::token_count;
            stats.total_input_tokens = stats
                .total_input_tokens
                .saturating_add(tokens(usage.and_then(|u| u.prompt_tokens)));
            stats.total_output_tokens = stats
                .total_output_tokens
                .saturating_add(tokens(usage.and_then(|u| u.completion_tokens)));
            last_response_text = result.text();
            if !last_response_text.is_empty() {
                stats.recent_response_texts.push(last_response_text.clone());
                let excess = stats
                    .recent_response_texts
                    .len()
                    .saturating_sub(RECENT_TEXTS);
                stats.recent_response_texts.drain(..excess);
            }
            last_tool_names = result.tool_calls.iter().map(|c| c.name.clone()).collect();
            stats.consecutive_errors = 0;
        }
        Some(Err(_)) => stats.consecutive_errors = stats.consecutive_errors.saturating_add(1),
        None => {}
    }
    // As awaken: the count of failed calls is seen only at a failed call.
    let failed = matches!(ctx.llm_response.as_ref().map(|r| &r.outcome), Some(Err(_)));
    let seen = StopPolicyStats {
        step_count: stats.step_count,
        total_input_tokens: stats.total_input_tokens,
        total_output_tokens: stats.total_output_tokens,
        elapsed_ms: now.saturating_sub(stats.start_time_ms),
        consecutive_errors: if failed { stats.consecutive_errors } else { 0 },
        last_tool_names,
        last_response_text,
        recent_response_texts: stats.recent_response_texts.clone(),
    };
    (stats, seen)
}

#[async_trait]
impl PhaseHook for EvaluateHook {
    async fn run(&self, ctx: &PhaseContext) -> Result<StateCommand, StateError> {
        let (stats, seen) = count(ctx);
        let mut cmd = StateCommand::new();
        cmd.update::<StatsKey>(stats);
        let stop = self.policies.iter().find_map(|p| match p.evaluate(&seen) {
            StopDecision::Stop { code, detail } => Some((code, detail)),
            StopDecision::Continue => None,
        });
        if let Some((code, detail)) = stop {
            crate::run_end::stop(&mut cmd, code, detail);
        }
        Ok(cmd)
    }
}
