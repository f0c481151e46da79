//! A library file read through a cache of aligned blocks, for the `object`
//! crate's `ReadCache`: parsing its headers makes many small reads (one per
//! section name), which cost one `pread` per block. What mlb reads of a
//! plugin file without loading it (its manifest, the folders its loader
//! searches) is read this way: a few blocks, never the whole file.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Bytes read at a time (aligned): the few places of the file a lookup
/// touches each cost one read.
const BLOCK: u64 = 16 * 1024;

/// A file read through a cache of aligned blocks.
pub struct Blocks {
    file: std::fs::File,
    len: u64,
    pos: u64,
    blocks: HashMap<u64, Box<[u8]>>,
}

impl Blocks {
    /// The file at `path`, nothing read yet.
    pub fn open(path: &Path) -> std::io::Result<Blocks> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Blocks { file, len, pos: 0, blocks: HashMap::new() })
    }
}

impl Read for Blocks {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let start = self.pos - self.pos % BLOCK;
        let block = match self.blocks.entry(start) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let mut bytes = vec![0u8; BLOCK.min(self.len - start) as usize];
                self.file.read_exact_at(&mut bytes, start)?;
                e.insert(bytes.into_boxed_slice())
            }
        };
        let from = &block[(self.pos - start) as usize..];
        let n = from.len().min(buf.len());
        buf[..n].copy_from_slice(&from[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Blocks {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = pos.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start"))?;
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_reads_match_the_file_across_block_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let bytes: Vec<u8> = (0..(2 * BLOCK + 123)).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let mut r = Blocks::open(&path).unwrap();
        for (at, n) in [(0, 10), (BLOCK - 3, 7), (BLOCK * 2 - 1, 124), (5, BLOCK as usize * 2)] {
            r.seek(SeekFrom::Start(at)).unwrap();
            let mut got = vec![0u8; n];
            r.read_exact(&mut got).unwrap();
            assert_eq!(got, bytes[at as usize..at as usize + n], "at {at}, {n} bytes");
        }
        assert_eq!(r.seek(SeekFrom::End(-1)).unwrap(), bytes.len() as u64 - 1);
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, [bytes[bytes.len() - 1]]);
        assert!(r.seek(SeekFrom::Current(-(bytes.len() as i64) - 1)).is_err());
        assert_eq!(r.blocks.len(), 3, "each block read once");
    }
}
