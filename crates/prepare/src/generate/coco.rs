//! COCO 2017 detection data in the layout of the MLPerf SSD reference (the
//! original suite's ssd opens the validation split too):
//! `{train,val}2017/<12-digit id>.jpg` photographs (640 pixels on the long
//! side) and `annotations/instances_{train,val}2017.json` with COCO's
//! `images`, `annotations` (`bbox` as x, y, width, height in pixels, `area`,
//! `iscrowd`, a polygon `segmentation`) and its 80 `categories` with their
//! sparse ids (1 to 90). Every annotated object is painted in its image at
//! its box. Full: 118,287 training and 5,000 validation images with about
//! 7.3 objects each (COCO: 860,001 in training); small: 32 and 8.

use super::picture::{jpeg, render, Shape};
use super::rng::stream;
use super::{chunk_range, chunks_of, FileSpec, Generator};
use crate::scale::Scale;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;

/// Images per chunk of the annotation file.
const PER_CHUNK: usize = 5_000;
/// COCO's 80 category ids (1 to 90 with 10 unused).
const CATEGORY_IDS: [u32; 80] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 27, 28, 31, 32, 33, 34, 35,
    36, 37, 38, 39, 40, 41, 42, 43, 44, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65,
    67, 70, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 84, 85, 86, 87, 88, 89, 90,
];

/// COCO at one scale and seed.
#[derive(Debug)]
pub struct Coco {
    splits: [Split; 2],
    seed: u64,
}

/// One split: its name (`train2017`) and its images, numbered on from the
/// splits before it so that every image has its own id and stream.
#[derive(Clone, Copy, Debug)]
struct Split {
    name: &'static str,
    first: usize,
    count: usize,
}

impl Split {
    fn images(self) -> std::ops::Range<usize> {
        self.first..self.first + self.count
    }

    fn annotations(self) -> String {
        format!("annotations/instances_{}.json", self.name)
    }
}

/// One image's size and objects, and the stream that paints it.
struct Layout {
    width: u32,
    height: u32,
    objects: Vec<(Shape, u32)>,
    rng: ChaCha8Rng,
}

impl Coco {
    /// Its sizes at `scale`.
    pub fn new(scale: Scale, seed: u64) -> Self {
        let (train, val) = match scale {
            Scale::Small => (32, 8),
            Scale::Full => (118_287, 5_000),
        };
        let splits =
            [Split { name: "train2017", first: 0, count: train }, Split { name: "val2017", first: train, count: val }];
        Coco { splits, seed }
    }

    /// The chunks of a split's annotation file: its image entries, then its annotation entries.
    fn half(split: Split) -> usize {
        chunks_of(split.count, PER_CHUNK)
    }

    /// Image `index`'s size and objects (category ids), the same for its file and its annotations.
    fn layout(&self, index: usize) -> Layout {
        let mut rng = stream(self.seed, "coco", index as u64, 0);
        let short = rng.random_range(360..=480);
        let (width, height) = if rng.random_bool(0.8) { (640, short) } else { (short, 640) };
        // 1 to 14 objects: 7.5 on average, as COCO's 7.3.
        let objects = (0..rng.random_range(1..15))
            .map(|_| (Shape::random(&mut rng, width, height), CATEGORY_IDS[rng.random_range(0..80)]))
            .collect();
        Layout { width, height, objects, rng }
    }
}

/// Image `index`'s id: sparse, as COCO's.
fn image_id(index: usize) -> usize {
    9 + index * 4
}

/// The `images` entries (`annotations` false) or `annotations` entries of a
/// chunk of `split`, comma-separated.
fn entries(coco: &Coco, split: Split, chunk: usize, annotations: bool) -> String {
    let mut out = Vec::new();
    for index in chunk_range(chunk, PER_CHUNK, split.count).map(|i| split.first + i) {
        let Layout { width, height, objects, .. } = coco.layout(index);
        let (id, file_name) = (image_id(index), format!("{:012}.jpg", image_id(index)));
        if !annotations {
            out.push(json!({"license": 1, "file_name": file_name, "height": height, "width": width, "id": id}));
            continue;
        }
        for (k, (s, category)) in objects.iter().enumerate() {
            let r = |v: f32| (v * 100.0).round() / 100.0;
            let (x0, y0, x1, y1) = (r(s.x), r(s.y), r(s.x + s.w), r(s.y + s.h));
            out.push(json!({
                "segmentation": [[x0, y0, x1, y0, x1, y1, x0, y1]],
                "area": r(s.w * s.h),
                "iscrowd": 0,
                "image_id": id,
                "bbox": [x0, y0, r(s.w), r(s.h)],
                "category_id": category,
                "id": id * 100 + k,
            }));
        }
    }
    out.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")
}

