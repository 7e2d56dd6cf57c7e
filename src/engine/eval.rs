//! Evaluating a plan at one step: the run's statistics, then every node (children
//! before parents, nothing short-circuited), from the message's facts computed once.

use std::time::Duration;

use super::plan::{Op, Plan, PlanState, RootItem, ToolState, speaks};
use crate::stop::custom::StepView;
use crate::stop::{ToolCalled, ToolPhase, VerdictKind};
use crate::{BaseKind, Message, Role};

/// What a step offers the nodes: the message and its facts, each computed once.
pub(crate) struct Ctx<'a> {
    pub(crate) message: &'a Message<'a>,
    pub(crate) at: u64,
    pub(crate) base: BaseKind,
    /// The content carries a usable `FINAL` answer (computed when some node reads it).
    pub(crate) final_answer: bool,
    /// The content says `DONE` (computed when some node reads it).
    pub(crate) says_done: bool,
    /// Some task sequence fired at this step.
    pub(crate) task_hit: bool,
    pub(crate) cancelled: bool,
    /// Whether the automaton's sequence with this index fired now.
    pub(crate) seq_fired: &'a dyn Fn(usize) -> bool,
    /// Which regexes of the classifier's set matched the content, and where the
    /// plan's `text(...)` regexes start in it.
    pub(crate) matched: Option<&'a regex_automata::PatternSet>,
    pub(crate) text_base: usize,
}

impl Plan {
    /// Updates the run's statistics with a step's message (before the nodes look),
    /// and keeps the partial answer when `partial` says it may be needed.
    pub(crate) fn count(
        &self,
        state: &mut PlanState,
        message: &Message,
        now: Option<Duration>,
        partial: bool,
    ) {
        let stats = &mut state.stats;
        // Saturating here and below: a resumed checkpoint may hold any count.
        stats.steps = stats.steps.saturating_add(1);
        if message.role() == Role::Llm && !message.is_no_response() {
            stats.model_calls = stats.model_calls.saturating_add(1);
        }
        if !message.is_event() {
            stats.chat_messages = stats.chat_messages.saturating_add(1);
        }
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
        if partial
            && message.role() == Role::Llm
            && message.error().is_none()
            && !message.content().trim().is_empty()
            && !message.is_no_response()
        {
            state.last_text.clear();
            state.last_text.push_str(message.content());
        }
    }

    /// Evaluates every node at this step; which items of the root fired (bit `i`
    /// for `self.root[i]`; the root fires when any did).
    pub(crate) fn eval(&self, state: &mut PlanState, ctx: &Ctx<'_>) -> u32 {
        let mut fired = 0;
        for (i, item) in self.root.iter().enumerate() {
            let hit = match *item {
                RootItem::Sequences => ctx.task_hit,
                RootItem::Node(id) => self.eval_node(id as usize, state, ctx),
            };
            fired |= u32::from(hit) << i;
        }
        fired
    }

