//! One sampler per instance: a thread reading the instance's probes at the
//! asked rate, and at once whenever the worker announces an edge of its
//! timed window; at the end, the `telemetry` block of that window.

use super::block::{self, Telemetry};
use super::probes::Probes;
use super::reading::Sample;
use crate::contract::Edge;
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Samples kept from before the window starts: the one before its start is
/// needed (counters are interpolated at the edge), the rest is warm-up.
const BEFORE: usize = 64;

enum Message {
    Edge(Edge),
    Stop,
}

/// Where the window's edges go: cloned into the instance's output reader.
#[derive(Clone, Debug)]
pub struct EdgeSink(Sender<Message>);

impl EdgeSink {
    /// The worker announced `edge`.
    pub fn edge(&self, edge: Edge) {
        // A sampler that ended already has nothing left to scope.
        let _ = self.0.send(Message::Edge(edge));
    }
}

/// A running sampler.
#[derive(Debug)]
pub struct Sampler {
    sink: EdgeSink,
    thread: JoinHandle<Recording>,
    context: block::Context,
}

/// What a sampler recorded.
#[derive(Debug, Default)]
struct Recording {
    samples: VecDeque<Sample>,
    start: Option<f64>,
    end: Option<(f64, u64)>,
}

impl Sampler {
    /// Starts sampling `probes` `hz` times a second (`hz` > 0).
    pub fn start(probes: Probes, hz: f64) -> Sampler {
        let (tx, rx) = mpsc::channel();
        let period = Duration::from_secs_f64(1.0 / hz);
        let context = probes.context.clone();
        let thread = std::thread::Builder::new()
            .name("mlb-sampler".into())
            .spawn(move || record(&probes, &rx, period))
            .expect("a thread can be started");
        Sampler { sink: EdgeSink(tx), thread, context }
    }

    /// Where the worker's window lines go.
    pub fn sink(&self) -> EdgeSink {
        self.sink.clone()
    }

    /// Stops sampling; the block of the window, when both edges were announced.
    pub fn finish(self) -> Option<Telemetry> {
        let _ = self.sink.0.send(Message::Stop);
        let mut rec = self.thread.join().ok()?;
        let (start, (end, items)) = (rec.start?, rec.end?);
        Some(block::build(rec.samples.make_contiguous(), start, end, items, self.context))
    }
}

fn record(probes: &Probes, rx: &Receiver<Message>, period: Duration) -> Recording {
    let mut rec = Recording::default();
    let mut next = Instant::now();
    loop {
        match rx.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Err(RecvTimeoutError::Timeout) => {
                rec.samples.push_back(probes.read());
                if rec.start.is_none() && rec.samples.len() > BEFORE {
                    rec.samples.pop_front();
                }
                next += period;
                next = next.max(Instant::now());
            }
            Ok(Message::Edge(Edge::Start { at })) => {
                probes.window_starts();
                rec.samples.push_back(probes.read());
                let before = rec.samples.iter().filter(|s| s.t < at).count();
                rec.samples.drain(..before.saturating_sub(1));
                rec.start = Some(at);
            }
            Ok(Message::Edge(Edge::End { at, items })) => {
                rec.samples.push_back(probes.read());
                rec.end = Some((at, items));
                return rec;
            }
            Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => return rec,
        }
    }
}
