//! One report entry as the report tool sees it: which bench and config,
//! which device, whether it completed, its losses and its throughput.
//!
//! Only the fields the report needs are read, in one pass over each object
//! (no intermediate `Value`): `name`, `suite`, `vcd`, `gpu`, `completed`,
//! `failure`, `train_item.avg`, `batch_loss`, the node (`provenance.slurm.node`,
//! else `hostname`), the conditions of its `telemetry`, the FLOPs figures
//! of its MFU (`flops_per_item`, `peak_tflops`), and the scalar
//! arguments of the config. Numbers may be the original's `NaN`/`Infinity` tokens (read
//! through [`text`](super::text)'s markers) or `null`.
//!
//! The same pass also gives what the store keeps beyond that view
//! ([`Extra`]) when asked (`EXTRA`): the fields [`Extra`] reads are then
//! read as values, kept for it, and the view's own fields taken from them.

use super::conditions::{Conditions, RawTelemetry};
use super::extra::{self, Extra};
use super::intern::intern;
use super::text::marker_value;
use crate::contract::keys::Key as ReportKey;
use serde::de::{self, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// Whether `key` cannot be a config argument ([`ReportKey::splits_configs`]).
fn not_config(key: &str) -> bool {
    !ReportKey::of(key).splits_configs()
}

/// A report entry, read from `file`.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The file it was read from (shared by the entries of one file).
    pub file: Arc<Path>,
    /// Bench (job) name; `None` for `"name": null` (the original launcher's
    /// failure records without `--name`).
    pub name: Option<Arc<str>>,
    /// Suite name, when the report holds one.
    pub suite: Option<Arc<str>>,
    /// Visible device(s): `"3"` or `"0,1,2,3"` (a single numeric id is
    /// written in its plain decimal form, as the original's `int()` read it).
    pub vcd: Option<Arc<str>>,
    /// Device name, when the report holds one.
    pub gpu: Option<Arc<str>>,
    /// The Slurm node it ran on (`provenance.slurm.node`, `mlb --slurm`).
    pub slurm_node: Option<Arc<str>>,
    /// The report's `hostname`.
    pub hostname: Option<Arc<str>>,
    /// `completed`, as Python's truth value, when the entry holds the key.
    pub completed: Option<bool>,
    /// `failure.cause` and `failure.message` of an mlb failure record.
    pub failure: Option<(String, String)>,
    /// `train_item.avg` (may be NaN or infinite); `None` when missing or null.
    pub avg: Option<f64>,
    /// What `batch_loss` holds.
    pub losses: Losses,
    /// What its `telemetry` block says of its conditions, when it has one.
    pub conditions: Option<Conditions>,
    /// `flops_per_item`: the training FLOPs of one item, when the workload
    /// states them (docs/workloads.md, "FLOPs and MFU").
    pub flops_per_item: Option<f64>,
    /// `peak_tflops`: the peak the workload measured itself (the CPU probe).
    pub probe_peak: Option<f64>,
    /// The config's scalar arguments ([`ReportKey::splits_configs`]), sorted by key.
    pub args: Vec<(Arc<str>, Value)>,
}

/// What an entry's `batch_loss` holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Losses {
    /// A NaN value.
    pub nan: bool,
    /// An infinite value.
    pub infinite: bool,
    /// A `null` (mlb's strict JSON writes a non-finite loss as `null`).
    pub null: bool,
}

impl Losses {
    /// What the original's NaN check (`math.isnan`) finds; a `null`, which
    /// only mlb writes and only for a non-finite loss, counts as a NaN.
    pub fn nan_or_null(&self) -> bool {
        self.nan || self.null
    }
}

impl Entry {
    /// The single device of a single-GPU entry (`vcd` without a comma).
    pub fn single_device(&self) -> Option<&str> {
        self.vcd.as_deref().filter(|v| !v.contains(','))
    }

    /// The node it ran on: its Slurm node, else its host.
    pub fn node(&self) -> Option<&str> {
        self.slurm_node.as_deref().or(self.hostname.as_deref())
    }

    /// The bench name, or `(null)` for a null name.
    pub fn bench_label(&self) -> &str {
        self.name.as_deref().unwrap_or("(null)")
    }
}

