//! The compiled plan: a task's whole stop model (its options lowered into conditions,
//! then its stop tree) as nodes in pre-order, each with what it needs to decide at a
//! step. Read-only: shared by every run; the per-run state is [`PlanState`].
//!
//! The lowered tree is `any(rules..., stop, cancelled)`: the options' conditions in
//! Langroid's order (done_if_tool, the done sequences in list order, the `DONE`
//! signal, done_if_response, done_if_no_response, single_round, max_turns), then the
//! task's stop tree, then the cancel handle (always honoured). Node 0 is that root.
//!
//! The rules are stateless leaves, so they keep no per-run state, and the done
//! sequences, however many, are decided together by the automaton: the root looks at
//! them through one test (did a task sequence fire at this step?), not one node each,
//! so a step's work does not grow with their number.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::engine::limits::CompileError;
use crate::stop::TaskConfig;
use crate::stop::custom::{CustomPolicy, Registry, RunStats};
use crate::stop::loops::LoopState;
use crate::stop::task::Rule;
use crate::stop::{
    Condition, ConditionId, ConfidenceMet, LoopDetection, RewardThreshold, Speaker, TextMention,
    TokenBudget, ToolCalled, ToolPhase, VerdictKind,
};
use crate::{DoneSequence, Role};

/// Where a node of the lowered tree comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The root `any` that joins everything.
    Root,
    /// A task option (its rule, in Langroid's order).
    Rule(Rule),
    /// The task's stop tree.
    Stop,
}

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
    MaxModelCalls(u64),
    MaxMessages(crate::stop::MessageBudget),
    StopMessage,
    Handoff(Vec<String>),
    Tokens(TokenBudget),
    /// Milliseconds.
    Timeout(u64),
    Errors(u64),
    /// The tool test, and its slot in the tool states (`tool(x, executed)` only: a
    /// request is decided by the message alone).
    Tool(ToolCalled, Option<usize>),
    NoTools,
    /// The text test, and its regex's index among the plan's `texts`.
    Text(TextMention, usize),
    Confidence(ConfidenceMet),
    Reward(RewardThreshold),
    Loop(LoopDetection, usize),
    Cancelled,
    Response(Vec<Speaker>),
    NoResponse(Vec<Speaker>),
    /// The number of steps of the round (1, or 2 with `llm_delegate`).
    SingleRound(u64),
    /// The custom policy's index (also its state's slot).
    Custom(usize),
}

/// One node of the lowered tree.
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) op: Op,
    pub(crate) children: Vec<u32>,
    /// Child indices from the stop tree's root (empty for the root and the rules).
    pub(crate) path: Vec<usize>,
    pub(crate) origin: Origin,
    /// Which built-in or combinator it is.
    pub(crate) id: ConditionId,
    /// Its canonical text, shared with every outcome that reports it: printed the
    /// first time a report needs it (see [`Plan::node_text`]), so that compiling a
    /// task of a thousand sequences does not print each one.
    text: OnceLock<Arc<str>>,
}

/// A compiled task. Read-only: shared by every run.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) nodes: Vec<Node>,
    /// The root's children that are not task sequences, in order, with where the task
    /// sequences go among them (after `done_if_tool`).
    pub(crate) root: Vec<RootItem>,
    /// The task's own sequences: the automaton's first `task_sequences`, and the node
    /// of the first (the others follow it).
    pub(crate) task_sequences: usize,
    pub(crate) first_sequence_node: u32,
    /// The stop tree's root node and its number of nodes: they are contiguous (pre-order),
    /// and node `root + k` has state slot `k`.
    pub(crate) stop: Option<(u32, usize)>,
    pub(crate) customs: Vec<Arc<dyn CustomPolicy>>,
    /// Each custom condition's registered name, by the index of `customs`.
    pub(crate) custom_names: Vec<Box<str>>,
    pub(crate) tools: usize,
    pub(crate) loops: Vec<LoopDetection>,
    /// The distinct `text(...)` regexes, as written: they join the classifier's regex
    /// set (after the sequences' `C[...]`), so a message is searched once for all.
    pub(crate) texts: Vec<Box<str>>,
    /// Some node reads the `FINAL` detector / the `DONE` signal / the clock.
    pub(crate) needs_final: bool,
    pub(crate) needs_done: bool,
    pub(crate) needs_clock: bool,
    /// Some node can stop a run with another kind than `Done`, which gives the
    /// partial answer: the latest LLM response is kept.
    pub(crate) needs_partial: bool,
    /// The lowered tree.
    pub(crate) lowered: Condition,
}

