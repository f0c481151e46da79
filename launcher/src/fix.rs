//! What a person can do about an error: its fix, printed by the edge on a
//! `fix:` line after the message and its causes.
//!
//! This module imports nothing of the crate.

/// Where a message that carries its fix in its own text gives it
/// (`MESSAGE; fix: FIX`); the edge splits such texts there.
pub const MARK: &str = "; fix: ";
