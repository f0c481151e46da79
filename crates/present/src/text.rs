//! The text back-end: a document for a terminal, every line within the
//! [`Width`], and no name ever broken across lines.
//!
//! A table that fits is drawn whole. One too wide is cut into parts of
//! columns that fit, each part repeating the first column (eight GPUs'
//! columns), as `kubectl get` without `-o wide` shows fewer columns. When
//! even the first column and one other do not fit (a column of long text),
//! each row becomes a block: its name, then one `header  value` line per
//! column, values wrapped at spaces, as `cargo tree` lays out one item per
//! line. `--wide` keeps every table whole, past the width.
//!
//! Text is wrapped only between words: a word longer than the whole width
//! (a long path) stands alone on its line, whole, so `grep` finds it.

use crate::document::{Body, Document, Section, Table};
use crate::width::Width;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::ContentArrangement;
use mlb_record::untrusted::visible;

/// `document` as text: each section's title, underlined, then its body.
pub fn render<A>(document: &Document<A>, width: Width) -> String {
    document.sections.iter().map(|s| section(s, width)).collect::<Vec<_>>().join("\n")
}

/// One section: its title, underlined, its body and a blank line.
pub fn section<A>(section: &Section<A>, width: Width) -> String {
    let title = wrap(&visible(&section.title), "", 0, width.columns);
    let rule = "=".repeat(title.iter().map(|l| chars(l)).max().unwrap_or(0));
    let mut out = title.join("\n") + "\n" + &rule + "\n";
    out.push_str(&body(&section.body, width));
    out
}

/// A section's body as lines, each ending in a line break.
pub fn body(body: &Body, width: Width) -> String {
    let lines = match body {
        Body::Table(t) => return table(t, width),
        Body::Pairs(pairs) => {
            let pairs: Vec<(String, String)> = pairs
                .iter()
                .map(|(label, cell)| (visible(label).into_owned(), visible(&cell.text).into_owned()))
                .collect();
            labelled(&pairs, 0, width.columns)
        }
        Body::Notes(notes) => notes.iter().flat_map(|n| wrap(&visible(n), "", 2, width.columns)).collect(),
    };
    lines.into_iter().map(|l| l + "\n").collect()
}

/// `table` fitted to `width`: whole, in parts of columns, or as blocks.
pub fn table(table: &Table, width: Width) -> String {
    let all: Vec<usize> = (0..table.headers.len()).collect();
    let whole = draw(table, &all);
    if width.wide || widest(&whole) <= width.columns {
        return whole;
    }
    match parts(table, width.columns) {
        Some(parts) => parts.join(""),
        None => blocks(table, width.columns),
    }
}

/// The table cut into parts of columns, each with the first and each at
/// most `columns` wide; `None` when the first column and any one other
/// are already too wide.
fn parts(table: &Table, columns: usize) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut part = vec![0];
    let fits = |part: &[usize]| widest(&draw(table, part)) <= columns;
    for column in 1..table.headers.len() {
        part.push(column);
        if fits(&part) {
            continue;
        }
        part.pop();
        if part.len() == 1 {
            return None;
        }
        parts.push(draw(table, &part));
        part = vec![0, column];
        if !fits(&part) {
            return None;
        }
    }
    parts.push(draw(table, &part));
    Some(parts)
}

/// One block per row: its first cell, then the other columns as
/// `header  value` lines indented under it; a blank line between blocks.
fn blocks(table: &Table, columns: usize) -> String {
    let mut out = Vec::new();
    for row in &table.rows {
        if !out.is_empty() {
            out.push(String::new());
        }
        let name = row.first().map_or(String::new(), |c| visible(&c.text).into_owned());
        out.extend(wrap(&name, "", 2, columns));
        let pairs: Vec<(String, String)> = table
            .headers
            .iter()
            .zip(row)
            .skip(1)
            .map(|(h, c)| (visible(h).into_owned(), visible(&c.text).into_owned()))
            .collect();
        out.extend(labelled(&pairs, 2, columns));
    }
    out.into_iter().map(|l| l + "\n").collect()
}

