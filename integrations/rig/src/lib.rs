//! doneseq for [rig](https://github.com/0xPlaygrounds/rig): [`DoneseqHook`], a rig
//! `AgentHook` that observes a run's model turns and tool results as doneseq
//! messages and ends the run where doneseq's stop rules say it is done: done
//! sequences, `FINAL` answers, budgets of turns, tokens or time, loops, errors.
//!
//! ```no_run
//! use doneseq::{Monitor, TaskConfig};
//! use doneseq_rig::DoneseqHook;
//!
//! # async fn run(agent_builder: rig_agent::agent::AgentBuilder) -> Result<(), Box<dyn std::error::Error>> {
//! let mut config = TaskConfig::from_dsl(["T[add], A"])?;
//! config.stop = Some("tokens(20000) | loop".parse()?);
//! let hook = DoneseqHook::new(Monitor::new(config)?);
//! let agent = agent_builder.add_hook(hook.clone()).build();
//! let result = agent.prompt("add 2 and 3").max_turns(10).run().await;
//! if let Some(outcome) = hook.outcome() {
//!     println!("{} ({:?})", outcome.kind, outcome.answer.map(|a| a.text));
//! }
//! # let _ = result;
//! # Ok(())
//! # }
//! ```
//!
//! What the hook sees, and what it does:
//! - **the prompt** (`on_run_start`): a user message, the task's input (not a step). A
//!   run starts from a fresh doneseq run, so one hook serves run after run.
//! - **each model turn** (`on_model_turn_finished`): a model message with the turn's
//!   text, its tool calls (name, JSON arguments, call id) and its token usage. When
//!   doneseq stops the run here and the turn calls tools, the run ends before any of
//!   them runs (`tool(x)` fires on the request); rig reports the stop as an error
//!   whose text is `doneseq:<kind>: <what fired>`. A turn without tool calls ends rig's
//!   loop by itself: the hook lets it end normally and keeps the verdict.
//! - **each tool result** (`on_outcome` of a tool call): an agent message with the
//!   result's text, its call id and tool name, and the error when the tool failed or
//!   refused. A stop here ends the run before the next model call.
//!
//! [`DoneseqHook::outcome`] gives the typed outcome (kind, what fired, the answer)
//! after the run; [`DoneseqHook::run_state`] a checkpoint of where the run is.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use doneseq::{Message, Monitor, Outcome, RunState, ToolCall, Usage};
use rig_agent::agent::{
    AgentHook, HookContext, ModelTurnAction, ModelTurnFinished, OutcomeAction, OutcomeEvent,
    RunStart, RunStartAction,
};
use rig_core::message::{AssistantContent, Message as RigMessage, UserContent};

/// A rig `AgentHook` driven by a doneseq [`Monitor`]. Clones share the run: register
/// a clone with the agent (`AgentBuilder::add_hook(hook.clone())`) and read the
/// outcome from the original.
#[derive(Clone)]
pub struct DoneseqHook {
    monitor: Arc<Monitor>,
    state: Arc<Mutex<HookState>>,
}

/// One run's state: the doneseq run and its outcome, if it stopped.
struct HookState {
    run: RunState,
    outcome: Option<Outcome>,
}

/// What the hook does after observing a message.
enum Decision {
    Continue,
    /// Stop, with rig's reason text.
    Stop(String),
}

impl DoneseqHook {
    /// A hook deciding with `monitor`.
    #[must_use]
    pub fn new(monitor: Monitor) -> DoneseqHook {
        DoneseqHook::shared(Arc::new(monitor))
    }

    /// A hook deciding with a monitor shared with other hooks (one per concurrent
    /// run: a hook holds one run's state).
    #[must_use]
    pub fn shared(monitor: Arc<Monitor>) -> DoneseqHook {
        let run = monitor.start();
        DoneseqHook {
            monitor,
            state: Arc::new(Mutex::new(HookState { run, outcome: None })),
        }
    }

    /// The monitor deciding.
    #[must_use]
    pub fn monitor(&self) -> &Monitor {
        &self.monitor
    }

