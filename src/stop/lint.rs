//! Static checks of a stop condition: what can never fire, what fires at once, what
//! is vacuous.
//!
//! See [`lint`] for what is checked, and what is not.

use std::fmt;

use super::{Condition, ConfidenceMet, LoopDetection, RewardThreshold, Speaker, TokenBudget};
use crate::{DoneSequence, EventKind, Role};

/// What [`lint`] knows about the agent the condition is for. Each list is optional:
/// without it, the checks that need it are skipped.
///
/// ```
/// use doneseq::stop::LintOptions;
///
/// let options = LintOptions::default()
///     .with_tools(["search", "send_summary"])
///     .with_custom(["converged"]);
/// assert_eq!(options.tools.as_deref().map(<[String]>::len), Some(2));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LintOptions {
    /// The agent's tool names, when known: a condition or a sequence that needs
    /// another tool can never fire.
    pub tools: Option<Vec<String>>,
    /// The names of the registered custom conditions, when known.
    pub custom: Option<Vec<String>>,
    /// Tool class names and their request names ([`crate::TaskConfig::tool_classes`]):
    /// `T[ClassName]` is checked as the request name it resolves to.
    pub tool_classes: std::collections::BTreeMap<String, String>,
}

impl LintOptions {
    /// The same options with this tool list.
    #[must_use]
    pub fn with_tools<I, S>(mut self, tools: I) -> LintOptions
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// The same options with these tool classes (class name to request name).
    #[must_use]
    pub fn with_tool_classes(
        mut self,
        classes: std::collections::BTreeMap<String, String>,
    ) -> LintOptions {
        self.tool_classes = classes;
        self
    }

    /// The same options with this list of registered custom condition names.
    #[must_use]
    pub fn with_custom<I, S>(mut self, names: I) -> LintOptions
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.custom = Some(names.into_iter().map(Into::into).collect());
        self
    }
}

/// How bad a [`Lint`] is. Ordered: `Note < Warning < Error`.
///
/// ```
/// use doneseq::stop::Severity;
///
/// assert!(Severity::Error > Severity::Warning && Severity::Warning > Severity::Note);
/// assert_eq!(Severity::Warning.to_string(), "warning");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Harmless, but the tree says more than it needs to.
    Note,
    /// Almost certainly not what was meant (fires at once, or part of it is inert).
    Warning,
    /// The node can never fire.
    Error,
}

