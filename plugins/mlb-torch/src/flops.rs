//! Training FLOPs per item, by documented formulas (docs/workloads.md,
//! "FLOPs and MFU"), for the report keys `flops_per_item` and
//! `flops_formula` from which `mlb report` computes the achieved TFLOPS and
//! the MFU. A multiply-add counts as two FLOPs; training is the forward pass
//! and the backward pass, which costs twice the forward (the gradients of
//! the activations and of the weights): three forward passes in all.

use serde_json::{Map, Value};

/// A workload's training FLOPs per item and the formula they come from.
#[derive(Clone, Debug, PartialEq)]
pub struct Flops {
    /// Training FLOPs (forward and backward) of one item.
    pub per_item: f64,
    /// The formula, with its figures, as the report shows it.
    pub formula: String,
}

impl Flops {
    /// Writes `flops_per_item` and `flops_formula`.
    pub fn report(&self, out: &mut Map<String, Value>) {
        out.insert("flops_per_item".into(), self.per_item.into());
        out.insert("flops_formula".into(), self.formula.clone().into());
    }
}

/// The training FLOPs of one sequence of `tokens` tokens through a
/// transformer of `layers` layers of width `width` whose matrix products
/// hold `params` weights, as the PaLM paper's appendix B counts them: 6 x
/// params per token (2 forward, 4 backward) plus the attention's scores and
/// weighted sum, 12 x layers x width x tokens per token (`2 x 2 T w` per
/// token and layer forward, three times that with the backward pass),
/// counted over the whole `T x T` square as PaLM does, not halved for a
/// causal mask. gpt and vit both count by it.
pub fn transformer(params: f64, layers: f64, width: f64, tokens: f64) -> f64 {
    6.0 * params * tokens + 12.0 * layers * width * tokens * tokens
}

/// Forward multiply-accumulates (GMACs) of each ResNet at 224x224, as
/// torchvision's model tables list them (their "GFLOPS" column counts a
/// multiply-add as one operation).
const RESNET_GMACS: [(&str, f64); 5] =
    [("resnet18", 1.814), ("resnet34", 3.664), ("resnet50", 4.089), ("resnet101", 7.801), ("resnet152", 11.514)];

/// The training FLOPs of one `size` x `size` image through ResNet `arch`:
/// torchvision's forward multiply-accumulates at 224 x 2 (FLOPs) x 3
/// (training), scaled by the pixel count (`(size / 224)^2`: every
/// convolution's work grows with it; the classifier's, under 0.1% of the
/// total, is scaled too). `None` for an architecture not listed.
pub fn resnet(arch: &str, size: i64) -> Option<Flops> {
    let gmacs = RESNET_GMACS.iter().find(|(a, _)| *a == arch)?.1;
    let scale = (size as f64 / 224.0).powi(2);
    Some(Flops {
        per_item: gmacs * 1e9 * 2.0 * 3.0 * scale,
        formula: format!(
            "3 x 2 x {gmacs} GMACs (torchvision's {arch} forward at 224) x ({size}/224)^2: forward and backward, per image"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resnet50_at_224_is_24_gflops_per_training_image_and_scales_with_pixels() {
        let at224 = resnet("resnet50", 224).unwrap();
        assert!((at224.per_item - 24.534e9).abs() < 1e6, "{}", at224.per_item);
        assert!(at224.formula.contains("4.089"));
        let at112 = resnet("resnet50", 112).unwrap().per_item;
        assert!((at224.per_item / at112 - 4.0).abs() < 1e-12);
        assert!(resnet("vgg16", 224).is_none());
    }

    #[test]
    fn the_transformer_count_is_six_n_per_token_plus_attention() {
        // 1 layer of width 2, 10 weights, 3 tokens: 6*10*3 + 12*1*2*9.
        assert_eq!(transformer(10.0, 1.0, 2.0, 3.0), 180.0 + 216.0);
    }
}
