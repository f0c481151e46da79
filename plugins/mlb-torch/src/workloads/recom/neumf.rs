//! NeuMF (He et al., "Neural Collaborative Filtering"), as in the MLPerf NCF
//! reference: a matrix-factorisation branch (element-wise product of user
//! and item embeddings) and an MLP branch over concatenated user and item
//! embeddings, joined by a final `Linear` that outputs a logit.

use tch::nn::{self, Init, Module};
use tch::Tensor;

/// Sizes of a NeuMF model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeuMfConfig {
    /// Users (rows of the user embeddings).
    pub users: i64,
    /// Items (rows of the item embeddings).
    pub items: i64,
    /// Width of the factorisation embeddings (`-f`, 64).
    pub factors: i64,
    /// MLP widths; the first is the concatenated embeddings' width
    /// (`--layers 256 256 128 64`).
    pub layers: Vec<i64>,
}

/// The model.
#[derive(Debug)]
pub struct NeuMf {
    mf_user: nn::Embedding,
    mf_item: nn::Embedding,
    mlp_user: nn::Embedding,
    mlp_item: nn::Embedding,
    mlp: Vec<nn::Linear>,
    last: nn::Linear,
}

fn uniform(bound: f64) -> Init {
    Init::Uniform { lo: -bound, up: bound }
}

fn glorot(vs: nn::Path, fan_in: i64, fan_out: i64) -> nn::Linear {
    let ws_init = uniform((6.0 / (fan_in + fan_out) as f64).sqrt());
    nn::linear(vs, fan_in, fan_out, nn::LinearConfig { ws_init, ..Default::default() })
}

impl NeuMf {
    /// Builds the model under `vs` with the reference's initialisation:
    /// embeddings N(0, 0.01), MLP Glorot-uniform, final layer LeCun-uniform.
    pub fn new(vs: &nn::Path, c: &NeuMfConfig) -> Self {
        let embedding = |name: &str, rows: i64, dim: i64| {
            let config = nn::EmbeddingConfig { ws_init: Init::Randn { mean: 0.0, stdev: 0.01 }, ..Default::default() };
            nn::embedding(vs / name, rows, dim, config)
        };
        let half = c.layers[0] / 2;
        let mlp = c.layers.windows(2).enumerate().map(|(i, w)| glorot(vs / "mlp" / i, w[0], w[1])).collect();
        let fan_in = c.layers[c.layers.len() - 1] + c.factors;
        let last_config = nn::LinearConfig { ws_init: uniform((3.0 / fan_in as f64).sqrt()), ..Default::default() };
        NeuMf {
            mf_user: embedding("mf_user_embed", c.users, c.factors),
            mf_item: embedding("mf_item_embed", c.items, c.factors),
            mlp_user: embedding("mlp_user_embed", c.users, half),
            mlp_item: embedding("mlp_item_embed", c.items, half),
            mlp,
            last: nn::linear(vs / "final", fan_in, 1, last_config),
        }
    }

    /// Logits `[n, 1]` for user and item index tensors of length n.
    pub fn forward(&self, users: &Tensor, items: &Tensor) -> Tensor {
        let mf = self.mf_user.forward(users) * self.mf_item.forward(items);
        let mut mlp = Tensor::cat(&[self.mlp_user.forward(users), self.mlp_item.forward(items)], 1);
        for layer in &self.mlp {
            mlp = layer.forward(&mlp).relu();
        }
        self.last.forward(&Tensor::cat(&[mf, mlp], 1))
    }
}

/// Parses `--layers` as the original wrote it: widths separated by spaces
/// (or commas), the first even (it is split between user and item).
pub fn parse_layers(text: &str) -> Result<Vec<i64>, String> {
    let layers: Vec<i64> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<i64>().ok().filter(|&w| w > 0))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("argument `layers` must be positive widths separated by spaces, got `{text}`"))?;
    match layers.first() {
        Some(&first) if layers.len() >= 2 && first % 2 == 0 => Ok(layers),
        _ => Err(format!(
            "argument `layers` needs at least two widths, the first even (e.g. \"256 256 128 64\"), got `{text}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Device, Kind};

    #[test]
    fn layers_parse_like_the_original_flag() {
        assert_eq!(parse_layers("256 256 128 64").unwrap(), vec![256, 256, 128, 64]);
        assert_eq!(parse_layers("8,4").unwrap(), vec![8, 4]);
        assert!(parse_layers("255 64").is_err());
        assert!(parse_layers("64").is_err());
        assert!(parse_layers("64 x").unwrap_err().contains("`64 x`"));
    }

    #[test]
    fn the_reference_sizes_give_a_128_wide_final_layer() {
        let vs = nn::VarStore::new(Device::Cpu);
        let c = NeuMfConfig { users: 10, items: 7, factors: 64, layers: vec![256, 256, 128, 64] };
        let m = NeuMf::new(&vs.root(), &c);
        assert_eq!(m.last.ws.size(), [1, 128]);
        assert_eq!(m.mlp_user.ws.size(), [10, 128]);
        assert_eq!(m.mlp.len(), 3);
        let users = Tensor::from_slice(&[0i64, 9, 3]);
        let items = Tensor::from_slice(&[6i64, 0, 3]);
        let out = m.forward(&users, &items);
        assert_eq!(out.size(), [3, 1]);
        assert_eq!(out.kind(), Kind::Float);
    }
}