/// `label  value` lines indented by `indent`, the values aligned and
/// wrapped under themselves; when the labels take more than half the
/// width, each value goes under its label instead.
fn labelled(pairs: &[(String, String)], indent: usize, columns: usize) -> Vec<String> {
    let label_width = pairs.iter().map(|(l, _)| chars(l)).max().unwrap_or(0);
    let pad = " ".repeat(indent);
    let mut lines = Vec::new();
    for (label, value) in pairs {
        if indent + label_width + 2 <= columns / 2 {
            let first = format!("{pad}{label:<label_width$}  ");
            lines.extend(wrap(value, &first, indent + label_width + 2, columns).into_iter().map(trim_end));
        } else {
            lines.extend(wrap(label, &pad, indent + 2, columns));
            lines.extend(wrap(value, &format!("{pad}    "), indent + 4, columns));
        }
    }
    lines
}

/// `text` after `first` on the first line and `indent` spaces on the
/// next ones, broken between words to lines of at most `columns`
/// characters. A word wider than a line stands alone on one, whole (after
/// `first` when that is only spaces, else on the next line).
pub fn wrap(text: &str, first: &str, indent: usize, columns: usize) -> Vec<String> {
    if chars(first) + chars(text) <= columns {
        return vec![format!("{first}{text}")];
    }
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let fits = chars(&line) + usize::from(!empty) + chars(word) <= columns;
        // A word that does not fit goes on a line of its own, unless the
        // line holds nothing yet but spaces.
        let blank = empty && line.trim().is_empty();
        if !(fits || blank) {
            lines.push(std::mem::replace(&mut line, " ".repeat(indent)));
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    lines.push(line);
    lines
}

/// The `columns` of `table` drawn with borders, cells made visible, no
/// cell wrapped.
fn draw(table: &Table, columns: &[usize]) -> String {
    let mut drawn = comfy_table::Table::new();
    drawn.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Disabled);
    drawn.set_header(columns.iter().map(|&c| visible(table.headers.get(c).map_or("", String::as_str))));
    for row in &table.rows {
        drawn.add_row(columns.iter().map(|&c| visible(row.get(c).map_or("", |cell| cell.text.as_str()))));
    }
    format!("{drawn}\n")
}

/// `text` cut to at most `columns` characters, its last one `…` when cut:
/// for a line of prose that must stay one line (a description in a list).
pub fn cut(text: &str, columns: usize) -> String {
    if chars(text) <= columns {
        return text.to_string();
    }
    let kept: String = text.chars().take(columns.saturating_sub(1)).collect();
    kept + "…"
}

/// `text` cut to at most `columns` characters from its start, its first one
/// `…` when cut: for a path, whose file name is at its end.
pub fn cut_start(text: &str, columns: usize) -> String {
    let count = chars(text);
    if count <= columns {
        return text.to_string();
    }
    let kept: String = text.chars().skip(count - columns.saturating_sub(1)).collect();
    format!("…{kept}")
}

