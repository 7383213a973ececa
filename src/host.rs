//! What a job on the only thread asks of its host.
//!
//! Natively a search or perft runs on a thread of its own while the
//! protocol's loop reads the next lines. WebAssembly has no threads: the
//! job runs inside the host's call into the module, and the lines that
//! come meanwhile (`stop`, `isready`, ...) can only reach the session if
//! the job asks for them. It does so here, at every stop check: the
//! module's entry points (`wasm`) set a hook that hands the waiting input
//! to the session, and the job then sees `stop` as it would natively.
//! Natively [`poll`] is nothing at all.

#[cfg(target_family = "wasm")]
static HOOK: std::sync::OnceLock<fn(u32)> = std::sync::OnceLock::new();

/// Sets what [`poll`] calls (once; later calls change nothing).
#[cfg(target_family = "wasm")]
pub fn set_poll_hook(hook: fn(u32)) {
    let _ = HOOK.set(hook);
}

/// Lets the host hand over the input that came while a job runs, waiting
/// at most `wait_ms` for some when there is none.
#[inline(always)]
pub fn poll(wait_ms: u32) {
    #[cfg(target_family = "wasm")]
    if let Some(hook) = HOOK.get() {
        hook(wait_ms);
    }
    #[cfg(not(target_family = "wasm"))]
    let _ = wait_ms;
}
