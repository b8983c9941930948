//! What differs between the PostgreSQL versions pg_dof builds for (15, 17, 18: the pgrx
//! features `pg15`, `pg17`, `pg18`), in one place. Everything else in the extension is the
//! same code on every version; a server API that changes gets one function here, with a
//! `cfg` per version, and its callers stay version-free.

use pgrx::pg_sys;

/// Installs a signal handler the way the server's own processes do (`pqsignal`). In 18
/// `pqsignal` is a macro (port.h) for `pqsignal_be` in the backend, so that name is the symbol.
///
/// # Safety
/// As `pqsignal`: call from the process's main thread, with a handler that is
/// async-signal-safe.
pub unsafe fn set_signal_handler(signal: std::ffi::c_int, handler: pg_sys::pqsigfunc) {
    #[cfg(feature = "pg18")]
    unsafe {
        pg_sys::pqsignal_be(signal, handler)
    };
    #[cfg(not(feature = "pg18"))]
    unsafe {
        pg_sys::pqsignal(signal, handler)
    };
}
