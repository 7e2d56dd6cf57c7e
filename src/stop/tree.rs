//! A condition tree, compiled: nodes in pre-order, each with what it needs to decide
//! at a step, and the per-run state they advance.

use std::sync::Arc;
use std::time::Duration;

use super::condition::{
    Condition, ConfidenceMet, LoopDetection, RewardThreshold, TextMention, TokenBudget, ToolCalled,
    ToolPhase,
};
use super::custom::{CustomPolicy, Registry, RunStats, StepView};
use super::loops::LoopState;
use super::{MAX_CONDITION_DEPTH, MAX_CONDITION_NODES, MAX_LOOP_PERIOD, MAX_LOOP_REPEATS};
use crate::engine::limits::CompileError;
use crate::{DoneSequence, Message, Role, VerdictKind};

/// What one node tests.
#[derive(Debug)]
pub(crate) enum Op {
    All,
    Any,
    Not,
    /// The automaton's sequence with this index.
    Seq(usize),
    Final,
    DoneSignal,
    MaxTurns(u64),
    Tokens(TokenBudget),
    Timeout(u64),
    Errors(u64),
    /// The tool test and its slot in the tool states.
    Tool(ToolCalled, usize),
    NoTools,
    Text(TextMention),
    Confidence(ConfidenceMet),
    Reward(RewardThreshold),
    Loop(LoopDetection, usize),
    Cancelled,
    /// The custom policy's index (also its state's slot).
    Custom(usize),
}

#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) op: Op,
    pub(crate) children: Vec<u32>,
    pub(crate) path: Vec<usize>,
    /// The canonical text, for reports.
    pub(crate) text: String,
}

/// A compiled condition tree. Read-only: shared by every run.
#[derive(Debug)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Node>,
    pub(crate) customs: Vec<Arc<dyn CustomPolicy>>,
    pub(crate) tools: usize,
    pub(crate) loops: Vec<LoopDetection>,
    /// Some node reads the `FINAL` detector / the clock / a cancel.
    pub(crate) needs_final: bool,
    pub(crate) needs_clock: bool,
    pub(crate) has_cancel: bool,
}

/// The state of one node in one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NodeState {
    /// The first and the latest step at which it fired.
    pub(crate) first: Option<u64>,
    pub(crate) last: Option<u64>,
    /// Its kind when it last fired (a reward fires `Done` or `Failed`).
    pub(crate) kind: Option<VerdictKind>,
}

/// The pending requests of one `tool(name, executed)` condition: the ids of the
/// latest LLM message's calls of that tool, and whether there was a call.
///
/// The ids are hashed with the lowest bit clear, sorted and distinct; an answered id
/// gets its lowest bit set, which keeps the order (`h` and `h | 1` are neighbours), so
/// each result is one binary search: a request of tens of thousands of calls and their
/// results take linear-logarithmic time, not quadratic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub(crate) struct ToolState {
    pub(crate) pending: bool,
    pub(crate) ids: smallvec::SmallVec<[u64; 2]>,
    /// How many of `ids` are not answered yet.
    pub(crate) open: usize,
}

impl ToolState {
    /// Whether a checkpoint's state keeps the invariants the search relies on: ids
    /// ascending and distinct, `open` counting the unanswered ones, and `pending` set
    /// while one is open (a request whose calls had no ids has none).
    fn well_formed(&self) -> bool {
        let open = self.ids.iter().filter(|&&h| h & 1 == 0).count();
        self.ids.windows(2).all(|w| w[0] < w[1])
            && self.open == open
            && (self.ids.is_empty() || self.pending == (open > 0))
    }
}

/// The per-run state of a tree.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub(crate) struct TreeState {
    pub(crate) stats: RunStats,
    pub(crate) nodes: Vec<NodeState>,
    pub(crate) tools: Vec<ToolState>,
    pub(crate) loops: Vec<LoopState>,
    pub(crate) customs: Vec<serde_json::Value>,
    /// Each custom policy's detail when it last fired.
    pub(crate) custom_details: Vec<String>,
    /// The latest non-empty LLM response without an error: the partial answer.
    pub(crate) last_text: String,
    /// The clock's reading at the latest step (or the run's start); not part of a
    /// checkpoint: a resumed run's clock restarts at the resume.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) clock_mark: Option<Duration>,
}

