//! A workload's declared arguments: one struct, written once with
//! [`workload_args!`](crate::workload_args), from which come the defaults the
//! manifest and the table publish, the kind of every argument (what
//! `mlb --jobs` checks before anything starts), its description (the field's
//! doc comment, which `mlb plugins show` prints) and the parsing of a config.
//!
//! ```
//! mlb_plugin::workload_args! {
//!     /// Arguments of a small regression.
//!     pub struct Args {
//!         repeat = 20, number = 100;
//!         /// Samples per step.
//!         pub batch_size: u64 = 256,
//!         /// SGD learning rate.
//!         pub lr: f64 = 0.01,
//!         /// A data folder (synthetic data when absent).
//!         pub data: Option<String>,
//!     }
//! }
//! use mlb_plugin::{ArgKind, Config, WorkloadArgs};
//! assert_eq!(Args::DEFAULTS, r#"{"repeat": 20, "number": 100, "batch_size": 256, "lr": 0.01}"#);
//! assert_eq!(Args::DECLARED[3].kind, ArgKind::Count);
//! assert_eq!(Args::DECLARED[4].help, "SGD learning rate.");
//! let args = Args::from_config(&Config::parse(r#"{"lr": "0.5"}"#).unwrap()).unwrap();
//! assert_eq!((args.batch_size, args.lr, args.data), (256, 0.5, None));
//! ```

use crate::config::{Config, ConfigError};
use serde_json::{Map, Value};

/// The kind of value an argument takes, as the manifest records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgKind {
    /// A non-negative integer that fits a `u64` (a JSON integer or a string of one).
    Count,
    /// A number (a JSON number or a string of one).
    Number,
    /// A string (numbers are rendered).
    Text,
    /// A flag: absent, `false`, `0` and `"false"` are off, anything else on.
    Flag,
}

impl ArgKind {
    /// Every kind, in the order of their codes in the manifest.
    pub const ALL: [ArgKind; 4] = [ArgKind::Count, ArgKind::Number, ArgKind::Text, ArgKind::Flag];

