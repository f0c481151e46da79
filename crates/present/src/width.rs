//! How wide text output may be.

use std::io::IsTerminal;

/// The width of text written to a pipe or a file: wide enough for the
/// common tables, narrow enough for a review or a mail.
pub const PIPED: usize = 100;

/// The narrowest width text is fitted to: below it, the tables' blocks
/// would be nothing but names.
pub const NARROWEST: usize = 40;

/// How wide text output may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Width {
    /// The widest a line may be.
    pub columns: usize,
    /// `--wide`: tables keep every column on one line, past `columns`.
    pub wide: bool,
}

impl Width {
    /// Lines of at most `columns` characters (at least [`NARROWEST`]).
    pub fn of(columns: usize) -> Self {
        Width { columns: columns.max(NARROWEST), wide: false }
    }

    /// The width of standard output: `COLUMNS` when it is a number, else
    /// the terminal's when standard output is one, else [`PIPED`].
    pub fn of_stdout() -> Self {
        let given = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok());
        let terminal =
            || std::io::stdout().is_terminal().then(|| comfy_table::Table::new().width().map(usize::from)).flatten();
        Width::of(given.or_else(terminal).unwrap_or(PIPED))
    }

    /// The same width, tables kept whole when `wide`.
    pub fn wide(self, wide: bool) -> Self {
        Width { wide, ..self }
    }
}
