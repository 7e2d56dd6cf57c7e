//! doneseq's integration tests: one binary, one module per theme.

#[path = "common/grouped.rs"]
mod grouped;
mod util;

mod agent_framework;
mod agno;
mod answer;
mod autotraits;
mod backtracking;
mod bedrock;
#[cfg(feature = "cli")]
mod check_cli;
mod claude_code;
mod cli;
mod codex;
#[cfg(feature = "cli")]
mod corpus;
mod crewai;
mod errors;
#[cfg(feature = "json")]
mod formats;
mod gemini;
#[cfg(feature = "cli")]
mod html_report;
#[cfg(feature = "eval-archives")]
mod inspect;
#[cfg(feature = "json")]
mod langchain;
mod langroid;
mod langroid_tsv;
mod layers;
mod llamaindex;
mod locus;
#[cfg(feature = "json")]
mod lowering;
mod mini_swe_agent;
mod monitor;
mod object;
mod oracle;
#[cfg(feature = "serde")]
mod outcome_serde;
#[cfg(feature = "json")]
mod pydantic_ai;
mod readme_limits;
#[cfg(feature = "serde")]
mod replay;
mod rlm_code;
#[cfg(feature = "json")]
mod robustness;
mod roundtrip;
#[cfg(feature = "schema")]
mod schema;
mod serde;
mod smolagents;
mod standalone_docs;
#[cfg(feature = "serde")]
mod stop;
#[cfg(feature = "serde")]
mod stop_compat;
#[cfg(feature = "serde")]
mod stop_lint;
mod swe_agent;
#[cfg(feature = "cli")]
mod table;
#[cfg(feature = "cli")]
mod task_input;
#[cfg(feature = "json")]
mod tool_classes;
#[cfg(feature = "json")]
mod transcript;