/// Equal in what they mean: the clock's reading is not part of a run's value.
impl PartialEq for TreeState {
    fn eq(&self, other: &TreeState) -> bool {
        self.stats == other.stats
            && self.nodes == other.nodes
            && self.tools == other.tools
            && self.loops == other.loops
            && self.customs == other.customs
            && self.custom_details == other.custom_details
            && self.last_text == other.last_text
    }
}

impl TreeState {
    /// Heap bytes held (capacities), for [`crate::RunState::heap_bytes`].
    pub(crate) fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.nodes.capacity() * size_of::<NodeState>()
            + self.tools.capacity() * size_of::<ToolState>()
            + self
                .tools
                .iter()
                .map(|t| {
                    if t.ids.spilled() {
                        t.ids.capacity() * 8
                    } else {
                        0
                    }
                })
                .sum::<usize>()
            + self.loops.capacity() * size_of::<LoopState>()
            + self
                .loops
                .iter()
                .map(|l| l.ring.capacity() * 8 + l.runs.capacity() * 4)
                .sum::<usize>()
            + self.customs.capacity() * size_of::<serde_json::Value>()
            + self
                .custom_details
                .iter()
                .map(String::capacity)
                .sum::<usize>()
            + self.custom_details.capacity() * size_of::<String>()
            + self.last_text.capacity()
    }
}

/// What a step offers the nodes.
pub(crate) struct Ctx<'a> {
    pub(crate) message: &'a Message,
    pub(crate) at: u64,
    pub(crate) base: crate::BaseKind,
    pub(crate) final_answer: bool,
    pub(crate) cancelled: bool,
    /// Whether the automaton's sequence with this index fired now.
    pub(crate) seq_fired: &'a dyn Fn(usize) -> bool,
}

impl Tree {
    /// Compiles `root`; its sequences are appended to `sequences` (the automaton's
    /// list), after the task's own.
    pub(crate) fn compile(
        root: &Condition,
        sequences: &mut Vec<DoneSequence>,
        registry: &Registry,
    ) -> Result<Tree, CompileError> {
        // A tree built in Rust has not been through the parser's checks.
        root.validate()
            .map_err(|e| CompileError::InvalidCondition {
                message: e.to_string(),
            })?;
        let mut tree = Tree {
            nodes: Vec::new(),
            customs: Vec::new(),
            tools: 0,
            loops: Vec::new(),
            needs_final: false,
            needs_clock: false,
            has_cancel: false,
        };
        tree.add(root, Vec::new(), sequences, registry)?;
        Ok(tree)
    }

