//! COCO detection data: `annotations/instances_train2017.json` and the
//! images under `train2017/`, as in the MLPerf SSD reference layout. Boxes
//! become corner boxes in [0, 1] image units and the 80 sparse category ids
//! become labels 1..=80 (0 is the background); crowd annotations and images
//! without a box are skipped.

use crate::data::DataError;
use crate::workloads::ssd::boxes::Ltrb;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Annotation file, relative to the data folder.
pub const ANNOTATIONS: &str = "annotations/instances_train2017.json";
/// Image folder, relative to the data folder.
pub const IMAGES: &str = "train2017";

/// One image and its objects.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The image file.
    pub path: PathBuf,
    /// Object boxes.
    pub boxes: Vec<Ltrb>,
    /// Object labels (1..=categories).
    pub labels: Vec<i64>,
}

/// Reads the annotations of the folder `dir`.
pub fn load(dir: &Path) -> Result<Vec<Sample>, DataError> {
    let file = dir.join(ANNOTATIONS);
    let text = std::fs::read_to_string(&file).map_err(|e| DataError::io(&file, e))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| DataError::format(&file, format!("not JSON: {e}")))?;
    let bad =
        |what: &str| DataError::format(&file, format!("{what} (expected COCO `images`, `annotations`, `categories`)"));
    let array = |key: &str| json.get(key).and_then(Value::as_array).ok_or_else(|| bad(&format!("no `{key}` array")));
    let categories: BTreeSet<i64> = array("categories")?.iter().filter_map(|c| c["id"].as_i64()).collect();
    let label: HashMap<i64, i64> = categories.iter().enumerate().map(|(i, &id)| (id, i as i64 + 1)).collect();
    let mut images: HashMap<i64, (PathBuf, f32, f32)> = HashMap::new();
    for img in array("images")? {
        let (Some(id), Some(name), Some(w), Some(h)) =
            (img["id"].as_i64(), img["file_name"].as_str(), img["width"].as_f64(), img["height"].as_f64())
        else {
            return Err(bad(&format!("image entry without id, file_name, width and height: {img}")));
        };
        images.insert(id, (dir.join(IMAGES).join(name), w as f32, h as f32));
    }
    let mut objects: HashMap<i64, (Vec<Ltrb>, Vec<i64>)> = HashMap::new();
    for ann in array("annotations")? {
        if ann["iscrowd"].as_i64() == Some(1) {
            continue;
        }
        let (Some(image), Some(cat), Some(bbox)) =
            (ann["image_id"].as_i64(), ann["category_id"].as_i64(), ann["bbox"].as_array())
        else {
            return Err(bad(&format!("annotation without image_id, category_id and bbox: {ann}")));
        };
        let (&(_, w, h), Some(&l)) =
            (images.get(&image).ok_or_else(|| bad(&format!("annotation of unknown image {image}")))?, label.get(&cat))
        else {
            return Err(bad(&format!("annotation of unknown category {cat}")));
        };
        let b: Vec<f32> = bbox.iter().filter_map(Value::as_f64).map(|v| v as f32).collect();
        if b.len() != 4 || b[2] <= 0.0 || b[3] <= 0.0 {
            continue;
        }
        let entry = objects.entry(image).or_default();
        entry.0.push([b[0] / w, b[1] / h, (b[0] + b[2]) / w, (b[1] + b[3]) / h].map(|v| v.clamp(0.0, 1.0)));
        entry.1.push(l);
    }
    let mut samples: Vec<Sample> = objects
        .into_iter()
        .map(|(id, (boxes, labels))| Sample { path: images[&id].0.clone(), boxes, labels })
        .collect();
    samples.sort_by(|a, b| a.path.cmp(&b.path));
    if samples.is_empty() {
        return Err(DataError::Missing {
            path: dir.to_path_buf(),
            expected: format!("annotated image in {ANNOTATIONS}"),
        });
    }
    Ok(samples)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes a COCO folder with two annotated images and one without boxes.
    pub(crate) fn write_coco(dir: &Path) {
        std::fs::create_dir_all(dir.join("annotations")).unwrap();
        std::fs::create_dir_all(dir.join(IMAGES)).unwrap();
        let json = serde_json::json!({
            "images": [
                {"id": 1, "file_name": "a.jpg", "width": 200, "height": 100},
                {"id": 2, "file_name": "b.jpg", "width": 100, "height": 100},
                {"id": 3, "file_name": "c.jpg", "width": 100, "height": 100}
            ],
            "annotations": [
                {"image_id": 1, "category_id": 18, "bbox": [20, 10, 100, 50], "iscrowd": 0},
                {"image_id": 1, "category_id": 90, "bbox": [0, 0, 10, 10], "iscrowd": 1},
                {"image_id": 2, "category_id": 90, "bbox": [50, 50, 25, 25], "iscrowd": 0}
            ],
            "categories": [{"id": 1}, {"id": 18}, {"id": 90}]
        });
        std::fs::write(dir.join(ANNOTATIONS), json.to_string()).unwrap();
    }

    #[test]
    fn boxes_are_normalised_and_categories_renumbered() {
        let dir = tempfile::tempdir().unwrap();
        write_coco(dir.path());
        let s = load(dir.path()).unwrap();
        assert_eq!(s.len(), 2, "the crowd-only and empty images are skipped");
        assert_eq!(s[0].path, dir.path().join(IMAGES).join("a.jpg"));
        assert_eq!(s[0].boxes, vec![[0.1, 0.1, 0.6, 0.6]]);
        assert_eq!(s[0].labels, vec![2]);
        assert_eq!(s[1].labels, vec![3]);
    }

    #[test]
    fn broken_annotation_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let e = load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("instances_train2017.json"), "{e}");
        std::fs::create_dir_all(dir.path().join("annotations")).unwrap();
        std::fs::write(dir.path().join(ANNOTATIONS), r#"{"images": []}"#).unwrap();
        let e = load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("instances_train2017.json") && e.contains("categories"), "{e}");
    }
}
