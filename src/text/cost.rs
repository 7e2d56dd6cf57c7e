//! The work case-insensitive regex compilation does on character classes, estimated
//! before compiling, so that it can be bounded.
//!
//! regex-syntax folds a class (`[...]`, `\p{...}`) in case-insensitive mode by
//! visiting, one by one, every code point of each of its ranges that contains a
//! code point with a case mapping: `[\s\S]` is one range of 1,114,112 code points,
//! about 4 ms per occurrence, so a kilobyte of them costs most of a second and a
//! configuration of such regexes minutes (rust-lang/regex#79; the fold "cannot
//! change anything", but it is done). The regex crate bounds the compiled size, not
//! this. [`fold_work`] counts those code points per class, from the pattern's syntax
//! tree and a case-sensitive translation of each class, which skip the fold.

use std::sync::OnceLock;

use regex_syntax::ast::{self, Ast, ClassSetItem, Visitor};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, HirKind};

/// The code points a case-insensitive compile of `pattern` visits while folding its
/// classes (an upper bound: classes under `(?-i)` are counted too). A pattern that
/// does not parse costs 0 here; its compile reports the error.
pub(crate) fn fold_work(pattern: &str) -> u64 {
    let Ok(ast) = ast::parse::ParserBuilder::new().build().parse(pattern) else {
        return 0;
    };
    let Ok(work) = ast::visit(&ast, Counter { pattern, work: 0 });
    work
}

struct Counter<'p> {
    pattern: &'p str,
    work: u64,
}

impl Counter<'_> {
    /// Adds the fold work of one class, given as an AST the translator folds as a
    /// whole: the positive form (a negated class is folded before it is negated).
    fn add(&mut self, class: Ast) {
        let translated = regex_syntax::hir::translate::TranslatorBuilder::new()
            .utf8(false)
            .build()
            .translate(self.pattern, &class);
        if let Ok(hir) = translated
            && let HirKind::Class(Class::Unicode(class)) = hir.kind()
        {
            self.work = self.work.saturating_add(class_work(class));
        }
    }
}

impl Visitor for Counter<'_> {
    type Output = u64;
    type Err = std::convert::Infallible;

    fn finish(self) -> Result<u64, Self::Err> {
        Ok(self.work)
    }

    fn visit_pre(&mut self, node: &Ast) -> Result<(), Self::Err> {
        match node {
            Ast::ClassBracketed(b) => self.add(positive_bracket(b)),
            Ast::ClassUnicode(u) => self.add(positive_unicode(u)),
            _ => {}
        }
        Ok(())
    }

    fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), Self::Err> {
        // Classes nested in a bracket are folded on their own, then again with it.
        match item {
            ClassSetItem::Bracketed(b) => self.add(positive_bracket(b)),
            ClassSetItem::Unicode(u) => self.add(positive_unicode(u)),
            _ => {}
        }
        Ok(())
    }
}

fn positive_bracket(b: &ast::ClassBracketed) -> Ast {
    let mut b = b.clone();
    b.negated = false;
    Ast::class_bracketed(b)
}

fn positive_unicode(u: &ast::ClassUnicode) -> Ast {
    let mut u = u.clone();
    u.negated = false;
    Ast::class_unicode(u)
}

/// What one range costs the fold before its code points are visited (a folder is
/// set up and the table searched for every range), in code-point visits: measured,
/// `\pL` (650 ranges, 3,700 code points visited) folds in about the time of 25,000
/// visits.
const RANGE_WORK: u64 = 32;

/// The work of folding `class`: every range that holds a code point with a case
/// mapping is walked whole, and every range costs [`RANGE_WORK`].
fn class_work(class: &ClassUnicode) -> u64 {
    let keys = fold_keys();
    let ranges = class.ranges();
    let visited: u64 = ranges
        .iter()
        .filter(|r| {
            let (start, end) = (u32::from(r.start()), u32::from(r.end()));
            let at = keys.partition_point(|&k| k < start);
            keys.get(at).is_some_and(|&k| k <= end)
        })
        .map(|r| u64::from(u32::from(r.end()) - u32::from(r.start())) + 1)
        .sum();
    visited + RANGE_WORK * ranges.len() as u64
}

/// The code points with a simple case mapping, sorted: what regex-syntax's fold
/// table holds. Found once, by folding each code point of the range the table can
/// hold (none above U+1FFFF has a case mapping).
fn fold_keys() -> &'static [u32] {
    static KEYS: OnceLock<Vec<u32>> = OnceLock::new();
    KEYS.get_or_init(|| {
        (0..=0x1_FFFFu32)
            .filter_map(char::from_u32)
            .filter(|&c| {
                let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
                class.case_fold_simple();
                class.ranges().len() > 1 || class.ranges()[0] != ClassUnicodeRange::new(c, c)
            })
            .map(u32::from)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fold_keys_are_the_cased_code_points() {
        let keys = fold_keys();
        assert!(keys.contains(&u32::from('a')) && keys.contains(&u32::from('Σ')));
        assert!(!keys.contains(&u32::from('1')) && !keys.contains(&u32::from(' ')));
        // Unicode 15/16 has about 2,900 of them.
        assert!((2_500..3_500).contains(&keys.len()), "{}", keys.len());
    }

    #[test]
    fn classes_cost_what_their_fold_visits() {
        // One range over everything: all of it.
        assert_eq!(fold_work(r"[\s\S]"), 0x11_0000 + RANGE_WORK);
        assert_eq!(fold_work(r"[^\s\S]"), 0x11_0000 + RANGE_WORK);
        // Literals, dots and Perl classes outside brackets are not folded as classes.
        assert_eq!(fold_work(r"quit|bye"), 0);
        assert_eq!(fold_work(r"(?s:.)*\w+\d\S"), 0);
        // A small class costs its cased ranges; a range without one, its setup.
        assert_eq!(fold_work("[a-z]"), 26 + RANGE_WORK);
        assert_eq!(fold_work("[0-9]"), RANGE_WORK);
        // One character is a literal, not a class.
        assert_eq!(fold_work(r"[^\n]"), 0);
        // Nested classes are folded on their own and with the bracket around them.
        assert_eq!(fold_work("[[a-z]]"), 2 * (26 + RANGE_WORK));
        // A negated class is folded before it is negated.
        assert_eq!(fold_work(r"\pL"), fold_work(r"\PL"));
        assert!((10_000..50_000).contains(&fold_work(r"\pL")));
        // Wide classes cost most: `[\D]` is every range between the digit blocks.
        assert!(fold_work(r"[\D]") > 90_000);
        // A pattern that does not parse is left to the compiler.
        assert_eq!(fold_work("("), 0);
    }
}
