//! `check`'s row per message, made at the speed of matching: what a row shows of its
//! message (role, responder, events, input) is interned from the facts `observe`
//! already computed, its JSON rendered once per distinct kind of row, and the
//! progress written sparsely (only the sequences that progress).

use std::collections::HashMap;

use doneseq::{Message, Monitor, Role, RunState};

/// What a row shows of its message, the same for many rows.
pub(crate) struct Kind {
    pub(crate) role: Role,
    pub(crate) responder: Option<String>,
    /// `None` for a system message or the task's input (not steps).
    pub(crate) events: Option<Vec<String>>,
    /// The task's input.
    pub(crate) input: bool,
    /// The row's JSON between its index and its progress:
    /// `,"role":..,"responder":..,"events":..` and `,"input":true` on the input.
    json: Box<[u8]>,
}

/// The distinct kinds of row of a replay, each made once.
#[derive(Default)]
pub(crate) struct Kinds {
    ids: HashMap<Box<[u8]>, u32>,
    /// The key of the latest row, reused.
    key: Vec<u8>,
    kinds: Vec<Kind>,
}

impl Kinds {
    /// The kind of the row of `message`, just observed by `run` (`step` and `input`
    /// as [`Monitor::is_step`] and [`Monitor::is_input`] said before observing it).
    ///
    /// The key is what decides the row: role, input, and for a step its base kind,
    /// the patterns that matched (read back from the run: no regex runs again), `F`,
    /// `E` and the tool names; the responder. Equal keys give equal rows; the labels
    /// are built only for a key not seen before.
    pub(crate) fn of(
        &mut self,
        monitor: &Monitor,
        run: &RunState,
        message: &Message,
        step: bool,
        input: bool,
    ) -> u32 {
        let key = &mut self.key;
        key.clear();
        key.push(message.role().as_str().as_bytes()[0]);
        key.push(u8::from(input));
        let facts = step.then(|| monitor.step_facts(run, message));
        match &facts {
            Some(facts) => {
                key.push(facts.base().letter().as_bytes()[0]);
                key.push(u8::from(facts.final_answer()) | u8::from(facts.error()) << 1);
                let patterns = facts.patterns();
                for p in patterns {
                    push_index(key, p);
                }
                // Patterns end at a marker no pattern index writes.
                key.extend_from_slice(&u32::MAX.to_le_bytes());
            }
            None => key.push(u8::MAX),
        }
        push_text(key, message.responder());
        if let Some(facts) = &facts {
            for name in facts.tool_names() {
                push_text(key, Some(name));
            }
        }
        if let Some(&id) = self.ids.get(key.as_slice()) {
            return id;
        }
        let id = u32::try_from(self.kinds.len()).expect("fewer than 2^32 kinds of row");
        let events = facts.map(|f| f.labels());
        let responder = message.responder().map(str::to_owned);
        self.kinds
            .push(Kind::new(message.role(), responder, events, input));
        self.ids.insert(key.as_slice().into(), id);
        id
    }

    pub(crate) fn all(&self) -> &[Kind] {
        &self.kinds
    }
}

/// A pattern's index as four little-endian bytes (a task has at most
/// MAX_TASK_PATTERNS patterns, far below `u32::MAX`, the list's end marker).
fn push_index(key: &mut Vec<u8>, n: usize) {
    let n = u32::try_from(n).unwrap_or(u32::MAX - 1);
    key.extend_from_slice(&n.to_le_bytes());
}

/// A text of the key: absent, or its length and bytes (so that no two lists of
/// texts write the same bytes).
fn push_text(key: &mut Vec<u8>, text: Option<&str>) {
    match text {
        None => key.push(0),
        Some(text) => {
            key.push(1);
            key.extend_from_slice(&(text.len() as u64).to_le_bytes());
            key.extend_from_slice(text.as_bytes());
        }
    }
}

/// A sequence's progress in four bytes, `sequence << 16 | progress`: at most
/// MAX_SEQUENCES (4,096) sequences of at most MAX_ELEMENTS (256) elements.
pub(crate) fn pack((s, p): (usize, usize)) -> u32 {
    let s = u16::try_from(s).unwrap_or(u16::MAX);
    let p = u16::try_from(p).unwrap_or(u16::MAX);
    u32::from(s) << 16 | u32::from(p)
}

/// The `(sequence, progress)` that [`pack`] packed.
pub(crate) fn unpack(packed: u32) -> (usize, usize) {
    ((packed >> 16) as usize, (packed & 0xFFFF) as usize)
}

impl Kind {
    /// The row's JSON between its index and its progress.
    pub(crate) fn json(&self) -> &[u8] {
        &self.json
    }

    fn new(
        role: Role,
        responder: Option<String>,
        events: Option<Vec<String>>,
        input: bool,
    ) -> Kind {
        let mut json = Vec::new();
        json.extend_from_slice(b",\"role\":\"");
        json.extend_from_slice(role.as_str().as_bytes());
        json.extend_from_slice(b"\",\"responder\":");
        // Strings and lists of strings always serialize.
        serde_json::to_writer(&mut json, &responder).unwrap_or_default();
        json.extend_from_slice(b",\"events\":");
        serde_json::to_writer(&mut json, &events).unwrap_or_default();
        if input {
            json.extend_from_slice(b",\"input\":true");
        }
        Kind {
            role,
            responder,
            events,
            input,
            json: json.into(),
        }
    }
}

