//! The Vision Transformer (Dosovitskiy et al., 2021): the image cut into
//! `patch` x `patch` patches, each projected to `width` (a strided
//! convolution), a learned class token and learned position embeddings,
//! `layers` pre-norm encoder blocks (multi-head self-attention through
//! libtorch's fused `scaled_dot_product_attention`, then a GELU MLP of 4 x
//! `width`), a final layer norm and a linear head on the class token.
//!
//! Initialised as timm's and DeiT's: the Linear layers' weights, the class
//! token and the position embeddings from a normal of std 0.02 truncated at
//! two standard deviations, biases zero, layer norms weight 1 and bias 0;
//! the patch projection as PyTorch's `nn.Conv2d` (uniform within
//! `1 / sqrt(fan_in)`). Weight decay ([`decays`]) goes to the matrices and
//! the patch projection's kernel only.

use crate::flops::{self, Flops};
use tch::nn;
use tch::Tensor;

/// The sizes by name, as the ViT and DeiT papers give them: (layers, heads,
/// width).
pub const SIZES: [(&str, (i64, i64, i64)); 3] =
    [("tiny", (12, 3, 192)), ("small", (12, 6, 384)), ("base", (12, 12, 768))];

/// The shape of a ViT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Encoder blocks.
    pub layers: i64,
    /// Attention heads (dividing `width`).
    pub heads: i64,
    /// Token width.
    pub width: i64,
    /// Side of the square input image.
    pub image: i64,
    /// Side of a patch (dividing `image`).
    pub patch: i64,
    /// Classes of the head.
    pub classes: i64,
}

impl Shape {
    /// Patches of an image.
    pub fn patches(&self) -> i64 {
        (self.image / self.patch).pow(2)
    }

    /// Tokens of an image: its patches and the class token.
    pub fn tokens(&self) -> i64 {
        self.patches() + 1
    }

    /// Training FLOPs of one image as the model is computed: the standard
    /// count ([`Shape::standard_flops`]) less the rows of the last block
    /// that reach nothing ([`Shape::unused_flops`]).
    pub fn flops(&self) -> Flops {
        Flops {
            per_item: self.standard_flops() - self.unused_flops(),
            formula: format!(
                "6 x 12 L d^2 x T + 12 L d T^2 + 6 x 3 p^2 d x P + 6 d C - (6 x 10 d^2 x (T - 1) + 12 d (T^2 - T)) with L={}, d={}, T={} tokens ({} patches + class), p={}, C={}: forward and backward, per image, the last block's rows other than the class token's left out",
                self.layers,
                self.width,
                self.tokens(),
                self.patches(),
                self.patch,
                self.classes
            ),
        }
    }

    /// Training FLOPs of one image as torchvision's and timm's tables count
    /// a ViT, every block over every token: [`flops::transformer`] over the
    /// encoder's matrix products (12 x width^2 weights a block: 3 for the
    /// query, key and value projections, 1 for the output one, 8 for the
    /// MLP) and `tokens` tokens, plus the patch projection (3 x patch^2 x
    /// width weights applied to each patch) and the head (width x classes,
    /// applied to the class token), 6 FLOPs a weight each.
    pub fn standard_flops(&self) -> f64 {
        let (l, d, t, p) = (self.layers as f64, self.width as f64, self.tokens() as f64, self.patch as f64);
        let encoder = 12.0 * l * d * d;
        let embed = 6.0 * 3.0 * p * p * d * self.patches() as f64;
        let head = 6.0 * d * self.classes as f64;
        flops::transformer(encoder, l, d, t) + embed + head
    }

    /// The FLOPs of the standard count the model does not compute: in the
    /// last block, the query, output projection and MLP (10 x width^2
    /// weights) of every token but the class token, and the attention of
    /// those `T - 1` queries (`12 d T` each).
    pub fn unused_flops(&self) -> f64 {
        let (d, t) = (self.width as f64, self.tokens() as f64);
        6.0 * 10.0 * d * d * (t - 1.0) + 12.0 * d * (t * t - t)
    }
}

/// The standard deviation of the truncated normal initialisation.
const STD: f64 = 0.02;

/// `erf(sqrt(2))`: a standard normal lies within two standard deviations
/// with probability `erf(2 / sqrt(2))`.
const ERF_SQRT_2: f64 = 0.954_499_736_103_641_6;

