//! The report as one self-contained HTML page: the same sections as the
//! text output, coloured, with inline SVG charts. No script, no external
//! file, no network.

use super::super::Report;
use super::sections::{sections, Anchor, Body, Cell, Mark};
use super::{charts, timelines};

const STYLE: &str = "body{font-family:sans-serif;margin:24px;color:#222}\
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;font-family:monospace;font-size:13px}\
td,th{border:1px solid #ddd;padding:3px 8px;text-align:right;white-space:nowrap}th{background:#f3f3f3}\
td:first-child,th:first-child{text-align:left}\
.pass{color:#080;font-weight:bold}.fail{color:#c00;font-weight:bold}.warn{color:#c60;font-weight:bold}\
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts figure{margin:0}";

/// Escapes text for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn cell(tag: &str, c: &Cell) -> String {
    let class = match c.mark {
        None => "",
        Some(Mark::Pass) => " class=\"pass\"",
        Some(Mark::Fail) => " class=\"fail\"",
        Some(Mark::Warn) => " class=\"warn\"",
    };
    format!("<{tag}{class}>{}</{tag}>", escape(&c.text))
}

fn body(out: &mut String, body: &Body) {
    match body {
        Body::Table { headers, rows } => {
            out.push_str("<table><tr>");
            for h in headers {
                out.push_str(&format!("<th>{}</th>", escape(h)));
            }
            out.push_str("</tr>\n");
            for row in rows {
                out.push_str("<tr>");
                out.extend(row.iter().map(|c| cell("td", c)));
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
        }
        Body::Pairs(pairs) => {
            out.push_str("<table>\n");
            for (label, value) in pairs {
                out.push_str(&format!("<tr><th>{}</th>{}</tr>\n", escape(label), cell("td", value)));
            }
            out.push_str("</table>\n");
        }
        Body::Lines(lines) => {
            out.push_str("<ul>\n");
            for line in lines {
                out.push_str(&format!("<li>{}</li>\n", escape(line)));
            }
            out.push_str("</ul>\n");
        }
    }
}

fn charts(out: &mut String, anchor: Anchor, report: &Report) {
    match anchor {
        Anchor::Results => {
            out.push_str("<h3>Spread across runs</h3>\n<div class=\"charts\" id=\"spread\">");
            out.push_str(&charts::spread(report));
            out.push_str("</div>\n");
        }
        Anchor::PerGpu => {
            let per_bench = charts::throughput_per_gpu(report);
            if per_bench.is_empty() {
                return;
            }
            out.push_str("<h3>Throughput per GPU (bar: mean, whisker: min to max of the runs)</h3>\n");
            out.push_str("<div class=\"charts\" id=\"per-gpu\">\n");
            for (bench, svg) in per_bench {
                out.push_str(&format!("<figure data-bench=\"{}\">{svg}</figure>\n", escape(&bench)));
            }
            out.push_str("</div>\n");
        }
        Anchor::Timelines => {
            out.push_str("<div class=\"charts\" id=\"timelines\">\n");
            for sampled in &report.sampled {
                for (caption, svg) in timelines::charts(sampled) {
                    out.push_str(&format!("<figure data-timeline=\"{}\">{svg}</figure>\n", escape(&caption)));
                }
            }
            out.push_str("</div>\n");
        }
    }
}

/// The whole page.
pub fn page(report: &Report, title: &str) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
         <style>{STYLE}</style></head><body>\n<h1>{t}</h1>\n",
        t = escape(title)
    );
    for section in sections(report) {
        out.push_str(&format!("<h2>{}</h2>\n", escape(&section.title)));
        body(&mut out, &section.body);
        if let Some(anchor) = section.anchor {
            charts(&mut out, anchor, report);
        }
    }
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::{aggregate, Options};
    use crate::contract::read::{Entry, Losses, Reading};
    use std::path::Path;
    use std::sync::Arc;

    fn entry(vcd: &str, completed: bool, avg: f64) -> Entry {
        Entry {
            file: Arc::from(Path::new("r.json")),
            name: Some("vae".into()),
            suite: None,
            vcd: Some(vcd.into()),
            gpu: None,
            slurm_node: None,
            hostname: None,
            completed: Some(completed),
            failure: (!completed).then(|| ("oom".to_string(), "<killed>".to_string())),
            avg: Some(avg),
            losses: Losses::default(),
            conditions: None,
            args: vec![],
        }
    }

    fn page_of(entries: Vec<Entry>) -> String {
        let reading = Reading { files: entries.len(), entries, unreadable: vec![] };
        super::page(&aggregate(Path::new("d"), reading, None, &Options::default()).unwrap(), "t")
    }

    #[test]
    fn pages_without_data_for_charts() {
        let page = page_of(vec![entry("0", false, 0.0)]);
        assert!(page.contains("<h2>Failures</h2>") && page.contains("&lt;killed&gt;"));
        assert!(!page.contains("chart not drawn"), "an empty spread chart still draws");
        assert_eq!(page.matches("<svg").count(), 1, "no per-GPU chart without single-GPU runs");
        let page = page_of(vec![entry("0,1", true, 5.0)]);
        assert!(!page.contains("Relative GPU performance") && !page.contains("chart not drawn"));
        // One GPU: no relative tables and no per-GPU charts.
        let page = page_of(vec![entry("0", true, 5.0)]);
        assert_eq!(page.matches("<svg").count(), 1);
        assert!(!page.contains("Relative GPU performance") && page.contains("one GPU (0)"));
        let page = page_of(vec![entry("0", true, 5.0), entry("1", true, 6.0)]);
        assert_eq!(page.matches("<svg").count(), 2);
        assert_eq!(page.matches("<h2>Relative GPU performance").count(), 3);
        assert!(!page.contains("chart not drawn"));
    }

    #[test]
    fn escapes() {
        assert_eq!(super::escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }
}