    /// The kind's name (`count`, `number`, `text`, `flag`).
    pub const fn name(self) -> &'static str {
        match self {
            ArgKind::Count => "count",
            ArgKind::Number => "number",
            ArgKind::Text => "text",
            ArgKind::Flag => "flag",
        }
    }

    /// The kind named `name`.
    pub fn from_name(name: &str) -> Option<ArgKind> {
        ArgKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One declared argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arg {
    /// Its key in a config.
    pub name: &'static str,
    /// What it takes.
    pub kind: ArgKind,
    /// What it does, with its unit and range: the field's doc comment, its
    /// lines joined into one paragraph.
    pub help: &'static str,
}

/// The worker's counts, which every workload takes: the first arguments of
/// [`WorkloadArgs::DECLARED`].
pub const COUNTS: [Arg; 3] = [
    Arg {
        name: "repeat",
        kind: ArgKind::Count,
        help: "Observations of `number` steps each; the first `skip` are warm-up, the others timed.",
    },
    Arg { name: "number", kind: ArgKind::Count, help: "Steps in one observation, timed together." },
    Arg {
        name: "skip",
        kind: ArgKind::Count,
        help: "Warm-up observations left out of the statistics (10 when absent); less than `repeat`.",
    },
];

/// A workload's arguments: what [`workload_args!`](crate::workload_args)
/// implements for the struct it declares.
pub trait WorkloadArgs: Sized {
    /// The defaults, a JSON object: the worker's counts (`repeat`, `number`,
    /// `skip`), then every argument that has a default, in declaration order.
    const DEFAULTS: &'static str;
    /// Every argument, the worker's counts first.
    const DECLARED: &'static [Arg];

    /// Reads the arguments from a config, a default where one is absent.
    fn from_config(config: &Config) -> Result<Self, ConfigError>;
}

/// No declared arguments: the workload reads the raw config itself, and its
/// manifest lists no defaults and no kinds.
impl WorkloadArgs for Config {
    const DEFAULTS: &'static str = "{}";
    const DECLARED: &'static [Arg] = &[];

    fn from_config(config: &Config) -> Result<Self, ConfigError> {
        Ok(config.clone())
    }
}

/// A type a declared argument may have.
pub trait ArgValue: Sized {
    /// Its kind.
    const KIND: ArgKind;

    /// The value of `key` in `config`; `None` when it is absent.
    fn read(config: &Config, key: &str) -> Result<Option<Self>, ConfigError>;

    /// The value of an argument that is absent and has no default.
    fn absent(key: &str) -> Result<Self, ConfigError> {
        Err(ConfigError::missing(key))
    }
}

/// `key` is absent (missing, `null`, or `""` for a value that is not a flag).
fn absent(config: &Config, key: &str) -> bool {
    matches!(config.get(key), None | Some(Value::Null)) || config.get(key) == Some(&Value::String(String::new()))
}

impl ArgValue for u64 {
    const KIND: ArgKind = ArgKind::Count;

    fn read(config: &Config, key: &str) -> Result<Option<Self>, ConfigError> {
        if absent(config, key) {
            return Ok(None);
        }
        config.u64_or(key, 0).map(Some)
    }
}

impl ArgValue for usize {
    const KIND: ArgKind = ArgKind::Count;

    fn read(config: &Config, key: &str) -> Result<Option<Self>, ConfigError> {
        if absent(config, key) {
            return Ok(None);
        }
        config.usize_or(key, 0).map(Some)
    }
}

impl ArgValue for f64 {
    const KIND: ArgKind = ArgKind::Number;

    fn read(config: &Config, key: &str) -> Result<Option<Self>, ConfigError> {
        if absent(config, key) {
            return Ok(None);
        }
        config.f64_or(key, 0.0).map(Some)
    }
}

impl ArgValue for String {
    const KIND: ArgKind = ArgKind::Text;

    fn read(config: &Config, key: &str) -> Result<Option<Self>, ConfigError> {
        config.opt_str(key)
    }
}

impl ArgValue for bool {
    const KIND: ArgKind = ArgKind::Flag;

    fn read(config: &Config, key: &str) -> Result<Option<Self>, ConfigError> {
        Ok(config.get(key).filter(|v| !v.is_null()).map(|_| config.flag(key)))
    }

    /// An absent flag without a default is off.
    fn absent(_key: &str) -> Result<Self, ConfigError> {
        Ok(false)
    }
}

impl<T: ArgValue> ArgValue for Option<T> {
    const KIND: ArgKind = T::KIND;

    fn read(config: &Config, key: &str) -> Result<Option<Self>, ConfigError> {
        Ok(T::read(config, key)?.map(Some))
    }

    /// An optional argument may be absent.
    fn absent(_key: &str) -> Result<Self, ConfigError> {
        Ok(None)
    }
}

/// The value of the declared argument `key`: the config's, else its
/// `default` (the JSON text of the declaration's literal, read with the same
/// rules), else what the type makes of an absent argument.
pub fn read_arg<T: ArgValue>(config: &Config, key: &str, default: Option<&str>) -> Result<T, ConfigError> {
    if let Some(value) = T::read(config, key)? {
        return Ok(value);
    }
    let Some(text) = default else { return T::absent(key) };
    let value: Value = serde_json::from_str(text).map_err(|_| ConfigError::bad_default(key, text))?;
    let defaults = Config::from_map(Map::from_iter([(key.to_string(), value)]));
    match T::read(&defaults, key)? {
        Some(value) => Ok(value),
        None => T::absent(key),
    }
}

/// Declares a workload's arguments: a struct with one field per argument,
/// and its [`WorkloadArgs`] (defaults, kinds, parsing).
///
/// The body starts with the worker's counts, `repeat = N, number = N` and
/// optionally `, skip = N`, then `;`, then the fields: `name: Type = literal`
/// with a default, `name: Type` without one (an `Option`, a flag that is
/// off, or an argument the config must give). The field's name is its key in
/// a config; the literal is both the Rust default and its JSON text in the
/// manifest, so it is written as JSON writes it (`0.0005`, `"resnet101"`,
/// `""` for a flag that is on). Types: `u64`, `usize` (kind count), `f64`
/// (number), `String` (text), `bool` (flag), and `Option` of those.
///
/// Every field has a doc comment, its description in the manifest and in
/// `mlb plugins show`: what the argument does, its unit and its range, and
/// what an absent `Option` means. A field without one does not compile.
///
/// ```compile_fail
/// mlb_plugin::workload_args! {
///     /// Arguments without a word on `lr`.
///     pub struct Args {
///         repeat = 20, number = 100;
///         pub lr: f64 = 0.01,
///     }
/// }
/// ```
#[macro_export]
macro_rules! workload_args {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            repeat = $repeat:literal, number = $number:literal $(, skip = $skip:literal)? ;
            $(
                $(#[doc = $doc:literal])*
                $field_vis:vis $field:ident : $ty:ty $(= $default:literal)?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        $vis struct $name {
            $(
                $(#[doc = $doc])*
                $field_vis $field: $ty,
            )*
        }

        // Every argument is described.
        const _: () = {
            $(assert!(
                !concat!($($doc),*).trim_ascii().is_empty(),
                concat!("argument `", stringify!($field), "` of `", stringify!($name),
                    "` has no doc comment: say what it does, its unit and its range"),
            );)*
        };

        impl $crate::WorkloadArgs for $name {
            const DEFAULTS: &'static str = concat!(
                "{\"repeat\": ", stringify!($repeat), ", \"number\": ", stringify!($number),
                $(", \"skip\": ", stringify!($skip),)?
                $($(", \"", stringify!($field), "\": ", stringify!($default),)?)*
                "}"
            );
            const DECLARED: &'static [$crate::Arg] = &[
                $crate::COUNTS[0],
                $crate::COUNTS[1],
                $crate::COUNTS[2],
                $($crate::Arg {
                    name: stringify!($field),
                    kind: <$ty as $crate::ArgValue>::KIND,
                    help: concat!($($doc),*).trim_ascii(),
                },)*
            ];

            fn from_config(config: &$crate::Config) -> ::std::result::Result<Self, $crate::ConfigError> {
                Ok($name {
                    $($field: $crate::read_arg::<$ty>(
                        config,
                        stringify!($field),
                        $crate::__default_text!($($default)?),
                    )?,)*
                })
            }
        }
    };
}

/// The JSON text of an optional default literal (for [`workload_args!`]).
#[doc(hidden)]
#[macro_export]
macro_rules! __default_text {
    () => {
        None
    };
    ($default:literal) => {
        Some(stringify!($default))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::workload_args! {
        /// Every kind, with and without defaults.
        struct Every {
            repeat = 10, number = 5, skip = 1;
            /// Samples per step.
            batch_size: usize = 64,
            /// Learning rate,
            /// over two lines.
            lr: f64 = 20,
            /// Model.
            arch: String = "resnet101",
            /// Loss scale.
            loss_scale: String = 128,
            /// GAE.
            use_gae: bool = "",
            /// Frozen batch norm.
            frozen_bn: bool,
            /// Devices.
            devices: Option<u64>,
            /// Data folder.
            data: Option<String>,
            /// Must be given.
            required: u64,
        }
    }

    fn parse(text: &str) -> Result<Every, ConfigError> {
        Every::from_config(&Config::parse(text).unwrap())
    }

    #[test]
    fn the_defaults_are_the_literals_as_written() {
        assert_eq!(
            Every::DEFAULTS,
            r#"{"repeat": 10, "number": 5, "skip": 1, "batch_size": 64, "lr": 20, "arch": "resnet101", "loss_scale": 128, "use_gae": ""}"#
        );
        let parsed: Value = serde_json::from_str(Every::DEFAULTS).unwrap();
        assert_eq!(parsed["lr"], 20);
    }

    #[test]
    fn kinds_come_from_the_types() {
        let kinds: Vec<(&str, &str)> = Every::DECLARED.iter().map(|a| (a.name, a.kind.name())).collect();
        assert_eq!(
            kinds,
            [
                ("repeat", "count"),
                ("number", "count"),
                ("skip", "count"),
                ("batch_size", "count"),
                ("lr", "number"),
                ("arch", "text"),
                ("loss_scale", "text"),
                ("use_gae", "flag"),
                ("frozen_bn", "flag"),
                ("devices", "count"),
                ("data", "text"),
                ("required", "count"),
            ]
        );
        assert!(ArgKind::ALL.iter().all(|k| ArgKind::from_name(k.name()) == Some(*k)));
        assert_eq!(ArgKind::from_name("integer"), None);
    }

    #[test]
    fn descriptions_are_the_doc_comments_in_one_paragraph() {
        let help: Vec<&str> = Every::DECLARED.iter().map(|a| a.help).collect();
        assert_eq!(help[..3], COUNTS.map(|a| a.help));
        assert_eq!(help[3..5], ["Samples per step.", "Learning rate, over two lines."]);
        assert!(help.iter().all(|h| !h.is_empty() && h.trim() == *h), "{help:?}");
    }

    #[test]
    fn absent_arguments_take_their_defaults() {
        let e = parse(r#"{"required": 3}"#).unwrap();
        assert_eq!(
            e,
            Every {
                batch_size: 64,
                lr: 20.0,
                arch: "resnet101".into(),
                loss_scale: "128".into(),
                use_gae: true,
                frozen_bn: false,
                devices: None,
                data: None,
                required: 3,
            }
        );
    }

    #[test]
    fn given_arguments_are_read_as_their_kind() {
        let e = parse(
            r#"{"required": "4", "batch_size": "32", "lr": 0.5, "arch": "resnet18", "loss_scale": "dynamic",
                "use_gae": false, "frozen_bn": "", "devices": 2, "data": "/d"}"#,
        )
        .unwrap();
        assert_eq!((e.required, e.batch_size, e.lr), (4, 32, 0.5));
        assert_eq!((e.arch.as_str(), e.loss_scale.as_str()), ("resnet18", "dynamic"));
        assert!(!e.use_gae && e.frozen_bn);
        assert_eq!((e.devices, e.data.as_deref()), (Some(2), Some("/d")));
        // `null` and `""` are absent arguments.
        let e = parse(r#"{"required": 1, "batch_size": null, "data": ""}"#).unwrap();
        assert_eq!((e.batch_size, e.data), (64, None));
    }

    #[test]
    fn bad_and_missing_arguments_name_the_key() {
        let e = parse(r#"{"required": 1, "batch_size": -1}"#).unwrap_err().to_string();
        assert!(e.contains("batch_size") && e.contains("-1"), "{e}");
        assert_eq!(parse("{}").unwrap_err().to_string(), "argument `required` is missing and has no default");
    }
}