/// The widest line of `text`, in characters.
pub fn widest(text: &str) -> usize {
    text.lines().map(chars).max().unwrap_or(0)
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

fn trim_end(line: String) -> String {
    line.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Cell;

    #[test]
    fn a_cut_line_ends_and_a_cut_path_starts_with_an_ellipsis() {
        assert_eq!(cut("trains a small model", 20), "trains a small model");
        assert_eq!(cut("trains a small model", 10), "trains a …");
        assert_eq!(chars(&cut("ünïcode text", 5)), 5);
        assert_eq!(cut_start("/a/long/folder/libmlb_torch.so", 30), "/a/long/folder/libmlb_torch.so");
        assert_eq!(cut_start("/a/long/folder/libmlb_torch.so", 20), "…der/libmlb_torch.so");
    }

    fn gpus() -> Table {
        let mut headers = vec!["config".to_string()];
        headers.extend((0..8).map(|d| format!("{d} (NVIDIA H100 80GB HBM3)")));
        let rows = ["convnet", "vae {\"batch_size\": 64}"]
            .iter()
            .map(|label| {
                std::iter::once(Cell::from(*label)).chain((0..8).map(|d| format!("{}%", 93 + d).into())).collect()
            })
            .collect();
        Table { headers, rows }
    }

    #[test]
    fn a_table_of_many_figures_is_cut_into_parts_each_naming_its_rows() {
        let table = gpus();
        let text = super::table(&table, Width::of(80));
        assert!(widest(&text) <= 80, "{}:\n{text}", widest(&text));
        for h in &table.headers[1..] {
            assert_eq!(text.matches(h.as_str()).count(), 1, "{h} once:\n{text}");
        }
        for d in 0..8 {
            assert_eq!(text.matches(&format!("{}%", 93 + d)).count(), 2, "each cell once per row:\n{text}");
        }
        assert!(text.matches("convnet").count() > 1, "each part names its rows:\n{text}");
        let whole = super::table(&table, Width::of(400));
        assert_eq!(whole.matches("config").count(), 1, "{whole}");
        let wide = super::table(&table, Width::of(80).wide(true));
        assert_eq!(wide, whole, "--wide keeps the table whole");
    }

    #[test]
    fn a_table_of_long_text_becomes_one_block_per_row_and_no_name_is_broken() {
        let description =
            "A convolutional network trained on generated images, distributed over every rank of the node";
        let table = Table::new(
            ["workload", "description"],
            vec![
                vec!["convnet_distributed".into(), description.into()],
                vec!["a_name_longer_than_the_whole_width_of_the_terminal_itself".into(), "short".into()],
            ],
        );
        let text = super::table(&table, Width::of(40));
        for line in text.lines().filter(|l| !l.contains("a_name_longer")) {
            assert!(chars(line) <= 40, "{line:?} in\n{text}");
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        for word in description
            .split(' ')
            .chain(["convnet_distributed", "a_name_longer_than_the_whole_width_of_the_terminal_itself"])
        {
            assert!(words.contains(&word), "{word} whole in\n{text}");
        }
        assert!(!text.contains('│'), "blocks, not a table:\n{text}");
        let mut last = table.clone();
        for (row, n) in last.rows.iter_mut().zip(["1", "2"]) {
            row.insert(1, n.into());
        }
        last.headers.insert(1, "n".into());
        let text = super::table(&last, Width::of(60));
        assert!(!text.contains('│'), "a long last column makes blocks too:\n{text}");
    }

    #[test]
    fn a_table_whose_first_column_fits_with_some_columns_but_not_all_becomes_blocks() {
        let subject = "convnet gpu 5 node gpu-node-rack12-slot02.cluster.example.org";
        let rule = "every-gpu-within-ten-percent-of-the-best";
        let table = Table::new(["subject", "outcome", "rule"], vec![vec![subject.into(), "FAIL".into(), rule.into()]]);
        let text = super::table(&table, Width::of(100));
        assert!(text.lines().all(|l| chars(l) <= 100), "{text}");
        assert!(text.starts_with(&format!("{subject}\n")) && text.contains(rule), "blocks:\n{text}");
    }

    #[test]
    fn wrapping_breaks_between_words_under_a_hanging_indent() {
        let lines = wrap("one two three four five", "label  ", 7, 18);
        assert_eq!(lines, ["label  one two", "       three four", "       five"]);
        assert_eq!(wrap("short", "x ", 2, 80), ["x short"]);
        let path = "/a/path/longer/than/the/whole/width/of/the/line";
        assert_eq!(wrap(path, "file  ", 6, 20), ["file  ", &format!("      {path}")], "alone under its label");
        assert_eq!(wrap(&format!("{path} x"), "", 2, 20), [path, "  x"]);
    }

    #[test]
    fn pairs_align_their_values_and_wrap_them_under_themselves() {
        let body = Body::Pairs(vec![
            ("suite".into(), Cell::from("smoke")),
            ("reports".into(), Cell::from("a b c d e f g h i j k l m n o p q r s t u v w x y z")),
        ]);
        let text = super::body(&body, Width::of(40));
        assert!(text.starts_with("suite    smoke\nreports  a b c"), "{text}");
        assert!(text.lines().all(|l| chars(l) <= 40), "{text}");
        assert!(text.lines().skip(2).all(|l| l.starts_with("         ")), "{text}");
    }
}