/// A variable `name` of `dims` under `p` drawn from N(0, [`STD`]) truncated
/// to `[-2 STD, 2 STD]`, by the inverse of the normal's CDF, as PyTorch's
/// `nn.init.trunc_normal_(std=0.02, a=-0.04, b=0.04)` draws it.
fn trunc_normal(p: &nn::Path, name: &str, dims: &[i64]) -> Tensor {
    let values = tch::no_grad(|| {
        let mut t = Tensor::empty(dims, (tch::Kind::Float, p.device()));
        let _ = t.uniform_(-ERF_SQRT_2, ERF_SQRT_2).erfinv_().g_mul_scalar_(STD * 2f64.sqrt());
        t.clamp_(-2.0 * STD, 2.0 * STD)
    });
    p.var_copy(name, &values)
}

/// A Linear layer `input -> output` under `p`: its weight from
/// [`trunc_normal`], its bias zero.
fn linear(p: nn::Path, input: i64, output: i64) -> nn::Linear {
    nn::Linear {
        ws: trunc_normal(&p, "weight", &[output, input]),
        bs: Some(p.var("bias", &[output], nn::Init::Const(0.0))),
    }
}

/// Whether the variable `name`, `tensor`, gets weight decay: the weights of
/// the Linear layers and the patch projection's kernel do; biases, layer
/// norms, the class token and the position embeddings do not (as timm and
/// DeiT train it).
pub fn decays(name: &str, tensor: &Tensor) -> bool {
    tensor.dim() >= 2 && name != "class_token" && name != "position"
}

/// One pre-norm encoder block.
#[derive(Debug)]
struct Block {
    norm1: nn::LayerNorm,
    qkv: nn::Linear,
    proj: nn::Linear,
    norm2: nn::LayerNorm,
    fc1: nn::Linear,
    fc2: nn::Linear,
    heads: i64,
}

impl Block {
    fn new(p: &nn::Path, width: i64, heads: i64) -> Self {
        let norm = |name: &str| nn::layer_norm(p / name, vec![width], Default::default());
        Block {
            norm1: norm("norm1"),
            qkv: linear(p / "qkv", width, 3 * width),
            proj: linear(p / "proj", width, width),
            norm2: norm("norm2"),
            fc1: linear(p / "fc1", width, 4 * width),
            fc2: linear(p / "fc2", 4 * width, width),
            heads,
        }
    }

    fn forward(&self, x: &Tensor) -> Tensor {
        let (b, t, d) = x.size3().expect("tokens are [batch, tokens, width]");
        let h = self.heads;
        // [3, batch, heads, tokens, width / heads]
        let qkv = x.apply(&self.norm1).apply(&self.qkv).view([b, t, 3, h, d / h]).permute([2, 0, 3, 1, 4]);
        // One stack in the backward pass (unbind's), not three zero-filled
        // buffers summed (indexing's).
        let [q, k, v]: [Tensor; 3] = qkv.unbind(0).try_into().expect("three projections");
        let attended = Tensor::scaled_dot_product_attention(&q, &k, &v, None::<Tensor>, 0.0, false, None, false);
        self.feed_forward(x + attended.transpose(1, 2).reshape([b, t, d]).apply(&self.proj))
    }

    /// The block's second half on `x`, the attention's residual: `x` plus
    /// the MLP of its layer norm.
    fn feed_forward(&self, x: Tensor) -> Tensor {
        let mlp = x.apply(&self.norm2).apply(&self.fc1).gelu("none").apply(&self.fc2);
        x + mlp
    }

    /// What [`Block::forward`] gives of the class token (the first), `[batch,
    /// 1, width]`, computing no more than it needs: the keys and values of
    /// every token, the query, attention, projection and MLP of the class
    /// token alone. The other tokens' outputs of the last block reach
    /// nothing (the head reads the class token), so the last block is
    /// computed this way: at small6 (6 blocks) a seventh of the encoder's
    /// work, at tiny (2) two fifths, forward and backward.
    fn forward_class(&self, x: &Tensor) -> Tensor {
        let (b, t, d) = x.size3().expect("tokens are [batch, tokens, width]");
        let h = self.heads;
        let normed = x.apply(&self.norm1);
        let (weight, bias) = (&self.qkv.ws, self.qkv.bs.as_ref().expect("the projection has a bias"));
        let class = normed.narrow(1, 0, 1);
        let q =
            class.linear(&weight.narrow(0, 0, d), Some(bias.narrow(0, 0, d))).view([b, 1, h, d / h]).transpose(1, 2);
        // [2, batch, heads, tokens, width / heads]
        let kv = normed
            .linear(&weight.narrow(0, d, 2 * d), Some(bias.narrow(0, d, 2 * d)))
            .view([b, t, 2, h, d / h])
            .permute([2, 0, 3, 1, 4]);
        let [k, v]: [Tensor; 2] = kv.unbind(0).try_into().expect("two projections");
        let attended = Tensor::scaled_dot_product_attention(&q, &k, &v, None::<Tensor>, 0.0, false, None, false);
        self.feed_forward(x.narrow(1, 0, 1) + attended.transpose(1, 2).reshape([b, 1, d]).apply(&self.proj))
    }
}

