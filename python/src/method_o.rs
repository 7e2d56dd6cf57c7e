//! `Run.observe` as a method of one argument (CPython's `METH_O`).
//!
//! `observe` is called once per message of an agent's loop, and its cost is what this
//! package is measured by. PyO3 defines a method with the calling convention the
//! stable ABI allows: on the 3.9 ABI (this package's floor) that is `METH_VARARGS`,
//! for which every call builds a tuple of its arguments (a garbage-collected object,
//! so the calls also run the collector more often) and PyO3 then unpacks it. A
//! `METH_O` method gets its one argument as it is, and `METH_O` and
//! `PyDescr_NewMethod` are in the stable ABI of every CPython 3: the package defines
//! `observe` so, by hand, and puts it on the `Run` class when the module loads. The
//! method goes through PyO3's own trampoline, as PyO3's methods do, and borrows the
//! run as they do: a Rust panic becomes `pyo3_runtime.PanicException` and never
//! crosses into Python.

use std::ffi::CStr;

use pyo3::ffi;
// PyO3's own (hidden) trampolines, which its generated methods use: pinned with PyO3
// in Cargo.lock, and checked by the tests of this method.
use pyo3::impl_::trampoline;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::monitor::PyRun;

/// `observe`'s docstring, with the signature `inspect` reads from it.
const DOC: &CStr = c"observe($self, message, /)
--

Observes one message (a dict with the transcript's fields: role, content,
responder or name, tool_calls, tool_call_id, usage, error, confidence, reward,
metrics, elapsed_ms, no_response); the outcome if the run stops here.";

/// Puts `observe` on `class` (the `Run` class).
pub(crate) fn install(class: &Bound<'_, PyType>) -> PyResult<()> {
    let py = class.py();
    // One definition for the life of the process, as CPython requires of a method's.
    let def: &'static mut ffi::PyMethodDef = Box::leak(Box::new(ffi::PyMethodDef {
        ml_name: c"observe".as_ptr(),
        ml_meth: ffi::PyMethodDefPointer {
            PyCFunction: trampoline::binaryfunc::<Observe>,
        },
        ml_flags: ffi::METH_O,
        ml_doc: DOC.as_ptr(),
    }));
    // SAFETY: `class` is a live type object and `def` lives for ever; the function
    // returns a new reference or NULL with an exception set.
    let descriptor = unsafe {
        Bound::from_owned_ptr_or_err(py, ffi::PyDescr_NewMethod(class.as_ptr().cast(), def))
    }?;
    class.setattr("observe", descriptor)
}

/// `Run.observe`'s body, called by PyO3's trampoline for a two-pointer C function
/// (`binaryfunc`, whose signature `METH_O`'s is): the trampoline attaches PyO3 to the
/// interpreter as for its own methods (its count of the thread's attachment, its pool
/// of deferred reference counts) and turns an error into the raised exception and a
/// panic into `PanicException`.
struct Observe;

impl trampoline::MethodDef<trampoline::binaryfunc::Func> for Observe {
    const METH: trampoline::binaryfunc::Func = observe;
}

/// # Safety
///
/// `slf` and `message` are live objects, borrowed for the call (as CPython passes a
/// `METH_O` method's).
unsafe fn observe(
    py: Python<'_>,
    slf: *mut ffi::PyObject,
    message: *mut ffi::PyObject,
) -> PyResult<*mut ffi::PyObject> {
    // SAFETY: both are borrowed references, alive for the call (the caller's contract).
    let (slf, message) = unsafe {
        (
            Bound::from_borrowed_ptr(py, slf),
            Bound::from_borrowed_ptr(py, message),
        )
    };
    let run = slf.cast::<PyRun>()?;
    let outcome = run.try_borrow_mut()?.observe(py, &message)?;
    Ok(match outcome {
        Some(outcome) => Bound::new(py, outcome)?.into_any().into_ptr(),
        None => py.None().into_ptr(),
    })
}
