//! The rounds of a matrix, repeat by repeat: in each, every workload
//! alone, then every pair, then the mix (so that a host that drifts drifts
//! under the rates alone and beside another alike); then the matrix of
//! what they measured.

use super::InterfereError;
use mlb_figures::Sample;
use mlb_judge::interfere::{overlap, Alone, Cell, Interference, Measured, Placement, LEVEL, MIX};
use mlb_record::contract::record::arg_key;
use mlb_run::host::Position;
use mlb_run::jobs::JobConfig;
use mlb_run::launch::mix::{Ended, Mix, Round, Seat};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// How much longer than its victim an aggressor is asked to run, from
/// their durations alone: its victim may slow down twice as much as it
/// does, or start its timed steps later, before it stops covering it (the
/// cell's `overlap` says when it did not).
pub const OUTLAST: f64 = 2.0;

/// What `--victims`, `--aggressors` and `--no-mix` chose, as indexes of
/// the workloads.
pub struct Chosen {
    /// The rows.
    pub victims: Vec<usize>,
    /// The columns.
    pub aggressors: Vec<usize>,
    /// Whether the mix runs.
    pub mix: bool,
}

impl Chosen {
    /// The ordered pairs of two different workloads, victim first.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for &v in &self.victims {
            for &a in self.aggressors.iter().filter(|&&a| a != v) {
                if !out.contains(&(v, a)) {
                    out.push((v, a));
                }
            }
        }
        out
    }

    /// Every workload of a pair: those that run alone.
    fn used(&self) -> Vec<usize> {
        let mut used: Vec<usize> = self.pairs().into_iter().flat_map(|(v, a)| [v, a]).collect();
        used.sort_unstable();
        used.dedup();
        used
    }
}

/// The rounds under way: their suite, next run id, count, and whether
/// every instance passed.
struct Rounds<'a> {
    mix: Mix,
    workloads: &'a [JobConfig],
    next_run: u64,
    position: usize,
    of: usize,
    passed: bool,
}

impl Rounds<'_> {
    /// Runs `seats` (workload index, slot, repeat asked or none) as the
    /// round `label` of the suite `kind`; what each seat's report says, by
    /// seat. `None`: interrupted.
    fn run(
        &mut self,
        kind: &str,
        label: String,
        seats: &[(usize, usize, Option<u64>)],
    ) -> Result<Option<Vec<Measured>>, InterfereError> {
        self.position += 1;
        let round = Round {
            label,
            suite: format!("{}-{kind}", self.mix.plan().suite()),
            run_id: self.next_run,
            position: (self.position, self.of),
            seats: seats
                .iter()
                .map(|&(w, slot, repeat)| Seat { config: with_repeat(&self.workloads[w], repeat), slot })
                .collect(),
        };
        self.next_run += 1;
        let Some(ended) = self.mix.round(&round)? else { return Ok(None) };
        self.passed &= ended.iter().all(|e| e.outcome.passed());
        let by_slot = |slot: usize| ended.iter().find(|e: &&Ended| e.slot == slot);
        Ok(Some(
            seats
                .iter()
                .map(|&(_, slot, _)| {
                    by_slot(slot).and_then(|e| e.report.as_deref()).map_or_else(Measured::default, Measured::read)
                })
                .collect(),
        ))
    }
}

/// `config` asked for `repeat` observations (as given when none).
fn with_repeat(config: &JobConfig, repeat: Option<u64>) -> JobConfig {
    let mut config = config.clone();
    if let Some(repeat) = repeat {
        config.args.0.retain(|(k, _)| arg_key(k) != "repeat");
        config.args.0.push(("repeat".into(), repeat.into()));
    }
    config
}

/// The mean of the finite `values`, if any.
fn mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    Sample::of(&values.flatten().collect::<Vec<_>>()).mean
}

/// What one workload measured alone: its runs' reports.
struct Solo {
    runs: Vec<Measured>,
}

impl Solo {
    fn rates(&self) -> Vec<f64> {
        self.runs.iter().filter_map(|m| m.rate).collect()
    }

    fn seconds(&self) -> Option<f64> {
        mean(self.runs.iter().map(Measured::seconds))
    }

    fn repeat(&self) -> Option<u64> {
        self.runs.iter().find_map(|m| m.repeat)
    }

    /// The observations that make it run `factor` times as long as alone
    /// (at least as many as alone); none when its runs said nothing.
    fn stretched(&self, factor: f64) -> Option<u64> {
        let repeat = self.repeat()?;
        Some(((repeat as f64) * factor.max(1.0)).ceil() as u64)
    }
}

