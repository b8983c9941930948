//! Threads started inside a PostgreSQL backend must not take its signals.

/// Runs `f` with every signal blocked in the calling thread. Threads started inside `f`
/// (ONNX Runtime's pool, the model-run watcher, the long-text tokenizer helper) inherit
/// that mask, so SIGINT, SIGALRM (statement_timeout) and SIGTERM are always delivered to
/// the PostgreSQL backend's own thread.
pub(crate) fn with_signals_blocked<R>(f: impl FnOnce() -> R) -> R {
    struct RestoreMask(libc::sigset_t);
    impl Drop for RestoreMask {
        fn drop(&mut self) {
            // SAFETY: restores the mask saved below for this same thread.
            unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.0, std::ptr::null_mut()) };
        }
    }
    // SAFETY: sigset_t is plain data; both calls only touch the calling thread's mask.
    let _restore = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut previous: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut previous);
        RestoreMask(previous)
    };
    f()
}
