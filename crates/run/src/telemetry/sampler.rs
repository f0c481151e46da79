//! One sampler per instance: a thread reading the instance's probes at the
//! asked rate, and at once whenever the worker announces an edge of its
//! timed window; at the end, the `telemetry` block of that window. A
//! runtime that puts the instance in a group of its own (a container's)
//! tells the sampler its main process, whose group is then read as the slot.

use super::block;
use super::probes::Probes;
use super::sample::Sample;
use mlb_record::contract::telemetry::Telemetry;
use mlb_record::contract::Edge;
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Samples kept from before the window starts: the one before its start is
/// needed (counters are interpolated at the edge), the rest is warm-up.
const BEFORE: usize = 64;

enum Message {
    Edge(Edge),
    Started(u32, String),
    Stop,
}

/// What the sampler hears of its instance: cloned into the instance's
/// output reader.
#[derive(Clone, Debug)]
pub struct SamplerSink(Sender<Message>);

impl SamplerSink {
    /// The worker announced `edge`.
    pub fn edge(&self, edge: Edge) {
        // A sampler that ended already has nothing left to scope.
        let _ = self.0.send(Message::Edge(edge));
    }

    /// The runtime started the instance's main process `pid` in the group
    /// of container `id`.
    pub fn started(&self, pid: u32, id: &str) {
        let _ = self.0.send(Message::Started(pid, id.to_string()));
    }
}

/// A running sampler.
#[derive(Debug)]
pub struct Sampler {
    sink: SamplerSink,
    thread: JoinHandle<(Recording, block::Context)>,
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
        let thread = std::thread::Builder::new()
            .name("mlb-sampler".into())
            .spawn(move || {
                let mut probes = probes;
                let recording = record(&mut probes, &rx, period);
                (recording, probes.context)
            })
            .expect("a thread can be started");
        Sampler { sink: SamplerSink(tx), thread }
    }

    /// Where the worker's window lines and the runtime's start go.
    pub fn sink(&self) -> SamplerSink {
        self.sink.clone()
    }

    /// Stops sampling; the block of the window, when both edges were announced.
    pub fn finish(self) -> Option<Telemetry> {
        let _ = self.sink.0.send(Message::Stop);
        let (mut rec, context) = self.thread.join().ok()?;
        let (start, (end, items)) = (rec.start?, rec.end?);
        Some(block::build(rec.samples.make_contiguous(), start, end, items, context))
    }
}

fn record(probes: &mut Probes, rx: &Receiver<Message>, period: Duration) -> Recording {
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
            Ok(Message::Started(pid, id)) => probes.started(pid, &id),
            Ok(Message::Edge(Edge::End { at, items })) => {
                rec.samples.push_back(probes.read());
                rec.end = Some((at, items));
                return rec;
            }
            Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => return rec,
        }
    }
}
