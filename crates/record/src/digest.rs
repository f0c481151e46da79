//! SHA-256 as mlb names content: lower-case hex. A prepared set's manifest,
//! an acceptance record's inputs, the store's report hashes and
//! identities, a Singularity image and a configuration's id all name
//! content this way, so one file hashed by two commands has one name.

use sha2::{Digest, Sha256};
use std::io::Read;

/// SHA-256 (hex) of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Size and SHA-256 (hex) of what `reader` holds, read once to its end in
/// 64 KiB pieces (a prepared set's files are gigabytes).
pub fn sha256_of(mut reader: impl Read) -> std::io::Result<(u64, String)> {
    let mut hash = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut bytes = 0;
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            return Ok((bytes, hex(&hash.finalize())));
        }
        hash.update(&buffer[..n]);
        bytes += n as u64;
    }
}

/// Lower-case hex of `digest` (a hash fed in pieces, finished).
pub fn hex(digest: &[u8]) -> String {
    use std::fmt::Write;
    digest.iter().fold(String::with_capacity(2 * digest.len()), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_a_reader_of_them_have_one_name() {
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert_eq!(sha256(b""), empty);
        let text = vec![7u8; 200_000];
        assert_eq!(sha256_of(text.as_slice()).unwrap(), (200_000, sha256(&text)));
        assert_eq!(hex(&[0, 15, 255]), "000fff");
    }
}
