//! SSD300's 8732 default boxes and the encoding of ground-truth boxes onto
//! them, as the MLPerf SSD reference (`DefaultBoxes`, `Encoder.encode`).

/// Input side.
pub const FIG_SIZE: f32 = 300.0;
/// Sides of the six feature maps.
pub const FEAT_SIZE: [usize; 6] = [38, 19, 10, 5, 3, 1];
/// Strides of the feature maps in pixels.
pub const STEPS: [f32; 6] = [8.0, 16.0, 32.0, 64.0, 100.0, 300.0];
/// Box scales in pixels (one more than the maps).
pub const SCALES: [f32; 7] = [21.0, 45.0, 99.0, 153.0, 207.0, 261.0, 315.0];
/// Extra aspect ratios per map (each adds a box and its transpose).
pub const ASPECT_RATIOS: [&[f32]; 6] = [&[2.0], &[2.0, 3.0], &[2.0, 3.0], &[2.0, 3.0], &[2.0], &[2.0]];
/// Default boxes per location of each map.
pub const BOXES_PER_LOCATION: [usize; 6] = [4, 6, 6, 6, 4, 4];
/// Total default boxes.
pub const NUM_BOXES: usize = 8732;
/// IoU above which a default box is matched to a ground-truth box.
pub const MATCH_IOU: f32 = 0.5;

/// A box as centre and size `(cx, cy, w, h)`, in [0, 1] image units.
pub type Xywh = [f32; 4];
/// A box as corners `(left, top, right, bottom)`, in [0, 1] image units.
pub type Ltrb = [f32; 4];

/// The default boxes, `(cx, cy, w, h)` clamped to [0, 1], map after map,
/// and within a map size after size then location (row-major), matching
/// the heads' `[4 | classes, boxes, h, w]` output flattened.
pub fn default_boxes() -> Vec<Xywh> {
    let mut out = Vec::with_capacity(NUM_BOXES);
    for (idx, &side) in FEAT_SIZE.iter().enumerate() {
        let fk = FIG_SIZE / STEPS[idx];
        let sk1 = SCALES[idx] / FIG_SIZE;
        let sk2 = SCALES[idx + 1] / FIG_SIZE;
        let sk3 = (sk1 * sk2).sqrt();
        let mut sizes = vec![(sk1, sk1), (sk3, sk3)];
        for &alpha in ASPECT_RATIOS[idx] {
            let (w, h) = (sk1 * alpha.sqrt(), sk1 / alpha.sqrt());
            sizes.push((w, h));
            sizes.push((h, w));
        }
        for (w, h) in sizes {
            for i in 0..side {
                for j in 0..side {
                    let (cx, cy) = ((j as f32 + 0.5) / fk, (i as f32 + 0.5) / fk);
                    out.push([cx, cy, w, h].map(|v| v.clamp(0.0, 1.0)));
                }
            }
        }
    }
    out
}

/// Corners of a centre-size box.
pub fn to_ltrb(b: &Xywh) -> Ltrb {
    [b[0] - 0.5 * b[2], b[1] - 0.5 * b[3], b[0] + 0.5 * b[2], b[1] + 0.5 * b[3]]
}

/// Centre and size of a corner box.
pub fn to_xywh(b: &Ltrb) -> Xywh {
    [0.5 * (b[0] + b[2]), 0.5 * (b[1] + b[3]), b[2] - b[0], b[3] - b[1]]
}

/// Intersection over union of two corner boxes.
pub fn iou(a: &Ltrb, b: &Ltrb) -> f32 {
    let w = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let h = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = w * h;
    let area = |r: &Ltrb| (r[2] - r[0]) * (r[3] - r[1]);
    let union = area(a) + area(b) - inter;
    if union > 0.0 {
        inter / union
    } else {
        0.0
    }
}

