//! scaling: how ResNet-101 training scales with the number of devices. Each
//! plugin step trains one data-parallel SGD step (lr 0.01, momentum 0.9,
//! `batch_size` images per device) on 1, 2, ..., N of the visible devices in
//! turn, timing each (devices synchronised). The report gives, per width w,
//! the median speed `speed_w` (images/s) and the efficiency
//! `speed_w / speed_1 / w`. Item: an image.

use crate::data::DataSource;
use crate::workloads::convnet_distributed::{distributed_args, DistributedConvnet, Settings};
use crate::{Runtime, TorchWorkload};
use mlb_plugin::Step;
use serde_json::{Map, Value};
use std::time::Instant;

distributed_args!(
    /// The arguments of scaling, with the original suite's defaults.
    Args { repeat = 10, number = 10, skip = 2 }, half = false, batch_size = 128, lr = 0.01, network = "resnet101",
    momentum = 0.9
);

/// The scaling workload.
pub struct Scaling {
    job: DistributedConvnet<false>,
    /// Per width (index w - 1), the speeds measured (images/s).
    speeds: Vec<Vec<f64>>,
    data: DataSource,
}

fn median(v: &[f64]) -> Option<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    (!s.is_empty()).then(|| if s.len() % 2 == 1 { s[s.len() / 2] } else { 0.5 * (s[s.len() / 2 - 1] + s[s.len() / 2]) })
}

impl Scaling {
    /// Median speed per width (images/s), widths 1..=N.
    pub fn speeds(&self) -> Vec<Option<f64>> {
        self.speeds.iter().map(|s| median(s)).collect()
    }

    /// `speed_w / speed_1 / w` per width.
    pub fn efficiency(&self) -> Vec<Option<f64>> {
        let speeds = self.speeds();
        let base = speeds.first().copied().flatten();
        speeds.iter().enumerate().map(|(i, s)| Some(s.as_ref()? / base? / (i + 1) as f64)).collect()
    }
}

impl TorchWorkload for Scaling {
    const NAME: &'static str = "scaling";
    const DESCRIPTION: &'static str =
        "ResNet-101 data-parallel training on 1..N visible devices, reporting speed and efficiency per width";
    type Args = Args;
    type Settings = Settings;

    fn parse(args: Args) -> mlb_plugin::Result<Settings> {
        args.try_into()
    }

    fn build(args: Settings, rt: &Runtime) -> mlb_plugin::Result<Self> {
        let data = args.data.clone();
        let job = DistributedConvnet::with_args(args, rt)?;
        let speeds = vec![Vec::new(); job.devices().len()];
        Ok(Scaling { job, speeds, data })
    }

    fn step(&mut self) -> mlb_plugin::Result<Step> {
        let (mut items, mut loss) = (0, 0.0);
        for width in 1..=self.speeds.len() {
            self.job.sync();
            let start = Instant::now();
            let (n, l) = self.job.train_step(width)?;
            self.job.sync();
            self.speeds[width - 1].push(n as f64 / start.elapsed().as_secs_f64());
            items += n;
            loss = l;
        }
        Ok(Step::with_loss(items, loss))
    }

    fn data(&self) -> &DataSource {
        &self.data
    }

    fn report(&self, out: &mut Map<String, Value>) {
        self.job.report(out);
        let list =
            |v: Vec<Option<f64>>| Value::Array(v.into_iter().map(|x| x.map_or(Value::Null, Value::from)).collect());
        out.insert("speed_per_width".into(), list(self.speeds()));
        out.insert("efficiency_per_width".into(), list(self.efficiency()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_width_is_timed_and_width_one_is_fully_efficient() {
        let config = r#"{"network": "resnet18", "batch_size": 2, "image_size": 32, "classes": 4, "cpu_replicas": 2}"#;
        let args = crate::plugin::settings::<Scaling>(config).unwrap();
        let mut w = Scaling::build(args, &Runtime::cpu(0).unwrap()).unwrap();
        for _ in 0..3 {
            let step = w.step().unwrap();
            assert_eq!(step.items, 2 + 4, "width 1 then width 2");
        }
        let eff = w.efficiency();
        assert_eq!(eff.len(), 2);
        assert_eq!(eff[0], Some(1.0));
        assert!(eff[1].is_some_and(|e| e > 0.0 && e < 2.0), "{eff:?}");
        let mut out = Map::new();
        w.report(&mut out);
        assert_eq!(out["efficiency_per_width"].as_array().unwrap().len(), 2);
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), Some(2.5));
    }
}