    /// Why and where doneseq stopped the current (or last) run; `None` while it has
    /// not.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        self.lock().outcome.clone()
    }

    /// The current run's state: a checkpoint (`serde`), its statistics, what
    /// `Monitor::explain` reads.
    #[must_use]
    pub fn run_state(&self) -> RunState {
        self.lock().run.clone()
    }

    fn lock(&self) -> MutexGuard<'_, HookState> {
        // A panic elsewhere while the lock was held leaves a consistent state: every
        // update is one assignment.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Observes one message; whether the run stops here.
    fn observe(&self, message: &Message<'_>) -> Decision {
        let mut state = self.lock();
        if state.outcome.is_some() {
            return Decision::Continue;
        }
        let verdict = self.monitor.observe(&mut state.run, message);
        let Some(outcome) = verdict.outcome() else {
            return Decision::Continue;
        };
        let reason = stop_reason(&self.monitor, outcome);
        state.outcome = Some(outcome.clone());
        Decision::Stop(reason)
    }
}

/// rig's reason text for a stop: `doneseq:<kind>: <what fired>`.
fn stop_reason(monitor: &Monitor, outcome: &Outcome) -> String {
    format!("doneseq:{}: {}", outcome.kind, monitor.fired(outcome))
}

/// The text of a user message (its text parts, joined by newlines).
fn user_text(message: &RigMessage) -> String {
    match message {
        RigMessage::User { content } => content
            .iter()
            .filter_map(|part| match part {
                UserContent::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        RigMessage::System { content } => content.clone(),
        RigMessage::Assistant(_) => String::new(),
    }
}

/// A model turn as a doneseq message: its text parts, its tool calls, its usage.
fn model_turn(event: &ModelTurnFinished<'_>) -> Message<'static> {
    let mut text = String::new();
    let mut calls = Vec::new();
    for part in event.content {
        match part {
            AssistantContent::Text(part) => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&part.text);
            }
            AssistantContent::ToolCall(call) => {
                let arguments = serde_json::Value::Object(call.function.arguments.clone());
                calls.push(
                    ToolCall::new(
                        call.function.name.as_str().to_owned(),
                        arguments.to_string(),
                    )
                    .with_id(call.id.to_string()),
                );
            }
            // Reasoning, images and provider items carry nothing doneseq classifies.
            _ => {}
        }
    }
    let mut message = calls
        .into_iter()
        .fold(Message::llm(text), Message::with_tool_call);
    let usage = event.usage;
    if usage.input_tokens.is_some() || usage.output_tokens.is_some() {
        message = message.with_usage(Usage {
            input_tokens: usage.input_tokens.unwrap_or(0),
            output_tokens: usage.output_tokens.unwrap_or(0),
        });
    }
    message
}

/// A tool's result as a doneseq message, if the outcome is a tool call's.
fn tool_result(event: &OutcomeEvent<'_>) -> Option<Message<'static>> {
    let name = event.tool_name()?;
    let mut message = match event.outcome {
        Ok(_) => {
            let result = event.tool_result()?;
            let mut message = Message::agent(result.output().render());
            if let Some(error) = result.error().or_else(|| result.refusal()) {
                message = message.with_error(error.message().to_owned());
            }
            message
        }
        // The dispatch itself failed (a denied or unknown call): an error step.
        Err(report) => Message::agent(String::new()).with_error(report.to_string()),
    };
    message = message.with_tool_name(name.to_owned());
    if let Some(id) = event.call_id {
        message = message.with_tool_call_id(id.to_string());
    }
    Some(message)
}

impl AgentHook for DoneseqHook {
    fn name(&self) -> Option<String> {
        // What decides the run: rig records it as the hook's identity.
        Some(format!("doneseq({})", self.monitor.lowered()))
    }

    async fn on_run_start(&self, _ctx: &HookContext, event: RunStart<'_>) -> RunStartAction {
        {
            let mut state = self.lock();
            state.run = self.monitor.start();
            state.outcome = None;
        }
        match self.observe(&Message::user(user_text(event.prompt))) {
            Decision::Continue => RunStartAction::continue_run(),
            Decision::Stop(reason) => RunStartAction::stop(reason),
        }
    }

    async fn on_model_turn_finished(
        &self,
        _ctx: &HookContext,
        event: ModelTurnFinished<'_>,
    ) -> ModelTurnAction {
        let message = model_turn(&event);
        match self.observe(&message) {
            // A turn without tool calls is rig's last: it ends the run by itself,
            // with its answer, rather than as an error.
            Decision::Stop(reason) if !message.tool_calls().is_empty() => {
                ModelTurnAction::stop(reason)
            }
            _ => ModelTurnAction::continue_run(),
        }
    }

    async fn on_outcome(&self, _ctx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        let Some(message) = tool_result(&event) else {
            return OutcomeAction::proceed();
        };
        match self.observe(&message) {
            Decision::Continue => OutcomeAction::proceed(),
            Decision::Stop(reason) => OutcomeAction::stop(reason),
        }
    }
}