impl Severity {
    /// `note`, `warning` or `error`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every check [`lint`] makes. Each kind has a fixed [`Severity`] and a stable
/// machine name ([`LintKind::name`]).
///
/// ```
/// use doneseq::stop::{LintKind, Severity};
///
/// assert_eq!(LintKind::EmptyCombinator.severity(), Severity::Error);
/// assert_eq!(LintKind::EmptyCombinator.name(), "empty_combinator");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LintKind {
    /// Error: `tool(name)`, or `T[name]` in a done sequence, names a tool that is not
    /// in [`LintOptions::tools`]; or `tool()` (any tool) for an agent without tools.
    /// The model cannot call it, so the node never fires. The message gives the
    /// closest known name.
    UnknownTool,
    /// Warning: `!T[name]` in a done sequence names a tool the agent does not have:
    /// the literal always holds (probably a misspelt name).
    NegatedUnknownTool,
    /// Warning: a `loop` exempts a tool the agent does not have (probably misspelt: the
    /// tool meant is not exempt).
    UnknownExemptTool,
    /// Error: a `custom` condition whose name is not in [`LintOptions::custom`]; the
    /// monitor cannot build it.
    UnknownCustom,
    /// Error: `all()` or `any()` without children never fires.
    EmptyCombinator,
    /// Note: `all(x)` or `any(x)` with one child is just `x`.
    SingleChild,
    /// Note: `!!x` is just `x`.
    DoubleNegation,
    /// Warning: `!x` where `x` never fires (e.g. `!any()`): it fires at every step, so
    /// outside `all` it stops the run at the first step, and inside `all` it adds
    /// nothing.
    NegationAlwaysFires,
    /// Error: `!x` where `x` fires at every step (e.g. `!max_turns(0)`): it never fires.
    NegationNeverFires,
    /// Warning: a way to stop made only of negations (`!final`, `!a & !b`, as the tree
    /// or as a branch of `|`): it fires when something has not happened, so it stops
    /// the run without an answer, as `exhausted` (a negation has no kind of its own).
    NegationOnly,
    /// Warning: a limit of 0 (`max_turns(0)`, a token limit of 0, `timeout(0s)` or any
    /// timeout under the clock's 1 ms resolution, `consecutive_errors(0)`) is reached
    /// before anything happens: it fires at the first step. awaken reads 0 as
    /// "disabled"; doneseq does not.
    ZeroLimit,
    /// Error: a token budget with no limit set never fires.
    EmptyTokenBudget,
    /// Warning: a confidence threshold outside `0..=1`: above 1 it is never met
    /// (confidences are usually in `0..=1`), below 0 every confidence meets it.
    ConfidenceOutOfRange,
    /// Warning: a confidence or reward threshold that is NaN or infinite: NaN and `+inf`
    /// are never reached, `-inf` always is.
    NonFiniteThreshold,
    /// Error: `text` restricted to `system` messages: system messages are not steps, so
    /// it never matches.
    TextFromSystemOnly,
    /// Warning: a `text` pattern that matches the empty string (`x*`) matches every
    /// message of its speakers.
    TextMatchesEverything,
    /// Error: `response([])` or `no_response([])` names no speaker, so it never fires.
    NoSpeaker,
    /// Error: the tree is nested deeper than [`crate::stop::MAX_CONDITION_DEPTH`]; the
    /// monitor refuses it. Reported at the combinator whose children are too deep,
    /// which the lint does not look into.
    TooDeep,
}

impl LintKind {
    /// How bad this kind of finding is.
    #[must_use]
    pub const fn severity(self) -> Severity {
        match self {
            LintKind::UnknownTool
            | LintKind::UnknownCustom
            | LintKind::EmptyCombinator
            | LintKind::NegationNeverFires
            | LintKind::EmptyTokenBudget
            | LintKind::TextFromSystemOnly
            | LintKind::NoSpeaker
            | LintKind::TooDeep => Severity::Error,
            LintKind::NegatedUnknownTool
            | LintKind::UnknownExemptTool
            | LintKind::NegationAlwaysFires
            | LintKind::NegationOnly
            | LintKind::ZeroLimit
            | LintKind::ConfidenceOutOfRange
            | LintKind::NonFiniteThreshold
            | LintKind::TextMatchesEverything => Severity::Warning,
            LintKind::SingleChild | LintKind::DoubleNegation => Severity::Note,
        }
    }

    /// A stable snake_case name, for machine-readable output.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            LintKind::UnknownTool => "unknown_tool",
            LintKind::NegatedUnknownTool => "negated_unknown_tool",
            LintKind::UnknownExemptTool => "unknown_exempt_tool",
            LintKind::UnknownCustom => "unknown_custom",
            LintKind::EmptyCombinator => "empty_combinator",
            LintKind::SingleChild => "single_child",
            LintKind::DoubleNegation => "double_negation",
            LintKind::NegationAlwaysFires => "negation_always_fires",
            LintKind::NegationNeverFires => "negation_never_fires",
            LintKind::NegationOnly => "negation_only",
            LintKind::ZeroLimit => "zero_limit",
            LintKind::EmptyTokenBudget => "empty_token_budget",
            LintKind::ConfidenceOutOfRange => "confidence_out_of_range",
            LintKind::NonFiniteThreshold => "non_finite_threshold",
            LintKind::TextFromSystemOnly => "text_from_system_only",
            LintKind::TextMatchesEverything => "text_matches_everything",
            LintKind::NoSpeaker => "no_speaker",
            LintKind::TooDeep => "too_deep",
        }
    }
}

