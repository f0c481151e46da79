//! The report as text tables (comfy-table), for a terminal: a table wider
//! than the terminal (eight GPUs' columns) is cut into parts of columns
//! that fit, each part repeating the first column.

use super::super::Report;
use super::sections::{sections, Body, Cell};
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use mlb_record::untrusted::visible;

/// The width used when neither `COLUMNS` nor a terminal gives one.
pub const DEFAULT_WIDTH: usize = 80;

/// The narrowest width tables are fitted to.
const MIN_WIDTH: usize = 40;

/// The width text tables are fitted to: `COLUMNS` when it is a number, else
/// the terminal's (when stdout is one), else [`DEFAULT_WIDTH`].
pub fn width() -> usize {
    let given = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok());
    let terminal = || Table::new().width().map(usize::from);
    given.or_else(terminal).unwrap_or(DEFAULT_WIDTH).max(MIN_WIDTH)
}

/// `headers` and `rows` as text tables at most `width` characters wide:
/// the columns after the first in parts that fit, each part with the
/// first column; a part that cannot fit (a column of long text) has its
/// cells wrapped to the width.
pub fn fitted(headers: &[String], rows: &[Vec<Cell>], width: usize) -> String {
    let draw = |columns: &[usize], wrap: bool| {
        let mut table = Table::new();
        table.load_preset(UTF8_FULL_CONDENSED);
        if wrap {
            // Wrapped to a terminal's width only: piped, a file name stays whole on its line.
            table.set_content_arrangement(ContentArrangement::Dynamic);
        }
        table.set_header(columns.iter().map(|&c| visible(headers.get(c).map_or("", String::as_str))));
        for row in rows {
            table.add_row(columns.iter().map(|&c| visible(row.get(c).map_or("", |cell| cell.text.as_str()))));
        }
        table.to_string()
    };
    let wide = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let fit = |columns: &[usize]| {
        let text = draw(columns, false);
        if wide(&text) <= width {
            text
        } else {
            draw(columns, true)
        }
    };
    let all: Vec<usize> = (0..headers.len()).collect();
    if headers.len() < 3 || wide(&draw(&all, false)) <= width {
        return fit(&all);
    }
    let mut parts = Vec::new();
    let mut part = vec![0];
    for column in 1..headers.len() {
        part.push(column);
        if part.len() > 2 && wide(&draw(&part, false)) > width {
            part.pop();
            parts.push(fit(&part));
            part = vec![0, column];
        }
    }
    parts.push(fit(&part));
    parts.join("\n")
}

/// Renders every section: a title line, then its table, pairs or lines.
pub fn render(report: &Report) -> String {
    let width = width();
    let mut out = String::new();
    for section in sections(report) {
        let title = visible(&section.title);
        out.push_str(&format!("{title}\n{}\n", "=".repeat(title.chars().count())));
        match section.body {
            Body::Table { headers, rows } => out.push_str(&format!("{}\n", fitted(&headers, &rows, width))),
            Body::Pairs(pairs) => {
                let width = pairs.iter().map(|(k, _)| visible(k).chars().count()).max().unwrap_or(0);
                for (label, cell) in pairs {
                    out.push_str(&format!("{:<width$}  {}\n", visible(&label), visible(&cell.text)));
                }
            }
            Body::Lines(lines) => {
                for line in lines {
                    out.push_str(&format!("{}\n", visible(&line)));
                }
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_wider_than_the_terminal_is_cut_into_parts_that_fit() {
        let mut headers = vec!["config".to_string()];
        headers.extend((0..8).map(|d| format!("{d} (NVIDIA H100 80GB HBM3)")));
        let rows: Vec<Vec<Cell>> = ["convnet", "vae {\"batch_size\": 64}"]
            .iter()
            .map(|label| {
                let mut row = vec![Cell::from(*label)];
                row.extend((0..8).map(|d| Cell::from(format!("{}%", 93 + d))));
                row
            })
            .collect();
        let text = fitted(&headers, &rows, 80);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= 80, "{widest} wide:\n{text}");
        for h in &headers[1..] {
            assert_eq!(text.matches(h.as_str()).count(), 1, "{h} once:\n{text}");
        }
        for d in 0..8 {
            assert_eq!(text.matches(&format!("{}%", 93 + d)).count(), 2, "each cell once per row:\n{text}");
        }
        assert!(text.matches("convnet").count() > 1, "each part names its rows:\n{text}");
        // Wide enough: one table.
        let one = fitted(&headers, &rows, 400);
        assert_eq!(one.matches("config").count(), 1, "{one}");
    }
}
