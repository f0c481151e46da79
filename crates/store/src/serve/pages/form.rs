//! The filter forms of the pages: plain GET forms whose fields are the
//! page's query parameters, so that submitting one changes the URL (a
//! permalink of the filtered page) and needs no script.

use mlb_present::html::escape;

/// What a field is.
pub enum Input<'a> {
    /// Free text, with a hint of what it takes.
    Text(&'a str),
    /// A day (`YYYY-MM-DD`).
    Date,
    /// One of these `(value, label)`, or none (`""`: any).
    Choice(&'a [(&'a str, &'a str)]),
}

/// One field: its label, the query parameter it sets and its current value.
pub struct Field<'a> {
    /// What a reader sees above it.
    pub label: &'a str,
    /// The query parameter.
    pub name: &'a str,
    /// Its value in the page's URL.
    pub value: &'a str,
    /// How it is entered.
    pub input: Input<'a>,
}

fn control(f: &Field) -> String {
    let (name, value) = (escape(f.name), escape(f.value));
    match &f.input {
        Input::Text(hint) => {
            format!("<input type=\"text\" name=\"{name}\" value=\"{value}\" placeholder=\"{}\">", escape(hint))
        }
        Input::Date => format!("<input type=\"date\" name=\"{name}\" value=\"{value}\">"),
        Input::Choice(options) => {
            let mut out = format!("<select name=\"{name}\">");
            for (v, label) in *options {
                let selected = if *v == f.value { " selected" } else { "" };
                out.push_str(&format!("<option value=\"{}\"{selected}>{}</option>", escape(v), escape(label)));
            }
            out.push_str("</select>");
            out
        }
    }
}

/// A GET form to `action` with these fields and a submit button.
pub fn form(action: &str, fields: &[Field]) -> String {
    let mut out = format!("<form class=\"filters\" method=\"get\" action=\"{}\">", escape(action));
    for f in fields {
        out.push_str(&format!("<label>{}{}</label>", escape(f.label), control(f)));
    }
    out.push_str("<button type=\"submit\">Show</button></form>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_show_their_current_values_escaped() {
        let options = [("", "any"), ("failed", "failed")];
        let html = form(
            "/runs",
            &[
                Field { label: "System", name: "system", value: "a\"b", input: Input::Text("name") },
                Field { label: "Since", name: "since", value: "2026-01-02", input: Input::Date },
                Field { label: "Outcome", name: "outcome", value: "failed", input: Input::Choice(&options) },
            ],
        );
        assert!(html.starts_with("<form class=\"filters\" method=\"get\" action=\"/runs\">"));
        assert!(html.contains("name=\"system\" value=\"a&quot;b\""));
        assert!(html.contains("<input type=\"date\" name=\"since\" value=\"2026-01-02\">"));
        assert!(html.contains("<option value=\"failed\" selected>failed</option>"));
        assert!(html.contains("<option value=\"\">any</option>"));
    }
}