/// An item of the root `any`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RootItem {
    Node(u32),
    /// All the task's done sequences, decided at once by the automaton.
    Sequences,
}

/// The state of one node of the stop tree in one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
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

/// The per-run state of a plan.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub(crate) struct PlanState {
    pub(crate) stats: RunStats,
    /// One per node of the stop tree.
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
impl PartialEq for PlanState {
    fn eq(&self, other: &PlanState) -> bool {
        self.stats == other.stats
            && self.nodes == other.nodes
            && self.tools == other.tools
            && self.loops == other.loops
            && self.customs == other.customs
            && self.custom_details == other.custom_details
            && self.last_text == other.last_text
    }
}

impl PlanState {
    /// Heap bytes held (capacities), for [`crate::RunState::heap_bytes`].
    pub(crate) fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let spilled = |t: &ToolState| {
            if t.ids.spilled() {
                t.ids.capacity() * 8
            } else {
                0
            }
        };
        self.nodes.capacity() * size_of::<NodeState>()
            + self.tools.capacity() * size_of::<ToolState>()
            + self.tools.iter().map(spilled).sum::<usize>()
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

impl Plan {
    /// Lowers and compiles `config`. Returns the plan and the automaton's sequences:
    /// the task's own first, then the stop tree's `seq(...)` conditions.
    pub(crate) fn compile(
        config: &TaskConfig,
        registry: &Registry,
    ) -> Result<(Plan, Vec<DoneSequence>), CompileError> {
        if let Some(stop) = &config.stop {
            // A tree built in Rust has not been through the parser's checks.
            stop.validate().map_err(CompileError::InvalidCondition)?;
        }
        let mut sequences: Vec<DoneSequence> = config.done_sequences.to_vec();
        let rules = config.rules();
        let mut plan = Plan {
            nodes: Vec::new(),
            root: Vec::new(),
            task_sequences: sequences.len(),
            first_sequence_node: 0,
            stop: None,
            customs: Vec::new(),
            custom_names: Vec::new(),
            tools: 0,
            loops: Vec::new(),
            texts: Vec::new(),
            needs_final: false,
            needs_done: false,
            needs_clock: false,
            needs_partial: false,
            // Set below, from the rules (moved, not cloned).
            lowered: Condition::Any(Vec::new()),
        };
        plan.nodes.push(Node {
            op: Op::Any,
            children: Vec::new(),
            path: Vec::new(),
            origin: Origin::Root,
            id: ConditionId::Any,
            text: OnceLock::new(),
        });
        for (rule, condition) in &rules {
            let (rule, condition) = (*rule, condition);
            match rule {
                Rule::Sequence(s) => {
                    if s == 0 {
                        plan.first_sequence_node = node_id(plan.nodes.len());
                        plan.root.push(RootItem::Sequences);
                    }
                    plan.push_leaf(Op::Seq(s), condition, Origin::Rule(rule));
                }
                _ => {
                    let id = plan.add(
                        condition,
                        Origin::Rule(rule),
                        Vec::new(),
                        &mut sequences,
                        registry,
                    )?;
                    plan.root.push(RootItem::Node(id));
                }
            }
        }
        if let Some(stop) = &config.stop {
            let start = plan.nodes.len();
            let id = plan.add(stop, Origin::Stop, Vec::new(), &mut sequences, registry)?;
            plan.stop = Some((id, plan.nodes.len() - start));
            plan.root.push(RootItem::Node(id));
        }
        // The cancel handle is always honoured: the last rule of every task. It does
        // not make the run keep a partial answer unless a handle was asked for.
        let id = plan.push_leaf(
            Op::Cancelled,
            &Condition::Cancelled,
            Origin::Rule(Rule::Cancel),
        );
        plan.root.push(RootItem::Node(id));
        plan.lowered = TaskConfig::lower(rules.into_iter().map(|(_, c)| c), config.stop.clone());
        // `T[ClassName]` as Langroid resolves it (the lowered tree keeps the text as
        // written; the automaton and the reported sequences use the request names).
        config
            .tool_requests()
            .map_err(|(class, request)| CompileError::InvalidToolClass { class, request })?;
        let rename = |name: &str| {
            config
                .tool_request(name)
                .and_then(|request| crate::ToolName::new(request).ok())
        };
        for sequence in &mut sequences {
            sequence.rename_tools(&rename);
        }
        Ok((plan, sequences))
    }

