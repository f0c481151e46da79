//! MNIST's idx image files (`train-images-idx3-ubyte`, optionally gzipped).
//!
//! Format: a big-endian header `00 00 08 03` (unsigned bytes, 3 dimensions),
//! then the image count, rows and columns as big-endian u32, then the pixels.

use super::DataError;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Magic number of an idx file of unsigned bytes with 3 dimensions.
pub const IMAGES_MAGIC: u32 = 0x0000_0803;

/// File names under which the training images are looked for, in order.
pub const TRAIN_IMAGE_FILES: [&str; 4] = [
    "train-images-idx3-ubyte",
    "train-images-idx3-ubyte.gz",
    "train-images.idx3-ubyte",
    "MNIST/raw/train-images-idx3-ubyte",
];

/// File names under which the held-out (test) images are looked for, in order.
pub const TEST_IMAGE_FILES: [&str; 4] = [
    "t10k-images-idx3-ubyte",
    "t10k-images-idx3-ubyte.gz",
    "t10k-images.idx3-ubyte",
    "MNIST/raw/t10k-images-idx3-ubyte",
];

/// Images of an idx file: `count` images of `rows x cols` bytes, row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdxImages {
    /// Number of images.
    pub count: usize,
    /// Rows per image.
    pub rows: usize,
    /// Columns per image.
    pub cols: usize,
    /// `count * rows * cols` pixel bytes.
    pub pixels: Vec<u8>,
}

/// Finds the MNIST training images in `dir` (or `dir` itself when it is the file).
pub fn find_train_images(dir: &Path) -> Result<PathBuf, DataError> {
    if dir.is_file() {
        return Ok(dir.to_path_buf());
    }
    find(dir, &TRAIN_IMAGE_FILES, "training")
}

/// Finds the MNIST held-out (t10k) images in the folder `dir`.
pub fn find_test_images(dir: &Path) -> Result<PathBuf, DataError> {
    find(dir, &TEST_IMAGE_FILES, "held-out (test)")
}

fn find(dir: &Path, names: &[&str], split: &str) -> Result<PathBuf, DataError> {
    names.iter().map(|name| dir.join(name)).find(|p| p.is_file()).ok_or_else(|| DataError::Missing {
        path: dir.to_path_buf(),
        expected: format!("MNIST {split} images (one of {})", names.join(", ")),
    })
}

/// Reads an idx image file; a name ending in `.gz` is decompressed.
pub fn read_images(path: &Path) -> Result<IdxImages, DataError> {
    let raw = std::fs::read(path).map_err(|e| DataError::io(path, e))?;
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(raw.as_slice()).read_to_end(&mut out).map_err(|e| DataError::io(path, e))?;
        out
    } else {
        raw
    };
    parse_images(path, &bytes)
}

fn parse_images(path: &Path, bytes: &[u8]) -> Result<IdxImages, DataError> {
    let word = |i: usize| -> Result<u32, DataError> {
        bytes
            .get(4 * i..4 * i + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| DataError::format(path, "truncated idx header (expected 16 bytes)"))
    };
    let magic = word(0)?;
    if magic != IMAGES_MAGIC {
        return Err(DataError::format(
            path,
            format!("not an idx image file: magic {magic:#010x}, expected {IMAGES_MAGIC:#010x} (unsigned bytes, 3 dimensions)"),
        ));
    }
    let (count, rows, cols) = (word(1)? as usize, word(2)? as usize, word(3)? as usize);
    let expected = count * rows * cols;
    let pixels = &bytes[16..];
    if pixels.len() != expected {
        return Err(DataError::format(
            path,
            format!(
                "header announces {count} images of {rows}x{cols} ({expected} bytes), file holds {} bytes",
                pixels.len()
            ),
        ));
    }
    if count == 0 {
        return Err(DataError::format(path, "the file holds no image"));
    }
    Ok(IdxImages { count, rows, cols, pixels: pixels.to_vec() })
}

/// Encodes images as an idx file (the inverse of [`read_images`]).
pub fn encode_images(images: &IdxImages) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + images.pixels.len());
    for word in [IMAGES_MAGIC, images.count as u32, images.rows as u32, images.cols as u32] {
        out.extend_from_slice(&word.to_be_bytes());
    }
    out.extend_from_slice(&images.pixels);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_and_foreign_files_are_refused_with_the_reason() {
        let p = Path::new("x/train-images-idx3-ubyte");
        let e = parse_images(p, &[0, 0, 8]).unwrap_err().to_string();
        assert!(e.contains("x/train-images-idx3-ubyte") && e.contains("truncated"), "{e}");
        let mut labels = encode_images(&IdxImages { count: 1, rows: 1, cols: 1, pixels: vec![7] });
        labels[3] = 1;
        assert!(parse_images(p, &labels).unwrap_err().to_string().contains("magic"));
        let mut short = encode_images(&IdxImages { count: 2, rows: 2, cols: 2, pixels: vec![0; 8] });
        short.pop();
        assert!(parse_images(p, &short).unwrap_err().to_string().contains("file holds 7 bytes"));
    }
}
