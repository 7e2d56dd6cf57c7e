//! Task configuration files (feature `config-files`): JSON, TOML or YAML by the file's
//! extension, read one way for the CLI and the Python package.

use std::io::Read;
use std::path::Path;

use super::TaskConfig;

/// The largest configuration file read, in bytes. A task's configuration is a few
/// kilobytes; the bound keeps a path such as `/dev/zero` from growing memory without
/// end.
pub const MAX_CONFIG_LEN: usize = 16 << 20;

/// The language a configuration file is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigLanguage {
    /// JSON.
    Json,
    /// TOML.
    Toml,
    /// YAML.
    Yaml,
}

impl ConfigLanguage {
    /// The language a file's extension names (in any case): TOML for `.toml`, YAML
    /// for `.yaml` and `.yml`, JSON for any other or none.
    ///
    /// ```
    /// use doneseq::stop::ConfigLanguage;
    ///
    /// assert_eq!(ConfigLanguage::of("stop.YML".as_ref()), ConfigLanguage::Yaml);
    /// assert_eq!(ConfigLanguage::of("task.conf".as_ref()), ConfigLanguage::Json);
    /// ```
    #[must_use]
    pub fn of(path: &Path) -> ConfigLanguage {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("toml") => ConfigLanguage::Toml,
            Some("yaml" | "yml") => ConfigLanguage::Yaml,
            _ => ConfigLanguage::Json,
        }
    }
}

/// Why a configuration file was not read: its message names the file, and, for a
/// configuration that is not valid, the place its parser gives.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ConfigFileError {
    kind: ConfigFileErrorKind,
    message: String,
}

/// The kind of a [`ConfigFileError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigFileErrorKind {
    /// The file could not be opened or read.
    Io,
    /// The file is longer than [`MAX_CONFIG_LEN`].
    TooLong,
    /// The file is not UTF-8.
    NotUtf8,
    /// The text is not a task configuration in its language: its syntax, an unknown
    /// field, a value of the wrong type, a sequence or stop condition that does not
    /// parse.
    Invalid,
}

impl ConfigFileError {
    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> ConfigFileErrorKind {
        self.kind
    }
}

impl TaskConfig {
    /// Reads the task configuration file at `path`, in the language its extension
    /// names ([`ConfigLanguage::of`]): at most [`MAX_CONFIG_LEN`] bytes of UTF-8, the
    /// byte order mark it may start with (Windows PowerShell's UTF-8, Python's
    /// `utf-8-sig`) skipped.
    ///
    /// # Errors
    ///
    /// The file cannot be read, is too long or not UTF-8, or is not a valid
    /// configuration ([`TaskConfig::from_text`]); the message starts with the path.
    pub fn from_file(path: &Path) -> Result<TaskConfig, ConfigFileError> {
        let shown = path.display();
        let error = |kind, message| ConfigFileError { kind, message };
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(MAX_CONFIG_LEN as u64 + 1).read_to_end(&mut bytes))
            .map_err(|e| error(ConfigFileErrorKind::Io, format!("cannot read {shown}: {e}")))?;
        if bytes.len() > MAX_CONFIG_LEN {
            return Err(error(
                ConfigFileErrorKind::TooLong,
                format!("{shown}: longer than {MAX_CONFIG_LEN} bytes"),
            ));
        }
        crate::transcript::skip_bom(&mut bytes);
        let text = String::from_utf8(bytes).map_err(|e| {
            error(
                ConfigFileErrorKind::NotUtf8,
                format!("cannot read {shown}: {e}"),
            )
        })?;
        TaskConfig::from_text(&text, ConfigLanguage::of(path))
            .map_err(|e| error(e.kind, format!("{shown}: {}", e.message)))
    }

    /// The task configuration `text`, written in `language`.
    ///
    /// ```
    /// use doneseq::TaskConfig;
    /// use doneseq::stop::ConfigLanguage;
    ///
    /// let config = TaskConfig::from_text("max_turns = 5\n", ConfigLanguage::Toml)?;
    /// assert_eq!(config.max_turns, Some(5));
    /// let err = TaskConfig::from_text("max_turn: 5\n", ConfigLanguage::Yaml).unwrap_err();
    /// assert!(err.to_string().contains("unknown field `max_turn`"), "{err}");
    /// # Ok::<(), doneseq::stop::ConfigFileError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The text is not a configuration in `language` (its syntax, an unknown field, a
    /// value of the wrong type, a sequence or stop condition that does not parse): the
    /// parser's message, with its place in the text.
    pub fn from_text(text: &str, language: ConfigLanguage) -> Result<TaskConfig, ConfigFileError> {
        let parsed = match language {
            ConfigLanguage::Toml => toml::from_str(text).map_err(|e| e.to_string()),
            ConfigLanguage::Yaml => serde_norway::from_str(text).map_err(|e| e.to_string()),
            ConfigLanguage::Json => serde_json::from_str(text).map_err(|e| e.to_string()),
        };
        parsed.map_err(|message| ConfigFileError {
            kind: ConfigFileErrorKind::Invalid,
            message,
        })
    }
}
