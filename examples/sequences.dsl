# Done sequences, one per line: `cargo run -- parse < examples/sequences.dsl`.
# Blank lines and lines starting with '#' are skipped.

# Langroid's documented examples.
T, A
T[calculator], A
L, T, A, L
C[quit|exit|bye]
TOOL, AGENT
T[search], A, T[search], A

# Commas and classes inside a content regex (Langroid PR #1135).
C[done,\s*thanks]
C[[a-z]+\]]

# doneseq's extensions: a name, words, speaker scoping, negation, repeats, responders.
calc_done: TOOL[calculator], agent
llm_says_done: L & C[\bDONE\b]
any_tool_but_search: T & !T[search], A
three_errors: E{3}
answered: F
db_answered: T[query]@Database, A@Database