/// A ViT classifier.
#[derive(Debug)]
pub struct Vit {
    embed: nn::Conv2D,
    class_token: Tensor,
    position: Tensor,
    blocks: Vec<Block>,
    norm: nn::LayerNorm,
    head: nn::Linear,
}

impl Vit {
    /// A ViT of `shape` under `p`, initialised as the reference
    /// implementations do (the module's documentation).
    pub fn new(p: &nn::Path, shape: Shape) -> Self {
        let d = shape.width;
        let bound = 1.0 / ((3 * shape.patch * shape.patch) as f64).sqrt();
        let uniform = nn::Init::Uniform { lo: -bound, up: bound };
        let conv = nn::ConvConfig { stride: shape.patch, ws_init: uniform, bs_init: uniform, ..Default::default() };
        Vit {
            embed: nn::conv2d(p / "embed", 3, d, shape.patch, conv),
            class_token: trunc_normal(p, "class_token", &[1, 1, d]),
            position: trunc_normal(p, "position", &[1, shape.tokens(), d]),
            blocks: (0..shape.layers).map(|i| Block::new(&(p / "blocks" / i), d, shape.heads)).collect(),
            norm: nn::layer_norm(p / "norm", vec![d], Default::default()),
            head: linear(p / "head", d, shape.classes),
        }
    }

    /// The tokens of `images` ([batch, 3, image, image]) the first block
    /// reads: the class token, then the patches, positions added.
    fn tokens(&self, images: &Tensor) -> Tensor {
        let patches = images.apply(&self.embed).flatten(2, -1).transpose(1, 2);
        let b = patches.size()[0];
        let class = self.class_token.expand([b, 1, -1], false).to_kind(patches.kind());
        Tensor::cat(&[class, patches], 1) + &self.position
    }

