//! [`resolve_final_var`]: a `FINAL_VAR` name looked up in the REPL's namespace.

/// Looks up the variable a `FINAL_VAR(name)` refers to.
///
/// `namespace` is anything that iterates over `(name, &value)` pairs: `&HashMap`,
/// `&BTreeMap`, or an iterator over a list of pairs. Values are of any type.
///
/// # Errors
///
/// [`ResolveError`] when no variable has that name; it lists the names that exist, in
/// the namespace's order (arbitrary for a `HashMap`), so that the model can be told
/// what it can use. Models do call `FINAL_VAR` before creating the variable
/// (alexzhang13/rlm#77): the caller should keep the loop going and say so, not stop
/// with the name as the answer.
///
/// ```
/// use doneseq::answer::{AnswerValue, resolve_final_var};
///
/// let namespace = vec![
///     ("result".to_string(), AnswerValue::from(42)),
///     ("data".to_string(), AnswerValue::parse("[1, 2, 3]")?),
/// ];
/// let pairs = || namespace.iter().map(|(k, v)| (k, v));
/// assert_eq!(resolve_final_var("result", pairs())?, &AnswerValue::Int(42));
///
/// let err = resolve_final_var("missing_var", pairs()).unwrap_err();
/// assert_eq!(err.available(), ["result", "data"]);
/// assert_eq!(
///     err.to_string(),
///     "FINAL_VAR referenced variable 'missing_var', which is not in the REPL namespace \
///      (available variables: ['result', 'data'])",
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn resolve_final_var<'a, I, K, V>(name: &str, namespace: I) -> Result<&'a V, ResolveError>
where
    I: IntoIterator<Item = (K, &'a V)>,
    K: AsRef<str>,
    V: 'a,
{
    let mut available = Vec::new();
    for (key, value) in namespace {
        if key.as_ref() == name {
            return Ok(value);
        }
        available.push(key.as_ref().to_owned());
    }
    Err(ResolveError {
        name: name.to_owned(),
        available,
    })
}

/// A `FINAL_VAR` named a variable that does not exist.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResolveError {
    name: String,
    available: Vec<String>,
}

impl ResolveError {
    /// How many names the message lists before "and N more".
    const LISTED: usize = 50;

    /// The name that was looked up.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The names the namespace has, in its order.
    #[must_use]
    pub fn available(&self) -> &[String] {
        &self.available
    }
}

impl std::fmt::Display for ResolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "FINAL_VAR referenced variable {:?}, which is not in the REPL namespace (available variables: [",
            PyStr(&self.name)
        )?;
        for (k, name) in self.available.iter().take(Self::LISTED).enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{:?}", PyStr(name))?;
        }
        if self.available.len() > Self::LISTED {
            write!(f, ", ... and {} more", self.available.len() - Self::LISTED)?;
        }
        f.write_str("])")
    }
}

impl std::error::Error for ResolveError {}

/// A name as Python's `repr()` shows it (`'result'`), for messages.
struct PyStr<'a>(&'a str);

impl std::fmt::Debug for PyStr<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        super::AnswerValue::String(self.0.to_owned()).write_repr(&mut out);
        f.write_str(&out)
    }
}