/// Assigns ground truth to default boxes: each default box takes the
/// ground-truth box it overlaps most when that IoU exceeds [`MATCH_IOU`],
/// and each ground-truth box claims its best default box whatever the IoU.
/// Returns, per default box, the target box `(cx, cy, w, h)` (the default box
/// itself when unmatched) and the label (0: background).
pub fn encode(dboxes: &[Xywh], gt: &[Ltrb], labels: &[i64]) -> (Vec<Xywh>, Vec<i64>) {
    let d_ltrb: Vec<Ltrb> = dboxes.iter().map(to_ltrb).collect();
    let mut best_iou = vec![0.0f32; dboxes.len()];
    let mut best_gt = vec![0usize; dboxes.len()];
    for (g, gbox) in gt.iter().enumerate() {
        for (d, dbox) in d_ltrb.iter().enumerate() {
            let v = iou(gbox, dbox);
            if v > best_iou[d] {
                best_iou[d] = v;
                best_gt[d] = g;
            }
        }
    }
    for (g, gbox) in gt.iter().enumerate() {
        let (best, _) = d_ltrb.iter().enumerate().map(|(d, dbox)| (d, iou(gbox, dbox))).fold((0, -1.0), |acc, x| {
            if x.1 > acc.1 {
                x
            } else {
                acc
            }
        });
        best_iou[best] = 2.0;
        best_gt[best] = g;
    }
    let mut boxes = dboxes.to_vec();
    let mut out_labels = vec![0i64; dboxes.len()];
    for d in 0..dboxes.len() {
        if best_iou[d] > MATCH_IOU {
            boxes[d] = to_xywh(&gt[best_gt[d]]);
            out_labels[d] = labels[best_gt[d]];
        }
    }
    (boxes, out_labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_8732_default_boxes_in_the_unit_square() {
        let d = default_boxes();
        assert_eq!(d.len(), NUM_BOXES);
        let per_map: usize = FEAT_SIZE.iter().zip(BOXES_PER_LOCATION).map(|(s, n)| s * s * n).sum();
        assert_eq!(per_map, NUM_BOXES);
        assert!(d.iter().flatten().all(|v| (0.0..=1.0).contains(v)));
        // First box: the smallest square at the first cell of the 38x38 map.
        let first = d[0];
        assert!((first[0] - 0.5 / 37.5).abs() < 1e-6 && (first[2] - 0.07).abs() < 1e-6, "{first:?}");
        // Last box: the transposed 2:1 box centred on the 1x1 map.
        let last = d[NUM_BOXES - 1];
        assert_eq!((last[0], last[1]), (0.5, 0.5));
        assert!(last[3] > last[2]);
    }

    #[test]
    fn iou_of_known_boxes() {
        assert_eq!(iou(&[0.0, 0.0, 1.0, 1.0], &[0.0, 0.0, 1.0, 1.0]), 1.0);
        assert!((iou(&[0.0, 0.0, 2.0, 1.0], &[1.0, 0.0, 3.0, 1.0]) - 1.0 / 3.0).abs() < 1e-6);
        assert_eq!(iou(&[0.0, 0.0, 1.0, 1.0], &[2.0, 2.0, 3.0, 3.0]), 0.0);
    }

    #[test]
    fn boxes_are_matched_by_overlap_and_every_object_gets_a_box() {
        let d = default_boxes();
        let big = [0.1, 0.1, 0.9, 0.9];
        // Tiny: overlaps no default box above 0.5 yet must get its best one.
        let tiny = [0.50, 0.50, 0.51, 0.51];
        let (boxes, labels) = encode(&d, &[big, tiny], &[7, 3]);
        let matched_big = labels.iter().filter(|&&l| l == 7).count();
        assert!(matched_big >= 2, "{matched_big}");
        assert_eq!(labels.iter().filter(|&&l| l == 3).count(), 1);
        for (b, l) in boxes.iter().zip(&labels) {
            if *l == 7 {
                assert!((b[0] - 0.5).abs() < 1e-6 && (b[2] - 0.8).abs() < 1e-6);
            }
        }
        let unmatched = labels.iter().position(|&l| l == 0).unwrap();
        assert_eq!(boxes[unmatched], d[unmatched]);
    }
}
