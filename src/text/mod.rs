//! The bottom layer: what every text the crate parses shares. The one error scaffold
//! ([`SyntaxError`], its one-line and caret forms), the character classes, and
//! regexes with their limits and the budget one parse may spend on them. Nothing here
//! knows done sequences or conditions.

mod backtrack;
mod cost;
mod error;
mod lex;
mod python_re;
mod regex;

pub(crate) use self::backtrack::Backtracking;
pub use self::backtrack::{BacktrackLimit, MAX_BACKTRACK};
pub(crate) use self::cost::fold_work;
pub use self::error::SyntaxError;
pub(crate) use self::error::{Lead, Visible, floor_boundary};
pub(crate) use self::lex::{is_name_char, is_space};
pub(crate) use self::python_re::translate;
pub use self::regex::{MAX_PATTERN_LEN, MAX_REGEX_FOLD_WORK, MAX_REGEX_MEMORY, MAX_REGEX_SIZE};
pub(crate) use self::regex::{RegexError, build, build_python, regex_body_end, scoped};