/// The text of a progress entry, `,"s":p`, in pieces of fixed width: writing a
/// fixed-width piece is one store where a piece of any length is a `memcpy` call.
pub(crate) struct ProgressText {
    /// Per sequence: `,"s":` and its length (MAX_SEQUENCES has four digits, so eight
    /// bytes hold it).
    keys: Vec<([u8; 8], usize)>,
}

impl ProgressText {
    /// The pieces of `sequences` sequences.
    pub(crate) fn new(sequences: usize) -> ProgressText {
        let keys = (0..sequences)
            .map(|s| {
                let text = format!(",\"{s}\":");
                let mut piece = [0u8; 8];
                let len = text.len().min(8);
                piece[..len].copy_from_slice(&text.as_bytes()[..len]);
                (piece, len)
            })
            .collect();
        ProgressText { keys }
    }

    /// Appends `,"s":p`.
    fn push(&self, row: &mut Vec<u8>, s: usize, p: usize) {
        match self.keys.get(s) {
            Some(&(piece, len)) if len == 8 || s < 1000 => {
                row.extend_from_slice(&piece);
                row.truncate(row.len() - (8 - len));
            }
            _ => {
                row.extend_from_slice(b",\"");
                push_number(row, s);
                row.extend_from_slice(b"\":");
            }
        }
        push_number(row, p);
    }
}

/// Appends one row's JSON object to `row`: `{"index":..,"role":..,"responder":..,
/// "events":..,"progress":{"s":p,..}}`, the progress only of the sequences that
/// progress. Built in one buffer and written by the caller at once: a row holds a
/// few bytes per sequence that progresses, and a write or a `memcpy` each was most
/// of its cost.
pub(crate) fn json_row(
    row: &mut Vec<u8>,
    text: &ProgressText,
    index: usize,
    kind: &[u8],
    progress: impl Iterator<Item = (usize, usize)>,
) {
    row.extend_from_slice(b"{\"index\":");
    push_number(row, index);
    row.extend_from_slice(kind);
    row.extend_from_slice(b",\"progress\":");
    // Each entry starts with a comma: the first becomes the brace.
    let open = row.len();
    for (s, p) in progress {
        text.push(row, s, p);
    }
    match row.get_mut(open) {
        Some(comma) => *comma = b'{',
        None => row.push(b'{'),
    }
    row.extend_from_slice(b"}}");
}

/// Appends the decimal digits of `n`, a byte at a time (small numbers are most).
fn push_number(out: &mut Vec<u8>, n: usize) {
    // A digit: below 10.
    #[allow(clippy::cast_possible_truncation)]
    let digit = |d: usize| b'0' + (d % 10) as u8;
    match n {
        0..=9 => out.push(digit(n)),
        10..=99 => {
            out.push(digit(n / 10));
            out.push(digit(n));
        }
        100..=999 => {
            out.push(digit(n / 100));
            out.push(digit(n / 10));
            out.push(digit(n));
        }
        _ => {
            let mut digits = [0u8; 20];
            let mut at = digits.len();
            let mut n = n;
            loop {
                at -= 1;
                digits[at] = digit(n);
                n /= 10;
                if n == 0 {
                    break;
                }
            }
            out.extend_from_slice(&digits[at..]);
        }
    }
}

/// The rows of a replay kept for the table: a kind and the sparse progress each.
#[derive(Default)]
pub(crate) struct Table {
    pub(crate) kinds: Kinds,
    /// Per row: its message's index, its kind, and where its progress ends in
    /// `progress` (it starts where the previous row's ends).
    rows: Vec<(usize, u32, usize)>,
    /// The sequences that progress, row after row, each [`pack`]ed.
    progress: Vec<u32>,
}

impl Table {
    /// Keeps one row.
    pub(crate) fn push(
        &mut self,
        index: usize,
        kind: u32,
        progress: impl Iterator<Item = (usize, usize)>,
    ) {
        self.progress.extend(progress.map(pack));
        self.rows.push((index, kind, self.progress.len()));
    }

    /// The rows: each one's message index, kind (an index into
    /// [`Kinds::all`]), and `(sequence, progress)` of the sequences that progress.
    pub(crate) fn rows(
        &self,
    ) -> impl Iterator<Item = (usize, usize, impl Iterator<Item = (usize, usize)> + '_)> {
        let mut start = 0;
        self.rows.iter().map(move |&(index, kind, end)| {
            let progress = self.progress[start..end].iter().map(|&p| unpack(p));
            start = end;
            (index, kind as usize, progress)
        })
    }

    /// The index of the last row's message.
    pub(crate) fn last_index(&self) -> Option<usize> {
        self.rows.last().map(|&(index, ..)| index)
    }
}

#[cfg(test)]
mod tests {
    use super::push_number;

    /// Progress entries against their `format!` text, the first entry's comma
    /// turned into the brace.
    #[test]
    fn progress_entries_are_their_text() {
        let text = super::ProgressText::new(5000);
        for s in [0, 7, 10, 99, 100, 999, 1000, 4095, 4999, 12_345] {
            for p in [1, 9, 10, 255, 256] {
                let mut row = Vec::new();
                text.push(&mut row, s, p);
                assert_eq!(row, format!(",\"{s}\":{p}").as_bytes(), "{s} {p}");
            }
        }
    }

    #[test]
    fn numbers_are_their_decimal_form() {
        for n in [0, 1, 9, 10, 42, 99, 100, 999, 1000, 12_345, usize::MAX] {
            let mut out = b"x".to_vec();
            push_number(&mut out, n);
            assert_eq!(out, format!("x{n}").as_bytes());
        }
    }
}
