//! Numbers as the README writes them, for the tests that check its figures (the
//! integration binary's and the allocation test's).

/// `n` with its thousands grouped by commas: 4654 as `4,654`.
pub(crate) fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}
