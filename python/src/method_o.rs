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
//! method does what a PyO3 method does around the call: it borrows the run (a
//! `RuntimeError`-like `PyBorrowMutError` if it is in use) and turns a Rust panic into
//! `pyo3_runtime.PanicException`, so that none crosses into Python.

use std::ffi::CStr;

use pyo3::ffi;
use pyo3::panic::PanicException;
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
            PyCFunction: observe,
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

/// The C function of `Run.observe`: `slf` the run, `message` the argument.
extern "C" fn observe(slf: *mut ffi::PyObject, message: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: CPython calls a method with the thread attached to the interpreter.
    let py = unsafe { Python::assume_attached() };
    let result = std::panic::catch_unwind(|| {
        // SAFETY: both are borrowed references, alive for the call.
        let (slf, message) = unsafe {
            (
                Bound::from_borrowed_ptr(py, slf),
                Bound::from_borrowed_ptr(py, message),
            )
        };
        let run = slf.cast::<PyRun>()?;
        let outcome = run.try_borrow_mut()?.observe(py, &message)?;
        Ok::<_, PyErr>(match outcome {
            Some(outcome) => Bound::new(py, outcome)?.into_any().unbind(),
            None => py.None(),
        })
    });
    let error = match result {
        Ok(Ok(value)) => return value.into_ptr(),
        Ok(Err(error)) => error,
        Err(panic) => {
            let text = (panic.downcast_ref::<String>().map(String::as_str))
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic with no message");
            PanicException::new_err(text.to_owned())
        }
    };
    error.restore(py);
    std::ptr::null_mut()
}
