//! The report as one self-contained HTML page: the same sections as the
//! text output, coloured, with charts drawn by the vendored charting
//! library ([`crate::charts`]): hover values, legends, zoomable timelines.
//! The page carries the library; its Content-Security-Policy forbids any
//! request, so it works air-gapped and loads nothing.

use super::super::Report;
use super::sections::{sections, Anchor};
use super::{charts, timelines};
use crate::charts::embed;
use mlb_present::html::{escape, Page};

fn charts(out: &mut String, anchor: Anchor, report: &Report) {
    match anchor {
        Anchor::Results => {
            out.push_str("<div id=\"spread\">");
            out.push_str(&embed::mount(&charts::spread(report)));
            out.push_str("</div>\n");
        }
        Anchor::PerGpu => {
            let per_row = charts::throughput_per_gpu(report);
            if per_row.is_empty() {
                return;
            }
            out.push_str("<h3>Throughput per GPU (bar: mean, whisker: min to max of the runs)</h3>\n");
            out.push_str("<div class=\"charts\" id=\"per-gpu\">\n");
            for (row, chart) in per_row {
                out.push_str(&format!("<figure data-bench=\"{}\">{}</figure>\n", escape(&row), embed::mount(&chart)));
            }
            out.push_str("</div>\n");
        }
        Anchor::Quality => {
            let Some(quality) = &report.quality else { return };
            out.push_str("<div class=\"charts\" id=\"quality\">\n");
            for (config, chart) in super::quality::curves(quality) {
                out.push_str(&format!(
                    "<figure data-config=\"{}\">{}</figure>\n",
                    escape(&config),
                    embed::mount(&chart)
                ));
            }
            out.push_str("</div>\n");
        }
        Anchor::Timelines => {
            out.push_str("<div id=\"timelines\">\n");
            for (i, sampled) in report.sampled.iter().enumerate() {
                let Some(t) = timelines::timelines(sampled, &format!("timeline-{i}")) else { continue };
                out.push_str(&format!("<section data-instance=\"{i}\"><h3>{}</h3>\n", escape(&t.title)));
                if !t.absent.is_empty() {
                    out.push_str(&format!("<p class=\"absent\">Not measured: {}.</p>\n", escape(&t.absent.join("; "))));
                }
                out.push_str("<div class=\"charts\">\n");
                for chart in &t.charts {
                    let title = format!("{}: {}", t.title, chart.title);
                    out.push_str(&format!(
                        "<figure data-timeline=\"{}\">{}</figure>\n",
                        escape(&title),
                        embed::mount(chart)
                    ));
                }
                out.push_str("</div></section>\n");
            }
            out.push_str("</div>\n");
        }
    }
}

/// The report's sections and charts, without the page around them (the
/// run page of `mlb serve` frames the same content).
pub fn content(report: &Report) -> String {
    let mut out = String::new();
    for section in sections(report) {
        out.push_str(&mlb_present::html::section(&section));
        if let Some(anchor) = section.anchor {
            charts(&mut out, anchor, report);
        }
    }
    out
}

/// The whole page, in the one page frame.
pub fn page(report: &Report, title: &str) -> String {
    let head = embed::csp_meta();
    let (body, after) = (content(report), embed::scripts());
    mlb_present::html::page(Page { title, head: &head, body: &body, after: &after, ..Page::default() })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, report};
    use mlb_record::contract::read::Entry;

    fn entry(vcd: &str, completed: bool, avg: f64) -> Entry {
        fixtures::entry("vae", vcd, completed, avg)
    }

    fn page_of(entries: Vec<Entry>) -> String {
        super::page(&report(entries), "t")
    }

    /// The page's own markup: what precedes the inlined scripts.
    fn markup(page: &str) -> &str {
        page.split(&crate::charts::embed::scripts()).next().unwrap()
    }

    /// The charts mounted on a page.
    fn mounts(page: &str) -> usize {
        markup(page).matches("<div class=\"chart\">").count()
    }

    #[test]
    fn pages_without_data_for_charts() {
        let page = page_of(vec![entry("0", false, 0.0)]);
        assert!(page.contains("<h2>Failures</h2>") && page.contains("&lt;killed&gt;"));
        assert_eq!(mounts(&page), 1, "the spread chart, empty, and no per-GPU chart without single-GPU runs");
        let page = page_of(vec![entry("0,1", true, 5.0)]);
        assert!(!page.contains("Relative GPU performance"));
        // One GPU: no relative tables and no per-GPU charts.
        let page = page_of(vec![entry("0", true, 5.0)]);
        assert_eq!(mounts(&page), 1);
        assert!(!page.contains("Relative GPU performance") && page.contains("one GPU (0)"));
        let page = page_of(vec![entry("0", true, 5.0), entry("1", true, 6.0)]);
        assert_eq!(mounts(&page), 2);
        assert_eq!(page.matches("<h2>Relative GPU performance").count(), 3);
    }

    #[test]
    fn the_page_carries_the_library_and_forbids_every_request() {
        let page = page_of(vec![entry("0", true, 5.0)]);
        assert!(page.contains(&crate::charts::embed::csp_meta()), "the policy is the page's first rule");
        assert!(page.contains(crate::charts::library::SCRIPT) && page.contains(crate::charts::library::BOOT));
        assert!(page.find("<meta http-equiv").unwrap() < page.find("<title>").unwrap());
        for outside in ["<script src", "<link", "<iframe", "<img", "url("] {
            assert!(!markup(&page).contains(outside), "the page must not load anything: found {outside}");
        }
    }
}
