//! Signing a record, and checking a signature: SSHSIG, the format of
//! `ssh-keygen -Y sign` (armoured, `-----BEGIN SSH SIGNATURE-----`), over
//! the record's bytes in the namespace [`NAMESPACE`], so that
//! `ssh-keygen -Y verify -n mlb-acceptance` checks it without mlb.
//!
//! mlb signs with unencrypted ed25519 keys; an encrypted key is refused
//! with the `ssh-keygen -Y sign` command that signs the same record (it asks
//! for the passphrase), and `--verify` checks such a signature as its own.

use super::signers::AllowedSigners;
use ssh_key::{Algorithm, HashAlg, LineEnding, PrivateKey, PublicKey, SshSig};
use std::path::{Path, PathBuf};

/// The SSHSIG namespace of acceptance records (`ssh-keygen -n`): a
/// signature made for another purpose (a git commit, a file) is not taken
/// for a signed record.
pub const NAMESPACE: &str = "mlb-acceptance";

/// The signature file of the record at `record`: `FILE.sig`, where
/// `ssh-keygen -Y sign` writes it.
pub fn signature_path(record: &Path) -> PathBuf {
    let mut name = record.as_os_str().to_os_string();
    name.push(".sig");
    PathBuf::from(name)
}

/// A private key that can sign records.
#[derive(Debug)]
pub struct SigningKey {
    key: PrivateKey,
}

/// A key that cannot sign, and why.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The file cannot be read.
    #[error("cannot read the signing key {}: {source}", path.display())]
    Read {
        /// The key file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not an OpenSSH private key.
    #[error("{} is not an OpenSSH private key ({reason})", path.display())]
    NotPrivate {
        /// The key file.
        path: PathBuf,
        /// What the parser said.
        reason: String,
    },
    /// The key is protected by a passphrase, which mlb does not ask for.
    #[error("the signing key {} is encrypted with a passphrase, which mlb does not ask for", path.display())]
    Encrypted {
        /// The key file.
        path: PathBuf,
    },
    /// The key is not an ed25519 key.
    #[error("the signing key {} is not an ed25519 key ({algorithm}); mlb signs with ed25519 keys", path.display())]
    Algorithm {
        /// The key file.
        path: PathBuf,
        /// Its algorithm.
        algorithm: String,
    },
}

impl mlb_record::fix::Fix for KeyError {
    fn fix(&self) -> Option<String> {
        let by_hand = |path: &Path| {
            format!(
                "or write the record without --sign and sign it with `ssh-keygen -Y sign -f {} -n {NAMESPACE} FILE`",
                path.display()
            )
        };
        Some(match self {
            KeyError::Read { .. } => "pass the private key file (e.g. ~/.ssh/id_ed25519) with --sign KEY".into(),
            KeyError::NotPrivate { .. } => {
                "pass the private half of the key (id_ed25519, not id_ed25519.pub) with --sign KEY".into()
            }
            KeyError::Encrypted { path } => format!("use a key without a passphrase, {}", by_hand(path)),
            KeyError::Algorithm { path, .. } => {
                format!("make one with `ssh-keygen -t ed25519 -f FILE`, {}", by_hand(path))
            }
        })
    }
}

impl SigningKey {
    /// Reads the OpenSSH private key in `path` (a regular file of at most
    /// 16 MiB); refuses an encrypted key and a key of another algorithm
    /// than ed25519.
    pub fn read(path: &Path) -> Result<SigningKey, KeyError> {
        let text = mlb_record::reading::read_input(path)
            .map_err(|source| KeyError::Read { path: path.to_path_buf(), source })?;
        let key = PrivateKey::from_openssh(&text).map_err(|e| match e {
            ssh_key::Error::AlgorithmUnknown => {
                KeyError::Algorithm { path: path.to_path_buf(), algorithm: "a kind mlb does not read".into() }
            }
            e => KeyError::NotPrivate { path: path.to_path_buf(), reason: e.to_string() },
        })?;
        if key.is_encrypted() {
            return Err(KeyError::Encrypted { path: path.to_path_buf() });
        }
        if key.algorithm() != Algorithm::Ed25519 {
            return Err(KeyError::Algorithm { path: path.to_path_buf(), algorithm: key.algorithm().to_string() });
        }
        Ok(SigningKey { key })
    }

    /// The key's fingerprint as `ssh-keygen -l` prints it (`SHA256:...`).
    pub fn fingerprint(&self) -> String {
        self.key.public_key().fingerprint(HashAlg::Sha256).to_string()
    }

    /// The armoured SSHSIG signature of `message` in [`NAMESPACE`], with
    /// SHA-512 (as `ssh-keygen -Y sign`), ending with a newline.
    pub fn sign(&self, message: &[u8]) -> String {
        let signature = self.key.sign(NAMESPACE, HashAlg::Sha512, message).expect("an ed25519 key signs");
        let mut text = signature.to_pem(LineEnding::LF).expect("a signature encodes");
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }
}

/// What checking a signature found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureCheck {
    /// The signature is the key's over these bytes in [`NAMESPACE`].
    Good {
        /// The key's fingerprint (`SHA256:...`).
        key: String,
        /// The principals of the allowed signers' line of the key; `None`
        /// when no allowed signers were given.
        principals: Option<String>,
    },
    /// The signature does not vouch for these bytes, and why.
    Bad(String),
}