    fn add(
        &mut self,
        c: &Condition,
        path: Vec<usize>,
        sequences: &mut Vec<DoneSequence>,
        registry: &Registry,
    ) -> Result<u32, CompileError> {
        let invalid = |message: String| CompileError::InvalidCondition { message };
        if self.nodes.len() >= MAX_CONDITION_NODES {
            return Err(invalid(format!(
                "the stop condition has more than {MAX_CONDITION_NODES} nodes"
            )));
        }
        if path.len() > MAX_CONDITION_DEPTH {
            return Err(invalid(format!(
                "the stop condition nests deeper than {MAX_CONDITION_DEPTH} levels"
            )));
        }
        let op = match c {
            Condition::All(_) => Op::All,
            Condition::Any(_) => Op::Any,
            Condition::Not(_) => Op::Not,
            Condition::Sequence(s) => {
                sequences.push(s.clone());
                Op::Seq(sequences.len() - 1)
            }
            Condition::Final => {
                self.needs_final = true;
                Op::Final
            }
            Condition::DoneSignal => Op::DoneSignal,
            Condition::MaxTurns(n) => Op::MaxTurns(*n),
            Condition::Tokens(b) => Op::Tokens(*b),
            Condition::Timeout(d) => {
                self.needs_clock = true;
                Op::Timeout(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            }
            Condition::ConsecutiveErrors(n) => Op::Errors(*n),
            Condition::Tool(t) => {
                if let Some(args) = &t.args {
                    if !args.is_object() {
                        return Err(invalid(format!(
                            "tool(...) args must be a JSON object, not {args}"
                        )));
                    }
                }
                self.tools += 1;
                Op::Tool(t.clone(), self.tools - 1)
            }
            Condition::NoToolCalls => Op::NoTools,
            Condition::Text(t) => Op::Text(t.clone()),
            Condition::Confidence(c) => {
                if !c.threshold.is_finite() {
                    return Err(invalid(
                        "confidence: the threshold must be a finite number".into(),
                    ));
                }
                self.needs_final |= c.fallback_final;
                Op::Confidence(c.clone())
            }
            Condition::Reward(r) => {
                if !r.threshold.is_finite() {
                    return Err(invalid(
                        "reward: the threshold must be a finite number".into(),
                    ));
                }
                self.needs_final |= r.require_final;
                Op::Reward(r.clone())
            }
            Condition::Loop(l) => {
                if !(1..=MAX_LOOP_PERIOD).contains(&l.period) {
                    return Err(invalid(format!(
                        "loop: period must be between 1 and {MAX_LOOP_PERIOD}, not {}",
                        l.period
                    )));
                }
                if !(2..=MAX_LOOP_REPEATS).contains(&l.repeats) {
                    return Err(invalid(format!(
                        "loop: repeats must be between 2 and {MAX_LOOP_REPEATS}, not {}",
                        l.repeats
                    )));
                }
                self.loops.push(l.clone());
                Op::Loop(l.clone(), self.loops.len() - 1)
            }
            Condition::Cancelled => {
                self.has_cancel = true;
                Op::Cancelled
            }
            Condition::Custom(custom) => {
                let policy = registry
                    .build(&custom.name, &custom.config)
                    .map_err(|message| CompileError::Custom {
                        name: custom.name.clone(),
                        message,
                    })?;
                self.customs.push(policy);
                Op::Custom(self.customs.len() - 1)
            }
        };
        let index = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push(Node {
            op,
            children: Vec::new(),
            path: path.clone(),
            text: c.to_string(),
        });
        let mut children = Vec::with_capacity(c.children().len());
        for (i, child) in c.children().iter().enumerate() {
            let mut child_path = path.clone();
            child_path.push(i);
            children.push(self.add(child, child_path, sequences, registry)?);
        }
        self.nodes[index as usize].children = children;
        Ok(index)
    }

    /// A fresh run's state.
    pub(crate) fn start(&self, now: Option<Duration>) -> TreeState {
        TreeState {
            stats: RunStats::default(),
            nodes: vec![NodeState::default(); self.nodes.len()],
            tools: vec![ToolState::default(); self.tools],
            loops: self.loops.iter().map(LoopState::new).collect(),
            customs: self.customs.iter().map(|c| c.start()).collect(),
            custom_details: vec![String::new(); self.customs.len()],
            last_text: String::new(),
            clock_mark: now,
        }
    }

    /// Whether a state (a checkpoint) fits this tree.
    pub(crate) fn fits(&self, state: &TreeState) -> bool {
        state.nodes.len() == self.nodes.len()
            && state.tools.len() == self.tools
            && state.tools.iter().all(ToolState::well_formed)
            && state.customs.len() == self.customs.len()
            && state.custom_details.len() == self.customs.len()
            && state.loops.len() == self.loops.len()
            && state.loops.iter().zip(&self.loops).all(|(s, l)| s.fits(l))
    }

    /// Updates the run's statistics with a step's message (before the nodes look).
    pub(crate) fn count(&self, state: &mut TreeState, message: &Message, now: Option<Duration>) {
        let stats = &mut state.stats;
        // Saturating here and below: a resumed checkpoint may hold any count.
        stats.steps = stats.steps.saturating_add(1);
        if let Some(usage) = message.usage() {
            stats.input_tokens = stats.input_tokens.saturating_add(usage.input_tokens);
            stats.output_tokens = stats.output_tokens.saturating_add(usage.output_tokens);
        }
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        if let Some(elapsed) = message.elapsed() {
            stats.elapsed_ms = millis(elapsed);
        }
        if let Some(now) = now {
            match state.clock_mark {
                Some(mark) => {
                    // Only whole milliseconds move into `elapsed_ms`; the rest stays
                    // on the mark, so frequent steps do not lose time to rounding.
                    let whole = millis(now.saturating_sub(mark));
                    if message.elapsed().is_none() {
                        stats.elapsed_ms = stats.elapsed_ms.saturating_add(whole);
                    }
                    state.clock_mark = Some(mark + Duration::from_millis(whole));
                }
                None => state.clock_mark = Some(now),
            }
        }
        if message.error().is_some() {
            stats.consecutive_errors = stats.consecutive_errors.saturating_add(1);
        } else {
            stats.consecutive_errors = 0;
        }
        if let Some(reward) = message.reward() {
            if reward.is_finite() {
                // Kept finite (two rewards of 1e308 would make it infinite), so that a
                // checkpoint's JSON, which has no infinity, reads back.
                stats.reward = (stats.reward + reward).clamp(-f64::MAX, f64::MAX);
            }
            if reward < 0.0 {
                stats.negative_rewards = stats.negative_rewards.saturating_add(1);
            } else {
                stats.negative_rewards = 0;
            }
        }
        if message.role() == Role::Llm
            && message.error().is_none()
            && !message.content().trim().is_empty()
            && !message.is_no_response()
        {
            state.last_text.clear();
            state.last_text.push_str(message.content());
        }
    }

    /// Evaluates every node at this step (children before parents, nothing
    /// short-circuited); whether the root fires.
    pub(crate) fn eval(&self, state: &mut TreeState, ctx: &Ctx<'_>) -> bool {
        self.eval_node(0, state, ctx)
    }

    fn eval_node(&self, i: usize, state: &mut TreeState, ctx: &Ctx<'_>) -> bool {
        let node = &self.nodes[i];
        let mut any = false;
        for &child in &node.children {
            any |= self.eval_node(child as usize, state, ctx);
        }
        let fired: Option<VerdictKind> = match &node.op {
            Op::All => {
                let latched = !node.children.is_empty()
                    && node
                        .children
                        .iter()
                        .all(|&c| state.nodes[c as usize].first.is_some());
                latched.then_some(VerdictKind::Done)
            }
            Op::Any => any.then_some(VerdictKind::Done),
            Op::Not => (!any).then_some(VerdictKind::Done),
            Op::Custom(c) => {
                let view = StepView {
                    message: ctx.message,
                    at: ctx.at,
                    stats: &state.stats,
                    final_answer: ctx.final_answer,
                };
                match self.customs[*c].check(&view, &mut state.customs[*c]) {
                    Some(fire) => {
                        state.custom_details[*c] = fire.detail;
                        Some(fire.kind)
                    }
                    None => None,
                }
            }
            op => leaf(op, state, ctx),
        };
        if let Some(kind) = fired {
            let s = &mut state.nodes[i];
            s.first.get_or_insert(ctx.at);
            s.last = Some(ctx.at);
            s.kind = Some(kind);
        }
        fired.is_some()
    }
}

/// Whether a built-in fires at this step, and as what kind.
fn leaf(op: &Op, state: &mut TreeState, ctx: &Ctx<'_>) -> Option<VerdictKind> {
    let stats = &state.stats;
    let message = ctx.message;
    match op {
        Op::Seq(s) => (ctx.seq_fired)(*s).then_some(VerdictKind::Done),
        Op::Final => ctx.final_answer.then_some(VerdictKind::Done),
        Op::DoneSignal => (!message.is_no_response()
            && crate::monitor::says_done(message.content()))
        .then_some(VerdictKind::Done),
        Op::MaxTurns(n) => (stats.steps >= *n).then_some(VerdictKind::Exhausted),
        Op::Tokens(b) => {
            let reached = |limit: Option<u64>, used: u64| limit.is_some_and(|l| used >= l);
            (reached(b.total, stats.total_tokens())
                || reached(b.input, stats.input_tokens)
                || reached(b.output, stats.output_tokens))
            .then_some(VerdictKind::Exhausted)
        }
        Op::Timeout(ms) => (stats.elapsed_ms >= *ms).then_some(VerdictKind::Exhausted),
        Op::Errors(n) => (stats.consecutive_errors >= *n).then_some(VerdictKind::Failed),
        Op::Tool(spec, slot) => {
            tool(spec, &mut state.tools[*slot], ctx).then_some(VerdictKind::Done)
        }
        Op::NoTools => (ctx.base == crate::BaseKind::Llm).then_some(VerdictKind::Done),
        Op::Text(t) => (speaks(&t.from, message) && t.pattern.is_match(message.content()))
            .then_some(VerdictKind::Done),
        Op::Confidence(c) => {
            if ctx.at < c.min_steps {
                return None;
            }
            let confidence = if c.key == "confidence" {
                message
                    .confidence()
                    .or_else(|| message.metric("confidence"))
            } else {
                message.metric(&c.key)
            };
            let sure = confidence.is_some_and(|v| v >= c.threshold);
            (sure || (c.fallback_final && ctx.final_answer)).then_some(VerdictKind::Done)
        }
        Op::Reward(r) => {
            if r.negative_streak > 0 && stats.negative_rewards >= r.negative_streak {
                return Some(VerdictKind::Failed);
            }
            let reached = stats.reward >= r.threshold && message.reward().is_some();
            (reached && (!r.require_final || ctx.final_answer)).then_some(VerdictKind::Done)
        }
        Op::Loop(spec, slot) => state.loops[*slot]
            .step(spec, message)
            .map(|_| VerdictKind::Stuck),
        Op::Cancelled => ctx.cancelled.then_some(VerdictKind::Cancelled),
        // Combinators and custom policies are decided by `eval_node`.
        Op::Custom(_) | Op::All | Op::Any | Op::Not => None,
    }
}

/// Whether `message` comes from one of `from` (any speaker when empty).
fn speaks(from: &[super::Speaker], message: &Message) -> bool {
    from.is_empty()
        || from.iter().any(|s| match s {
            super::Speaker::Role(role) => message.role() == *role,
            super::Speaker::Responder(name) => message.responder() == Some(name.as_str()),
        })
}

/// The `tool(...)` test, advancing its pending requests.
fn tool(spec: &ToolCalled, state: &mut ToolState, ctx: &Ctx<'_>) -> bool {
    let message = ctx.message;
    let named = |name: &str| spec.name.as_deref().is_none_or(|n| n == name);
    let matching = |call: &crate::ToolCall| named(call.name()) && args_match(spec, call);
    match spec.phase {
        ToolPhase::Requested => {
            ctx.base == crate::BaseKind::Tool && message.tool_calls().iter().any(matching)
        }
        ToolPhase::Executed => match message.role() {
            Role::Llm => {
                state.ids.clear();
                state.pending = false;
                for call in message.tool_calls().iter().filter(|c| matching(c)) {
                    state.pending = true;
                    if let Some(id) = call.id() {
                        state.ids.push(id_hash(id));
                    }
                }
                state.ids.sort_unstable();
                state.ids.dedup();
                state.open = state.ids.len();
                false
            }
            Role::Agent if state.pending && message.error().is_none() => {
                match message.tool_call_id() {
                    Some(id) => {
                        // Found only while not answered (an answered id is `h | 1`).
                        let found = state.ids.binary_search(&id_hash(id));
                        if let Ok(i) = found {
                            state.ids[i] |= 1;
                            state.open = state.open.saturating_sub(1);
                            state.pending = state.open > 0;
                        }
                        found.is_ok()
                    }
                    // A result that does not say which call it answers is taken as
                    // the answer to the request when the request had no ids either,
                    // or when the responder names the tool.
                    None => {
                        let hit = state.ids.is_empty()
                            || message
                                .responder()
                                .is_some_and(|r| named(r) && spec.name.is_some());
                        if hit {
                            state.pending = false;
                            state.ids.clear();
                            state.open = 0;
                        }
                        hit
                    }
                }
            }
            _ => false,
        },
    }
}

/// A call id's hash, its lowest bit clear (the bit marks an answered id in
/// [`ToolState`]).
fn id_hash(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    }) & !1
}

/// Whether a call's arguments contain the condition's `args` object.
fn args_match(spec: &ToolCalled, call: &crate::ToolCall) -> bool {
    let Some(want) = &spec.args else {
        return true;
    };
    match serde_json::from_str::<serde_json::Value>(call.arguments()) {
        Ok(have) => contains(&have, want),
        Err(_) => false,
    }
}

/// Whether `have` contains `want`: every key of an object, recursively; other
/// values compare equal (numbers by value, so `1` and `1.0` agree).
fn contains(have: &serde_json::Value, want: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (have, want) {
        (Value::Object(h), Value::Object(w)) => w
            .iter()
            .all(|(k, wv)| h.get(k).is_some_and(|hv| contains(hv, wv))),
        (Value::Number(h), Value::Number(w)) => h.as_f64() == w.as_f64(),
        _ => have == want,
    }
}
