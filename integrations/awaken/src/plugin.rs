//! [`DoneseqPlugin`]: phase hooks that drive a doneseq run through an awaken run,
//! with the run's doneseq state kept in awaken's state store.

use std::sync::Arc;

use async_trait::async_trait;
use awaken_runtime::plugins::{Plugin, PluginDescriptor, PluginRegistrar};
use awaken_runtime::state::{StateCommand, StateKeyOptions, StateStore};
use awaken_runtime::{PhaseContext, PhaseHook};
use awaken_runtime_contract::StateError;
use awaken_runtime_contract::model::Phase;
use awaken_runtime_contract::state::StateKey;
use doneseq::compat::awaken::StopDecision;
use doneseq::{Message, Monitor, Outcome, RunState};
use serde::{Deserialize, Serialize};

use crate::{messages, run_end};

/// The plugin's name, and the id its hooks are registered under.
pub const PLUGIN_NAME: &str = "doneseq";

/// An awaken plugin that observes a run's input, each model call and each tool
/// result as doneseq messages and ends the run where doneseq's stop rules say.
///
/// Its hooks:
/// - `RunStart`: a fresh doneseq run; the run's last user message is its input.
/// - `AfterInference`: the model call (text, tool calls, usage, or its error). A
///   stop here ends the run before any requested tool runs (`tool(x)` fires on the
///   request, like awaken's `StopOnTool`).
/// - `AfterToolExecute`: the tool result (the text the model reads, the error when
///   it failed). A stop here ends the run when the step's tool calls are done,
///   before the next model call.
///
/// A stop sets the run's lifecycle to done with the reason
/// `stopped:<code>` (awaken's `TerminationReason::Stopped`), where the code is
/// awaken's name for the condition when awaken has it (`max_rounds`,
/// `token_budget`, `stop_on_tool`, ...) and doneseq's otherwise (`done_sequence`,
/// `final`, ...). The doneseq state (a checkpoint of the run and, once it stopped,
/// the typed [`Outcome`]) is the run-scoped state key [`DoneseqRunKey`]: awaken
/// checkpoints it with the run, and [`DoneseqPlugin::outcome`] reads it back.
///
/// One plugin serves any number of runs, concurrent or not: the monitor is
/// read-only and each run's state lives in that run's store.
#[derive(Clone)]
pub struct DoneseqPlugin {
    monitor: Arc<Monitor>,
}

impl DoneseqPlugin {
    /// A plugin deciding with `monitor`.
    #[must_use]
    pub fn new(monitor: Monitor) -> DoneseqPlugin {
        DoneseqPlugin::shared(Arc::new(monitor))
    }

    /// A plugin deciding with a monitor shared with other code.
    #[must_use]
    pub fn shared(monitor: Arc<Monitor>) -> DoneseqPlugin {
        DoneseqPlugin { monitor }
    }

    /// The monitor deciding.
    #[must_use]
    pub fn monitor(&self) -> &Monitor {
        &self.monitor
    }

    /// Why and where doneseq stopped the run whose state is in `store`; `None` while
    /// it has not (or the plugin is not installed there).
    #[must_use]
    pub fn outcome(store: &StateStore) -> Option<Outcome> {
        store.read::<DoneseqRunKey>()?.outcome
    }

    /// The doneseq state of the run in `store`: a checkpoint (`serde`), its
    /// statistics, what `Monitor::explain` reads. `None` before the run started.
    #[must_use]
    pub fn run_state(store: &StateStore) -> Option<RunState> {
        store.read::<DoneseqRunKey>()?.run
    }
}

impl Plugin for DoneseqPlugin {
    fn descriptor(&self) -> PluginDescriptor {
        PluginDescriptor { name: PLUGIN_NAME }
    }

    fn register(&self, registrar: &mut PluginRegistrar) -> Result<(), StateError> {
        registrar.register_key::<DoneseqRunKey>(StateKeyOptions::default())?;
        for phase in [
            Phase::RunStart,
            Phase::AfterInference,
            Phase::AfterToolExecute,
        ] {
            registrar.register_phase_hook(
                PLUGIN_NAME,
                phase,
                ObserveHook {
                    monitor: Arc::clone(&self.monitor),
                },
            )?;
        }
        Ok(())
    }
}

/// The state key holding a run's doneseq state. Run-scoped: awaken clears it when a
/// run starts, and checkpoints it with the run.
pub struct DoneseqRunKey;

impl StateKey for DoneseqRunKey {
    const KEY: &'static str = "doneseq.run";
    type Value = DoneseqRun;
    type Update = DoneseqRun;

    fn apply(value: &mut DoneseqRun, update: DoneseqRun) {
        *value = update;
    }
}

/// A run's doneseq state, as [`DoneseqRunKey`] stores it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DoneseqRun {
    /// The doneseq run; `None` before the run's first phase.
    pub run: Option<RunState>,
    /// Why and where doneseq stopped the run; `None` while it has not.
    pub outcome: Option<Outcome>,
}

/// The hook at each observed phase: one message in, maybe a stop out.
struct ObserveHook {
    monitor: Arc<Monitor>,
}

impl ObserveHook {
    /// The message this phase carries, if any.
    fn message(ctx: &PhaseContext) -> Option<Message<'static>> {
        match ctx.phase {
            Phase::RunStart => messages::run_input(ctx),
            Phase::AfterInference => ctx.llm_response.as_ref().map(messages::model_call),
            Phase::AfterToolExecute => messages::tool_result(ctx),
            _ => None,
        }
    }

    /// The run's state: fresh at `RunStart`, else the stored one, checked against
    /// the monitor (a checkpoint restored into a run with another monitor is an
    /// error, not a silent restart); with its outcome if it stopped.
    fn stored(&self, ctx: &PhaseContext) -> Result<(RunState, Option<Outcome>), StateError> {
        let stored = match ctx.phase {
            Phase::RunStart => None,
            _ => ctx.state::<DoneseqRunKey>().cloned(),
        };
        let DoneseqRun { run, outcome } = stored.unwrap_or_default();
        let run = match run {
            Some(run) => self
                .monitor
                .resume(run)
                .map_err(|error| StateError::KeyDecode {
                    key: DoneseqRunKey::KEY.to_owned(),
                    message: format!("the stored doneseq run does not fit this monitor: {error}"),
                })?,
            None => self.monitor.start(),
        };
        Ok((run, outcome))
    }
}

#[async_trait]
impl PhaseHook for ObserveHook {
    async fn run(&self, ctx: &PhaseContext) -> Result<StateCommand, StateError> {
        let mut cmd = StateCommand::new();
        let (mut run, mut outcome) = self.stored(ctx)?;
        if outcome.is_some() {
            return Ok(cmd);
        }
        if let Some(message) = Self::message(ctx) {
            let verdict = self.monitor.observe(&mut run, &message);
            if let (Some(stop), StopDecision::Stop { code, detail }) =
                (verdict.outcome(), StopDecision::from(&verdict))
            {
                run_end::stop(&mut cmd, code, detail);
                outcome = Some(stop.clone());
            }
        } else if ctx.phase != Phase::RunStart {
            // Nothing observed: the stored state stands as it is.
            return Ok(cmd);
        }
        cmd.update::<DoneseqRunKey>(DoneseqRun {
            run: Some(run),
            outcome,
        });
        Ok(cmd)
    }
}
