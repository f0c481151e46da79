//! mlb's presentation layer: what every command prints goes through here.
//!
//! A command lays out what it found as a [`Document`]: titled sections,
//! each holding a table, label/value pairs or notes, with cells marked
//! pass, fail or warn. One back-end per [`Format`] turns it into what the
//! user asked for:
//!
//! - [`text`]: for a terminal, fitted to its width (or 100 columns when
//!   piped); a table too wide is cut into parts of columns, or laid out as
//!   one block per row, and a name is never broken;
//! - [`markdown`], [`csv`], [`json`];
//! - [`html`]: a section as HTML, inside the one page frame every page
//!   mlb writes or serves shares.
//!
//! Work that can take longer than 2 s shows its [`progress`] on stderr: a
//! bar on a terminal, one summary line otherwise.
//!
//! A command whose data has figures at full precision (a report, a store
//! query) prints JSON and CSV from its own data instead: the document holds
//! the figures as shown, rounded for a person.

pub mod csv;
pub mod document;
pub mod format;
pub mod html;
pub mod json;
pub mod markdown;
pub mod progress;
pub mod text;
pub mod width;

pub use document::{Body, Cell, Document, Mark, Section, Table};
pub use format::Format;
pub use progress::Progress;
pub use width::Width;

/// `document` in `format`, text fitted to `width`.
pub fn render<A>(document: &Document<A>, format: Format, width: Width) -> String {
    match format {
        Format::Text => text::render(document, width),
        Format::Json => json::render(document),
        Format::Csv => csv::render(document),
        Format::Markdown => markdown::render(document),
        Format::Html => html::render(document),
    }
}
