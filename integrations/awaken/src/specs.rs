//! awaken's declarative stop conditions (`AgentSpec::stop_conditions`) as one doneseq
//! condition.

use awaken_runtime_contract::contract::lifecycle::StopConditionSpec as AwakenSpec;
use doneseq::compat::CompatError;
use doneseq::compat::awaken::{StopConditionSpec, policies_from_specs};
use doneseq::stop::Condition;

/// awaken's spec as doneseq's copy of it (the same variants and fields; this match
/// is exhaustive, so a variant a new awaken adds stops the build here).
///
/// ```
/// use awaken_runtime_contract::contract::lifecycle::StopConditionSpec as AwakenSpec;
/// use doneseq::compat::awaken::StopConditionSpec;
///
/// assert_eq!(
///     doneseq_awaken::spec(&AwakenSpec::TokenBudget { max_total: 1000 }),
///     StopConditionSpec::TokenBudget { max_total: 1000 },
/// );
/// ```
#[must_use]
pub fn spec(spec: &AwakenSpec) -> StopConditionSpec {
    match spec {
        AwakenSpec::MaxRounds { rounds } => StopConditionSpec::MaxRounds { rounds: *rounds },
        AwakenSpec::Timeout { seconds } => StopConditionSpec::Timeout { seconds: *seconds },
        AwakenSpec::TokenBudget { max_total } => StopConditionSpec::TokenBudget {
            max_total: *max_total,
        },
        AwakenSpec::ConsecutiveErrors { max } => StopConditionSpec::ConsecutiveErrors { max: *max },
        AwakenSpec::StopOnTool { tool_name } => StopConditionSpec::StopOnTool {
            tool_name: tool_name.clone(),
        },
        AwakenSpec::ContentMatch { pattern } => StopConditionSpec::ContentMatch {
            pattern: pattern.clone(),
        },
        AwakenSpec::LoopDetection { window } => {
            StopConditionSpec::LoopDetection { window: *window }
        }
    }
}

/// An agent's `stop_conditions` as one doneseq condition, their `|` in list order,
/// converted as `doneseq::compat::awaken::policies_from_specs` converts them (where
/// the meanings differ, that function's documentation says how).
///
/// ```
/// use awaken_runtime_contract::contract::lifecycle::StopConditionSpec;
/// use doneseq_awaken::condition_from_specs;
///
/// let specs = [
///     StopConditionSpec::MaxRounds { rounds: 10 },
///     StopConditionSpec::StopOnTool { tool_name: "finish".into() },
/// ];
/// assert_eq!(condition_from_specs(&specs)?.to_string(), "max_model_calls(10) | tool(finish)");
/// # Ok::<(), doneseq::compat::CompatError>(())
/// ```
///
/// # Errors
///
/// What `policies_from_specs` refuses: an empty list, a spec awaken reads as
/// disabled (a 0 limit, an empty name or pattern), a loop window below 2 or too
/// large, a regex that does not compile; each with its index in the list.
pub fn condition_from_specs(specs: &[AwakenSpec]) -> Result<Condition, CompatError> {
    let specs: Vec<StopConditionSpec> = specs.iter().map(spec).collect();
    policies_from_specs(&specs)
}
