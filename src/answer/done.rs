//! Langroid's `DONE` string signal, found as a word.

use std::sync::LazyLock;

use memchr::memmem::Finder;

/// Whether `content` contains the word `DONE` (case-sensitive, not inside a longer
/// word). Langroid tests `"DONE" in content`, so "ABANDONED" ends its task; the
/// word boundary keeps `DONE`, `DONE: 42` and `... DONE.` and drops that.
pub(crate) fn says_done(content: &str) -> bool {
    done_at(content).is_some()
}

/// The searcher for `DONE`, built once (`str::match_indices` builds one per call,
/// which costs more than the search on a short message).
static DONE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("DONE"));

/// The byte offset of the first `DONE` word.
pub(crate) fn done_at(content: &str) -> Option<usize> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    DONE.find_iter(content.as_bytes()).find(|&i| {
        let before = content[..i].chars().next_back();
        let after = content[i + 4..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn done_is_a_word() {
        for yes in ["DONE", "DONE: 42", "all DONE.", "(DONE)", "x\nDONE"] {
            assert!(says_done(yes), "{yes}");
        }
        for no in [
            "ABANDONED",
            "DONEZO",
            "done",
            "UNDONE",
            "DONE_X",
            "",
            "DON E",
        ] {
            assert!(!says_done(no), "{no}");
        }
    }
}
