//! CSV cells of text mlb did not write, and the reading back of the CSV
//! files mlb reads (target tables). A cell is quoted as RFC 4180 says when
//! it holds a comma, a quote, a line break, a leading `#` or an edge space;
//! a text that a spreadsheet would take for a formula (`=`, `+`, `-`, `@`,
//! a tab or a carriage return first) gets a `'` in front, as OWASP advises,
//! and [`records`] takes it off again, so that a table reads back as it was
//! written. A bench named `convnet,1,1,100\nzzz` once planted a row of its
//! own in a derived target table, and `=HYPERLINK(...)` ran in a
//! spreadsheet opening an export. Numbers mlb writes are no text: they are
//! written as they are ([`number`]), a negative one included.

use super::visible;

/// The characters that make a spreadsheet read a cell as a formula.
const FORMULA: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// `text` as one CSV cell, exactly: [`records`] reads back `text` itself.
pub fn cell(text: &str) -> String {
    let neutral = if text.trim_start_matches('\'').starts_with(FORMULA) { format!("'{text}") } else { text.into() };
    let quote = neutral.contains([',', '"', '\n', '\r']) || neutral.starts_with('#') || neutral.trim() != neutral;
    match quote {
        true => format!("\"{}\"", neutral.replace('"', "\"\"")),
        false => neutral,
    }
}

/// `text` as one CSV cell of an export, read by a person or a spreadsheet:
/// its control characters escaped ([`visible`]: no line break or escape
/// sequence in the file), then as [`cell`].
pub fn text(text: &str) -> String {
    cell(&visible(text))
}

/// A figure at full precision; empty when there is none.
pub fn number(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// Why a CSV text cannot be read.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CsvError {
    /// A quoted cell that the text ends inside.
    #[error("line {0}: a quoted cell is never closed")]
    Unclosed(usize),
    /// Something after a quoted cell's closing quote.
    #[error("line {0}: text after a closing quote (a quote inside a quoted cell is written twice)")]
    AfterQuote(usize),
}

/// The records of a CSV text, each with the number of the line it starts
/// on: cells unquoted, edge spaces of unquoted cells trimmed, the `'` that
/// [`cell`] put before a formula taken off. Blank lines and lines starting
/// with `#` (comments) are skipped.
pub fn records(text: &str) -> Result<Vec<(usize, Vec<String>)>, CsvError> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while chars.peek().is_some() {
        let start = line;
        if matches!(chars.peek(), Some('#')) {
            for c in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
            line += 1;
            continue;
        }
        let mut cells = Vec::new();
        let mut current = String::new();
        let mut quoted = false;
        loop {
            match chars.next() {
                None => {
                    cells.push(finish(&current, quoted));
                    break;
                }
                Some('\n') => {
                    line += 1;
                    cells.push(finish(&current, quoted));
                    break;
                }
                Some(',') => cells.push(finish(&std::mem::take(&mut current), std::mem::take(&mut quoted))),
                Some('"') if current.trim().is_empty() && !quoted => {
                    current.clear();
                    quoted = true;
                    loop {
                        match chars.next() {
                            None => return Err(CsvError::Unclosed(start)),
                            Some('"') if chars.peek() == Some(&'"') => {
                                chars.next();
                                current.push('"');
                            }
                            Some('"') => break,
                            Some(c) => {
                                if c == '\n' {
                                    line += 1;
                                }
                                current.push(c);
                            }
                        }
                    }
                    while let Some(c) = chars.peek().copied().filter(|c| *c != ',' && *c != '\n') {
                        if !c.is_whitespace() {
                            return Err(CsvError::AfterQuote(line));
                        }
                        chars.next();
                    }
                }
                Some(c) => current.push(c),
            }
        }
        if !(cells.len() == 1 && cells[0].is_empty()) {
            out.push((start, cells));
        }
    }
    Ok(out)
}

/// A cell as read: an unquoted one trimmed, the `'` before a formula off.
fn finish(raw: &str, quoted: bool) -> String {
    let text = if quoted { raw } else { raw.trim() };
    match text.strip_prefix('\'') {
        Some(rest) if rest.trim_start_matches('\'').starts_with(FORMULA) => rest.to_string(),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_quoted_and_formulas_neutralised() {
        assert_eq!(cell("resnet18"), "resnet18");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(cell("-1"), "'-1");
        assert_eq!(cell("'@x"), "''@x");
        assert_eq!(cell("'x"), "'x");
        assert_eq!(cell("#x"), "\"#x\"");
        assert_eq!(cell(" x"), "\" x\"");
        assert_eq!(cell("a\nb"), "\"a\nb\"");
        assert_eq!(text("\tx\u{1b}[2J"), "\\tx\\u{1b}[2J");
        assert_eq!(text("\rx"), "\\rx");
        assert_eq!(number(Some(-1.5)), "-1.5");
        assert_eq!(number(None), "");
    }

    #[test]
    fn what_cell_writes_reads_back_as_it_was() {
        let names = [
            "convnet,0.000001,0.000001,100\nzzz",
            "=1+1",
            "'=1+1",
            "''-x",
            "'plain",
            "# not a comment",
            "say \"hi\", twice",
            " edge ",
            "\r\n",
            "",
            "plain",
        ];
        let mut text = String::from("# a comment\nbench,value\n\n");
        for (i, name) in names.iter().enumerate() {
            text.push_str(&format!("{},{}\n", cell(name), number(Some(i as f64))));
        }
        let back = records(&text).unwrap();
        assert_eq!(back[0], (2, vec!["bench".to_string(), "value".to_string()]));
        let read: Vec<&str> = back[1..].iter().map(|(_, cells)| cells[0].as_str()).collect();
        assert_eq!(read, names);
        assert!(back[1..].iter().all(|(_, cells)| cells.len() == 2), "{back:?}");
        assert_eq!(back[2].0, 6, "a record starts after the line break inside the one before");
    }

    #[test]
    fn broken_quoting_is_an_error() {
        assert_eq!(records("a\n\"b,1\n"), Err(CsvError::Unclosed(2)));
        assert_eq!(records("\"b\"x,1\n"), Err(CsvError::AfterQuote(1)));
    }
}
