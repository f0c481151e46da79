//! The VGG16 loss network of fast neural style: torchvision's `vgg16`
//! convolutional layers up to `relu4_3`, returning the activations after
//! `relu1_2`, `relu2_2`, `relu3_3` and `relu4_3`. Variables are named as
//! torchvision's (`features.<index>.weight`), so a torchvision state dict
//! saved as safetensors loads into it.

use tch::nn::{self, Module};
use tch::Tensor;

/// Output channels of each convolution up to `relu4_3`, with `0` for a
/// max-pool, as torchvision's configuration "D".
const LAYERS: [i64; 14] = [64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0];

/// Activations the style and content losses compare.
#[derive(Debug)]
pub struct Features {
    /// After `relu1_2`.
    pub relu1_2: Tensor,
    /// After `relu2_2` (the content layer).
    pub relu2_2: Tensor,
    /// After `relu3_3`.
    pub relu3_3: Tensor,
    /// After `relu4_3`.
    pub relu4_3: Tensor,
}

impl Features {
    /// The four activations, shallowest first.
    pub fn all(&self) -> [&Tensor; 4] {
        [&self.relu1_2, &self.relu2_2, &self.relu3_3, &self.relu4_3]
    }
}

/// VGG16's first 23 feature layers, split in four slices.
#[derive(Debug)]
pub struct Vgg16 {
    slices: Vec<nn::Sequential>,
}

impl Vgg16 {
    /// Builds the network under `vs` (`features.<i>` as in torchvision).
    pub fn new(vs: &nn::Path) -> Self {
        let features = vs / "features";
        let mut slices = Vec::new();
        let mut slice = nn::seq();
        let (mut index, mut channels) = (0, 3);
        for &width in &LAYERS {
            if width == 0 {
                // A pool ends a slice (relu1_2, relu2_2, relu3_3), except
                // after relu4_3 where the slices stop.
                slices.push(std::mem::replace(&mut slice, nn::seq()));
                if slices.len() < 4 {
                    slice = slice.add_fn(|x| x.max_pool2d_default(2));
                }
                index += 1;
                continue;
            }
            let conv =
                nn::conv2d(&features / index, channels, width, 3, nn::ConvConfig { padding: 1, ..Default::default() });
            slice = slice.add(conv).add_fn(|x| x.relu());
            channels = width;
            index += 2;
        }
        Vgg16 { slices }
    }

    /// The four activations for normalised images `[b, 3, h, w]`.
    pub fn forward(&self, x: &Tensor) -> Features {
        let relu1_2 = self.slices[0].forward(x);
        let relu2_2 = self.slices[1].forward(&relu1_2);
        let relu3_3 = self.slices[2].forward(&relu2_2);
        let relu4_3 = self.slices[3].forward(&relu3_3);
        Features { relu1_2, relu2_2, relu3_3, relu4_3 }
    }
}

/// Gram matrices `[b, c, c]` of activations `[b, c, h, w]`, divided by
/// `c h w`.
pub fn gram(y: &Tensor) -> Tensor {
    let (b, c, h, w) = y.size4().expect("a 4-d activation");
    let f = y.view([b, c, h * w]);
    f.bmm(&f.transpose(1, 2)) / (c * h * w) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Device, Kind};

    #[test]
    fn variables_are_named_as_torchvision_s_and_shapes_halve_per_slice() {
        let vs = nn::VarStore::new(Device::Cpu);
        let vgg = Vgg16::new(&vs.root());
        let vars = vs.variables();
        let mut names: Vec<&String> = vars.keys().filter(|k| k.ends_with(".weight")).collect();
        names.sort_by_key(|k| k.split('.').nth(1).unwrap().parse::<u32>().unwrap());
        let expected: Vec<String> =
            [0, 2, 5, 7, 10, 12, 14, 17, 19, 21].iter().map(|i| format!("features.{i}.weight")).collect();
        assert_eq!(names, expected.iter().collect::<Vec<_>>());
        let f = vgg.forward(&Tensor::rand([1, 3, 32, 32], (Kind::Float, Device::Cpu)));
        let sizes: Vec<Vec<i64>> = f.all().iter().map(|t| t.size()).collect();
        assert_eq!(sizes, [vec![1, 64, 32, 32], vec![1, 128, 16, 16], vec![1, 256, 8, 8], vec![1, 512, 4, 4]]);
    }

    #[test]
    fn gram_matrices_are_normalised_inner_products() {
        let y = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]).view([1, 2, 1, 2]);
        let g = Vec::<f32>::try_from(&gram(&y).view([-1])).unwrap();
        assert_eq!(g, [5.0 / 4.0, 11.0 / 4.0, 11.0 / 4.0, 25.0 / 4.0]);
    }
}