/// Checks the armoured signature `armoured` of `message`: made in
/// [`NAMESPACE`] by the key it names, over these bytes, and (with
/// `trusted`) by a key the allowed signers list for that namespace.
pub fn check(message: &[u8], armoured: &str, trusted: Option<&AllowedSigners>) -> SignatureCheck {
    let signature = match SshSig::from_pem(armoured.trim()) {
        Ok(s) => s,
        Err(e) => return SignatureCheck::Bad(format!("not an SSH signature ({e})")),
    };
    if signature.namespace() != NAMESPACE {
        return SignatureCheck::Bad(format!("made for the namespace `{}`, not `{NAMESPACE}`", signature.namespace()));
    }
    let key = PublicKey::from(signature.public_key().clone());
    let fingerprint = key.fingerprint(HashAlg::Sha256).to_string();
    match key.verify(NAMESPACE, message, &signature) {
        Ok(()) => {}
        Err(ssh_key::Error::AlgorithmUnsupported { algorithm }) => {
            return SignatureCheck::Bad(format!(
            "made with a {algorithm} key ({fingerprint}), which mlb cannot check: check it with `ssh-keygen -Y verify`"
        ))
        }
        Err(_) => return SignatureCheck::Bad(format!("does not match the record (key {fingerprint})")),
    }
    let principals = match trusted {
        None => None,
        Some(signers) => match signers.principals_of(key.key_data(), NAMESPACE) {
            Some(p) => Some(p.to_string()),
            None => {
                return SignatureCheck::Bad(format!(
                    "made by the key {fingerprint}, which {} does not allow for `{NAMESPACE}`",
                    signers.path().display()
                ))
            }
        },
    };
    SignatureCheck::Good { key: fingerprint, principals }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssh_key::private::Ed25519Keypair;

    /// A key file made from `seed`, in `dir`; its public line.
    fn key_file(dir: &Path, seed: u8) -> (PathBuf, String) {
        let key = PrivateKey::from(Ed25519Keypair::from_seed(&[seed; 32]));
        let path = dir.join(format!("key{seed}"));
        std::fs::write(&path, key.to_openssh(LineEnding::LF).unwrap().as_bytes()).unwrap();
        (path, key.public_key().to_openssh().unwrap())
    }

    fn signers(text: &str) -> AllowedSigners {
        AllowedSigners::parse(Path::new("allowed_signers"), text).unwrap()
    }

    #[test]
    fn a_signature_vouches_for_the_bytes_signed_and_no_others() {
        let dir = tempfile::tempdir().unwrap();
        let (path, public) = key_file(dir.path(), 1);
        let key = SigningKey::read(&path).unwrap();
        let signature = key.sign(b"{\"accepted\": true}\n");
        assert!(signature.starts_with("-----BEGIN SSH SIGNATURE-----\n"), "{signature}");
        assert!(signature.ends_with("-----END SSH SIGNATURE-----\n"), "{signature}");
        let good = check(b"{\"accepted\": true}\n", &signature, None);
        assert_eq!(good, SignatureCheck::Good { key: key.fingerprint(), principals: None });
        assert!(
            matches!(check(b"{\"accepted\": false}\n", &signature, None), SignatureCheck::Bad(why) if why.contains("does not match"))
        );
        let trusted = signers(&format!("alice@site {public}\n"));
        let by_alice = check(b"{\"accepted\": true}\n", &signature, Some(&trusted));
        assert_eq!(by_alice, SignatureCheck::Good { key: key.fingerprint(), principals: Some("alice@site".into()) });
    }

    #[test]
    fn a_key_the_allowed_signers_do_not_list_is_bad() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = key_file(dir.path(), 1);
        let (_, other) = key_file(dir.path(), 2);
        let signature = SigningKey::read(&path).unwrap().sign(b"record");
        let SignatureCheck::Bad(why) = check(b"record", &signature, Some(&signers(&format!("bob@site {other}\n"))))
        else {
            panic!("an unlisted key passed")
        };
        assert!(why.contains("allowed_signers does not allow"), "{why}");
    }

    #[test]
    fn a_signature_of_another_namespace_is_bad() {
        let key = PrivateKey::from(Ed25519Keypair::from_seed(&[3; 32]));
        let git = key.sign("git", HashAlg::Sha512, b"record").unwrap().to_pem(LineEnding::LF).unwrap();
        assert_eq!(
            check(b"record", &git, None),
            SignatureCheck::Bad("made for the namespace `git`, not `mlb-acceptance`".into())
        );
        assert!(
            matches!(check(b"record", "not a signature", None), SignatureCheck::Bad(why) if why.starts_with("not an SSH signature"))
        );
    }

    #[test]
    fn a_public_key_or_no_file_cannot_sign() {
        let dir = tempfile::tempdir().unwrap();
        let (path, public) = key_file(dir.path(), 1);
        let public_file = dir.path().join("key1.pub");
        std::fs::write(&public_file, &public).unwrap();
        assert!(matches!(SigningKey::read(&public_file), Err(KeyError::NotPrivate { .. })));
        assert!(matches!(SigningKey::read(&dir.path().join("none")), Err(KeyError::Read { .. })));
        assert!(SigningKey::read(&path).is_ok());
    }
}
