//! The one place errors leave mlb: every subcommand's error becomes an
//! [`MlbError`], which says whether mlb refused before it started anything
//! or failed while working ([`Classify`]), and so which exit status ends the
//! process; [`ExitError::render`] prints it for a person.
//!
//! The statuses and what they mean are in [`mlb_record::exit`].
//!
//! A user error prints as one plain block: `mlb: error: ...`, each cause the
//! message does not already include, then the fix. Colour only on a terminal
//! and never with `NO_COLOR`; where the error arose and a backtrace only when
//! `MLB_BACKTRACE` asks for them (not `RUST_BACKTRACE`, which many machines
//! set for every program: an expected error is not a bug, and a refused
//! input must not print a stack). Panics are bugs: the binary reports them
//! through color-eyre's panic hook (the library has no color-eyre).

use crate::commands::containers::BuildCmdError;
use mlb_judge::report::ReportError;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::{Fix, MARK as FIX};
use mlb_run::launch::LaunchError;
use mlb_run::plugins::SearchError;
use std::backtrace::Backtrace;
use std::error::Error;
use std::ffi::OsStr;
use std::panic::Location;

/// Every error a subcommand ends with.
#[derive(Debug, thiserror::Error)]
pub enum MlbError {
    /// `mlb --jobs FILE`.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// `mlb report`.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// `mlb accept`.
    #[error(transparent)]
    Accept(#[from] mlb_judge::accept::AcceptError),
    /// `mlb burn` (boxed: it holds a launch's errors and its own).
    #[error(transparent)]
    Burn(Box<crate::commands::burn::BurnError>),
    /// `mlb interfere` (boxed: it holds a launch's errors and its own).
    #[error(transparent)]
    Interfere(Box<crate::commands::interfere::InterfereError>),
    /// `mlb targets derive`.
    #[error(transparent)]
    Targets(#[from] mlb_judge::targets::TargetsError),
    /// `mlb plugins list`: no search path.
    #[error(transparent)]
    Plugins(#[from] SearchError),
    /// `mlb plugins show NAME`: no such plugin.
    #[error(transparent)]
    NoSuchPlugin(#[from] mlb_run::plugins::show::NoSuchPlugin),
    /// `mlb containers build`.
    #[error(transparent)]
    Build(#[from] BuildCmdError),
    /// `mlb slurm submit`.
    #[error(transparent)]
    Slurm(#[from] mlb_run::slurm::SlurmError),
    /// `mlb prepare` (boxed: its errors carry paths and settings).
    #[error(transparent)]
    Prepare(Box<mlb_prepare::PrepareError>),
    /// `mlb db ...`: the results store.
    #[error(transparent)]
    Store(#[from] mlb_store::store::StoreError),
    /// `mlb db` queries.
    #[error(transparent)]
    Query(#[from] mlb_store::store::query::QueryError),
    /// `mlb serve`.
    #[error(transparent)]
    Serve(#[from] mlb_store::serve::ServeError),
    /// `mlb generate man`.
    #[error(transparent)]
    Generate(#[from] crate::cli::generate::GenerateError),
    /// The result could not be printed.
    #[error("cannot write to stdout: {0}")]
    Stdout(#[source] std::io::Error),
    /// `--output FILE`: the result could not be written there.
    #[error("cannot write the output {}: {source}", path.display())]
    Output {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `mlb doctor`: the verdict could not be written.
    #[error("cannot write the verdict {}: {source}", path.display())]
    Verdict {
        /// The verdict file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Classify for MlbError {
    fn kind(&self) -> Kind {
        match self {
            MlbError::Launch(e) => e.kind(),
            MlbError::Report(e) => e.kind(),
            MlbError::Targets(e) => e.kind(),
            MlbError::Accept(e) => e.kind(),
            MlbError::Burn(e) => e.kind(),
            MlbError::Interfere(e) => e.kind(),
            MlbError::Plugins(e) => e.kind(),
            MlbError::NoSuchPlugin(_) => Kind::Refused,
            MlbError::Build(e) => e.kind(),
            MlbError::Slurm(e) => e.kind(),
            MlbError::Prepare(e) => e.kind(),
            MlbError::Store(e) => e.kind(),
            MlbError::Query(e) => e.kind(),
            MlbError::Serve(e) => e.kind(),
            MlbError::Generate(_) | MlbError::Stdout(_) | MlbError::Verdict { .. } => Kind::Failed,
            MlbError::Output { .. } => Kind::Refused,
        }
    }
}

impl Fix for MlbError {
    /// The fix of the error wrapped. A message kept as text with its fix
    /// (`MESSAGE; fix: FIX`, [`mlb_record::fix::one_line`]) is split by [`render`].
    fn fix(&self) -> Option<String> {
        match self {
            MlbError::Launch(e) => e.fix(),
            MlbError::Slurm(e) => e.fix(),
            MlbError::Prepare(e) => e.fix(),
            MlbError::NoSuchPlugin(e) => e.fix(),
            MlbError::Report(e) => e.fix(),
            MlbError::Targets(e) => e.fix(),
            MlbError::Accept(e) => e.fix(),
            MlbError::Burn(e) => e.fix(),
            MlbError::Interfere(e) => e.fix(),
            MlbError::Store(e) => e.fix(),
            MlbError::Query(e) => e.fix(),
            MlbError::Serve(e) => e.fix(),
            MlbError::Verdict { .. } => Some("pass another --outdir".into()),
            MlbError::Output { .. } => {
                Some("pass --output a new file, or a regular file in a folder that exists".into())
            }
            MlbError::Build(e) => e.fix(),
            MlbError::Plugins(_) | MlbError::Generate(_) | MlbError::Stdout(_) => None,
        }
    }
}

impl From<crate::commands::burn::BurnError> for MlbError {
    fn from(error: crate::commands::burn::BurnError) -> Self {
        MlbError::Burn(Box::new(error))
    }
}

impl From<crate::commands::interfere::InterfereError> for MlbError {
    fn from(error: crate::commands::interfere::InterfereError) -> Self {
        MlbError::Interfere(Box::new(error))
    }
}

impl From<mlb_prepare::PrepareError> for MlbError {
    fn from(error: mlb_prepare::PrepareError) -> Self {
        MlbError::Prepare(Box::new(error))
    }
}

impl MlbError {
    /// The exit status this error ends the process with.
    pub fn exit_code(&self) -> i32 {
        self.kind().exit_code()
    }
}

/// An error on its way out, with where it entered the edge (the `?` that
/// converted it) and, when [`BACKTRACE_VAR`] asks for one, a backtrace.
#[derive(Debug)]
pub struct ExitError {
    error: Box<MlbError>,
    location: &'static Location<'static>,
    backtrace: Option<Box<Backtrace>>,
}

impl<E: Into<MlbError>> From<E> for ExitError {
    #[track_caller]
    fn from(error: E) -> ExitError {
        let backtrace =
            wants_backtrace(std::env::var_os(BACKTRACE_VAR).as_deref()).then(|| Box::new(Backtrace::force_capture()));
        ExitError { error: Box::new(error.into()), location: Location::caller(), backtrace }
    }
}

impl ExitError {
    /// The error.
    pub fn error(&self) -> &MlbError {
        &self.error
    }

    /// The exit status this failure ends the process with.
    pub fn exit_code(&self) -> i32 {
        self.error.exit_code()
    }

    /// The text to print on stderr: the error's block, then (only when
    /// [`BACKTRACE_VAR`] asked for it) where it arose and the backtrace.
    pub fn render(&self, color: bool) -> String {
        let mut out = render(self.error.as_ref(), self.error.fix(), color);
        if let Some(backtrace) = &self.backtrace {
            out.push_str(&format!("  location: {}\n  backtrace:\n{backtrace}\n", self.location));
        }
        out
    }
}

/// The variable that asks for where an error arose and its backtrace: a
/// developer's, when an error's message is not enough to find its cause.
pub const BACKTRACE_VAR: &str = "MLB_BACKTRACE";

/// Whether [`BACKTRACE_VAR`] (its value) asks for backtraces: set, and not `0`.
pub fn wants_backtrace(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| v != "0")
}

/// Whether stderr gets colour: only on a terminal, and never when
/// `NO_COLOR` (its value) is set to anything but the empty string.
pub fn use_color(stderr_is_terminal: bool, no_color: Option<&OsStr>) -> bool {
    stderr_is_terminal && no_color.is_none_or(|v| v.is_empty())
}

/// [`use_color`] for this process's stderr and environment.
pub fn stderr_color() -> bool {
    use std::io::IsTerminal;
    use_color(std::io::stderr().is_terminal(), std::env::var_os("NO_COLOR").as_deref())
}

/// `error` as one block: `mlb: error: MESSAGE`, then each cause its message
/// does not already include (`caused by: ...`), then its `fix` and each fix
/// the messages still give in their text (`fix: ...`); control characters
/// of the messages and fixes escaped ([`mlb_record::untrusted::printable`]).
pub fn render(error: &(dyn Error + 'static), fix: Option<String>, color: bool) -> String {
    let paint = |code: &str, text: &str| if color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() };
    let mut said = String::new();
    let mut lines = Vec::new();
    let mut fixes: Vec<String> = fix.into_iter().map(|f| mlb_record::untrusted::printable(&f).into_owned()).collect();
    let mut next = Some(error);
    while let Some(e) = next {
        // A message may quote a file's content or name: no escape sequence
        // of it reaches the terminal, only the colours painted here.
        let text = mlb_record::untrusted::printable(&e.to_string()).into_owned();
        let (message, fix) = match text.split_once(FIX) {
            Some((message, fix)) => (message, Some(fix)),
            None => (text.as_str(), None),
        };
        if lines.is_empty() {
            lines.push(format!("{} {message}", paint("1;31", "mlb: error:")));
        } else if !said.contains(message) {
            lines.push(format!("  {} {message}", paint("1", "caused by:")));
        }
        said.push_str(message);
        said.push('\n');
        if let Some(fix) = fix.filter(|f| !fixes.iter().any(|known| known == f)) {
            fixes.push(fix.to_string());
        }
        next = e.source();
    }
    lines.extend(fixes.iter().map(|f| format!("  {} {f}", paint("1;32", "fix:"))));
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_run::runtime::docker::DockerError;
    use std::path::PathBuf;

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        let cases = [
            (true, None, true),
            (true, Some(""), true),
            (true, Some("1"), false),
            (true, Some("0"), false),
            (false, None, false),
            (false, Some(""), false),
            (false, Some("1"), false),
        ];
        for (terminal, no_color, expected) in cases {
            assert_eq!(
                use_color(terminal, no_color.map(OsStr::new)),
                expected,
                "tty {terminal}, NO_COLOR {no_color:?}"
            );
        }
    }

    #[test]
    fn backtraces_when_mlb_backtrace_is_set_and_not_zero() {
        assert!(!wants_backtrace(None));
        assert!(!wants_backtrace(Some(OsStr::new("0"))));
        assert!(wants_backtrace(Some(OsStr::new("1"))));
        assert!(wants_backtrace(Some(OsStr::new("full"))));
    }

    fn not_found() -> std::io::Error {
        std::io::Error::from(std::io::ErrorKind::NotFound)
    }

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let e = MlbError::from(ReportError::Folder { path: PathBuf::from("/x"), source: not_found() });
        assert_eq!(
            render(&e, e.fix(), false),
            "mlb: error: cannot read the reports folder /x: entity not found\n  \
             fix: pass the output folder of a run with --reports DIR\n"
        );
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot start the thing; fix: start it by hand")]
    struct Outer(#[source] Inner);

    #[derive(Debug, thiserror::Error)]
    #[error("the socket is gone; fix: start it by hand")]
    struct Inner;

    #[test]
    fn a_cause_not_in_the_message_is_shown_once_and_a_fix_once() {
        assert_eq!(
            render(&Outer(Inner), None, false),
            "mlb: error: cannot start the thing\n  caused by: the socket is gone\n  fix: start it by hand\n"
        );
    }

    #[test]
    fn colour_marks_the_labels_only() {
        let text = render(&Outer(Inner), None, true);
        assert!(text.starts_with("\x1b[1;31mmlb: error:\x1b[0m cannot start the thing\n"), "{text:?}");
        assert!(text.contains("\x1b[1;32mfix:\x1b[0m start it by hand\n"), "{text:?}");
        assert!(!render(&Outer(Inner), None, false).contains('\x1b'));
    }

    #[test]
    fn refusals_exit_2_failures_1() {
        let refused =
            MlbError::from(ReportError::Empty { path: "/x".into(), detail: String::new(), hint: String::new() });
        assert_eq!(refused.exit_code(), 2);
        let failed = MlbError::from(ReportError::Html { path: "/x.html".into(), source: not_found() });
        assert_eq!(failed.exit_code(), 1);
        assert_eq!(MlbError::from(LaunchError::NoJobsFile).exit_code(), 2);
        assert_eq!(MlbError::Stdout(not_found()).exit_code(), 1);
        let build = |e: DockerError| MlbError::from(BuildCmdError::Docker(e)).exit_code();
        assert_eq!(build(DockerError::Runtime(not_found())), 2);
        assert_eq!(build(DockerError::Build { tag: "t".into(), message: "step 3 failed".into() }), 1);
    }

    #[test]
    fn the_location_and_backtrace_only_when_asked() {
        let plain = ExitError {
            error: Box::new(LaunchError::NoJobsFile.into()),
            location: Location::caller(),
            backtrace: None,
        };
        assert!(!plain.render(false).contains("location:"));
        let debug = ExitError { backtrace: Some(Box::new(Backtrace::force_capture())), ..plain };
        let text = debug.render(false);
        assert!(text.contains(&format!("  location: {}:", file!())) && text.contains("  backtrace:\n"), "{text}");
    }
}
