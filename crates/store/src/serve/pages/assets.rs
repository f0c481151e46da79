//! The scripts the pages load, compiled into the binary (no file is read
//! from disk, no CDN is asked): the vendored charting library and the
//! script that draws the charts ([`mlb_judge::charts::library`]). Each is
//! served under a name holding its hash, so that a browser may keep it for
//! good, and is loaded with its Subresource Integrity hash, which is also
//! the hash the Content-Security-Policy allows
//! ([`mlb_judge::charts::embed::content_security_policy`]): the pages run under
//! the same policy as the self-contained report.

use mlb_judge::charts::library;
use sha2::{Digest, Sha256};
use std::sync::LazyLock;

/// The prefix of every asset's path.
pub const PREFIX: &str = "/assets/";

/// A script served under `/assets/`.
pub struct Asset {
    /// Its path: `/assets/NAME-HASH.js`.
    pub path: String,
    /// `sha256-BASE64`, for the `integrity` attribute (and the policy).
    pub integrity: String,
    /// The script.
    pub body: &'static str,
}

impl Asset {
    fn new(name: &str, body: &'static str, integrity: &str) -> Asset {
        let digest = Sha256::digest(body.as_bytes());
        let tag: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        Asset { path: format!("{PREFIX}{name}-{tag}.js"), integrity: integrity.trim_matches('\'').to_string(), body }
    }

    /// The `<script>` element that loads it.
    pub fn element(&self) -> String {
        format!("<script src=\"{}\" integrity=\"{}\"></script>", self.path, self.integrity)
    }
}

/// The library and the drawing script, in the order the policy lists
/// their hashes.
static ASSETS: LazyLock<[Asset; 2]> = LazyLock::new(|| {
    let mut hashes = library::SCRIPT_HASHES.split_whitespace();
    let mut next = || hashes.next().expect("the policy lists both scripts' hashes");
    [Asset::new("echarts", library::SCRIPT, next()), Asset::new("charts", library::BOOT, next())]
});

/// The charting library.
pub fn library() -> &'static Asset {
    &ASSETS[0]
}

/// The script that draws each chart of a page.
pub fn boot() -> &'static Asset {
    &ASSETS[1]
}

/// The asset at `path`, if any.
pub fn find(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.path == path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;

    #[test]
    fn each_script_is_found_by_its_hashed_path_and_carries_the_hash_the_policy_allows() {
        let policy = mlb_judge::charts::embed::content_security_policy();
        for asset in [library(), boot()] {
            assert!(std::ptr::eq(find(&asset.path).unwrap(), asset));
            let hash = asset.integrity.strip_prefix("sha256-").unwrap();
            assert_eq!(STANDARD.decode(hash).unwrap(), Sha256::digest(asset.body.as_bytes()).to_vec());
            assert!(policy.contains(&format!("'{}'", asset.integrity)), "{policy}");
        }
        assert!(library().path.starts_with("/assets/echarts-") && boot().path.starts_with("/assets/charts-"));
        assert!(find("/assets/echarts.js").is_none() && find("/assets/../Cargo.toml").is_none());
    }
}
