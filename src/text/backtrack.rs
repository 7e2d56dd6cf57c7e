//! Patterns that need a backtracking engine (look-around, backreferences, atomic
//! groups, possessive quantifiers): their exact form runs on fancy-regex, behind
//! their relaxed form on the regex crate, which says where a match can start.
//!
//! A backtracking search can take time exponential in the text; fancy-regex counts
//! its backtracking steps and gives up past [`MAX_BACKTRACK`] in one search. The
//! search here tries the exact form anchored at each place the relaxed form matches
//! (most messages have none, and a message where the relaxed form matches usually
//! has one or a few), each try with its own limit; after [`max_tries`] tries it
//! searches the rest of the text in one go. A search that passes the limit has no
//! answer: it is reported as [`BacktrackLimit`], never taken silently as no match.

use fancy_regex::RegexInput;
use regex_automata::Input;
use regex_automata::meta;

/// The most backtracking steps one search of a `C[...]` pattern with look-around or
/// backreferences may take (fancy-regex's limit, its default): about a millisecond.
/// Past it, the search has no answer ([`BacktrackLimit`]). An anchored try at one
/// place of a message stays far below it for any realistic stop pattern; what
/// reaches it is a pattern such as `(a*)*\1` on a long run of `a`.
pub const MAX_BACKTRACK: usize = 1_000_000;

/// How many places the exact form is tried at, one by one, before one search over
/// the rest of the text: 32, and one more per 256 bytes of text. A try costs about
/// 0.1 µs where the search of the rest costs about 40 ns per byte; the bound keeps a
/// relaxed form that matches at nearly every place (a backreference's) from costing
/// a search of the relaxed form per character.
const fn max_tries(len: usize) -> usize {
    32 + len / 256
}

/// A search of a `C[...]` pattern passed [`MAX_BACKTRACK`]: whether the pattern
/// matches the message is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BacktrackLimit;

impl std::fmt::Display for BacktrackLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the pattern passed its backtracking limit ({MAX_BACKTRACK} steps) on this text"
        )
    }
}

impl std::error::Error for BacktrackLimit {}

/// The exact form of a pattern that needs backtracking, with its relaxed form as
/// the prefilter. Cheap to clone (both regexes share their programs).
#[derive(Clone, Debug)]
pub(crate) struct Backtracking {
    pub(crate) exact: fancy_regex::Regex,
    pub(crate) prefilter: meta::Regex,
}

impl Backtracking {
    /// Whether the pattern matches anywhere in `content`.
    pub(crate) fn is_match(&self, content: &str) -> Result<bool, BacktrackLimit> {
        let mut from = 0;
        for _ in 0..max_tries(content.len()) {
            // Every match of the exact form starts where the relaxed form has one,
            // and the relaxed form's leftmost match starts at the first such place.
            let Some(found) = self.prefilter.search(&Input::new(content).range(from..)) else {
                return Ok(false);
            };
            let at = found.start();
            let anchored = RegexInput::new(content).from_pos(at).anchored(true);
            if self
                .exact
                .find_input(anchored)
                .map_err(|_| BacktrackLimit)?
                .is_some()
            {
                return Ok(true);
            }
            match content[at..].chars().next() {
                Some(c) => from = at + c.len_utf8(),
                None => return Ok(false),
            }
        }
        let rest = RegexInput::new(content).from_pos(from);
        Ok(self
            .exact
            .find_input(rest)
            .map_err(|_| BacktrackLimit)?
            .is_some())
    }
}

#[cfg(test)]
mod tests {
    use crate::text::build_python;

    /// The prefiltered search gives fancy-regex's own answer (an unanchored search
    /// of the exact form) on every text: the relaxed form finds every place a match
    /// can start, whether the few tries or the search of the rest decide.
    #[test]
    fn the_prefiltered_search_agrees_with_the_exact_form_alone() {
        let patterns = [
            r"(?<!not )\bok\b",
            r"(?<=a)b",
            r"(?<![ab])c",
            r"a(?=b)",
            r"a(?!b)",
            r"(a|b)\1",
            r"(?P<x>[ab]+)c(?P=x)",
            r"(?>a+)b",
            r"a++b",
            r"ab$\n",
            r"(?<=(?!a)b)c",
            r"^(?=.*b)a",
            r"(?<=\b)o(?=k)",
            r"b$(?=\n)",
        ];
        let alphabet = ["a", "b", "c", " ", "ok", "not ", "\n", "é", "ı"];
        let mut seed = 0x2545_f491_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed >> 40).expect("24 bits")
        };
        for pattern in patterns {
            let built = build_python(pattern).unwrap_or_else(|e| panic!("{pattern}: {e:?}"));
            let exact = built.backtracking.expect("needs backtracking");
            for _ in 0..2000 {
                // Short texts, and long ones with many candidates (past the tries).
                let len = if next() % 8 == 0 {
                    60 + next() % 200
                } else {
                    next() % 12
                };
                let text: String = (0..len)
                    .map(|_| alphabet[next() % alphabet.len()])
                    .collect();
                let expected = exact.exact.is_match(&text).expect("within the limit");
                assert_eq!(exact.is_match(&text), Ok(expected), "{pattern} on {text:?}");
            }
        }
    }

    #[test]
    fn a_search_past_the_limit_has_no_answer() {
        let built = build_python(r"^(a|a)*\1$").unwrap();
        let exact = built.backtracking.unwrap();
        assert_eq!(
            exact.is_match(&format!("{}b", "a".repeat(40))),
            Err(super::BacktrackLimit)
        );
        assert_eq!(exact.is_match(&"a".repeat(40)), Ok(true));
        assert_eq!(exact.is_match("b"), Ok(false));
    }
}
