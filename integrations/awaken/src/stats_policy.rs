//! [`StatsPolicy`]: a doneseq condition as an awaken `StopPolicy`, for the conditions
//! that awaken's stop statistics can decide.

use std::fmt;
use std::time::Duration;

use awaken_runtime::policies::{StopDecision, StopPolicy, StopPolicyStats};
use doneseq::compat::awaken::id_code;
use doneseq::stop::{Condition, ConditionId, Speaker, TextPattern, TokenBudget, ToolPhase};
use doneseq::{Evidence, Role, VerdictKind};

/// A doneseq condition evaluated on awaken's `StopPolicyStats`, as an awaken
/// `StopPolicy`: doneseq's expression language where awaken decides from its run
/// statistics (install it with [`crate::StatsPolicyPlugin`]).
///
/// The statistics carry counters and the latest model texts, never the run's
/// messages, so only these conditions can be decided from them, and are accepted:
///
/// | condition | decided from the statistics as |
/// |---|---|
/// | `max_model_calls(n)` | `step_count >= n` (awaken counts a round per model call) |
/// | `tokens(...)` | input, output and total tokens against each limit that is set |
/// | `timeout(d)` | `elapsed_ms` since the run started `>= d`, checked after each model call ([`crate::DoneseqPlugin`] checks after each tool result too) |
/// | `consecutive_errors(n)` | awaken's count of failed model calls in a row `>= n` (a tool's failure is not in the statistics; [`crate::DoneseqPlugin`] counts every step with an error) |
/// | `tool`, `tool(name)` | the latest model call requested it (`phase=requested`, no `args`) |
/// | `no_tool_calls` | the latest model call answered with text and no tool call |
/// | `text(pattern, from=llm)` | the regex matches the latest model text |
/// | `a \| b` | of children above |
/// | `a & b` | of limits only (`max_model_calls`, `tokens`, `timeout`): `&` remembers a child that fired at an earlier step, and only a limit, once reached, stays so in the statistics |
///
/// Each of these fires after the same model call as it does in doneseq observing the
/// run's messages (the crate's tests run both on the same runs), but for the two
/// noted. Anything else (done sequences, `final`, `loop`, `max_turns`, `!`, ...) is
/// refused with
/// [`NotDecidable`], which says where and why: observe the run's messages with
/// [`crate::DoneseqPlugin`] for those.
///
/// The decision's code is awaken's name for the condition that decided (as
/// `doneseq::compat::awaken::id_code` gives it: `max_rounds`, `token_budget`,
/// `stop_on_tool`, `content_match`, ...); when several fire at once, the first in
/// the expression among those of the strongest kind decides, as in doneseq's
/// outcome (failed, then done, then stuck, then exhausted). The detail is the
/// condition and its evidence: `tokens(100): tokens 120% (120/100 total)`.
///
/// ```
/// use std::sync::Arc;
/// use awaken_runtime::policies::StopPolicy;
/// use doneseq::stop::Condition;
/// use doneseq_awaken::{StatsPolicy, StatsPolicyPlugin};
///
/// let condition: Condition = "tokens(50000) | tool(finish) | timeout(5m)".parse()?;
/// let policy: Arc<dyn StopPolicy> = Arc::new(StatsPolicy::new(&condition)?);
/// // Install it as an agent's plugin (see `StatsPolicyPlugin` for why not in a
/// // second `StopConditionPlugin`).
/// let plugin = StatsPolicyPlugin::new(vec![policy]);
///
/// let refused = StatsPolicy::new(&"tokens(50000) | final".parse()?).unwrap_err();
/// assert_eq!(refused.path, [1]);
/// # let _ = plugin;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct StatsPolicy {
    root: Node,
}

/// A condition that awaken's stop statistics cannot decide.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct NotDecidable {
    /// The condition, as doneseq writes it.
    pub condition: String,
    /// Where it is in the expression: child indices from the root (empty: the root).
    pub path: Vec<usize>,
    /// Why the statistics cannot decide it.
    pub reason: &'static str,
}

impl fmt::Display for NotDecidable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.condition)?;
        if !self.path.is_empty() {
            let path: Vec<String> = self.path.iter().map(usize::to_string).collect();
            write!(f, " (at child {} of the expression)", path.join("."))?;
        }
        write!(
            f,
            " cannot be decided from awaken's stop statistics: {}; DoneseqPlugin observes \
             the run's messages and decides every condition",
            self.reason
        )
    }
}