/// One finding of [`lint`].
///
/// `Display` prints `severity: message (at path)`, where the path is `root` followed by
/// the child indices that lead to the node (`root.1.0`: the first child of the second
/// child of the root).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Lint {
    /// What was found.
    pub kind: LintKind,
    /// The child indices from the root to the node (empty: the root itself). For a
    /// finding inside a done sequence, the path of the sequence's node; the message
    /// names the element.
    pub path: Vec<usize>,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl Lint {
    /// The severity of its kind.
    #[must_use]
    pub const fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (at root", self.severity(), self.message)?;
        for index in &self.path {
            write!(f, ".{index}")?;
        }
        f.write_str(")")
    }
}

/// Checks `condition` and returns every finding, in pre-order (a node before its
/// children, children in order). An empty list means nothing is certainly wrong.
///
/// It walks a [`Condition`] tree once and reports every node that is certainly
/// wrong or does nothing, with the path of child indices from the root to it. Run it
/// when a condition is loaded, before the first message, and show what it finds.
/// Each finding has a [`Severity`]:
///
/// - [`Severity::Error`]: the node can never fire (`any()`, a tool the agent does not
///   have, `text` from `system` only, a token budget without a limit, ...);
/// - [`Severity::Warning`]: almost certainly not what was meant (`max_turns(0)` fires at
///   the first step, a confidence threshold of 1.5, `!` over something that never
///   fires, ...);
/// - [`Severity::Note`]: harmless but redundant (`all(x)` is `x`, `!!x` is `x`).
///
/// Only what is certain is reported: a condition that might fire on some input is
/// never flagged because it looks unusual. [`LintKind`] lists every check, with an
/// example.
///
/// # What is not reported, on purpose
///
/// - **`x & !x`**: under [`Condition::All`], which is latched per run, both children
///   can fire, at different steps (`tool(search) & !tool(search)`: a step that called
///   `search` and, earlier or later, one that did not). It is satisfiable, and sometimes
///   meant.
/// - **Unsatisfiable elements of a done sequence** (`L & A`, `C[a] & !C[a]`, `!_`):
///   every [`crate::Element`] is checked when it is built (by the parser and
///   [`crate::Element::all`]), so no [`crate::DoneSequence`] value holds one, and
///   consecutive steps are independent, so a sequence of satisfiable elements can
///   match. What only the agent's tool list can tell (`T[serch]`) is reported here.
/// - **Structural limits** (nesting, loop periods): the monitor refuses those when it
///   compiles the tree, with its own error; the lint only stops descending past
///   [`crate::stop::MAX_CONDITION_DEPTH`] ([`LintKind::TooDeep`]).
///
/// # Examples
///
/// ```
/// use doneseq::stop::{Condition, LintKind, LintOptions, Severity, lint};
///
/// let stop = Condition::tool("serch") | Condition::max_turns(0);
/// let options = LintOptions::default().with_tools(["search", "summarise"]);
/// let lints = lint(&stop, &options);
/// assert_eq!(lints.len(), 2);
/// assert_eq!(lints[0].kind, LintKind::UnknownTool);
/// assert_eq!(lints[0].path, [0]);
/// assert_eq!(
///     lints[0].to_string(),
///     "error: tool(\"serch\") can never fire: the agent has no tool \"serch\" \
///      (closest: \"search\") (at root.0)",
/// );
/// assert_eq!(lints[1].kind, LintKind::ZeroLimit);
/// assert_eq!(lints[1].severity(), Severity::Warning);
/// ```
///
/// ```
/// use doneseq::stop::{Condition, LintKind, LintOptions, lint};
///
/// let clean = (Condition::tool("send_summary") & Condition::confidence(0.9))
///     | Condition::max_turns(10);
/// assert!(lint(&clean, &LintOptions::default().with_tools(["send_summary"])).is_empty());
///
/// let vacuous = !Condition::Any(vec![]);
/// let kinds: Vec<_> = lint(&vacuous, &LintOptions::default()).into_iter().map(|l| l.kind).collect();
/// assert_eq!(
///     kinds,
///     [LintKind::NegationAlwaysFires, LintKind::EmptyCombinator, LintKind::NegationOnly],
/// );
/// ```
#[must_use]
pub fn lint(condition: &Condition, options: &LintOptions) -> Vec<Lint> {
    let mut linter = Linter {
        options,
        path: Vec::new(),
        lints: Vec::new(),
    };
    linter.visit(condition);
    linter.negation_only(condition);
    linter.lints
}

