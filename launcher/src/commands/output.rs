//! The output flags of every command that prints results, defined once:
//! `--format text|json|csv|markdown|html`, `--output FILE` and `--wide`.
//! A command flattens [`OutputArgs`] into its own options, lays out what it
//! found as a [`Document`] and hands it to [`OutputArgs::render`]; a
//! command that writes a file but prints no formats (`mlb targets derive`)
//! flattens [`OutputFile`] alone.

use clap::Args;
use mlb_present::{Document, Format, Width};
use std::path::PathBuf;

/// `--format`, `--output`, `--wide`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Args)]
pub struct OutputArgs {
    /// What to print: text for a person (fitted to the terminal's width, or
    /// 100 columns piped), json (every figure at full precision), csv,
    /// markdown or html (one self-contained page).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub format: Format,

    /// `--output FILE`.
    #[command(flatten)]
    pub file: OutputFile,

    /// Text: keep every table whole, wider than the terminal, instead of
    /// cutting it into parts or blocks that fit.
    #[arg(long)]
    pub wide: bool,
}

/// `--output FILE`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Args)]
pub struct OutputFile {
    /// Write the output into FILE instead of standard output: whole, or not
    /// at all; a regular file there is replaced, a link or a folder refused.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

impl OutputArgs {
    /// The file `--output` names, if any.
    pub fn path(&self) -> Option<&std::path::Path> {
        self.file.output.as_deref()
    }

    /// The width text is fitted to: standard output's, or 100 columns when
    /// the output goes into a file.
    pub fn width(&self) -> Width {
        let width = match self.file.output {
            Some(_) => Width::of(mlb_present::width::PIPED),
            None => Width::of_stdout(),
        };
        width.wide(self.wide)
    }

    /// `document` in the asked format.
    pub fn render<A>(&self, document: &Document<A>) -> String {
        mlb_present::render(document, self.format, self.width())
    }
}