    /// The canonical text of node `i`, printed from the lowered tree the first time
    /// it is asked for.
    pub(crate) fn node_text(&self, i: usize) -> Arc<str> {
        self.nodes[i]
            .text
            .get_or_init(|| {
                // Nodes are numbered in the lowered tree's pre-order.
                let mut stack = vec![&self.lowered];
                let mut index = 0;
                while let Some(c) = stack.pop() {
                    if index == i {
                        return Arc::from(c.to_string().as_str());
                    }
                    index += 1;
                    stack.extend(c.children().iter().rev());
                }
                Arc::from("")
            })
            .clone()
    }

    fn push_leaf(&mut self, op: Op, condition: &Condition, origin: Origin) -> u32 {
        let id = node_id(self.nodes.len());
        self.nodes.push(Node {
            op,
            children: Vec::new(),
            path: Vec::new(),
            origin,
            id: condition.id(),
            text: OnceLock::new(),
        });
        id
    }

    fn add(
        &mut self,
        c: &Condition,
        origin: Origin,
        path: Vec<usize>,
        sequences: &mut Vec<DoneSequence>,
        registry: &Registry,
    ) -> Result<u32, CompileError> {
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
            Condition::DoneSignal => {
                self.needs_done = true;
                Op::DoneSignal
            }
            Condition::MaxTurns(n) => Op::MaxTurns(*n),
            Condition::MaxModelCalls(n) => Op::MaxModelCalls(*n),
            Condition::MaxMessages(m) => Op::MaxMessages(*m),
            Condition::StopMessage => Op::StopMessage,
            Condition::Handoff(targets) => Op::Handoff(targets.clone()),
            Condition::Tokens(b) => Op::Tokens(*b),
            Condition::Timeout(d) => {
                self.needs_clock = true;
                Op::Timeout(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            }
            Condition::ConsecutiveErrors(n) => Op::Errors(*n),
            Condition::Tool(t) => {
                let slot = (t.phase != ToolPhase::Requested).then(|| {
                    self.tools += 1;
                    self.tools - 1
                });
                Op::Tool(t.clone(), slot)
            }
            Condition::NoToolCalls => Op::NoTools,
            Condition::Text(t) => {
                let source = t.pattern.as_str();
                let slot = match self.texts.iter().position(|s| &**s == source) {
                    Some(slot) => slot,
                    None => {
                        self.texts.push(source.into());
                        self.texts.len() - 1
                    }
                };
                Op::Text(t.clone(), slot)
            }
            Condition::Confidence(c) => {
                self.needs_final |= c.fallback_final;
                Op::Confidence(c.clone())
            }
            Condition::Reward(r) => {
                self.needs_final |= r.require_final;
                Op::Reward(r.clone())
            }
            Condition::Loop(l) => {
                self.loops.push(l.clone());
                Op::Loop(l.clone(), self.loops.len() - 1)
            }
            Condition::Cancelled => Op::Cancelled,
            Condition::Response(from) => Op::Response(from.clone()),
            Condition::NoResponse(from) => Op::NoResponse(from.clone()),
            Condition::SingleRound { llm_delegate } => {
                Op::SingleRound(1 + u64::from(*llm_delegate))
            }
            Condition::Custom(custom) => {
                let policy = registry
                    .build(&custom.name, &custom.config)
                    .map_err(|message| CompileError::Custom {
                        name: custom.name.clone(),
                        message,
                    })?;
                self.customs.push(policy);
                self.custom_names.push(custom.name.as_str().into());
                Op::Custom(self.customs.len() - 1)
            }
        };
        // A condition of another kind than Done (or of a kind decided as it fires)
        // may stop the run without an answer: the latest LLM response is kept.
        self.needs_partial |=
            c.id().verdict_kind() != Some(VerdictKind::Done) && !matches!(op, Op::All | Op::Any);
        let index = node_id(self.nodes.len());
        self.nodes.push(Node {
            op,
            children: Vec::new(),
            path: path.clone(),
            origin,
            id: c.id(),
            text: OnceLock::new(),
        });
        let mut children = Vec::with_capacity(c.children().len());
        for (i, child) in c.children().iter().enumerate() {
            let mut child_path = path.clone();
            child_path.push(i);
            children.push(self.add(child, origin, child_path, sequences, registry)?);
        }
        self.nodes[index as usize].children = children;
        Ok(index)
    }

