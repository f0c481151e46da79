//! Why `mlb serve` did not start or stopped, with the fix.

use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use std::net::SocketAddr;
use std::path::PathBuf;

/// An error of `mlb serve`.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A non-loopback address without a token.
    #[error("mlb serve refuses to listen on {addr} without a token: anyone who reaches it would read the store")]
    NeedsToken {
        /// The address asked for.
        addr: SocketAddr,
    },
    /// The token file cannot be read.
    #[error("cannot read the token file {}: {source}", path.display())]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The token file holds too short a token.
    #[error("the token file {} holds {len} characters; a token has at least {min}", path.display())]
    ShortToken {
        /// The file.
        path: PathBuf,
        /// The token's length (spaces at either end left out).
        len: usize,
        /// The shortest token taken.
        min: usize,
    },
    /// The allowed signers file cannot be read.
    #[error(transparent)]
    Signers(#[from] mlb_judge::accept::record::SignersError),
    /// The store cannot be opened read-only.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// The address cannot be listened on.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

impl Classify for ServeError {
    fn kind(&self) -> Kind {
        match self {
            ServeError::Store(e) => e.kind(),
            ServeError::NeedsToken { .. }
            | ServeError::TokenFile { .. }
            | ServeError::ShortToken { .. }
            | ServeError::Signers(_)
            | ServeError::Bind { .. } => Kind::Refused,
        }
    }
}

impl Fix for ServeError {
    fn fix(&self) -> Option<String> {
        Some(match self {
            ServeError::NeedsToken { .. } => {
                "pass --token-file FILE (a file holding a long random token, e.g. `openssl rand -hex 32 > FILE`), \
                 or --bind 127.0.0.1:PORT"
                    .into()
            }
            ServeError::TokenFile { .. } => "pass --token-file with a file you can read".into(),
            ServeError::ShortToken { .. } => "write a longer token into it: `openssl rand -hex 32 > FILE`".into(),
            ServeError::Store(e) => return e.fix(),
            ServeError::Signers(e) => return e.fix(),
            ServeError::Bind { .. } => "pass --bind with a free port of an address of this host".into(),
        })
    }
}
