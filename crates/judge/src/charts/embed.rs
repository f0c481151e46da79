//! The HTML that carries the charts: the library and the drawing script,
//! inlined (a page that works air-gapped), a mount per chart, and the
//! Content-Security-Policy that lets these scripts run and nothing load.

use super::library;
use super::spec::Chart;

/// The page's Content-Security-Policy: no request of any kind, only the
/// two inlined scripts, inline styles (the library positions its hover box
/// with them) and `data:` images (its toolbox icons).
pub fn content_security_policy() -> String {
    format!("default-src 'none'; script-src {}; style-src 'unsafe-inline'; img-src data:", library::SCRIPT_HASHES)
}

/// The `<meta>` element of [`content_security_policy`], for the page's head.
pub fn csp_meta() -> String {
    format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">", content_security_policy())
}

/// The library and the drawing script, for the end of the page's body.
pub fn scripts() -> String {
    format!("<script>{}</script>\n<script>{}</script>\n", library::SCRIPT, library::BOOT)
}

/// A chart's mount: a `div.chart` holding its JSON, which the drawing
/// script replaces by the chart.
pub fn mount(chart: &Chart) -> String {
    // `<` only occurs inside JSON strings, where `\u003c` means the same:
    // no `</script>` can end the block early.
    let json = chart.to_json().to_string().replace('<', "\\u003c");
    format!("<div class=\"chart\"><script type=\"application/json\">{json}</script></div>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::XAxis;

    #[test]
    fn a_mount_holds_json_that_cannot_close_its_script() {
        let chart = Chart::new("</script><script>alert(1)</script>", XAxis::Seconds, 200);
        let html = mount(&chart);
        assert_eq!(html.matches("</script>").count(), 1, "{html}");
        let json = html.trim_start_matches("<div class=\"chart\"><script type=\"application/json\">");
        let json = json.trim_end_matches("</script></div>");
        let back: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(back["option"]["title"]["text"], chart.title);
    }

    #[test]
    fn the_policy_allows_the_two_scripts_and_no_request() {
        let csp = content_security_policy();
        assert!(csp.starts_with("default-src 'none'; script-src 'sha256-"), "{csp}");
        assert_eq!(csp.matches("'sha256-").count(), 2);
        assert!(!csp.contains("unsafe-eval") && !csp.contains("http"));
        assert!(scripts().contains(library::SCRIPT) && scripts().contains(library::BOOT));
    }
}
