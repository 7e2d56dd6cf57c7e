//! TEMPORARY: replaced by the expression language's Display when it is merged.

use std::fmt;

use super::Condition;

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}