    /// The stop tree's nodes, as a range of node ids (empty without a tree).
    pub(crate) fn stop_nodes(&self) -> std::ops::Range<usize> {
        match self.stop {
            Some((id, len)) => id as usize..id as usize + len,
            None => 0..0,
        }
    }

    /// How many nodes the stop tree has.
    fn stop_len(&self) -> usize {
        self.stop.map_or(0, |(_, len)| len)
    }

    /// The state slot of a node: stop-tree nodes only.
    pub(crate) fn slot(&self, node: usize) -> Option<usize> {
        let range = self.stop_nodes();
        range.contains(&node).then(|| node - range.start)
    }

    /// A fresh run's state.
    pub(crate) fn start(&self, now: Option<Duration>) -> PlanState {
        PlanState {
            stats: RunStats::default(),
            nodes: vec![NodeState::default(); self.stop_len()],
            tools: vec![ToolState::default(); self.tools],
            loops: self.loops.iter().map(LoopState::new).collect(),
            customs: self.customs.iter().map(|c| c.start()).collect(),
            custom_details: vec![String::new(); self.customs.len()],
            last_text: String::new(),
            clock_mark: now,
        }
    }

    /// Whether a state (a checkpoint) fits this plan.
    pub(crate) fn fits(&self, state: &PlanState) -> bool {
        state.nodes.len() == self.stop_len()
            && state.tools.len() == self.tools
            && state.tools.iter().all(ToolState::well_formed)
            && state.customs.len() == self.customs.len()
            && state.custom_details.len() == self.customs.len()
            && state.loops.len() == self.loops.len()
            && state.loops.iter().zip(&self.loops).all(|(s, l)| s.fits(l))
    }
}

#[allow(clippy::cast_possible_truncation)] // bounded by MAX_CONDITION_NODES + MAX_SEQUENCES + 8
const fn node_id(n: usize) -> u32 {
    n as u32
}

/// The speakers test of `response(...)`, `no_response(...)` and `text(..., from=...)`:
/// whether the message comes from one of them (any speaker when empty).
pub(crate) fn speaks(from: &[Speaker], role: Role, responder: Option<&str>) -> bool {
    from.is_empty()
        || from.iter().any(|s| match s {
            Speaker::Role(r) => role == *r,
            Speaker::Responder(name) => responder == Some(name.as_str()),
        })
}
