//! The document model: what a command shows, independent of the format.

use serde::Serialize;

/// How a cell should stand out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// A check passed.
    Pass,
    /// A check failed.
    Fail,
    /// Worth a look (a GPU below 90% of the best).
    Warn,
}

/// One cell: text and an optional mark.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// What is shown.
    pub text: String,
    /// How it stands out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mark: Option<Mark>,
}

impl Cell {
    /// `text` marked `mark`.
    pub fn marked(text: impl Into<String>, mark: Mark) -> Self {
        Cell { text: text.into(), mark: Some(mark) }
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Cell { text, mark: None }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Cell { text: text.into(), mark: None }
    }
}

/// A table: a header and rows of cells. The first column names the row
/// (a config, a GPU, a rule): the text layouts repeat it in every part of
/// a table cut in parts, and head each block with it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Table {
    /// Column names.
    pub headers: Vec<String>,
    /// Rows of cells, as many as there are headers.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// A table with these `headers` and `rows`.
    pub fn new<H: Into<String>>(headers: impl IntoIterator<Item = H>, rows: Vec<Vec<Cell>>) -> Self {
        Table { headers: headers.into_iter().map(Into::into).collect(), rows }
    }
}

/// What a section holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Body {
    /// A table.
    Table(Table),
    /// Label and value pairs.
    Pairs(Vec<(String, Cell)>),
    /// Notes: lines of text, each wrapped to the width.
    Notes(Vec<String>),
}

impl Body {
    /// A table of these `headers` and `rows`.
    pub fn table<H: Into<String>>(headers: impl IntoIterator<Item = H>, rows: Vec<Vec<Cell>>) -> Self {
        Body::Table(Table::new(headers, rows))
    }
}

/// A titled part of a document. `A` is what a page puts after it (the
/// report's charts), unused by the other formats.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound(serialize = ""))]
pub struct Section<A = ()> {
    /// Title.
    pub title: String,
    /// Content.
    #[serde(flatten)]
    pub body: Body,
    /// What follows it in a page.
    #[serde(skip)]
    pub anchor: Option<A>,
}

impl<A> Section<A> {
    /// A section titled `title` holding `body`, with nothing after it.
    pub fn new(title: impl Into<String>, body: Body) -> Self {
        Section { title: title.into(), body, anchor: None }
    }
}

/// What a command shows: a title and its sections.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound(serialize = ""))]
pub struct Document<A = ()> {
    /// The document's title (`mlb report`): a page's title, a Markdown
    /// heading; text output does not print it.
    pub title: String,
    /// Its sections, in order.
    pub sections: Vec<Section<A>>,
}

impl<A> Document<A> {
    /// An empty document titled `title`.
    pub fn new(title: impl Into<String>) -> Self {
        Document { title: title.into(), sections: Vec::new() }
    }

    /// Adds a section titled `title` holding `body`.
    pub fn push(&mut self, title: impl Into<String>, body: Body) -> &mut Self {
        self.sections.push(Section::new(title, body));
        self
    }
}