/// A `vcd` as written: a single numeric id in its plain decimal form.
fn normalise_vcd(text: Arc<str>) -> Arc<str> {
    match text.trim().parse::<u64>() {
        Ok(id) if *id.to_string() != *text => intern(&id.to_string()),
        _ => text,
    }
}

/// An entry as parsed, before it knows its file. `name` is `None` when the
/// key is missing (the entry is refused), `Some(None)` for `null`.
#[derive(Debug, Default)]
pub struct RawEntry {
    name: Option<Option<Arc<str>>>,
    suite: Option<Arc<str>>,
    vcd: Option<Arc<str>>,
    gpu: Option<Arc<str>>,
    slurm_node: Option<Arc<str>>,
    hostname: Option<Arc<str>>,
    completed: Option<bool>,
    failure: Option<(String, String)>,
    avg: Option<f64>,
    losses: Losses,
    conditions: Option<Conditions>,
    flops_per_item: Option<f64>,
    probe_peak: Option<f64>,
    args: Vec<(Arc<str>, Value)>,
    /// The first field of an odd type (a string `train_item`, a scalar
    /// `batch_loss`), read as missing.
    odd: Option<&'static str>,
    /// What the store keeps beyond this view, when asked for (else empty).
    extra: Extra,
}

impl RawEntry {
    /// The entry of `file`; errs when it has no `name` key (the original
    /// could not read it either), or when it completed (its `completed`
    /// is missing or true) and a field it is judged by has an odd type (the
    /// original stopped on it). A failed entry with such a field stays a
    /// failure: the original never read those fields of a failed entry.
    /// Its [`Extra`] comes beside it (empty unless it was asked for).
    pub fn into_entry(self, file: &Arc<Path>) -> Result<(Entry, Extra), &'static str> {
        let name = self.name.ok_or("an entry has no `name`")?;
        if let (Some(why), true) = (self.odd, self.completed != Some(false)) {
            return Err(why);
        }
        let mut args = self.args;
        args.sort_by(|a, b| a.0.cmp(&b.0));
        let entry = Entry {
            file: file.clone(),
            name,
            suite: self.suite,
            vcd: self.vcd.map(normalise_vcd),
            gpu: self.gpu,
            slurm_node: self.slurm_node,
            hostname: self.hostname,
            completed: self.completed,
            failure: self.failure,
            avg: self.avg,
            losses: self.losses,
            conditions: self.conditions,
            flops_per_item: self.flops_per_item,
            probe_peak: self.probe_peak,
            args,
        };
        Ok((entry, self.extra))
    }
}

/// The keys the report reads; any other key is a config argument candidate.
enum Key<'a> {
    Name,
    Suite,
    Vcd,
    Gpu,
    Hostname,
    Provenance,
    Telemetry,
    Completed,
    Failure,
    TrainItem,
    BatchLoss,
    FlopsPerItem,
    PeakTflops,
    Other(std::borrow::Cow<'a, str>),
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::known(v).unwrap_or(Key::Other(v.into())))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key::known(v).unwrap_or_else(|| Key::Other(v.to_string().into())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl Key<'_> {
    fn known(key: &str) -> Option<Self> {
        Some(match key {
            "name" => Key::Name,
            "suite" => Key::Suite,
            "vcd" => Key::Vcd,
            "gpu" => Key::Gpu,
            "hostname" => Key::Hostname,
            "provenance" => Key::Provenance,
            "telemetry" => Key::Telemetry,
            "completed" => Key::Completed,
            "failure" => Key::Failure,
            "train_item" => Key::TrainItem,
            "batch_loss" => Key::BatchLoss,
            "flops_per_item" => Key::FlopsPerItem,
            "peak_tflops" => Key::PeakTflops,
            _ => return None,
        })
    }
}

/// A [`RawEntry`] parsed from strict JSON (`TOLERANT = false`: numbers
/// are finite, so the losses are skipped unparsed but for `null`) or from
/// text whose non-finite tokens became [`text`](super::text)'s
/// markers (`TOLERANT = true`); with its [`Extra`] when `EXTRA`.
pub struct Parsed<const TOLERANT: bool, const EXTRA: bool>(pub RawEntry);

