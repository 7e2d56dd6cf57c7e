//! The hostile inputs of FINAL detection, shared by `props.rs` (soundness) and
//! `benches/answer.rs` (throughput at two sizes): a prefix, then a piece repeated.
//! Unclosed calls, and, inside an open call, quotes that never close (which, without
//! the tokenizer's memo of failed string searches, took 26 s at 200 KB).

/// `(prefix, piece)`: the input is the prefix, then the piece to the wanted size.
pub(crate) const HOSTILE: [(&str, &str); 10] = [
    ("", "FINAL("),
    ("", "FINAL(\""),
    ("", "FINAL(x#"),
    ("", "FINAL_VAR(FINAL_VAR("),
    ("", ") FINAL(x"),
    ("FINAL(", "\\'"),
    ("FINAL(", "\\\""),
    ("FINAL(", "'''\\'''"),
    ("SUBMIT(a=", "\\'"),
    ("FINAL(", "x'"),
];