    fn eval_node(&self, i: usize, state: &mut PlanState, ctx: &Ctx<'_>) -> bool {
        let node = &self.nodes[i];
        let mut any = false;
        for &child in &node.children {
            any |= self.eval_node(child as usize, state, ctx);
        }
        let fired: Option<VerdictKind> = match &node.op {
            Op::All => {
                let latched = !node.children.is_empty()
                    && node.children.iter().all(|&c| {
                        self.slot(c as usize)
                            .is_some_and(|s| state.nodes[s].first.is_some())
                    });
                latched.then_some(VerdictKind::Done)
            }
            Op::Any => any.then_some(VerdictKind::Done),
            // A negation has no kind of its own: it never outranks what fires with it,
            // and a stop that fires only through negations is `exhausted` (stopped
            // without an answer), never `done`.
            Op::Not => (!any).then_some(VerdictKind::Exhausted),
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
        if let (Some(kind), Some(slot)) = (fired, self.slot(i)) {
            let s = &mut state.nodes[slot];
            s.first.get_or_insert(ctx.at);
            s.last = Some(ctx.at);
            s.kind = Some(kind);
        }
        fired.is_some()
    }
}

/// Whether a built-in fires at this step, and as what kind.
fn leaf(op: &Op, state: &mut PlanState, ctx: &Ctx<'_>) -> Option<VerdictKind> {
    let stats = &state.stats;
    let message = ctx.message;
    let responded = ctx.base != BaseKind::NoResponse;
    match op {
        Op::Seq(s) => (ctx.seq_fired)(*s).then_some(VerdictKind::Done),
        Op::Final => ctx.final_answer.then_some(VerdictKind::Done),
        Op::DoneSignal => (responded && ctx.says_done).then_some(VerdictKind::Done),
        Op::MaxTurns(n) => (stats.steps >= *n).then_some(VerdictKind::Exhausted),
        Op::MaxModelCalls(n) => (stats.model_calls >= *n).then_some(VerdictKind::Exhausted),
        Op::MaxMessages(m) => {
            let counted = if m.events {
                stats.steps
            } else {
                stats.chat_messages
            };
            (counted >= m.limit).then_some(VerdictKind::Exhausted)
        }
        Op::StopMessage => message.is_stop().then_some(VerdictKind::Done),
        Op::Handoff(targets) => message
            .handoff()
            .is_some_and(|to| targets.is_empty() || targets.iter().any(|t| t == to))
            .then_some(VerdictKind::Done),
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
            let tools = &mut state.tools;
            tool(spec, slot.map(|s| &mut tools[s]), ctx).then_some(VerdictKind::Done)
        }
        Op::NoTools => (ctx.base == BaseKind::Llm).then_some(VerdictKind::Done),
        Op::Text(t, slot) => (speaks(&t.from, message.role(), message.responder())
            && ctx.matched.is_some_and(|m| {
                m.contains(regex_automata::PatternID::must(ctx.text_base + slot))
            }))
        .then_some(VerdictKind::Done),
        Op::Confidence(c) => {
            if ctx.at < c.min_steps {
                return None;
            }
            let sure = confidence(message, &c.key).is_some_and(|v| v >= c.threshold);
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
        Op::Response(from) => {
            (responded && !from.is_empty() && speaks(from, message.role(), message.responder()))
                .then_some(VerdictKind::Done)
        }
        Op::NoResponse(from) => {
            (!responded && !from.is_empty() && speaks(from, message.role(), message.responder()))
                .then_some(VerdictKind::Done)
        }
        Op::SingleRound(steps) => (ctx.at + 1 >= *steps).then_some(VerdictKind::Done),
        // Combinators and custom policies are decided by `eval_node`.
        Op::Custom(_) | Op::All | Op::Any | Op::Not => None,
    }
}

/// The confidence a `confidence(...)` condition reads: the message's own for the key
/// `confidence` (or a metric of that name), else the named metric.
pub(crate) fn confidence(message: &Message, key: &str) -> Option<f64> {
    if key == "confidence" {
        message
            .confidence()
            .or_else(|| message.metric("confidence"))
    } else {
        message.metric(key)
    }
}

/// The `tool(...)` test, advancing the pending requests of `tool(x, executed)`.
fn tool(spec: &ToolCalled, state: Option<&mut ToolState>, ctx: &Ctx<'_>) -> bool {
    let message = ctx.message;
    let named = |name: &str| spec.name.as_deref().is_none_or(|n| n == name);
    let matching = |call: &crate::ToolCall| named(call.name()) && args_match(spec, call);
    let state = match (spec.phase, state) {
        (ToolPhase::Requested, _) | (ToolPhase::Executed | ToolPhase::Finished, None) => {
            return ctx.base == BaseKind::Tool && message.tool_calls().iter().any(matching);
        }
        (ToolPhase::Executed | ToolPhase::Finished, Some(state)) => state,
    };
    match message.role() {
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
        Role::Agent if message.error().is_none() || spec.phase == ToolPhase::Finished => {
            // A result that names its tool counts without its request in view (but
            // an argument predicate needs the request).
            let by_name = spec.args.is_none() && message.tool_name().is_some_and(named);
            if !state.pending {
                return by_name;
            }
            let by_request = match message.tool_call_id() {
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
                // A result that does not say which call it answers is taken as the
                // answer to the request when the request had no ids either, or when
                // the responder names the tool.
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
            };
            by_request || by_name
        }
        _ => false,
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
    match serde_json::from_str::<serde_json::Value>(&call.arguments()) {
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
