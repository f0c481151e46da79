//! One generator per kind of data set. A generator lists its files and
//! produces each file in chunks; a chunk's bytes depend only on the seed and
//! the chunk's place, so files and chunks can be made in any order, on any
//! number of threads, and give the same bytes.

pub mod bsds;
pub mod coco;
pub mod imagenet;
pub mod mnist;
pub mod movielens;
pub mod picture;
pub mod rng;
pub mod sine;
pub mod tokens;
pub mod torch_save;
pub mod torchvision_mnist;
pub mod wikitext;
pub mod wmt16;
pub mod words;

use std::path::{Path, PathBuf};

/// One file of a data set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSpec {
    /// Path relative to the data set's folder.
    pub path: PathBuf,
    /// Number of chunks the file is made of (at least 1).
    pub chunks: usize,
}

impl FileSpec {
    /// A file of `chunks` chunks at `path`.
    pub fn new(path: impl Into<PathBuf>, chunks: usize) -> Self {
        FileSpec { path: path.into(), chunks: chunks.max(1) }
    }
}

/// Makes the files of one data set.
pub trait Generator: Sync {
    /// The files, in a fixed order (the indices [`chunk`](Self::chunk) takes).
    fn files(&self) -> Vec<FileSpec>;

    /// The bytes of chunk `chunk` of file `file`; a file is its chunks in order.
    fn chunk(&self, file: usize, chunk: usize) -> Vec<u8>;
}

/// Another generator's files, one folder down: the same bytes where a
/// script opens them under a longer path (`BSR/BSDS500/data/images/...`).
pub struct Under {
    /// The folder, relative to the data set's folder.
    pub folder: &'static str,
    /// The generator of the files.
    pub inner: Box<dyn Generator>,
}

impl Generator for Under {
    fn files(&self) -> Vec<FileSpec> {
        let folder = Path::new(self.folder);
        self.inner.files().into_iter().map(|f| FileSpec { path: folder.join(f.path), chunks: f.chunks }).collect()
    }

    fn chunk(&self, file: usize, chunk: usize) -> Vec<u8> {
        self.inner.chunk(file, chunk)
    }
}

/// The number of chunks of `per_chunk` items that hold `count` items.
pub fn chunks_of(count: usize, per_chunk: usize) -> usize {
    count.div_ceil(per_chunk).max(1)
}

/// The items `[start, end)` of chunk `chunk` when chunks hold `per_chunk` of `count` items.
pub fn chunk_range(chunk: usize, per_chunk: usize, count: usize) -> std::ops::Range<usize> {
    let start = (chunk * per_chunk).min(count);
    start..(start + per_chunk).min(count)
}