impl Generator for Coco {
    /// The annotation files, then the images of each split.
    fn files(&self) -> Vec<FileSpec> {
        let mut files: Vec<FileSpec> =
            self.splits.iter().map(|&s| FileSpec::new(s.annotations(), 2 * Coco::half(s))).collect();
        for split in self.splits {
            files.extend(split.images().map(|i| FileSpec::new(format!("{}/{:012}.jpg", split.name, image_id(i)), 1)));
        }
        files
    }

    fn chunk(&self, file: usize, chunk: usize) -> Vec<u8> {
        let Some(&split) = self.splits.get(file) else {
            let Layout { width, height, objects, mut rng } = self.layout(file - self.splits.len());
            let shapes: Vec<Shape> = objects.iter().map(|(s, _)| *s).collect();
            return jpeg(&render(&mut rng, width, height, &shapes));
        };
        // An annotation file: the image chunks, then the annotation chunks.
        let half = Coco::half(split);
        let (annotations, block) = (chunk >= half, chunk % half);
        let mut out = String::new();
        if chunk == 0 {
            let categories: Vec<_> = CATEGORY_IDS
                .iter()
                .map(|&id| json!({"supercategory": "object", "id": id, "name": format!("category {id}")}))
                .collect();
            let head = json!({"description": "mlb prepare: COCO 2017 layout", "year": 2017});
            out.push_str(&format!(r#"{{"info":{head},"licenses":[],"categories":{},"images":["#, json!(categories)));
        } else if chunk == half {
            out.push_str(r#"],"annotations":["#);
        }
        let body = entries(self, split, block, annotations);
        if block > 0 && !body.is_empty() {
            out.push(',');
        }
        out.push_str(&body);
        if chunk == 2 * half - 1 {
            out.push_str("]}");
        }
        out.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_annotation_files_are_json_naming_every_image_of_their_split_and_its_painted_objects() {
        let c = Coco::new(Scale::Small, 5);
        let files = c.files();
        let json = |f: usize| -> serde_json::Value {
            serde_json::from_slice(&(0..files[f].chunks).flat_map(|k| c.chunk(f, k)).collect::<Vec<u8>>()).unwrap()
        };
        let (train, val) = (json(0), json(1));
        assert_eq!(files[1].path.to_str(), Some("annotations/instances_val2017.json"));
        assert_eq!(train["categories"].as_array().unwrap().len(), 80);
        assert_eq!(val["categories"], train["categories"]);
        let images = train["images"].as_array().unwrap();
        assert_eq!(images.len(), 32);
        assert_eq!(format!("train2017/{}", images[3]["file_name"].as_str().unwrap()), files[5].path.to_str().unwrap());
        let val_images = val["images"].as_array().unwrap();
        assert_eq!(val_images.len(), 8);
        assert_eq!(
            format!("val2017/{}", val_images[0]["file_name"].as_str().unwrap()),
            files[34].path.to_str().unwrap()
        );
        assert!(val_images.iter().all(|v| images.iter().all(|t| t["id"] != v["id"])), "ids are unique across splits");
        assert!(val["annotations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["image_id"].as_u64() >= val_images[0]["id"].as_u64()));
        let first = &train["annotations"][0];
        let (x, y) = (first["bbox"][0].as_f64().unwrap(), first["bbox"][1].as_f64().unwrap());
        let (w, h) = (first["bbox"][2].as_f64().unwrap(), first["bbox"][3].as_f64().unwrap());
        let picture = image::load_from_memory(&c.chunk(2, 0)).unwrap().to_rgb8();
        assert_eq!(picture.width(), images[0]["width"].as_u64().unwrap() as u32);
        assert!(x + w <= 640.0 && y + h <= 640.0 && w > 0.0 && h > 0.0);
    }
}