    /// The logits of `images` ([batch, 3, image, image]).
    pub fn forward(&self, images: &Tensor) -> Tensor {
        let mut x = self.tokens(images);
        let (last, before) = self.blocks.split_last().expect("at least one block");
        for block in before {
            x = block.forward(&x);
        }
        // The last block and the final norm of the class token alone: the
        // head reads nothing else, and a layer norm normalises each token by
        // itself.
        last.forward_class(&x).squeeze_dim(1).apply(&self.norm).apply(&self.head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Device, Kind};

    fn base() -> Shape {
        Shape { layers: 12, heads: 12, width: 768, image: 224, patch: 16, classes: 1000 }
    }

    #[test]
    fn vit_b16_flops_agree_with_torchvisions_forward_count() {
        // torchvision's vit_b_16: 17.56 "GFLOPS" (multiply-accumulates) forward.
        let flops = base().flops();
        let gmacs = base().standard_flops() / 6.0 / 1e9;
        // The last block's 196 patch rows left out: 10/12 of a block's weights on
        // them, and their attention; about 7 % of ViT-B/16.
        let unused = 1.0 - flops.per_item / base().standard_flops();
        assert!((unused - 0.069).abs() < 0.002, "{unused}");
        assert!((gmacs / 17.56 - 1.0).abs() < 0.01, "{gmacs}");
        assert!(flops.formula.contains("T=197"), "{}", flops.formula);
        assert_eq!(base().tokens(), 197);
    }

    #[test]
    fn the_first_loss_is_near_ln_classes() {
        // Logits of about N(0, 0.02^2 width) over 1000 classes: the loss of
        // random labels is ln 1000 + 0.013; tch's default Linear init
        // (2.4 times PyTorch's range, std sqrt(2 / fan_in)) gave about ln 1000 + 1.
        tch::manual_seed(0);
        let vs = nn::VarStore::new(Device::Cpu);
        let shape = Shape { layers: 2, heads: 2, width: 64, image: 32, patch: 8, classes: 1000 };
        let model = Vit::new(&vs.root(), shape);
        let images = Tensor::randn([32, 3, 32, 32], (Kind::Float, Device::Cpu));
        let labels = Tensor::randint(1000, [32], (Kind::Int64, Device::Cpu));
        let loss = model.forward(&images).cross_entropy_for_logits(&labels).double_value(&[]);
        assert!((loss - 1000f64.ln()).abs() < 0.3, "first loss {loss}, ln 1000 = {}", 1000f64.ln());
    }

    #[test]
    fn weights_are_truncated_normals_of_std_0_02_and_decay_spares_biases_norms_and_tokens() {
        tch::manual_seed(0);
        let vs = nn::VarStore::new(Device::Cpu);
        let shape = Shape { layers: 1, heads: 2, width: 64, image: 32, patch: 8, classes: 10 };
        let _model = Vit::new(&vs.root(), shape);
        let vars = vs.variables();
        let fc1 = &vars["blocks.0.fc1.weight"];
        let std = fc1.std(true).double_value(&[]);
        // A normal cut at 2 std keeps 0.88 of its std.
        assert!((std / 0.02 - 0.88).abs() < 0.03, "{std}");
        assert!(fc1.abs().max().double_value(&[]) <= 0.04);
        assert_eq!(vars["blocks.0.fc1.bias"].abs().max().double_value(&[]), 0.0);
        assert_eq!(vars["blocks.0.norm1.weight"].mean(Kind::Float).double_value(&[]), 1.0);
        let mut kept: Vec<&str> = vars.iter().filter(|(n, t)| !decays(n, t)).map(|(n, _)| n.as_str()).collect();
        kept.sort_unstable();
        let block = ["fc1.bias", "fc2.bias", "norm1.bias", "norm1.weight", "norm2.bias", "norm2.weight", "proj.bias"];
        let mut expected: Vec<String> = block.iter().chain(&["qkv.bias"]).map(|n| format!("blocks.0.{n}")).collect();
        let top = ["class_token", "embed.bias", "head.bias", "norm.bias", "norm.weight", "position"];
        expected.extend(top.map(String::from));
        expected.sort_unstable();
        assert_eq!(kept, expected);
    }

    #[test]
    fn the_last_block_of_the_class_token_alone_is_the_whole_blocks_class_token() {
        tch::manual_seed(0);
        let vs = nn::VarStore::new(Device::Cpu);
        let shape = Shape { layers: 2, heads: 4, width: 64, image: 32, patch: 8, classes: 10 };
        let model = Vit::new(&vs.root(), shape);
        let images = Tensor::randn([3, 3, 32, 32], (Kind::Float, Device::Cpu));
        // The same model, every block over every token, then the class token.
        let whole = |images: &Tensor| {
            let x = model.blocks.iter().fold(model.tokens(images), |x, b| b.forward(&x));
            x.select(1, 0).apply(&model.norm).apply(&model.head)
        };
        let grads = |logits: Tensor| {
            logits.square().sum(Kind::Float).backward();
            let grads: Vec<(String, Tensor)> = vs.variables().into_iter().map(|(n, t)| (n, t.grad().copy())).collect();
            vs.trainable_variables().iter().for_each(|t| {
                let _ = t.grad().zero_();
            });
            grads
        };
        let (pruned, full) = (model.forward(&images), whole(&images));
        let off = (&pruned - &full).abs().max().double_value(&[]);
        assert!(off < 1e-5, "logits off by {off}");
        let (pruned, full) = (grads(pruned), grads(full));
        let full: std::collections::HashMap<String, Tensor> = full.into_iter().collect();
        for (name, grad) in pruned {
            let off = (&grad - &full[&name]).abs().max().double_value(&[]);
            let largest = full[&name].abs().max().double_value(&[]);
            assert!(off <= 1e-5 * largest.max(1e-3), "{name}: gradient off by {off} (largest {largest})");
        }
    }

    #[test]
    fn a_tiny_vit_gives_logits_per_image_and_has_the_papers_parameter_count() {
        let vs = nn::VarStore::new(Device::Cpu);
        let shape = Shape { layers: 2, heads: 2, width: 32, image: 32, patch: 8, classes: 5 };
        let model = Vit::new(&vs.root(), shape);
        let logits = model.forward(&Tensor::randn([3, 3, 32, 32], (Kind::Float, Device::Cpu)));
        assert_eq!(logits.size(), [3, 5]);
        let params: i64 = vs.trainable_variables().iter().map(Tensor::numel).map(|n| n as i64).sum();
        // Per block 12 d^2 + 13 d (weights, biases, norms); embedding, tokens, head, norm.
        let d = 32;
        let expected = 2 * (12 * d * d + 13 * d) + (3 * 64 * d + d) + d + 17 * d + (d * 5 + 5) + 2 * d;
        assert_eq!(params, expected);
    }
}