impl Condition {
    /// [`lint`] this condition.
    ///
    /// ```
    /// use doneseq::stop::{Condition, LintKind, LintOptions};
    ///
    /// let lints = Condition::All(vec![Condition::max_turns(5)]).lint(&LintOptions::default());
    /// assert_eq!(lints[0].kind, LintKind::SingleChild);
    /// assert_eq!(lints[0].to_string(), "note: all(...) with one child is just that child (at root)");
    /// ```
    #[must_use]
    pub fn lint(&self, options: &LintOptions) -> Vec<Lint> {
        lint(self, options)
    }
}

/// Whether a node fires at every step or at none, when that is certain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Constant {
    /// Fires at every step (so at the first).
    Always,
    /// Never fires.
    Never,
}

struct Linter<'a> {
    options: &'a LintOptions,
    path: Vec<usize>,
    lints: Vec<Lint>,
}

impl Linter<'_> {
    fn report(&mut self, kind: LintKind, message: String) {
        self.lints.push(Lint {
            kind,
            path: self.path.clone(),
            message,
        });
    }

    fn visit(&mut self, condition: &Condition) {
        self.node(condition);
        let children = condition.children();
        if !children.is_empty() && self.path.len() >= super::MAX_CONDITION_DEPTH {
            self.report(
                LintKind::TooDeep,
                format!(
                    "the tree is nested deeper than {} levels; the monitor refuses it \
                     (nothing below this node was checked)",
                    super::MAX_CONDITION_DEPTH
                ),
            );
            return;
        }
        for (index, child) in children.iter().enumerate() {
            self.path.push(index);
            self.visit(child);
            self.path.pop();
        }
    }

    /// Reports each way to stop (the tree, or each branch of a `|` at its top) made
    /// only of negations.
    fn negation_only(&mut self, condition: &Condition) {
        match condition {
            Condition::Any(children) => {
                for (index, child) in children.iter().enumerate() {
                    self.path.push(index);
                    self.negation_only(child);
                    self.path.pop();
                }
            }
            // (A negation that can never fire is reported as that, not as this.)
            c if only_negations(c)
                && !self
                    .lints
                    .iter()
                    .any(|l| l.kind == LintKind::NegationNeverFires && l.path == self.path) =>
            {
                self.report(
                    LintKind::NegationOnly,
                    format!(
                        "{c} is made only of negations: it fires when something has not \
                     happened and stops the run without an answer, as exhausted; say when \
                     it should count (e.g. max_turns(5) & {c})"
                    ),
                );
            }
            _ => {}
        }
    }

    /// The findings about `condition` itself (not its children).
    fn node(&mut self, condition: &Condition) {
        match condition {
            Condition::Sequence(seq) => self.sequence(seq),
            Condition::MaxTurns(0) => self.report(
                LintKind::ZeroLimit,
                zero_limit("max_turns(0)", "0 steps", "leave max_turns out"),
            ),
            Condition::MaxModelCalls(0) => self.report(
                LintKind::ZeroLimit,
                zero_limit(
                    "max_model_calls(0)",
                    "0 model calls",
                    "leave max_model_calls out",
                ),
            ),
            Condition::Tokens(budget) => self.tokens(budget),
            Condition::Timeout(limit) if limit.as_millis() == 0 => {
                let what = if limit.is_zero() {
                    "timeout(0s)".to_owned()
                } else {
                    format!("timeout({limit:?}), under the clock's resolution of 1 ms,")
                };
                self.report(
                    LintKind::ZeroLimit,
                    zero_limit(&what, "0 ms", "leave timeout out"),
                );
            }
            Condition::ConsecutiveErrors(0) => self.report(
                LintKind::ZeroLimit,
                zero_limit(
                    "consecutive_errors(0)",
                    "0 errors in a row",
                    "leave consecutive_errors out",
                ),
            ),
            Condition::Tool(tool) => {
                if let Some(message) = self.missing_tool(tool.name.as_deref()) {
                    self.report(LintKind::UnknownTool, message);
                }
            }
            Condition::Text(text) => {
                let system = Speaker::Role(Role::System);
                if !text.from.is_empty() && text.from.iter().all(|s| *s == system) {
                    self.report(
                        LintKind::TextFromSystemOnly,
                        format!(
                            "text({:?}) only from system can never fire: system messages \
                             are not steps; name the speakers whose messages count",
                            text.pattern.as_str()
                        ),
                    );
                } else if text.pattern.is_match("") {
                    self.report(
                        LintKind::TextMatchesEverything,
                        format!(
                            "text({:?}) matches the empty string, so it matches every \
                             message{}",
                            text.pattern.as_str(),
                            if text.from.is_empty() {
                                ""
                            } else {
                                " of its speakers"
                            }
                        ),
                    );
                }
            }
            Condition::Confidence(confidence) => self.confidence(confidence),
            Condition::Reward(reward) => self.reward(reward),
            Condition::Loop(detection) => self.loop_exempt(detection),
            Condition::Custom(custom) => {
                if let Some(known) = &self.options.custom
                    && !known.contains(&custom.name)
                {
                    let message = format!(
                        "custom({:?}) is not a registered condition{}",
                        custom.name,
                        closest_hint(&custom.name, known, "no custom condition is registered")
                    );
                    self.report(LintKind::UnknownCustom, message);
                }
            }
            Condition::All(children) | Condition::Any(children) => {
                let name = if matches!(condition, Condition::All(_)) {
                    "all"
                } else {
                    "any"
                };
                match children.len() {
                    0 => self.report(
                        LintKind::EmptyCombinator,
                        format!("{name}() without children never fires"),
                    ),
                    1 => self.report(
                        LintKind::SingleChild,
                        format!("{name}(...) with one child is just that child"),
                    ),
                    _ => {}
                }
            }
            Condition::Not(child) => {
                if let Condition::Not(_) = **child {
                    self.report(
                        LintKind::DoubleNegation,
                        "!!x is just x: the two negations cancel".to_owned(),
                    );
                }
                match self.constant(child, self.path.len() + 1) {
                    Some(Constant::Never) => self.report(
                        LintKind::NegationAlwaysFires,
                        "! over a condition that never fires fires at every step: outside \
                         all(...) it stops the run at the first step, inside all(...) it \
                         adds nothing"
                            .to_owned(),
                    ),
                    Some(Constant::Always) => self.report(
                        LintKind::NegationNeverFires,
                        "! over a condition that fires at every step can never fire".to_owned(),
                    ),
                    None => {}
                }
            }
            Condition::MaxTurns(_)
            | Condition::MaxModelCalls(_)
            | Condition::MaxMessages(_)
            | Condition::StopMessage
            | Condition::Handoff(_)
            | Condition::Timeout(_)
            | Condition::ConsecutiveErrors(_)
            | Condition::Final
            | Condition::DoneSignal
            | Condition::NoToolCalls
            | Condition::SingleRound { .. }
            | Condition::Cancelled => {}
            Condition::Response(from) | Condition::NoResponse(from) if from.is_empty() => {
                self.report(
                    LintKind::NoSpeaker,
                    format!(
                        "{} with no speaker never fires; name a role or @responder",
                        condition.canonical_name()
                    ),
                );
            }
            Condition::Response(_) | Condition::NoResponse(_) => {}
        }
    }

    fn tokens(&mut self, budget: &TokenBudget) {
        if budget.is_empty() {
            self.report(
                LintKind::EmptyTokenBudget,
                "a token budget with no limit set never fires; set total, input or output"
                    .to_owned(),
            );
            return;
        }
        for (field, limit) in [
            ("total", budget.total),
            ("input", budget.input),
            ("output", budget.output),
        ] {
            if limit == Some(0) {
                self.report(
                    LintKind::ZeroLimit,
                    zero_limit(
                        &format!("tokens with a {field} limit of 0"),
                        "0 tokens",
                        &format!("leave the {field} limit unset"),
                    ),
                );
            }
        }
    }

    fn confidence(&mut self, confidence: &ConfidenceMet) {
        let t = confidence.threshold;
        if !t.is_finite() {
            let effect = if t == f64::NEG_INFINITY {
                "every confidence meets it"
            } else {
                "no confidence ever meets it"
            };
            self.report(
                LintKind::NonFiniteThreshold,
                format!("confidence threshold {t}: {effect}"),
            );
        } else if t > 1.0 {
            let fallback = if confidence.fallback_final {
                " (only the FINAL fallback can fire)"
            } else {
                ""
            };
            self.report(
                LintKind::ConfidenceOutOfRange,
                format!(
                    "confidence threshold {t} is above 1: confidences are usually in \
                     0..=1, so it is never met{fallback}"
                ),
            );
        } else if t < 0.0 {
            self.report(
                LintKind::ConfidenceOutOfRange,
                format!(
                    "confidence threshold {t} is below 0: confidences are usually in \
                     0..=1, so every reported confidence meets it"
                ),
            );
        }
    }

    fn reward(&mut self, reward: &RewardThreshold) {
        let t = reward.threshold;
        if !t.is_finite() {
            let effect = if t == f64::NEG_INFINITY {
                "the first reward reaches it"
            } else if reward.negative_streak == 0 {
                "no cumulative reward reaches it, and the negative streak test is off: \
                 it never fires"
            } else {
                "no cumulative reward reaches it: only the negative streak can fire"
            };
            self.report(
                LintKind::NonFiniteThreshold,
                format!("reward threshold {t}: {effect}"),
            );
        }
    }

    fn loop_exempt(&mut self, detection: &LoopDetection) {
        let Some(tools) = &self.options.tools else {
            return;
        };
        for name in &detection.exempt {
            if !tools.iter().any(|t| t == name) {
                let message = format!(
                    "loop exempts {name:?}, which is not one of the agent's tools{}",
                    closest_hint(name, tools, "the agent has no tools")
                );
                self.report(LintKind::UnknownExemptTool, message);
            }
        }
    }

    fn sequence(&mut self, seq: &DoneSequence) {
        let Some(tools) = &self.options.tools else {
            return;
        };
        for (index, element) in seq.elements().iter().enumerate() {
            for literal in element.literals() {
                let EventKind::SpecificTool(name) = literal.event().kind() else {
                    continue;
                };
                let written = name.as_str();
                let name = super::task::tool_request(&self.options.tool_classes, written)
                    .unwrap_or(written);
                if tools.iter().any(|t| t == name) {
                    continue;
                }
                let hint = closest_hint(name, tools, "the agent has no tools");
                if literal.is_negated() {
                    self.report(
                        LintKind::NegatedUnknownTool,
                        format!(
                            "seq({:?}): element {index} excludes T[{name}], but the agent \
                             has no tool {name:?}{hint}, so the exclusion always holds",
                            seq.to_string()
                        ),
                    );
                } else {
                    self.report(
                        LintKind::UnknownTool,
                        format!(
                            "seq({:?}) can never match: element {index} needs T[{name}], \
                             but the agent has no tool {name:?}{hint}",
                            seq.to_string()
                        ),
                    );
                }
            }
        }
    }

    /// Why a tool condition can never fire, if the tool list says so.
    fn missing_tool(&self, name: Option<&str>) -> Option<String> {
        let tools = self.options.tools.as_ref()?;
        match name {
            None if tools.is_empty() => {
                Some("tool() can never fire: the agent has no tools".to_owned())
            }
            None => None,
            Some(name) if tools.iter().any(|t| t == name) => None,
            Some(name) => Some(format!(
                "tool({name:?}) can never fire: the agent has no tool {name:?}{}",
                closest_hint(name, tools, "the agent has no tools")
            )),
        }
    }

    /// Whether `condition` certainly fires at every step, or at none.
    fn constant(&self, condition: &Condition, depth: usize) -> Option<Constant> {
        if depth > super::MAX_CONDITION_DEPTH {
            return None;
        }
        match condition {
            Condition::MaxTurns(0) | Condition::ConsecutiveErrors(0) => Some(Constant::Always),
            // Reached before anything happens: the first step sees 0 >= 0.
            Condition::MaxModelCalls(0) => Some(Constant::Always),
            Condition::Timeout(limit) if limit.as_millis() == 0 => Some(Constant::Always),
            Condition::Tokens(budget) if budget.is_empty() => Some(Constant::Never),
            Condition::Tokens(budget)
                if [budget.total, budget.input, budget.output].contains(&Some(0)) =>
            {
                Some(Constant::Always)
            }
            Condition::Tool(tool) => self
                .missing_tool(tool.name.as_deref())
                .map(|_| Constant::Never),
            Condition::Text(text)
                if !text.from.is_empty()
                    && text.from.iter().all(|s| *s == Speaker::Role(Role::System)) =>
            {
                Some(Constant::Never)
            }
            Condition::Sequence(seq) => {
                let tools = self.options.tools.as_ref()?;
                let impossible = seq.elements().iter().any(|element| {
                    element.literals().iter().any(|literal| {
                        !literal.is_negated()
                            && matches!(literal.event().kind(),
                                EventKind::SpecificTool(name)
                                    if !tools.iter().any(|t| t == name.as_str()))
                    })
                });
                impossible.then_some(Constant::Never)
            }
            Condition::Any(children) => {
                let all = children
                    .iter()
                    .map(|c| self.constant(c, depth + 1))
                    .collect::<Vec<_>>();
                if all.contains(&Some(Constant::Always)) {
                    Some(Constant::Always)
                } else if all.iter().all(|c| *c == Some(Constant::Never)) {
                    Some(Constant::Never)
                } else {
                    None
                }
            }
            Condition::All(children) => {
                let all = children
                    .iter()
                    .map(|c| self.constant(c, depth + 1))
                    .collect::<Vec<_>>();
                if children.is_empty() || all.contains(&Some(Constant::Never)) {
                    Some(Constant::Never)
                } else if all.iter().all(|c| *c == Some(Constant::Always)) {
                    Some(Constant::Always)
                } else {
                    None
                }
            }
            Condition::Not(child) => match self.constant(child, depth + 1)? {
                Constant::Always => Some(Constant::Never),
                Constant::Never => Some(Constant::Always),
            },
            _ => None,
        }
    }
}

