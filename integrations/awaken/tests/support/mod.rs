//! Real awaken agent runs for the tests: awaken's loop (`run_agent_loop`) with its
//! scripted provider (`ScriptedLlmExecutor`), an `add` tool that counts its calls,
//! and the plugins under test.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use awaken_runtime::RuntimeError;
use awaken_runtime::engine::{ProviderScriptEvent, ScriptedLlmExecutor};
use awaken_runtime::loop_runner::{
    AgentLoopParams, AgentRunResult, CommitWiring, LoopStatePlugin, build_agent_env, run_agent_loop,
};
use awaken_runtime::phase::PhaseRuntime;
use awaken_runtime::plugins::Plugin;
use awaken_runtime::registry::{AgentResolver, ResolvedAgent};
use awaken_runtime::state::StateStore;
use awaken_runtime_contract::contract::event_sink::VecEventSink;
use awaken_runtime_contract::contract::identity::{RunIdentity, RunOrigin};
use awaken_runtime_contract::contract::inference::TokenUsage;
use awaken_runtime_contract::contract::message::Message;
use awaken_runtime_contract::contract::tool::{
    Tool, ToolCallContext, ToolDescriptor, ToolError, ToolOutput, ToolResult,
};
use serde_json::{Value, json};

/// Adds `a` and `b`; counts its calls.
pub struct Add {
    pub calls: AtomicUsize,
}

#[async_trait]
impl Tool for Add {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("add", "add", "Adds two numbers")
    }

    async fn execute(&self, args: Value, _ctx: &ToolCallContext) -> Result<ToolOutput, ToolError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
        Ok(ToolResult::success("add", json!(sum)).into())
    }
}

/// Fails every call.
pub struct Broken;

#[async_trait]
impl Tool for Broken {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("broken", "broken", "Always fails")
    }

    async fn execute(&self, _args: Value, _ctx: &ToolCallContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolResult::error("broken", "division by zero").into())
    }
}

/// A model turn calling `add(a, b)`, using `tokens` output tokens (and 10 input).
pub fn add_call(id: &str, a: i64, b: i64, tokens: i32) -> ProviderScriptEvent {
    ProviderScriptEvent::ToolCall {
        id: id.into(),
        name: "add".into(),
        arguments: json!({"a": a, "b": b}),
        tokens: usage(tokens),
    }
}

/// A model turn calling `name` with no arguments.
pub fn call(id: &str, name: &str) -> ProviderScriptEvent {
    ProviderScriptEvent::ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: json!({}),
        tokens: usage(5),
    }
}

/// A text-only model turn.
pub fn say(text: &str) -> ProviderScriptEvent {
    ProviderScriptEvent::ChatResponse {
        content: text.into(),
        tokens: usage(5),
        finish_reason: awaken_runtime_contract::contract::inference::StopReason::EndTurn,
    }
}

fn usage(output: i32) -> TokenUsage {
    TokenUsage {
        prompt_tokens: Some(10),
        completion_tokens: Some(output),
        ..TokenUsage::default()
    }
}

struct FixedResolver {
    agent: ResolvedAgent,
    plugins: Vec<Arc<dyn Plugin>>,
}

impl AgentResolver for FixedResolver {
    fn resolve(&self, _agent_id: &str) -> Result<ResolvedAgent, RuntimeError> {
        let mut agent = self.agent.clone();
        agent.env = build_agent_env(&self.plugins, &agent)?;
        Ok(agent)
    }
}

/// What a finished run left.
pub struct Ran {
    /// awaken's result: the termination reason, the response, the steps.
    pub result: AgentRunResult,
    /// The run's state store (the doneseq state is in it).
    pub store: StateStore,
    /// How many times `add` ran.
    pub adds: usize,
    /// Scripted model turns left unused.
    pub unused_turns: usize,
}

/// Runs the agent on `prompt` with `script` as the model, `plugins` installed.
pub async fn run(
    prompt: &str,
    script: Vec<ProviderScriptEvent>,
    plugins: Vec<Arc<dyn Plugin>>,
) -> Ran {
    let model = Arc::new(ScriptedLlmExecutor::new(script));
    let add = Arc::new(Add {
        calls: AtomicUsize::new(0),
    });
    let agent = ResolvedAgent::new("calc", "scripted-model", "You add numbers.", model.clone())
        .with_tool(add.clone())
        .with_tool(Arc::new(Broken));
    let store = StateStore::new();
    let runtime = PhaseRuntime::new(store.clone()).unwrap();
    store.install_plugin(LoopStatePlugin).unwrap();
    let resolver = FixedResolver { agent, plugins };
    let result = run_agent_loop(AgentLoopParams {
        resolver: &resolver,
        agent_id: "calc",
        runtime: &runtime,
        sink: Arc::new(VecEventSink::new()),
        checkpoint_store: None,
        messages: vec![Message::user(prompt)],
        run_identity: RunIdentity::new(
            "thread-1".into(),
            None,
            "run-1".into(),
            None,
            "calc".into(),
            RunOrigin::User,
        ),
        cancellation_token: None,
        decision_rx: None,
        overrides: None,
        frontend_tools: Vec::new(),
        inbox: None,
        is_continuation: false,
        initial_state_seed: None,
        commit: CommitWiring::default(),
    })
    .await
    .unwrap();
    Ran {
        result,
        store,
        adds: add.calls.load(Ordering::SeqCst),
        unused_turns: model.remaining(),
    }
}