/// Runs every round of `chosen` on `mix`, `repeats` times each, and makes
/// the matrix; with whether every instance passed. `None`: interrupted.
pub fn measure(
    mix: Mix,
    workloads: &[JobConfig],
    chosen: &Chosen,
    repeats: u64,
    uid: u64,
) -> Result<Option<(Interference, bool)>, InterfereError> {
    let started = Instant::now();
    let pairs = chosen.pairs();
    let used = chosen.used();
    let seated: Vec<usize> = used.iter().copied().take(mix.plan().slots().len()).collect();
    let mixes = if chosen.mix && seated.len() > 1 { repeats as usize } else { 0 };
    let of = repeats as usize * (used.len() + pairs.len()) + mixes;
    let mut rounds = Rounds { mix, workloads, next_run: uid, position: 0, of, passed: true };
    let measured = rounds_of(&mut rounds, &pairs, &used, &seated, repeats, mixes > 0);
    let host = rounds.mix.plan().host().clone();
    let slots = rounds.mix.plan().slots().to_vec();
    let suite = rounds.mix.plan().suite().to_string();
    let passed = rounds.passed;
    let interrupted = rounds.mix.close(started);
    let Some((solo, paired, mixed)) = measured? else { return Ok(None) };
    if interrupted {
        return Ok(None);
    }
    let at = |slot: usize| Position::of(&host, &slots[slot], Path::new("/"));
    let label = |w: usize| workloads[w].label();
    let alone = used
        .iter()
        .map(|&w| Alone { workload: label(w), rates: Sample::of(&solo[&w].rates()), placement: at(0) })
        .collect();
    let mut cells: Vec<Cell> = pairs
        .iter()
        .map(|&(v, a)| {
            let runs = &paired[&(v, a)];
            let rates: Vec<f64> = runs.iter().filter_map(|(victim, _)| victim.rate).collect();
            let covered = runs.iter().map(|(victim, aggressor)| overlap(victim.span, &[aggressor.span]));
            let placement = Placement { victim: at(0), aggressors: vec![at(1)] };
            Cell::measure(&label(v), &label(a), &solo[&v].rates(), &rates, least(covered), placement)
        })
        .collect();
    for (i, &w) in seated.iter().enumerate().filter(|_| !mixed.is_empty()) {
        let rates: Vec<f64> = mixed.iter().filter_map(|round| round[i].rate).collect();
        let covered = mixed.iter().map(|round| {
            let others: Vec<_> = round.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, m)| m.span).collect();
            overlap(round[i].span, &others)
        });
        let others = (0..seated.len()).filter(|&j| j != i).map(at).collect();
        let placement = Placement { victim: at(i), aggressors: others };
        cells.push(Cell::measure(&label(w), MIX, &solo[&w].rates(), &rates, least(covered), placement));
    }
    let matrix = Interference {
        suite,
        repeats: repeats as usize,
        level: LEVEL,
        workloads: workloads.iter().map(JobConfig::label).collect(),
        alone,
        cells,
    };
    Ok(Some((matrix, passed)))
}

/// The least of the overlaps, none when one is unknown.
fn least(overlaps: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    overlaps.collect::<Option<Vec<f64>>>()?.into_iter().reduce(f64::min)
}

/// The measurements of the rounds: each workload alone, each pair's
/// (victim, aggressor) reports, each mix round's reports by seat.
type Measurements = (BTreeMap<usize, Solo>, BTreeMap<(usize, usize), Vec<(Measured, Measured)>>, Vec<Vec<Measured>>);

/// Runs the rounds; `None`: interrupted.
fn rounds_of(
    rounds: &mut Rounds,
    pairs: &[(usize, usize)],
    used: &[usize],
    seated: &[usize],
    repeats: u64,
    mix: bool,
) -> Result<Option<Measurements>, InterfereError> {
    let name = |w: usize| rounds.workloads[w].label();
    let mut solo: BTreeMap<usize, Solo> = used.iter().map(|&w| (w, Solo { runs: Vec::new() })).collect();
    let mut paired: BTreeMap<(usize, usize), Vec<(Measured, Measured)>> = BTreeMap::new();
    let mut mixed = Vec::new();
    // Each repeat runs every kind of round, so that the rates alone and
    // beside another are taken over the same stretch of time.
    for k in 1..=repeats {
        for &w in used {
            let Some(m) = rounds.run("alone", format!("{} alone ({k}/{repeats})", name(w)), &[(w, 0, None)])? else {
                return Ok(None);
            };
            solo.get_mut(&w).expect("a workload used").runs.extend(m);
        }
        for &(v, a) in pairs {
            // The aggressor runs long enough to outlast its victim.
            let factor = match (solo[&v].seconds(), solo[&a].seconds()) {
                (Some(victim), Some(aggressor)) => OUTLAST * victim / aggressor,
                _ => OUTLAST,
            };
            let label = format!("{} beside {} ({k}/{repeats})", name(v), name(a));
            let seats = [(v, 0, None), (a, 1, solo[&a].stretched(factor))];
            let Some(m) = rounds.run("pair", label, &seats)? else { return Ok(None) };
            paired.entry((v, a)).or_default().push((m[0], m[1]));
        }
        if mix {
            // Each as long as the longest alone.
            let longest = seated.iter().filter_map(|w| solo[w].seconds()).fold(0.0, f64::max);
            let seats: Vec<(usize, usize, Option<u64>)> = seated
                .iter()
                .enumerate()
                .map(|(slot, &w)| {
                    let factor = solo[&w].seconds().map_or(1.0, |s| longest / s);
                    (w, slot, solo[&w].stretched(factor))
                })
                .collect();
            let Some(m) = rounds.run("mix", format!("mix ({k}/{repeats})"), &seats)? else { return Ok(None) };
            mixed.push(m);
        }
    }
    Ok(Some((solo, paired, mixed)))
}
