//! SSD300 with a ResNet34 backbone, as the MLPerf SSD reference: ResNet34
//! up to `layer3` with the stride of `layer3`'s first block set to 1 (a
//! 38x38x256 map for a 300x300 image), five extra blocks down to 1x1
//! (channels 512, 512, 256, 256, 256) and 3x3 location and class heads on
//! the six maps. Backbone variables are named exactly as torchvision's
//! ResNet34 (`conv1.weight`, `layer1.0.bn1.running_mean`, ...), so its
//! weights saved as safetensors load into the backbone.

use crate::workloads::ssd::boxes::BOXES_PER_LOCATION;
use tch::nn::{self, ModuleT};
use tch::Tensor;

/// Channels of the six feature maps.
pub const OUT_CHANNELS: [i64; 6] = [256, 512, 512, 256, 256, 256];
/// Middle channels of the extra blocks.
const EXTRA_MIDDLE: [i64; 5] = [256, 256, 128, 128, 128];

fn conv(vs: nn::Path, i: i64, o: i64, k: i64, stride: i64, padding: i64) -> nn::Conv2D {
    nn::conv2d(vs, i, o, k, nn::ConvConfig { stride, padding, bias: false, ..Default::default() })
}

/// A convolution with Xavier-uniform weights, as the reference initialises
/// the extra blocks and the heads.
fn xavier_conv(vs: nn::Path, i: i64, o: i64, k: i64, stride: i64, padding: i64, bias: bool) -> nn::Conv2D {
    let bound = (6.0 / ((i + o) * k * k) as f64).sqrt();
    let ws_init = nn::Init::Uniform { lo: -bound, up: bound };
    nn::conv2d(vs, i, o, k, nn::ConvConfig { stride, padding, bias, ws_init, ..Default::default() })
}

/// ResNet's basic block (two 3x3 convolutions), with a projection shortcut
/// when the shape changes.
fn basic_block(vs: nn::Path, i: i64, o: i64, stride: i64) -> nn::FuncT<'static> {
    let conv1 = conv(&vs / "conv1", i, o, 3, stride, 1);
    let bn1 = nn::batch_norm2d(&vs / "bn1", o, Default::default());
    let conv2 = conv(&vs / "conv2", o, o, 3, 1, 1);
    let bn2 = nn::batch_norm2d(&vs / "bn2", o, Default::default());
    let down = (stride != 1 || i != o).then(|| {
        (
            conv(&vs / "downsample" / 0, i, o, 1, stride, 0),
            nn::batch_norm2d(&vs / "downsample" / 1, o, Default::default()),
        )
    });
    nn::func_t(move |x, train| {
        let y = x.apply(&conv1).apply_t(&bn1, train).relu().apply(&conv2).apply_t(&bn2, train);
        let shortcut = match &down {
            Some((c, bn)) => x.apply(c).apply_t(bn, train),
            None => x.shallow_clone(),
        };
        (y + shortcut).relu()
    })
}

fn layer(vs: nn::Path, i: i64, o: i64, blocks: usize, stride: i64) -> nn::SequentialT {
    let mut seq = nn::seq_t().add(basic_block(&vs / 0, i, o, stride));
    for b in 1..blocks {
        seq = seq.add(basic_block(&vs / b, o, o, 1));
    }
    seq
}

/// The ResNet34 feature extractor up to `layer3` (stride 1 in `layer3`).
fn backbone(vs: &nn::Path) -> nn::SequentialT {
    nn::seq_t()
        .add(conv(vs / "conv1", 3, 64, 7, 2, 3))
        .add(nn::batch_norm2d(vs / "bn1", 64, Default::default()))
        .add_fn(|x| x.relu().max_pool2d([3, 3], [2, 2], [1, 1], [1, 1], false))
        .add(layer(vs / "layer1", 64, 64, 3, 1))
        .add(layer(vs / "layer2", 64, 128, 4, 2))
        .add(layer(vs / "layer3", 128, 256, 6, 1))
}

/// The extra block from map `k` to map `k + 1`.
fn extra(vs: nn::Path, k: usize) -> nn::SequentialT {
    let (i, m, o) = (OUT_CHANNELS[k], EXTRA_MIDDLE[k], OUT_CHANNELS[k + 1]);
    let (stride, padding) = if k < 3 { (2, 1) } else { (1, 0) };
    nn::seq_t()
        .add(xavier_conv(&vs / 0, i, m, 1, 1, 0, false))
        .add(nn::batch_norm2d(&vs / 1, m, Default::default()))
        .add_fn(|x| x.relu())
        .add(xavier_conv(&vs / 3, m, o, 3, stride, padding, false))
        .add(nn::batch_norm2d(&vs / 4, o, Default::default()))
        .add_fn(|x| x.relu())
}

/// The detector.
#[derive(Debug)]
pub struct Ssd300 {
    backbone: nn::SequentialT,
    extras: Vec<nn::SequentialT>,
    loc: Vec<nn::Conv2D>,
    conf: Vec<nn::Conv2D>,
    classes: i64,
}

impl Ssd300 {
    /// Builds the detector for `classes` classes (background included: 81
    /// for COCO). Backbone variables are at the root of `vs`.
    pub fn new(vs: &nn::Path, classes: i64) -> Self {
        let extras = (0..5).map(|k| extra(vs / "additional_blocks" / k, k)).collect();
        let head = |name: &str, per_box: i64| -> Vec<nn::Conv2D> {
            OUT_CHANNELS
                .iter()
                .zip(BOXES_PER_LOCATION)
                .enumerate()
                .map(|(k, (&c, n))| xavier_conv(vs / name / k, c, n as i64 * per_box, 3, 1, 1, true))
                .collect()
        };
        Ssd300 { backbone: backbone(vs), extras, loc: head("loc", 4), conf: head("conf", classes), classes }
    }

    /// Box offsets `[n, 4, 8732]` and class logits `[n, classes, 8732]` for
    /// normalised 300x300 images.
    pub fn forward_t(&self, images: &Tensor, train: bool) -> (Tensor, Tensor) {
        let mut x = self.backbone.forward_t(images, train);
        let n = x.size()[0];
        let (mut locs, mut confs) = (Vec::new(), Vec::new());
        for k in 0..6 {
            if k > 0 {
                x = self.extras[k - 1].forward_t(&x, train);
            }
            locs.push(x.apply(&self.loc[k]).view([n, 4, -1]));
            confs.push(x.apply(&self.conf[k]).view([n, self.classes, -1]));
        }
        (Tensor::cat(&locs, 2), Tensor::cat(&confs, 2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::ssd::boxes::NUM_BOXES;
    use tch::{Device, Kind};

    #[test]
    fn a_300_pixel_image_gets_a_prediction_per_default_box() {
        tch::manual_seed(0);
        let vs = nn::VarStore::new(Device::Cpu);
        let m = Ssd300::new(&vs.root(), 81);
        let (loc, conf) =
            tch::no_grad(|| m.forward_t(&Tensor::randn([1, 3, 300, 300], (Kind::Float, Device::Cpu)), false));
        assert_eq!(loc.size(), [1, 4, NUM_BOXES as i64]);
        assert_eq!(conf.size(), [1, 81, NUM_BOXES as i64]);
        let vars = vs.variables();
        assert!(vars.contains_key("layer3.5.conv2.weight"));
        assert!(vars.contains_key("layer2.0.downsample.0.weight"));
        assert!(!vars.contains_key("layer4.0.conv1.weight"));
    }
}
