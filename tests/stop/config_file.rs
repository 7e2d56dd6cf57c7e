//! Task configuration files: each language by its extension, the byte order mark some
//! tools write first, and each kind of error, naming the file.

use doneseq::TaskConfig;
use doneseq::stop::{ConfigFileErrorKind, ConfigLanguage, MAX_CONFIG_LEN};

/// A directory of its own for one test's files.
fn dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("doneseq-config-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn each_language_by_its_extension_with_or_without_a_byte_order_mark() {
    let dir = dir("languages");
    let expected = TaskConfig::from_text(
        r#"{"done_sequences": ["T[calculator], A"], "max_turns": 5, "stop": "final"}"#,
        ConfigLanguage::Json,
    )
    .unwrap();
    for (name, text) in [
        (
            "c.json",
            r#"{"done_sequences": ["T[calculator], A"], "max_turns": 5, "stop": "final"}"#,
        ),
        (
            "c.TOML",
            "done_sequences = [\"T[calculator], A\"]\nmax_turns = 5\nstop = \"final\"\n",
        ),
        (
            "c.yml",
            "done_sequences: [\"T[calculator], A\"]\nmax_turns: 5\nstop: final\n",
        ),
        (
            "c.conf",
            r#"{"done_sequences": ["T[calculator], A"], "max_turns": 5, "stop": "final"}"#,
        ),
    ] {
        for mark in [&b""[..], b"\xEF\xBB\xBF"] {
            let path = dir.join(name);
            std::fs::write(&path, [mark, text.as_bytes()].concat()).unwrap();
            let read = TaskConfig::from_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(read, expected, "{name}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn each_error_names_the_file_and_its_kind() {
    let dir = dir("errors");
    let missing = dir.join("missing.json");
    let err = TaskConfig::from_file(&missing).unwrap_err();
    assert_eq!(err.kind(), ConfigFileErrorKind::Io);
    assert!(
        err.to_string()
            .starts_with(&format!("cannot read {}: ", missing.display())),
        "{err}"
    );

    let long = dir.join("long.json");
    std::fs::write(&long, vec![b' '; MAX_CONFIG_LEN + 1]).unwrap();
    let err = TaskConfig::from_file(&long).unwrap_err();
    assert_eq!(err.kind(), ConfigFileErrorKind::TooLong);
    assert_eq!(
        err.to_string(),
        format!("{}: longer than {MAX_CONFIG_LEN} bytes", long.display())
    );

    let latin1 = dir.join("latin1.json");
    std::fs::write(&latin1, b"{\"stop\": \"caf\xe9\"}").unwrap();
    let err = TaskConfig::from_file(&latin1).unwrap_err();
    assert_eq!(err.kind(), ConfigFileErrorKind::NotUtf8);
    assert!(err.to_string().contains("invalid utf-8"), "{err}");

    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "max_turn = 5\n").unwrap();
    let err = TaskConfig::from_file(&bad).unwrap_err();
    assert_eq!(err.kind(), ConfigFileErrorKind::Invalid);
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("{}: ", bad.display())),
        "{message}"
    );
    assert!(message.contains("unknown field `max_turn`"), "{message}");
    assert!(message.contains("line 1"), "{message}");
    std::fs::remove_dir_all(&dir).ok();
}