impl<'de, const TOLERANT: bool, const EXTRA: bool> Deserialize<'de> for Parsed<TOLERANT, EXTRA> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EntryVisitor<const T: bool, const X: bool>;
        impl<'de, const T: bool, const X: bool> Visitor<'de> for EntryVisitor<T, X> {
            type Value = Parsed<T, X>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a report object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed<T, X>, A::Error> {
                let mut e = RawEntry::default();
                // The fields `Extra` reads, as values (only when `X`).
                let mut kept = Map::new();
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Name => e.name = Some(map.next_value::<Option<Name>>()?.map(|n| n.0)),
                        Key::Suite => e.suite = e.text(map.next_value()?, "`suite` is not a string"),
                        Key::Vcd => e.vcd = e.text(map.next_value()?, "`vcd` is not a string or a number"),
                        Key::Gpu => e.gpu = e.text(map.next_value()?, "`gpu` is not a string"),
                        Key::Hostname => e.hostname = e.text(map.next_value()?, "`hostname` is not a string"),
                        Key::Provenance => {
                            e.slurm_node = next::<X, _, ProvenanceNode>(&mut map, &mut kept, "provenance")?.node();
                        }
                        Key::Telemetry => {
                            e.conditions = next::<X, _, RawTelemetry>(&mut map, &mut kept, "telemetry")?.conditions();
                        }
                        Key::Completed => e.completed = Some(map.next_value::<Shallow>()?.truth()),
                        Key::Failure => e.failure = map.next_value::<Object<RawFailure>>()?.pair(),
                        Key::TrainItem => {
                            let avg = next::<X, _, Object<RawThroughput>>(&mut map, &mut kept, "train_item")?.avg();
                            e.avg = e.or_odd(avg, "`train_item` is not an object with a numeric `avg`").flatten();
                        }
                        Key::BatchLoss => {
                            let LossScan(losses) = next::<X, _, LossScan<T>>(&mut map, &mut kept, "batch_loss")?;
                            e.losses = e.or_odd(losses, "`batch_loss` is not a list of numbers").unwrap_or_default();
                        }
                        // Figures of the MFU only: one of another type is
                        // left out, and the entry judged as it is.
                        Key::FlopsPerItem => e.flops_per_item = map.next_value::<Num>()?.positive(),
                        Key::PeakTflops => e.probe_peak = map.next_value::<Num>()?.positive(),
                        // No config argument (a test checks it): kept whole.
                        Key::Other(k) if X && extra::OTHER_KEYS.contains(&&*k) => {
                            kept.insert(k.into_owned(), map.next_value()?);
                        }
                        // Skipped unread (serde_json's fast path) unless it
                        // may be a config argument.
                        Key::Other(k) if not_config(&k) => {
                            map.next_value::<IgnoredAny>()?;
                        }
                        Key::Other(k) => {
                            if let Some(v) = map.next_value::<Shallow>()?.scalar() {
                                e.args.push((intern(&k), v));
                            }
                        }
                    }
                }
                if X {
                    e.extra = Extra::of(&kept);
                }
                Ok(Parsed(e))
            }
        }
        d.deserialize_map(EntryVisitor::<TOLERANT, EXTRA>)
    }
}

/// The next value of `map` as a `V`; when `KEEP`, read as a value first,
/// kept in `kept` under `key` (for the entry's [`Extra`]), and the `V`
/// taken from it.
fn next<'de, const KEEP: bool, A: MapAccess<'de>, V: DeserializeOwned>(
    map: &mut A,
    kept: &mut Map<String, Value>,
    key: &str,
) -> Result<V, A::Error> {
    if !KEEP {
        return map.next_value();
    }
    let value: Value = map.next_value()?;
    let read = V::deserialize(&value).map_err(de::Error::custom)?;
    kept.insert(key.to_string(), value);
    Ok(read)
}

impl RawEntry {
    /// `value`, or `None` after noting `why` when it had an odd type.
    fn or_odd<V>(&mut self, value: Result<V, Odd>, why: &'static str) -> Option<V> {
        value.map_err(|Odd| self.odd = self.odd.or(Some(why))).ok()
    }

    /// A text field: `None` for `null` and (noting `why`) for an odd type.
    fn text(&mut self, text: Option<Text>, why: &'static str) -> Option<Arc<str>> {
        self.or_odd(text?.0, why)
    }
}

