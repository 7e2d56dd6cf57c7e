//! Compiling a task's sequences into a [`Classifier`] and an [`Automaton`].

use std::collections::HashMap;

use regex_automata::{MatchKind, PatternID, meta};
use smallvec::SmallVec;

use super::automaton::{Automaton, BASES, base_index};
use super::bits::{self, Sparse};
use super::classify::{Classifier, Compound, Patterns};
use super::limits::{
    CompileError, MAX_POSITIONS, MAX_REGEX_SET_SIZE, MAX_SEQUENCES, MAX_TASK_PATTERNS,
};
use crate::text::Backtracking;
use crate::{BaseKind, DoneSequence, EventKind, Literal};

/// A literal, broken into the parts the rows know.
#[derive(Clone, Copy, Default)]
struct Parts {
    base: Option<BaseKind>,
    responder: Option<u32>,
    atom: Option<u32>,
}

/// Builds the classifier and the automaton of `sequences`. `texts` are the stop
/// tree's `text(...)` regexes (case-sensitive): they join the sequences' `C[...]`
/// regexes (case-insensitive) in the one regex set, after them, so that a message's
/// content is searched once for all of them.
pub(crate) fn compile(
    sequences: &[DoneSequence],
    texts: &[Box<str>],
) -> Result<(Classifier, Automaton), CompileError> {
    if sequences.len() > MAX_SEQUENCES {
        return Err(CompileError::TooManySequences {
            count: sequences.len(),
            max: MAX_SEQUENCES,
        });
    }
    let positions: usize = sequences.iter().map(DoneSequence::len).sum();
    if positions > MAX_POSITIONS {
        return Err(CompileError::TooManyPositions {
            count: positions,
            max: MAX_POSITIONS,
        });
    }
    let literals = || {
        sequences
            .iter()
            .flat_map(DoneSequence::elements)
            .flat_map(crate::Element::literals)
    };

    // Pass 1: the primitive atoms, numbered tools, then regexes, then F and E.
    let mut tools: HashMap<Box<str>, u32> = HashMap::new();
    let mut responders: HashMap<Box<str>, u32> = HashMap::new();
    let mut pattern_ids: HashMap<&str, u32> = HashMap::new();
    let mut pattern_sources: Vec<Box<str>> = Vec::new();
    // The same regexes as the engine compiles them (Python's meaning).
    let mut engine_sources: Vec<Box<str>> = Vec::new();
    // The exact forms of the regexes that need backtracking, by their index.
    let mut exact = Vec::new();
    let (mut uses_final, mut uses_error) = (false, false);
    for literal in literals() {
        let event = literal.event();
        if let Some(r) = event.responder() {
            let next = id(responders.len());
            responders.entry(r.into()).or_insert(next);
        }
        match event.kind() {
            EventKind::SpecificTool(name) => {
                let next = id(tools.len());
                tools.entry(name.as_str().into()).or_insert(next);
            }
            EventKind::Content(p) if !pattern_ids.contains_key(p.as_str()) => {
                pattern_ids.insert(p.as_str(), id(pattern_sources.len()));
                if let Some(b) = p.backtracking() {
                    exact.push((PatternID::must(pattern_sources.len()), b.clone()));
                }
                pattern_sources.push(p.as_str().into());
                engine_sources.push(p.engine_source().into());
            }
            EventKind::Final => uses_final = true,
            EventKind::Error => uses_error = true,
            _ => {}
        }
    }
    if pattern_sources.len() + texts.len() > MAX_TASK_PATTERNS {
        return Err(CompileError::TooManyPatterns {
            count: pattern_sources.len() + texts.len(),
            max: MAX_TASK_PATTERNS,
        });
    }
    let pattern_base = id(tools.len());
    let mut next_atom = pattern_base + id(pattern_sources.len());
    let final_atom = uses_final.then(|| post_inc(&mut next_atom));
    let error_atom = uses_error.then(|| post_inc(&mut next_atom));
    let compound_base = next_atom;

    let parts = |literal: &Literal| -> Parts {
        let event = literal.event();
        let mut p = Parts {
            responder: event.responder().map(|r| responders[r]),
            base: event.kind().base(),
            atom: None,
        };
        match event.kind() {
            EventKind::SpecificTool(name) => {
                p.atom = Some(tools[name.as_str()]);
                // A tool-name atom holds only on tool messages: negated, the base
                // adds nothing.
                if literal.is_negated() {
                    p.base = None;
                }
            }
            EventKind::Content(pat) => p.atom = Some(pattern_base + pattern_ids[pat.as_str()]),
            EventKind::Final => p.atom = final_atom,
            EventKind::Error => p.atom = error_atom,
            _ => {}
        }
        p
    };

    // Pass 2: the rows.
    let words = bits::words_for(positions);
    let dense = || vec![0u64; words].into_boxed_slice();
    let mut starts = dense();
    let mut ends = dense();
    let mut fail_base = vec![0u64; words * BASES.len()].into_boxed_slice();
    let mut req_r_all = dense();
    let mut req_x_all = dense();
    let mut req_r = vec![Sparse::default(); responders.len()];
    let mut neg_r = vec![Sparse::default(); responders.len()];
    let mut req_x = vec![Sparse::default(); compound_base as usize];
    let mut neg_x = vec![Sparse::default(); compound_base as usize];
    let mut compounds: Vec<Compound> = Vec::new();
    let mut compound_ids: HashMap<Compound, u32> = HashMap::new();
    let mut compound_id = |c: Compound, req_x: &mut Vec<Sparse>, neg_x: &mut Vec<Sparse>| {
        *compound_ids.entry(c.clone()).or_insert_with(|| {
            compounds.push(c);
            req_x.push(Sparse::default());
            neg_x.push(Sparse::default());
            compound_base + id(compounds.len() - 1)
        })
    };
    let mut spans = Vec::with_capacity(sequences.len());
    let mut seq_of = Vec::with_capacity(positions);
    let mut p = 0usize;
    for (s, sequence) in sequences.iter().enumerate() {
        spans.push((id(p), id(sequence.len())));
        bits::set(&mut starts, p);
        for element in sequence.elements() {
            seq_of.push(id(s));
            let mut never = false;
            let mut base: Option<BaseKind> = None;
            let mut responder: Option<u32> = None;
            let mut atoms: SmallVec<[u32; 2]> = SmallVec::new();
            for literal in element.literals() {
                let parts = parts(literal);
                if literal.is_negated() {
                    let count = usize::from(parts.base.is_some())
                        + usize::from(parts.responder.is_some())
                        + usize::from(parts.atom.is_some());
                    match (count, parts) {
                        (0, _) => never = true,
                        (1, Parts { base: Some(b), .. }) => {
                            bits::set(&mut fail_base[base_index(b) * words..], p);
                        }
                        (
                            1,
                            Parts {
                                responder: Some(r), ..
                            },
                        ) => neg_r[r as usize].insert(p),
                        (1, Parts { atom: Some(a), .. }) => neg_x[a as usize].insert(p),
                        _ => {
                            let c = Compound {
                                base: parts.base,
                                responder: parts.responder,
                                atoms: parts.atom.into_iter().collect(),
                            };
                            let c = compound_id(c, &mut req_x, &mut neg_x);
                            neg_x[c as usize].insert(p);
                        }
                    }
                } else {
                    if let Some(b) = parts.base {
                        never |= base.is_some_and(|old| old != b);
                        base = Some(b);
                    }
                    if let Some(r) = parts.responder {
                        never |= responder.is_some_and(|old| old != r);
                        responder = Some(r);
                    }
                    if let Some(a) = parts.atom
                        && !atoms.contains(&a)
                    {
                        atoms.push(a);
                    }
                }
            }
            if never {
                // Unsatisfiable (the parser refuses these; kept safe for any value).
                for kind in BASES {
                    bits::set(&mut fail_base[base_index(kind) * words..], p);
                }
            }
            if let Some(b) = base {
                for kind in BASES.into_iter().filter(|&k| k != b) {
                    bits::set(&mut fail_base[base_index(kind) * words..], p);
                }
            }
            if let Some(r) = responder {
                bits::set(&mut req_r_all, p);
                req_r[r as usize].insert(p);
            }
            let required = match atoms.len() {
                0 => None,
                1 => Some(atoms[0]),
                _ => {
                    atoms.sort_unstable();
                    let c = Compound {
                        base: None,
                        responder: None,
                        atoms,
                    };
                    Some(compound_id(c, &mut req_x, &mut neg_x))
                }
            };
            if let Some(a) = required {
                bits::set(&mut req_x_all, p);
                req_x[a as usize].insert(p);
            }
            p += 1;
        }
        bits::set(&mut ends, p - 1);
    }

    // The bits past the last position always fail, so that the shift cannot leave
    // anything there: the state stays canonical (a checkpoint compares equal).
    for p in positions..words * 64 {
        for kind in BASES {
            bits::set(&mut fail_base[base_index(kind) * words..], p);
        }
    }

    // The dense pass's lanes: what passes with no responder and no atom.
    let pass: Box<[u64]> = (0..BASES.len() * words)
        .map(|j| {
            let i = j % words;
            !(fail_base[j] | req_r_all[i] | req_x_all[i])
        })
        .collect();

    let patterns = if pattern_sources.is_empty() && texts.is_empty() {
        None
    } else {
        Some(build_set(&engine_sources, texts, exact)?)
    };
    let classifier = Classifier {
        tools,
        responders,
        content_patterns: pattern_sources.len(),
        pattern_sources,
        pattern_base,
        patterns,
        final_atom,
        error_atom,
        compounds,
        compound_base,
        detector: crate::answer::FinalDetector::default(),
    };
    let automaton = Automaton {
        words,
        starts,
        ends,
        fail_base,
        pass,
        req_r_all,
        req_r: req_r.into(),
        neg_r: neg_r.into(),
        req_x_all,
        req_x: req_x.into(),
        neg_x: neg_x.into(),
        spans: spans.into(),
        seq_of: seq_of.into(),
    };
    Ok((classifier, automaton))
}

