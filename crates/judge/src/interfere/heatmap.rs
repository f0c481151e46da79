//! The matrix's page, `interference.html`: the slowdowns as a heat map
//! (each cell coloured by its slowdown, red for a loss and blue for a gain,
//! its interval under it, bold when beyond the noise), then the rates
//! alone, the slots and the notes, in the frame of every page mlb writes.

use super::document::{self, interval, percent};
use super::matrix::{Cell, Interference};
use mlb_present::html::{self, escape, Page};

/// The slowdown (or gain) at which a cell's colour is the deepest.
pub const DEEPEST: f64 = 0.5;

/// The background of a cell of `slowdown`: white at 0, deepening to red
/// for a loss and to blue for a gain, the deepest at [`DEEPEST`].
pub fn colour(slowdown: f64) -> String {
    let depth = (slowdown.abs() / DEEPEST).min(1.0);
    let light = (255.0 * (1.0 - 0.75 * depth)).round() as u8;
    if slowdown >= 0.0 {
        format!("rgb(255,{light},{light})")
    } else {
        format!("rgb({light},{light},255)")
    }
}

/// One cell of the heat map.
fn cell(cell: Option<&Cell>) -> String {
    let Some(c) = cell else { return "<td class=\"heat\">-</td>".into() };
    let Some(slowdown) = c.slowdown else { return "<td class=\"heat\">no rate</td>".into() };
    let value = if c.significant { format!("<b>{}</b>", percent(slowdown)) } else { percent(slowdown) };
    format!(
        "<td class=\"heat\" style=\"background:{}\" title=\"{} beside {}: n={}\">{value}<br><small>{}</small></td>",
        colour(slowdown),
        escape(&c.victim),
        escape(&c.aggressor),
        c.n,
        escape(&interval(c)),
    )
}

/// The heat map: a row per victim, a column per aggressor.
fn heat_map(matrix: &Interference) -> String {
    let aggressors = matrix.aggressors();
    let mut out = String::from("<h2>Slowdown beside a neighbour (victim \\ aggressor)</h2>\n");
    out.push_str("<div class=\"scroll\"><table class=\"heatmap\"><tr><th>victim \\ aggressor</th>");
    for a in &aggressors {
        out.push_str(&format!("<th>{}</th>", escape(a)));
    }
    out.push_str("</tr>\n");
    for v in matrix.victims() {
        out.push_str(&format!("<tr><th>{}</th>", escape(v)));
        for a in &aggressors {
            out.push_str(&cell(matrix.cell(v, a)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>\n");
    out.push_str(&format!(
        "<p class=\"lead\">Red: the row's workload lost that share of its rate beside the column's; blue: it gained; \
         the deepest at {:.0}%. Bold: beyond the noise (the interval under it excludes 0).</p>\n",
        DEEPEST * 100.0
    ));
    out
}

/// The whole page.
pub fn page(matrix: &Interference) -> String {
    let doc = document::document(matrix);
    // The document's first section is the table the heat map shows.
    let rest: String = doc.sections.iter().skip(1).map(html::section).collect();
    let body = heat_map(matrix) + &rest;
    html::page(Page { title: &doc.title, body: &body, ..Page::default() })
}

#[cfg(test)]
mod tests {
    use super::super::matrix::tests::{cell, matrix};
    use super::*;

    #[test]
    fn cells_deepen_with_the_slowdown_red_for_a_loss_blue_for_a_gain() {
        assert_eq!(colour(0.0), "rgb(255,255,255)");
        assert_eq!(colour(0.5), "rgb(255,64,64)");
        assert_eq!(colour(2.0), colour(0.5), "the deepest past the bound");
        assert_eq!(colour(-0.25), "rgb(159,159,255)");
    }

    #[test]
    fn the_page_escapes_names_and_holds_every_cell_with_its_interval() {
        let matrix = matrix("<s>", &["a<b", "c"], vec![cell("a<b", "c", &[100.0, 101.0, 99.0], &[80.0, 81.0, 79.0])]);
        let page = page(&matrix);
        assert!(page.starts_with(html::START) && page.contains("<title>mlb interfere: &lt;s&gt;</title>"), "{page}");
        assert!(page.contains("<tr><th>a&lt;b</th><td class=\"heat\" style=\"background:rgb(255,"), "{page}");
        assert!(page.contains("<b>+20.0%</b><br><small>[+"), "{page}");
        assert!(!page.contains("a<b"), "no name unescaped");
    }
}