impl std::error::Error for NotDecidable {}

/// One node of the accepted expression, with what its decision reports.
#[derive(Clone, Debug)]
struct Node {
    test: Test,
    /// The condition as doneseq writes it: the detail's start.
    text: String,
    id: ConditionId,
}

#[derive(Clone, Debug)]
enum Test {
    ModelCalls(u64),
    Tokens(TokenBudget),
    Timeout(u64),
    Errors(u64),
    Tool(Option<String>),
    NoToolCalls,
    Text(TextPattern),
    Any(Vec<Node>),
    All(Vec<Node>),
}

/// A condition that fired, as the decision reports it.
struct Fired<'a> {
    node: &'a Node,
    kind: VerdictKind,
    evidence: Evidence,
}

const MESSAGES: &str = "the statistics carry counters and the latest model texts, not the \
                        run's messages";

impl StatsPolicy {
    /// The policy for `condition`.
    ///
    /// # Errors
    ///
    /// [`NotDecidable`] for the first node (in the expression's order) that the
    /// statistics cannot decide.
    pub fn new(condition: &Condition) -> Result<StatsPolicy, NotDecidable> {
        Ok(StatsPolicy {
            root: node(condition, &mut Vec::new())?,
        })
    }
}

fn node(condition: &Condition, path: &mut Vec<usize>) -> Result<Node, NotDecidable> {
    let refuse = |reason: &'static str| NotDecidable {
        condition: condition.to_string(),
        path: path.clone(),
        reason,
    };
    let test = match condition {
        Condition::MaxModelCalls(n) => Test::ModelCalls(*n),
        Condition::Tokens(budget) => Test::Tokens(*budget),
        Condition::Timeout(d) => Test::Timeout(millis(*d)),
        Condition::ConsecutiveErrors(n) => Test::Errors(*n),
        Condition::Tool(tool) if tool.phase != ToolPhase::Requested => {
            return Err(refuse("they show tool requests, not tool results"));
        }
        Condition::Tool(tool) if tool.args.is_some() => {
            return Err(refuse(
                "they keep the names of requested tools, not their arguments",
            ));
        }
        Condition::Tool(tool) => Test::Tool(tool.name.clone()),
        Condition::NoToolCalls => Test::NoToolCalls,
        Condition::Text(mention) if mention.from == [Speaker::Role(Role::Llm)] => {
            Test::Text(mention.pattern.clone())
        }
        Condition::Text(_) => {
            return Err(refuse(
                "they keep the model's texts only: write text(pattern, from=llm)",
            ));
        }
        Condition::MaxTurns(_) => {
            return Err(refuse(
                "they count model calls, not steps (a tool result is a step): \
                 max_model_calls(n) counts what they count",
            ));
        }
        Condition::Loop(_) => {
            return Err(refuse(
                "they keep the model's non-empty texts, and doneseq's loop compares every \
                 step (awaken's own LoopDetectionPolicy compares those texts)",
            ));
        }
        Condition::Cancelled => {
            return Err(refuse("cancel an awaken run with its cancellation token"));
        }
        Condition::Any(children) => Test::Any(nodes(children, path)?),
        Condition::All(children) => {
            let children = nodes(children, path)?;
            if let Some(i) = children.iter().position(|c| !c.stays_reached()) {
                path.push(i);
                let error = NotDecidable {
                    condition: children[i].text.clone(),
                    path: path.clone(),
                    reason: "`&` remembers a child that fired at an earlier step and the \
                             statistics show the latest step only: in `&`, only limits \
                             (max_model_calls, tokens, timeout) can be decided",
                };
                path.pop();
                return Err(error);
            }
            Test::All(children)
        }
        Condition::Not(_) => {
            return Err(refuse(
                "`!x` fires at every step where x does not, a tool result too, and the \
                 statistics are read after model calls only",
            ));
        }
        _ => return Err(refuse(MESSAGES)),
    };
    Ok(Node {
        test,
        text: condition.to_string(),
        id: condition.id(),
    })
}

