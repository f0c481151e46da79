//! Folders of images: one sub-folder per class (the ImageNet `train`
//! layout), or a flat folder of images (one class, as in BSDS500).

use super::DataError;
use image::RgbImage;
use std::path::{Path, PathBuf};

/// File extensions (lower case) taken as images.
pub const EXTENSIONS: [&str; 3] = ["jpg", "jpeg", "png"];

/// The images of a folder, each with its class index.
#[derive(Debug, Clone)]
pub struct ImageFolder {
    classes: Vec<String>,
    files: Vec<(PathBuf, i64)>,
}

fn is_image(path: &Path) -> bool {
    path.is_file()
        && path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, DataError> {
    let read = std::fs::read_dir(dir).map_err(|e| DataError::io(dir, e))?;
    let mut entries =
        read.map(|e| e.map(|e| e.path())).collect::<Result<Vec<_>, _>>().map_err(|e| DataError::io(dir, e))?;
    entries.sort();
    Ok(entries)
}

impl ImageFolder {
    /// Lists `root`: its sub-folders (sorted) are the classes; when it has no
    /// sub-folder, its own images form one class.
    pub fn scan(root: &Path) -> Result<Self, DataError> {
        let entries = sorted_entries(root)?;
        let dirs: Vec<&PathBuf> = entries.iter().filter(|p| p.is_dir()).collect();
        let mut classes = Vec::new();
        let mut files = Vec::new();
        if dirs.is_empty() {
            classes.push(String::new());
            files.extend(entries.iter().filter(|p| is_image(p)).map(|p| (p.clone(), 0)));
        } else {
            for dir in dirs {
                let label = classes.len() as i64;
                classes.push(dir.file_name().unwrap_or_default().to_string_lossy().into_owned());
                files.extend(sorted_entries(dir)?.into_iter().filter(|p| is_image(p)).map(|p| (p, label)));
            }
        }
        if files.is_empty() {
            return Err(DataError::Missing {
                path: root.to_path_buf(),
                expected:
                    "images (.jpg, .jpeg, .png) in class sub-folders (root/<class>/<image>.jpg) or in the folder itself"
                        .into(),
            });
        }
        Ok(ImageFolder { classes, files })
    }

    /// Class names (one empty name for a flat folder).
    pub fn classes(&self) -> &[String] {
        &self.classes
    }

    /// Number of images.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when the folder holds no image (never after a successful scan).
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Path and class of image `index`.
    pub fn get(&self, index: usize) -> (&Path, i64) {
        let (path, label) = &self.files[index];
        (path, *label)
    }

    /// Decodes image `index` to RGB.
    pub fn decode(&self, index: usize) -> Result<(RgbImage, i64), DataError> {
        let (path, label) = self.get(index);
        Ok((decode_file(path)?, label))
    }
}

/// Decodes an image file to RGB; the error names the file.
pub fn decode_file(path: &Path) -> Result<RgbImage, DataError> {
    let bytes = std::fs::read(path).map_err(|e| DataError::io(path, e))?;
    decode_bytes(&bytes).map_err(|e| DataError::format(path, format!("cannot decode image: {e}")))
}

/// Decodes an encoded image (JPEG or PNG) to RGB.
pub fn decode_bytes(bytes: &[u8]) -> image::ImageResult<RgbImage> {
    Ok(image::load_from_memory(bytes)?.to_rgb8())
}
