//! A Python string's text as UTF-8, borrowed from the string where the interpreter
//! allows it.
//!
//! The stable ABI of CPython 3.9 (this package's floor) reaches a string's UTF-8 only
//! by encoding it into a new `bytes` object: an allocation and a copy for every text
//! of every message. From 3.10 on, `PyUnicode_AsUTF8AndSize` is part of the stable ABI:
//! it returns the UTF-8 that CPython keeps in the string (for an ASCII string, its own
//! characters), valid as long as the string lives, with no copy. So the package asks
//! the running interpreter's version once and uses the function on 3.10 and later, the
//! `bytes` object on 3.9. (On Windows an abi3 extension links against `python3.dll`,
//! whose 3.9 build does not export the function: there the `bytes` object is always
//! used.)

use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyString};

/// A string's UTF-8 and what keeps it alive.
pub(crate) enum Utf8<'py> {
    /// The string's own UTF-8 (`len` bytes at `text`), alive as long as `string`.
    Borrowed {
        _string: Bound<'py, PyString>,
        text: NonNull<u8>,
        len: usize,
    },
    /// A `bytes` object holding the string encoded, checked to be UTF-8.
    Encoded(Bound<'py, PyBytes>),
}

impl<'py> Utf8<'py> {
    /// The UTF-8 of `string`; `None` if it has none (a lone surrogate: the caller
    /// leaves the value to the schema's path, which says so).
    pub(crate) fn of(string: &Bound<'py, PyString>) -> Option<Utf8<'py>> {
        #[cfg(not(windows))]
        if borrows(string.py()) {
            let mut len: pyo3::ffi::Py_ssize_t = 0;
            // SAFETY: `string` is a live `str` (checked by the cast that made the
            // `Bound`), the GIL is held, and the function exists from 3.10 on, which
            // `borrows` checked.
            let text = unsafe { PyUnicode_AsUTF8AndSize(string.as_ptr(), &raw mut len) };
            let Some(text) = NonNull::new(text.cast_mut().cast::<u8>()) else {
                // The interpreter raised: no UTF-8 (a lone surrogate).
                drop(PyErr::take(string.py()));
                return None;
            };
            return Some(Utf8::Borrowed {
                _string: string.clone(),
                text,
                len: usize::try_from(len).ok()?,
            });
        }
        let bytes = string.encode_utf8().ok()?;
        std::str::from_utf8(bytes.as_bytes()).ok()?;
        Some(Utf8::Encoded(bytes))
    }

    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Utf8::Borrowed { text, len, .. } => {
                // SAFETY: CPython's UTF-8 of a string is valid UTF-8 of `len` bytes
                // and lives as long as the string, which `self` holds.
                unsafe {
                    std::str::from_utf8_unchecked(std::slice::from_raw_parts(text.as_ptr(), *len))
                }
            }
            // Checked when made (so never the default); only on 3.9, where the copy
            // costs more than the check.
            Utf8::Encoded(bytes) => std::str::from_utf8(bytes.as_bytes()).unwrap_or_default(),
        }
    }
}

/// Whether the running interpreter has `PyUnicode_AsUTF8AndSize` in its stable ABI
/// (3.10 and later), asked once; and not turned off by [`set_borrowing`].
#[cfg(not(windows))]
fn borrows(py: Python<'_>) -> bool {
    static HAS_IT: PyOnceLock<bool> = PyOnceLock::new();
    *HAS_IT.get_or_init(py, || py.version_info() >= (3, 10)) && !ENCODE.load(Ordering::Relaxed)
}

/// Set by the tests to take 3.9's way on any interpreter.
static ENCODE: AtomicBool = AtomicBool::new(false);

/// Test support: `False` makes every text go through a `bytes` object, as on CPython
/// 3.9 (so that the tests run that way on the interpreter they have); `True` undoes it.
#[pyfunction]
#[pyo3(name = "_borrow_utf8")]
pub(crate) fn set_borrowing(enabled: bool) {
    ENCODE.store(!enabled, Ordering::Relaxed);
}

#[cfg(not(windows))]
unsafe extern "C" {
    /// CPython's: a string's UTF-8 and its length, or NULL with an exception set.
    /// In the stable ABI from 3.10 (only called there); exported by every CPython 3.
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut pyo3::ffi::PyObject,
        size: *mut pyo3::ffi::Py_ssize_t,
    ) -> *const std::os::raw::c_char;
}
