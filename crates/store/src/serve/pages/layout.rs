//! A served page in the one page frame of every page mlb writes or serves
//! ([`mlb_present::html::page`]: its head, its style sheet, compiled in; no
//! font or style sheet is fetched): before the content, a header with the
//! name of the dashboard and its navigation; after it, a footer naming the
//! store and mlb's version, and the scripts that draw the page's charts
//! (the library only where the page has a chart).

use super::assets;
use mlb_present::html::{escape, Page};

/// The parts of the dashboard, in the order of the navigation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// Every system and its last run.
    Systems,
    /// The runs, filtered; a run's report.
    Runs,
    /// Systems against a reference.
    Compare,
    /// A metric over time.
    History,
}

impl Section {
    const ALL: [Section; 4] = [Section::Systems, Section::Runs, Section::Compare, Section::History];

    /// Its name in the navigation.
    pub fn name(self) -> &'static str {
        match self {
            Section::Systems => "Systems",
            Section::Runs => "Runs",
            Section::Compare => "Compare",
            Section::History => "History",
        }
    }

    /// Its page's path.
    pub fn path(self) -> &'static str {
        match self {
            Section::Systems => "/systems",
            Section::Runs => "/runs",
            Section::Compare => "/compare",
            Section::History => "/history",
        }
    }
}

/// What frames a page.
pub struct Frame<'a> {
    /// The page's title (also its `<h1>`).
    pub title: &'a str,
    /// The part of the dashboard it belongs to.
    pub section: Section,
    /// The store's name, as the footer shows it (never a password).
    pub store: &'a str,
}

/// The mark of a chart's mount ([`mlb_judge::charts::embed::mount`]): a page
/// holding one loads the library. A page's own text is escaped, so no
/// figure or name can write it.
const MOUNT: &str = "<div class=\"chart\">";

/// The whole page: `content` (HTML) in the frame.
pub fn page(frame: &Frame, content: &str) -> String {
    let nav: String = Section::ALL
        .iter()
        .map(|s| {
            let current = if *s == frame.section { " class=\"current\" aria-current=\"page\"" } else { "" };
            format!("<a href=\"{}\"{current}>{}</a>", s.path(), s.name())
        })
        .collect();
    let header = format!("<header><a class=\"brand\" href=\"/\">mlb results</a><nav>{nav}</nav></header>\n");
    let library = if content.contains(MOUNT) { assets::library().element() } else { String::new() };
    let after = format!(
        "<footer>store: {store} · mlb {version}</footer>\n{library}{boot}\n",
        store = escape(frame.store),
        version = env!("CARGO_PKG_VERSION"),
        boot = assets::boot().element(),
    );
    mlb_present::html::page(Page {
        title: frame.title,
        head: "<link rel=\"icon\" href=\"data:,\">",
        before: &header,
        body: content,
        after: &after,
    })
}

/// What a page with pickers shows under them.
pub enum Shown<'a, T> {
    /// Nothing was asked yet.
    Nothing,
    /// The data asked for.
    Data(&'a T),
    /// Why the query has no data (a system the store does not hold...).
    Refused(&'a str),
}

/// What every page says on a store without a run.
pub const EMPTY_STORE: &str = "The store holds no run yet: import runs with mlb db import.";

/// A plain statement that there is nothing to show, and why.
pub fn empty(message: &str) -> String {
    format!("<p class=\"empty\">{}</p>\n", escape(message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_judge::charts::{embed, Chart, XAxis};

    const FRAME: Frame = Frame { title: "Runs <all>", section: Section::Runs, store: "sqlite:/x/results.db" };

    #[test]
    fn the_frame_names_the_page_its_section_and_store_and_loads_nothing_from_outside() {
        let html = page(&FRAME, "<p>x</p>");
        assert!(html.contains("<title>Runs &lt;all&gt;</title>") && html.contains("<h1>Runs &lt;all&gt;</h1>"));
        assert!(html.contains("<a href=\"/runs\" class=\"current\" aria-current=\"page\">Runs</a>"));
        assert_eq!(html.matches("class=\"current\"").count(), 1);
        for s in Section::ALL {
            assert!(html.contains(&format!("href=\"{}\"", s.path())), "{s:?} in the navigation");
        }
        assert!(html.contains("store: sqlite:/x/results.db · mlb "));
        for outside in ["://", "url(", "@import", "<link rel=\"stylesheet\""] {
            assert!(!html.contains(outside), "the page must not fetch anything: found {outside}");
        }
    }

    #[test]
    fn the_library_is_loaded_only_by_a_page_with_a_chart() {
        let plain = page(&FRAME, &empty("No runs match the filter."));
        assert!(!plain.contains(&assets::library().path) && plain.contains(&assets::boot().element()));
        assert!(plain.contains("<p class=\"empty\">No runs match the filter.</p>"));
        let chart = embed::mount(&Chart::new("t", XAxis::Seconds, 100));
        let charted = page(&FRAME, &chart);
        let (library, boot) = (charted.find(&assets::library().element()), charted.find(&assets::boot().element()));
        assert!(library.unwrap() < boot.unwrap(), "the library is defined before the charts are drawn");
    }
}
