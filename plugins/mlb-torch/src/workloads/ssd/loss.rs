//! The SSD loss of the MLPerf reference: smooth L1 on the encoded offsets of
//! matched boxes plus cross entropy on the matched boxes and the hardest
//! negatives (three per positive), divided by the positives of each image.

use tch::{Kind, Reduction, Tensor};

/// Scale of the centre offsets (1 / 0.1).
pub const SCALE_XY: f64 = 10.0;
/// Scale of the log size ratios (1 / 0.2).
pub const SCALE_WH: f64 = 5.0;
/// Hard negatives kept per positive.
pub const NEG_RATIO: i64 = 3;

/// Offsets `[n, 4, boxes]` of target boxes `(cx, cy, w, h)` `[n, 4, boxes]`
/// relative to default boxes `dboxes` `[1, 4, boxes]`.
pub fn loc_vec(gloc: &Tensor, dboxes: &Tensor) -> Tensor {
    let (g_xy, g_wh) = (gloc.narrow(1, 0, 2), gloc.narrow(1, 2, 2));
    let (d_xy, d_wh) = (dboxes.narrow(1, 0, 2), dboxes.narrow(1, 2, 2));
    let gxy = (g_xy - &d_xy) / &d_wh * SCALE_XY;
    let gwh = (g_wh / d_wh).log() * SCALE_WH;
    Tensor::cat(&[gxy, gwh], 1)
}

/// The loss for predicted offsets `ploc` `[n, 4, boxes]`, class logits
/// `plabel` `[n, classes, boxes]`, target boxes `gloc` `[n, 4, boxes]` and
/// labels `glabel` `[n, boxes]` (0: background).
pub fn ssd_loss(ploc: &Tensor, plabel: &Tensor, gloc: &Tensor, glabel: &Tensor, dboxes: &Tensor) -> Tensor {
    let mask = glabel.gt(0);
    let maskf = mask.to_kind(Kind::Float);
    let pos_num = mask.sum_dim_intlist(1, false, Kind::Int64);
    let sl1 = ploc.smooth_l1_loss(&loc_vec(gloc, dboxes), Reduction::None, 1.0).sum_dim_intlist(1, false, Kind::Float);
    let sl1 = (&maskf * sl1).sum_dim_intlist(1, false, Kind::Float);
    // Cross entropy per box: classes on dimension 1.
    let con = -plabel.log_softmax(1, Kind::Float).gather(1, &glabel.unsqueeze(1), false).squeeze_dim(1);
    let con_neg = con.detach().masked_fill(&mask, 0.0);
    let (_, con_idx) = con_neg.sort(1, true);
    let (_, con_rank) = con_idx.sort(1, false);
    let boxes = mask.size()[1];
    let neg_num = (&pos_num * NEG_RATIO).clamp_max(boxes).unsqueeze(-1);
    let neg_mask = con_rank.lt_tensor(&neg_num).to_kind(Kind::Float);
    let closs = (con * (&maskf + neg_mask)).sum_dim_intlist(1, false, Kind::Float);
    let total = sl1 + closs;
    let num_mask = pos_num.gt(0).to_kind(Kind::Float);
    let pos = pos_num.to_kind(Kind::Float).clamp_min(1e-6);
    (total * num_mask / pos).mean(Kind::Float)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perfect_prediction_costs_only_its_confidence_and_negatives_are_mined() {
        // Two images, three boxes; image 0 has one positive box (label 2).
        let dboxes =
            Tensor::from_slice(&[0.5f32, 0.5, 0.5, 0.5, 0.5, 0.5, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2]).view([1, 4, 3]);
        let gloc = dboxes.repeat([2, 1, 1]);
        let ploc = Tensor::zeros([2, 4, 3], (Kind::Float, tch::Device::Cpu));
        let glabel = Tensor::from_slice(&[2i64, 0, 0, 0, 0, 0]).view([2, 3]);
        // Confident and right on the positive; box 1 a harder negative than box 2.
        let logits = Tensor::from_slice(&[
            0.0f32, 2.0, 5.0, // class 0 for boxes 0..3 of image 0
            0.0, 0.0, 0.0, // class 1
            9.0, 1.0, 0.0, // class 2
        ])
        .view([1, 3, 3])
        .repeat([2, 1, 1]);
        let loss = ssd_loss(&ploc, &logits, &gloc, &glabel, &dboxes).double_value(&[]);
        // Image 0: the positive's cross entropy, plus the 3 hardest
        // "negatives" by rank: with only 2 true negatives, the positive
        // (ranked last with its loss zeroed) is mined too, as in the reference.
        let ce = |l: [f64; 3], c: usize| -(l[c] - l.iter().map(|v| v.exp()).sum::<f64>().ln());
        let want0 = 2.0 * ce([0.0, 0.0, 9.0], 2) + ce([2.0, 0.0, 1.0], 0) + ce([5.0, 0.0, 0.0], 0);
        // Image 1 has no positive: it counts zero in the mean over 2 images.
        assert!((loss - want0 / 2.0).abs() < 1e-4, "{loss} vs {}", want0 / 2.0);
    }

    #[test]
    fn offsets_are_zero_for_the_default_box_itself() {
        let d = Tensor::from_slice(&[0.3f32, 0.6, 0.2, 0.1]).view([1, 4, 1]);
        assert_eq!(loc_vec(&d, &d).abs().sum(Kind::Float).double_value(&[]), 0.0);
        let g = Tensor::from_slice(&[0.32f32, 0.6, 0.4, 0.1]).view([1, 4, 1]);
        let v = Vec::<f32>::try_from(&loc_vec(&g, &d).view([-1])).unwrap();
        assert!((v[0] - 1.0).abs() < 1e-5 && (v[2] - 5.0 * 2f32.ln()).abs() < 1e-5, "{v:?}");
    }
}
