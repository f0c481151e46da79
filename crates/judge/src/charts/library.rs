//! The charting library, vendored at build time by `crates/judge/build.rs` from
//! the npm tarball pinned in `library.pin` (its sha512 checked), and the
//! script that draws a page's charts with it (`boot.js`).

/// `NAME VERSION` of the vendored library, e.g. `echarts 6.1.0`.
pub const VERSION: &str = include_str!(concat!(env!("OUT_DIR"), "/library.version"));

/// The library as one inline script: its licence in a leading comment,
/// then the minified bundle (which defines the global `echarts`).
pub const SCRIPT: &str = include_str!(concat!(env!("OUT_DIR"), "/library.js"));

/// The library's licence, its NOTICE and the licences of code it bundles.
pub const LICENSE: &str = include_str!(concat!(env!("OUT_DIR"), "/library.license"));

/// Draws each `div.chart` of the page from the JSON it holds.
pub const BOOT: &str = include_str!("boot.js");

/// The Content-Security-Policy sources of [`SCRIPT`] and [`BOOT`] inlined
/// as they are (`'sha256-…' 'sha256-…'`).
pub const SCRIPT_HASHES: &str = include_str!(concat!(env!("OUT_DIR"), "/library.csp"));

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use sha2::{Digest, Sha256};

    #[test]
    fn the_script_carries_its_licence_and_the_docs_the_same_text() {
        assert!(VERSION.starts_with("echarts "), "{VERSION}");
        assert!(SCRIPT.starts_with(&format!("/*! {VERSION}\n")), "the licence comment comes first");
        assert!(SCRIPT.contains("Apache License") && SCRIPT.contains(LICENSE), "the whole licence is in the script");
        let docs = include_str!("../../../../docs/licenses/echarts.txt");
        assert_eq!(docs, format!("{VERSION}\n\n{LICENSE}"), "docs/licenses/echarts.txt is the vendored licence");
    }

    #[test]
    fn the_hashes_are_those_of_the_inlined_scripts() {
        let hash = |s: &str| Sha256::digest(s.as_bytes()).to_vec();
        let listed: Vec<Vec<u8>> = SCRIPT_HASHES
            .split_whitespace()
            .map(|h| STANDARD.decode(h.trim_matches('\'').trim_start_matches("sha256-")).unwrap())
            .collect();
        assert_eq!(listed, [hash(SCRIPT), hash(BOOT)]);
    }
}