/// All content regexes of a task in one set, compiled twice: `all` reports every one
/// that matches in one pass over a message's content; `any` (leftmost-first, the
/// same regexes) only says whether one does, and can skip through the text with a
/// literal prefilter, which overlapping searches do not use. Most messages match no
/// regex, and `any` rejects them 15-20 times faster (`benches/observe.rs`, content
/// patterns); a message that matches costs `any` up to its first match, then `all`.
/// Case-insensitive and unanchored, as each `C[...]`. Each regex is translated once,
/// for both sets: the translation is where case folding costs (see
/// [`crate::MAX_REGEX_FOLD_WORK`]).
fn build_set(
    contents: &[Box<str>],
    texts: &[Box<str>],
    exact: Vec<(PatternID, Backtracking)>,
) -> Result<Patterns, CompileError> {
    let too_big = |detail: String| CompileError::RegexSetTooBig { detail };
    let sources = contents
        .iter()
        .map(|s| (s, true))
        .chain(texts.iter().map(|s| (s, false)));
    let hirs = sources
        .map(|(source, fold)| {
            // Each source compiled alone when it was parsed, with the same syntax
            // settings, so this does not fail in practice.
            regex_syntax::ParserBuilder::new()
                .case_insensitive(fold)
                .build()
                .parse(source)
                .map_err(|e| too_big(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let build = |kind: MatchKind| {
        meta::Regex::builder()
            .configure(
                meta::Config::new()
                    .match_kind(kind)
                    .nfa_size_limit(Some(MAX_REGEX_SET_SIZE)),
            )
            .build_many_from_hir(&hirs)
            .map_err(|e| too_big(e.to_string()))
    };
    Ok(Patterns {
        any: build(MatchKind::LeftmostFirst)?,
        all: build(MatchKind::All)?,
        exact,
    })
}

#[allow(clippy::cast_possible_truncation)] // every count is bounded by MAX_POSITIONS
const fn id(n: usize) -> u32 {
    n as u32
}

fn post_inc(n: &mut u32) -> u32 {
    *n += 1;
    *n - 1
}
