//! This host's name, as the kernel gives it.

/// The host's name (`unknown` when the kernel gives none): what a report
/// records and what a fault's `node=` matches on this host.
pub fn hostname() -> String {
    nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_else(|_| "unknown".into())
}