/// A value of an odd type where the report reads a field.
struct Odd;

/// The visitor methods of a field that takes no scalar: a boolean, a
/// number or a string is read as `$odd`.
macro_rules! odd_scalars {
    ($value:ty, $odd:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$value, E> {
            Ok($odd)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$value, E> {
            Ok($odd)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$value, E> {
            Ok($odd)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$value, E> {
            Ok($odd)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<$value, E> {
            Ok($odd)
        }
    };
}

/// Empties a list or an object of odd type, for a visitor that reads it as
/// [`Odd`].
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// `provenance.slurm.node`, read leniently: a provenance of another shape
/// (the original's reports have none) names no node rather than making the
/// entry unreadable.
#[derive(Deserialize)]
#[serde(untagged)]
enum ProvenanceNode {
    Slurm { slurm: SlurmNode },
    Other(IgnoredAny),
}

#[derive(Deserialize)]
struct SlurmNode {
    node: Text,
}

impl ProvenanceNode {
    fn node(self) -> Option<Arc<str>> {
        match self {
            ProvenanceNode::Slurm { slurm } => slurm.node.0.ok(),
            ProvenanceNode::Other(_) => None,
        }
    }
}

/// A field read as an object `T`: `Ok(None)` for `null`, [`Odd`] for any
/// other type (emptied unread).
struct Object<T>(Result<Option<T>, Odd>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Object(Ok(Some(t))))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Object<T>, E> {
                Ok(Object(Ok(None)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Object<T>, A::Error> {
                drain_seq(seq).map(|()| Object(Err(Odd)))
            }
            odd_scalars!(Object<T>, Object(Err(Odd)));
        }
        d.deserialize_any(ObjectVisitor(std::marker::PhantomData))
    }
}

/// `train_item`, of which only `avg` is read.
#[derive(Deserialize)]
struct RawThroughput {
    #[serde(default)]
    avg: Num,
}

impl Object<RawThroughput> {
    /// `avg` (`None` when missing or `null`); [`Odd`] when `train_item` is
    /// not an object or its `avg` not a number.
    fn avg(self) -> Result<Option<f64>, Odd> {
        self.0.and_then(|t| t.map_or(Ok(None), |t| t.avg.0))
    }
}

/// `failure.cause` and `failure.message` of an mlb failure record. A
/// `failure` of another shape (the original's entries have none) gives no
/// details, and a cause or message that is not a string is written as JSON.
#[derive(Deserialize)]
struct RawFailure {
    cause: Option<Shallow>,
    message: Option<Shallow>,
}

impl Object<RawFailure> {
    fn pair(self) -> Option<(String, String)> {
        let words = |v: Option<Shallow>| match v? {
            Shallow::Scalar(Value::String(s)) => Some(s),
            Shallow::Scalar(Value::Null) | Shallow::Container { .. } => None,
            Shallow::Scalar(other) => Some(other.to_string()),
        };
        let f = self.0.ok()??;
        Some((words(f.cause).unwrap_or_else(|| "incomplete".into()), words(f.message).unwrap_or_default()))
    }
}

/// A number, a marker of a non-finite token, a boolean (Python's `True` is
/// 1) or `null` (`None`); [`Odd`] for a value of another type.
struct Num(Result<Option<f64>, Odd>);

impl Default for Num {
    fn default() -> Self {
        Num(Ok(None))
    }
}

impl Num {
    /// The number when it is finite and above 0.
    fn positive(self) -> Option<f64> {
        self.0.ok().flatten().filter(|v| v.is_finite() && *v > 0.0)
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NumVisitor;
        impl<'de> Visitor<'de> for NumVisitor {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, NaN, Infinity or null")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num(Ok(Some(v))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(Ok(Some(v as f64))))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(Ok(Some(v as f64))))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Num, E> {
                Ok(Num(Ok(Some(f64::from(u8::from(v))))))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Num, E> {
                Ok(Num(Ok(None)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                Ok(Num(marker_value(v).map(Some).ok_or(Odd)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Num, A::Error> {
                drain_seq(seq).map(|()| Num(Err(Odd)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Num, A::Error> {
                drain_map(map).map(|()| Num(Err(Odd)))
            }
        }
        d.deserialize_any(NumVisitor)
    }
}

/// `batch_loss`, scanned without keeping the values; [`Odd`] when it is not
/// a list, or (in tolerant text) holds a value that is not a number.
struct LossScan<const TOLERANT: bool>(Result<Losses, Odd>);

impl<'de, const TOLERANT: bool> Deserialize<'de> for LossScan<TOLERANT> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ScanVisitor<const T: bool>;
        impl<'de, const T: bool> Visitor<'de> for ScanVisitor<T> {
            type Value = LossScan<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of losses")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LossScan<T>, A::Error> {
                let mut l = Losses::default();
                if !T {
                    while let Some(StrictLoss(null)) = seq.next_element::<StrictLoss>()? {
                        l.null |= null;
                    }
                    return Ok(LossScan(Ok(l)));
                }
                let mut odd = false;
                while let Some(Num(v)) = seq.next_element::<Num>()? {
                    match v {
                        Err(Odd) => odd = true,
                        Ok(None) => l.null = true,
                        Ok(Some(v)) if v.is_nan() => l.nan = true,
                        Ok(Some(v)) if v.is_infinite() => l.infinite = true,
                        Ok(Some(_)) => {}
                    }
                }
                Ok(LossScan(if odd { Err(Odd) } else { Ok(l) }))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LossScan<T>, E> {
                Ok(LossScan(Ok(Losses::default())))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LossScan<T>, A::Error> {
                drain_map(map).map(|()| LossScan(Err(Odd)))
            }
            odd_scalars!(LossScan<T>, LossScan(Err(Odd)));
        }
        d.deserialize_any(ScanVisitor::<TOLERANT>)
    }
}

/// A loss in strict JSON: whether it is `null`; a number (always finite
/// there) is skipped without being parsed.
struct StrictLoss(bool);

impl<'de> Deserialize<'de> for StrictLoss {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NullVisitor;
        impl<'de> Visitor<'de> for NullVisitor {
            type Value = StrictLoss;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a loss")
            }
            fn visit_none<E: de::Error>(self) -> Result<StrictLoss, E> {
                Ok(StrictLoss(true))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<StrictLoss, D::Error> {
                IgnoredAny::deserialize(d)?;
                Ok(StrictLoss(false))
            }
        }
        d.deserialize_option(NullVisitor)
    }
}

/// A text field; very old reports hold `vcd` as a bare number. [`Odd`]
/// for a value of another type.
struct Text(Result<Arc<str>, Odd>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text(Ok(intern(v))))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Text, E> {
                Ok(Text(Ok(intern(&v.to_string()))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Text, E> {
                Ok(Text(Ok(intern(&v.to_string()))))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Text, E> {
                Ok(Text(Err(Odd)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Text, E> {
                Ok(Text(Err(Odd)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Text, A::Error> {
                drain_seq(seq).map(|()| Text(Err(Odd)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text, A::Error> {
                drain_map(map).map(|()| Text(Err(Odd)))
            }
        }
        d.deserialize_any(TextVisitor)
    }
}

/// A bench name: a string only.
struct Name(Arc<str>);

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Name, E> {
                Ok(Name(intern(v)))
            }
        }
        d.deserialize_str(NameVisitor)
    }
}

/// A value read shallowly: a scalar, or a list or object of which only
/// whether it is empty is kept.
enum Shallow {
    Scalar(Value),
    Container { empty: bool },
}

impl Shallow {
    /// Python's truth value (of `completed`): `false`, `null`, `0`, `""` and
    /// empty containers are false. A marker stands for NaN or an infinity:
    /// true, as in Python.
    fn truth(&self) -> bool {
        match self {
            Shallow::Scalar(Value::Null) => false,
            Shallow::Scalar(Value::Bool(b)) => *b,
            Shallow::Scalar(Value::Number(n)) => n.as_f64() != Some(0.0),
            Shallow::Scalar(Value::String(s)) => !s.is_empty(),
            Shallow::Scalar(_) => true,
            Shallow::Container { empty } => !empty,
        }
    }

    /// The value of a config argument: scalars only, a marker as its token.
    fn scalar(self) -> Option<Value> {
        match self {
            Shallow::Scalar(Value::String(s)) if marker_value(&s).is_some() => {
                Some(Value::String(s.trim_start_matches('\0').to_string()))
            }
            Shallow::Scalar(v) => Some(v),
            Shallow::Container { .. } => None,
        }
    }
}

impl<'de> Deserialize<'de> for Shallow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ShallowVisitor;
        impl<'de> Visitor<'de> for ShallowVisitor {
            type Value = Shallow;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Shallow, E> {
                Ok(Shallow::Scalar(v.into()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Shallow, E> {
                Ok(Shallow::Scalar(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Shallow, E> {
                Ok(Shallow::Scalar(v.into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Shallow, E> {
                Ok(Shallow::Scalar(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Shallow, E> {
                Ok(Shallow::Scalar(Value::String(v.to_string())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Shallow, E> {
                Ok(Shallow::Scalar(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shallow, A::Error> {
                let mut empty = true;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    empty = false;
                }
                Ok(Shallow::Container { empty })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shallow, A::Error> {
                let mut empty = true;
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
                    empty = false;
                }
                Ok(Shallow::Container { empty })
            }
        }
        d.deserialize_any(ShallowVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(v: Value) -> Entry {
        let raw: Parsed<true, false> = serde_json::from_value(v).unwrap();
        raw.0.into_entry(&Arc::from(Path::new("f.json"))).unwrap().0
    }

    fn parse<const T: bool>(text: &str) -> Result<Entry, String> {
        let raw: Parsed<T, false> = serde_json::from_str(text).map_err(|e| e.to_string())?;
        raw.0.into_entry(&Arc::from(Path::new("f.json"))).map(|(entry, _)| entry).map_err(str::to_string)
    }

    #[test]
    fn the_models_keys_split_configs() {
        assert!(not_config("log") && not_config("telemetry") && not_config("seed"));
        assert!(!not_config("arch") && !not_config("batch_size") && !not_config("workers"));
    }

    #[test]
    fn fields_read() {
        let e = entry(json!({"name": "vae", "vcd": "01", "gpu": "V100", "suite": "fast", "completed": true,
            "train_item": {"avg": 12.5, "unit": "items/sec"}, "batch_loss": [0.5, 0.4],
            "batch_size": 64, "arch": "resnet18", "seed": 100, "jr_id": "0", "lr": 0.1,
            "metrics": {"a": [1]}, "list_arg": [1, 2], "nothing": null}));
        assert_eq!((e.name.as_deref(), e.vcd.as_deref(), e.single_device()), (Some("vae"), Some("1"), Some("1")));
        assert_eq!((e.completed, e.avg, e.losses), (Some(true), Some(12.5), Losses::default()));
        let args: Vec<&str> = e.args.iter().map(|(k, _)| &**k).collect();
        assert_eq!(args, ["arch", "batch_size", "lr", "nothing"], "scalars only, metadata left out, sorted");
        assert_eq!(e.args[3].1, Value::Null);
    }

    #[test]
    fn flops_figures_read_and_stay_out_of_the_config() {
        let e = entry(json!({"name": "gpt", "precision": "bf16", "flops_per_item": 7.5e8,
            "flops_formula": "6N + 12 L T d", "peak_tflops": 1.25, "peak_source": "probe"}));
        assert_eq!((e.flops_per_item, e.probe_peak), (Some(7.5e8), Some(1.25)));
        assert_eq!(e.args, vec![(intern("precision"), json!("bf16"))]);
        // Odd figures are left out; the entry is judged as it is.
        let odd = entry(json!({"name": "gpt", "flops_per_item": "many", "peak_tflops": -1, "completed": true}));
        assert_eq!((odd.flops_per_item, odd.probe_peak, odd.completed), (None, None, Some(true)));
        let none = entry(json!({"name": "vae"}));
        assert_eq!((none.flops_per_item, none.probe_peak), (None, None));
    }

    #[test]
    fn the_node_is_the_slurm_node_else_the_hostname() {
        let slurm = json!({"name": "a", "hostname": "host", "provenance": {"isolation": "slurm",
            "slurm": {"node": "n2", "job_id": 7, "step_id": 0, "task_id": 3, "local_id": 1}}});
        assert_eq!(entry(slurm).node(), Some("n2"));
        let bare = json!({"name": "a", "hostname": "host", "provenance": {"isolation": "cgroup", "slurm": null}});
        let bare = entry(bare);
        assert_eq!((bare.node(), bare.slurm_node.as_deref()), (Some("host"), None));
        for odd in [json!(5), json!([1]), json!({"slurm": {"node": {"x": 1}}}), json!({"slurm": "n1"})] {
            let e = entry(json!({"name": "a", "provenance": odd.clone()}));
            assert_eq!(e.node(), None, "{odd}: no node, and still an entry");
        }
        assert_eq!(entry(json!({"name": "a"})).node(), None);
    }

    #[test]
    fn null_name_missing_name_and_truth_of_completed() {
        let e = entry(json!({"name": null, "completed": false, "vcd": "0"}));
        assert_eq!((e.bench_label(), &e.name, e.completed), ("(null)", &None, Some(false)));
        for (v, truth) in [
            (json!(null), false),
            (json!(0), false),
            (json!(""), false),
            (json!([]), false),
            (json!(1), true),
            (json!("no"), true),
            (json!({"a": 1}), true),
        ] {
            assert_eq!(entry(json!({"name": "a", "completed": v})).completed, Some(truth), "{v}");
        }
        assert_eq!(entry(json!({"name": "a"})).completed, None);
        assert!(parse::<false>(r#"{"vcd": "0"}"#).is_err());
    }

    #[test]
    fn markers_nulls_and_numbers() {
        let text = r#"{"name": "a", "vcd": 2, "train_item": {"avg": "\u0000NaN"},
                       "batch_loss": [1.0, "\u0000Infinity", null], "failure": {"cause": "oom", "message": "m"}}"#;
        let e = parse::<true>(text).unwrap();
        assert!(e.avg.unwrap().is_nan());
        assert_eq!(e.losses, Losses { nan: false, infinite: true, null: true });
        assert!(e.losses.nan_or_null());
        assert_eq!((e.vcd.as_deref(), e.failure), (Some("2"), Some(("oom".into(), "m".into()))));
        assert_eq!(parse::<true>(r#"{"name": "a", "train_item": {"avg": null}}"#).unwrap().avg, None);
        assert!(parse::<true>(r#"{"name": "a", "batch_loss": ["x"]}"#).is_err());
        // Strict JSON: losses are skipped unparsed, a null is still seen.
        let strict = parse::<false>(r#"{"name": "a", "batch_loss": [1.5, null, 2e-3], "train_item": {"avg": 3}}"#);
        let strict = strict.unwrap();
        assert_eq!((strict.losses, strict.avg), (Losses { nan: false, infinite: false, null: true }, Some(3.0)));
        assert_eq!(parse::<false>(r#"{"name": "a", "batch_loss": [1.5, 0.2]}"#).unwrap().losses, Losses::default());
    }

    #[test]
    fn odd_fields_of_a_failed_entry_are_read_as_missing() {
        let failed = r#"{"name": "a", "completed": false, "vcd": [0], "train_item": "n/a", "batch_loss": 0.5,
                         "failure": "oom", "suite": {"x": 1}}"#;
        for e in [parse::<true>(failed).unwrap(), parse::<false>(failed).unwrap()] {
            assert_eq!((e.completed, e.vcd, e.avg, e.suite, e.failure), (Some(false), None, None, None, None));
        }
        let e = parse::<true>(r#"{"name": "a", "completed": 0, "failure": {"cause": 7, "message": null}}"#).unwrap();
        assert_eq!(e.failure, Some(("7".into(), String::new())));
        // A completed entry (or one without `completed`) with such a field is refused, naming it.
        for (text, field) in [
            (r#"{"name": "a", "train_item": "n/a"}"#, "`train_item`"),
            (r#"{"name": "a", "completed": true, "train_item": {"avg": "fast"}}"#, "`train_item`"),
            (r#"{"name": "a", "batch_loss": {"a": 1}}"#, "`batch_loss`"),
            (r#"{"name": "a", "vcd": 1.5}"#, "`vcd`"),
        ] {
            let err = parse::<true>(text).unwrap_err();
            assert!(err.contains(field), "{text}: {err}");
        }
    }
}
