//! `--format`: the one set of output formats every command that prints
//! results accepts.

use clap::ValueEnum;

/// What a command prints its results as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text for a person, fitted to the terminal's width.
    #[default]
    Text,
    /// JSON: every figure at full precision.
    Json,
    /// CSV: one table, or one table per section.
    Csv,
    /// Markdown: a heading per section and pipe tables.
    Markdown,
    /// One self-contained HTML page.
    Html,
}

impl Format {
    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "markdown",
            Format::Html => "html",
        }
    }
}