fn nodes(children: &[Condition], path: &mut Vec<usize>) -> Result<Vec<Node>, NotDecidable> {
    let mut out = Vec::with_capacity(children.len());
    for (i, child) in children.iter().enumerate() {
        path.push(i);
        let child = node(child, path);
        path.pop();
        out.push(child?);
    }
    Ok(out)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Node {
    /// Whether, once it fires, it fires at every later step: a limit on a count that
    /// only grows.
    fn stays_reached(&self) -> bool {
        matches!(
            self.test,
            Test::ModelCalls(_) | Test::Tokens(_) | Test::Timeout(_)
        )
    }

    /// Whether it fires on `stats`; what fired goes to `out`.
    fn eval<'a>(&'a self, stats: &StopPolicyStats, out: &mut Vec<Fired<'a>>) -> bool {
        // A leaf's kind is its condition's, from doneseq's table of conditions (each
        // accepted leaf has one).
        let leaf = |out: &mut Vec<Fired<'a>>, evidence: Evidence| {
            out.push(Fired {
                node: self,
                kind: self.id.verdict_kind().unwrap_or(VerdictKind::Done),
                evidence,
            });
            true
        };
        match &self.test {
            Test::ModelCalls(limit) => {
                let made = u64::from(stats.step_count);
                made >= *limit
                    && leaf(
                        out,
                        Evidence::ModelCalls {
                            made,
                            limit: *limit,
                        },
                    )
            }
            Test::Tokens(budget) => {
                let (input, output) = (stats.total_input_tokens, stats.total_output_tokens);
                let total = input.saturating_add(output);
                let reached = |limit: Option<u64>, used: u64| limit.is_some_and(|l| used >= l);
                (reached(budget.total, total)
                    || reached(budget.input, input)
                    || reached(budget.output, output))
                    && leaf(
                        out,
                        Evidence::Tokens {
                            budget: (*budget).into(),
                            total,
                            input,
                            output,
                        },
                    )
            }
            Test::Timeout(limit_ms) => {
                stats.elapsed_ms >= *limit_ms
                    && leaf(
                        out,
                        Evidence::Elapsed {
                            elapsed_ms: stats.elapsed_ms,
                            limit_ms: *limit_ms,
                        },
                    )
            }
            Test::Errors(limit) => {
                let in_a_row = u64::from(stats.consecutive_errors);
                in_a_row >= *limit
                    && leaf(
                        out,
                        Evidence::Errors {
                            in_a_row,
                            limit: *limit,
                        },
                    )
            }
            Test::Tool(name) => {
                let requested = match name {
                    Some(name) => stats.last_tool_names.iter().any(|t| t == name),
                    None => !stats.last_tool_names.is_empty(),
                };
                requested
                    && leaf(
                        out,
                        Evidence::Tool {
                            name: name.clone(),
                            executed: false,
                        },
                    )
            }
            Test::NoToolCalls => {
                // A failed call (counted as an error) is no answer.
                let answered = stats.consecutive_errors == 0
                    && stats.last_tool_names.is_empty()
                    && !stats.last_response_text.is_empty();
                answered && leaf(out, Evidence::NoToolCalls)
            }
            Test::Text(pattern) => match pattern.find(&stats.last_response_text) {
                Some(range) => leaf(
                    out,
                    Evidence::Text {
                        matched: stats.last_response_text[range].to_owned(),
                        role: Role::Llm,
                    },
                ),
                None => false,
            },
            Test::Any(children) => {
                let mut any = false;
                for child in children {
                    any |= child.eval(stats, out);
                }
                any
            }
            Test::All(children) => {
                // `all()` with no child never fires, as in doneseq.
                let start = out.len();
                let all =
                    !children.is_empty() && children.iter().all(|child| child.eval(stats, out));
                if !all {
                    out.truncate(start);
                }
                all
            }
        }
    }
}

impl StopPolicy for StatsPolicy {
    fn id(&self) -> &str {
        "doneseq"
    }

    fn evaluate(&self, stats: &StopPolicyStats) -> StopDecision {
        let mut fired = Vec::new();
        if !self.root.eval(stats, &mut fired) {
            return StopDecision::Continue;
        }
        // The first of the strongest kind decides, as in doneseq's outcome.
        let strongest = fired.iter().map(|f| f.kind.precedence()).max();
        let Some(leading) = fired
            .iter()
            .find(|f| Some(f.kind.precedence()) == strongest)
        else {
            return StopDecision::Continue;
        };
        let evidence = leading.evidence.to_string();
        let detail = if evidence.is_empty() {
            leading.node.text.clone()
        } else {
            format!("{}: {evidence}", leading.node.text)
        };
        StopDecision::Stop {
            code: id_code(leading.node.id).to_owned(),
            detail,
        }
    }
}
