//! Parse a task's done sequences, print their canonical form and object form, and
//! show what a mistake looks like.
//!
//! Run with `cargo run --example parse_sequences`.

use doneseq::{DoneSequence, DoneSequences, SequenceObject};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sequences = DoneSequences::parse_all([
        "calc_done: TOOL[calculator], AGENT",
        "C[quit|exit|bye]",
        "answered: L & F",
        "stuck: E{3}",
    ])?;
    for seq in &sequences {
        println!("{seq}");
        println!(
            "  {} element(s), object form: {:?}",
            seq.len(),
            SequenceObject::from(seq)
        );
    }

    // A typo is an error that says what and where.
    let err = DoneSequence::parse("T[calculator] A").unwrap_err();
    println!("\n{err:#}");
    Ok(())
}

#[test]
fn example_runs() {
    main().unwrap();
}
