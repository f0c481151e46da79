//! TransformerNet, the image transformation network of Johnson et al.'s
//! fast neural style (as in PyTorch's `fast_neural_style` example): three
//! convolutions (9x9, then two stride-2 3x3), five residual blocks, two
//! nearest-upsampling convolutions and a final 9x9 convolution, with
//! reflection padding and affine instance normalisation.

use tch::nn::{self, Module};
use tch::Tensor;

/// Reflection padding then a convolution.
#[derive(Debug)]
struct ConvLayer {
    conv: nn::Conv2D,
    pad: i64,
    upsample: Option<i64>,
}

impl ConvLayer {
    fn new(vs: nn::Path, c_in: i64, c_out: i64, kernel: i64, stride: i64, upsample: Option<i64>) -> Self {
        let conv = nn::conv2d(&vs / "conv2d", c_in, c_out, kernel, nn::ConvConfig { stride, ..Default::default() });
        ConvLayer { conv, pad: kernel / 2, upsample }
    }
}

impl Module for ConvLayer {
    fn forward(&self, x: &Tensor) -> Tensor {
        let x = match self.upsample {
            Some(f) => {
                let (h, w) = (x.size()[2], x.size()[3]);
                x.upsample_nearest2d([h * f, w * f], None, None)
            }
            None => x.shallow_clone(),
        };
        let p = self.pad;
        x.reflection_pad2d([p, p, p, p]).apply(&self.conv)
    }
}

/// `InstanceNorm2d(c, affine=True)`.
#[derive(Debug)]
struct InstanceNorm {
    weight: Tensor,
    bias: Tensor,
}

impl InstanceNorm {
    fn new(vs: nn::Path, c: i64) -> Self {
        InstanceNorm {
            weight: vs.var("weight", &[c], nn::Init::Const(1.0)),
            bias: vs.var("bias", &[c], nn::Init::Const(0.0)),
        }
    }
}

impl Module for InstanceNorm {
    fn forward(&self, x: &Tensor) -> Tensor {
        Tensor::instance_norm(
            x,
            Some(&self.weight),
            Some(&self.bias),
            None::<&Tensor>,
            None::<&Tensor>,
            true,
            0.1,
            1e-5,
            false,
        )
    }
}

/// A convolution layer (`c_in -> c_out`, `kernel`, `stride`, optional
/// upsampling) followed by its instance normalisation.
#[derive(Debug, Clone, Copy)]
struct Spec {
    c_in: i64,
    c_out: i64,
    kernel: i64,
    stride: i64,
    upsample: Option<i64>,
}

fn conv(vs: &nn::Path, name: &str, s: Spec) -> ConvLayer {
    ConvLayer::new(vs / name, s.c_in, s.c_out, s.kernel, s.stride, s.upsample)
}

fn normed(vs: &nn::Path, name: &str, norm: &str, s: Spec) -> nn::Sequential {
    nn::seq().add(conv(vs, name, s)).add(InstanceNorm::new(vs / norm, s.c_out))
}

const fn spec(c_in: i64, c_out: i64, kernel: i64, stride: i64, upsample: Option<i64>) -> Spec {
    Spec { c_in, c_out, kernel, stride, upsample }
}

/// The network: images (0..255, `[b, 3, h, w]`, h and w multiples of 4) to
/// images of the same size.
#[derive(Debug)]
pub struct TransformerNet {
    net: nn::Sequential,
}

impl TransformerNet {
    /// Builds the network under `vs`.
    pub fn new(vs: &nn::Path) -> Self {
        let relu = |x: &Tensor| x.relu();
        let mut net = nn::seq()
            .add(normed(vs, "conv1", "in1", spec(3, 32, 9, 1, None)))
            .add_fn(relu)
            .add(normed(vs, "conv2", "in2", spec(32, 64, 3, 2, None)))
            .add_fn(relu)
            .add(normed(vs, "conv3", "in3", spec(64, 128, 3, 2, None)))
            .add_fn(relu);
        for i in 1..=5 {
            net = net.add(ResidualBlock::new(vs / format!("res{i}"), 128));
        }
        net = net
            .add(normed(vs, "deconv1", "in4", spec(128, 64, 3, 1, Some(2))))
            .add_fn(relu)
            .add(normed(vs, "deconv2", "in5", spec(64, 32, 3, 1, Some(2))))
            .add_fn(relu)
            .add(conv(vs, "deconv3", spec(32, 3, 9, 1, None)));
        TransformerNet { net }
    }
}

impl Module for TransformerNet {
    fn forward(&self, x: &Tensor) -> Tensor {
        self.net.forward(x)
    }
}

/// Two 3x3 convolutions with instance normalisation, plus the input.
#[derive(Debug)]
struct ResidualBlock {
    body: nn::Sequential,
}

impl ResidualBlock {
    fn new(vs: nn::Path, c: i64) -> Self {
        let body = nn::seq().add(normed(&vs, "conv1", "in1", spec(c, c, 3, 1, None))).add_fn(|x| x.relu()).add(normed(
            &vs,
            "conv2",
            "in2",
            spec(c, c, 3, 1, None),
        ));
        ResidualBlock { body }
    }
}

impl Module for ResidualBlock {
    fn forward(&self, x: &Tensor) -> Tensor {
        self.body.forward(x) + x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Device, Kind};

    #[test]
    fn images_keep_their_size_and_the_parameter_count_is_the_example_s() {
        let vs = nn::VarStore::new(Device::Cpu);
        let net = TransformerNet::new(&vs.root());
        let x = Tensor::rand([2, 3, 32, 48], (Kind::Float, Device::Cpu)) * 255.0;
        assert_eq!(net.forward(&x).size(), [2, 3, 32, 48]);
        let params: i64 = vs.trainable_variables().iter().map(|v| v.numel() as i64).sum();
        // PyTorch: sum(p.numel() for p in TransformerNet().parameters()) == 1679235
        assert_eq!(params, 1_679_235);
    }
}
