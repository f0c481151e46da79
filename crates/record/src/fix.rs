//! What a person can do about an error: its fix, which the edge prints on a
//! `fix:` line after the message and its causes. An error's `Display` says
//! what went wrong; [`Fix::fix`] says what to do about it.
//!
//! This module imports nothing of the crate.

use std::error::Error;

/// Where a message that still carries its fix in its own text gives it
/// (`MESSAGE; fix: FIX`); the edge splits such texts there.
pub const MARK: &str = "; fix: ";

/// An error that can say what to do about it.
pub trait Fix: Error {
    /// What to do; `None` when there is nothing to say. An error that wraps
    /// another (`#[error(transparent)]`) gives the wrapped one's fix.
    fn fix(&self) -> Option<String>;
}

/// `error` on one line with its fix (`MESSAGE; fix: FIX`), for places that
/// keep an error as text (a warning, a list of refusals).
pub fn one_line(error: &dyn Fix) -> String {
    match error.fix() {
        Some(fix) => format!("{error}{MARK}{fix}"),
        None => error.to_string(),
    }
}
