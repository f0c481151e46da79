//! The secrets the collecting server hands out (push keys, share links):
//! 32 random bytes from the operating system, written as hex behind a
//! prefix that says what the secret is; the store keeps only their SHA-256,
//! so that a copy of the store lets nobody push or read a shared run.

use rand::TryRngCore;

/// The bytes of randomness in a secret.
const BYTES: usize = 32;

/// A new secret, `PREFIX` then 64 hex digits.
pub fn new(prefix: &str) -> String {
    let mut bytes = [0u8; BYTES];
    rand::rngs::OsRng.try_fill_bytes(&mut bytes).expect("the operating system gives random bytes");
    format!("{prefix}{}", mlb_record::digest::hex(&bytes))
}

/// What the store keeps of `secret`: its SHA-256 (hex). A secret carries
/// 256 random bits, so a hash without salt cannot be reversed by a search.
pub fn hash(secret: &str) -> String {
    mlb_record::digest::sha256(secret.trim().as_bytes())
}

/// A new file at `path` for a secret: readable and writable by its owner
/// only, not there before (no link followed); or why not.
pub fn new_file(path: &std::path::Path) -> Result<std::fs::File, String> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| format!("{e} (pass a file not there yet)"))
}

/// Writes `secret` and a line end into `file`, to disk.
pub fn write(mut file: std::fs::File, secret: &str) -> Result<(), String> {
    use std::io::Write;
    file.write_all(format!("{secret}\n").as_bytes()).and_then(|()| file.sync_all()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn secrets_differ_and_only_their_hash_names_them() {
        let (a, b) = (super::new("mlbk_"), super::new("mlbk_"));
        assert!(a.starts_with("mlbk_") && a.len() == 5 + 64, "{a}");
        assert_ne!(a, b);
        assert_eq!(super::hash(&a), super::hash(&format!("{a}\n")));
        assert_ne!(super::hash(&a), super::hash(&b));
        assert!(!super::hash(&a).contains(&a[5..]));
    }
}