/// The message of a [`LintKind::ZeroLimit`].
fn zero_limit(what: &str, reached_by: &str, instead: &str) -> String {
    format!(
        "{what} fires at the first step ({reached_by} already reach it). awaken reads a \
         0 limit as \"disabled\"; doneseq does not: to disable it, {instead}"
    )
}

/// ` (closest: "x")`, or `; <none>` when `known` is empty.
fn closest_hint(name: &str, known: &[String], none: &str) -> String {
    match closest(name, known) {
        Some(best) => format!(" (closest: {best:?})"),
        None => format!("; {none}"),
    }
}

/// The known name nearest to `name`, if it is close (the expression language's
/// rule: same letters ignoring case and `_`, or one or two edits away).
fn closest<'k>(name: &str, known: &'k [String]) -> Option<&'k str> {
    super::expr::closest(name, known.iter().map(String::as_str))
}

/// Whether `condition` fires only through negations: a `!x`, or an `&` of such.
fn only_negations(condition: &Condition) -> bool {
    match condition {
        // `!!x` is `x`.
        Condition::Not(inner) => match &**inner {
            Condition::Not(x) => only_negations(x),
            _ => true,
        },
        Condition::All(children) => !children.is_empty() && children.iter().all(only_negations),
        _ => false,
    }
}
