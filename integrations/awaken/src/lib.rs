//! doneseq for [awaken](https://github.com/AwakenWorks/awaken): plugins that end an
//! awaken agent run where doneseq's stop rules say it is done.
//!
//! - [`DoneseqPlugin`] drives a doneseq monitor from awaken's phase hooks: the run's
//!   input, each model call, each tool result, as doneseq messages. Every doneseq
//!   rule applies (done sequences, `FINAL` answers, budgets, loops, errors, ...);
//!   the run's doneseq state lives in awaken's state store, checkpointed with the
//!   run, and the typed outcome is read back with [`DoneseqPlugin::outcome`].
//! - [`StatsPolicy`] is an awaken `StopPolicy` for the conditions that awaken's run
//!   statistics can decide (model calls, tokens, time, errors, the requested tools,
//!   the model's text), and [`StatsPolicyPlugin`] evaluates stop policies on
//!   statistics of its own.
//! - [`condition_from_specs`] reads an agent's declarative `stop_conditions` as one
//!   doneseq condition.
//!
//! ```
//! use std::sync::Arc;
//! use awaken_runtime::plugins::Plugin;
//! use doneseq::{Monitor, TaskConfig};
//! use doneseq_awaken::DoneseqPlugin;
//!
//! let mut config = TaskConfig::from_dsl(["T[add], A"])?;
//! config.stop = Some("tokens(20000) | loop".parse()?);
//! let plugin = Arc::new(DoneseqPlugin::new(Monitor::new(config)?));
//! // Install it like any awaken plugin: in the plugin list an agent's execution
//! // environment is built from (`awaken_runtime::loop_runner::build_agent_env`).
//! let plugins: Vec<Arc<dyn Plugin>> = vec![plugin];
//! // After the run: `DoneseqPlugin::outcome(runtime.store())`.
//! # let _ = plugins;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod messages;
mod plugin;
mod run_end;
mod specs;
mod stats_plugin;
mod stats_policy;

pub use plugin::{DoneseqPlugin, DoneseqRun, DoneseqRunKey, PLUGIN_NAME};
pub use specs::{condition_from_specs, spec};
pub use stats_plugin::{STATS_PLUGIN_NAME, StatsPolicyPlugin};
pub use stats_policy::{NotDecidable, StatsPolicy};
