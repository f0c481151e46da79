//! `mlb db vote` printed: what was voted, then `mlb report`'s
//! *Reproducibility* section of the groups (text, Markdown, HTML); JSON and
//! CSV from the groups themselves, a CSV line per group.

use super::super::vote::Votes;
use super::{csv_text, json, Format};
use mlb_judge::report::render::reproducibility::sections;
use mlb_judge::report::render::sections::Anchor;
use mlb_present::{Body, Cell, Document, Section};

/// The columns of a group.
const HEADERS: &str = "config,bench,device,stack,instances,nodes,last_step,verdict,detail";

/// The vote as a document.
pub fn document(votes: &Votes) -> Document<Anchor> {
    let mut pairs = vec![("store".to_string(), Cell::from(votes.store.as_str()))];
    if let Some(dir) = &votes.reports {
        pairs.push(("new run".into(), dir.display().to_string().into()));
    }
    pairs.extend([
        ("stored runs".to_string(), votes.stored_runs.to_string().into()),
        ("stored instances".to_string(), votes.stored_instances.to_string().into()),
        ("new instances".to_string(), votes.new_instances.to_string().into()),
    ]);
    let mut document = Document::new("mlb db vote");
    document.sections.push(Section::new("Vote across runs", Body::Pairs(pairs)));
    document.sections.extend(sections(&votes.reproducibility));
    if !votes.notes.is_empty() {
        document.sections.push(Section::new("Notes", Body::Notes(votes.notes.clone())));
    }
    document
}

/// The vote in `format`.
pub fn render(votes: &Votes, format: Format) -> String {
    match format {
        Format::Json => json(votes),
        Format::Csv => {
            let lines = votes.reproducibility.iter().map(|g| {
                let cells = [
                    csv_text(&g.config),
                    csv_text(&g.bench),
                    csv_text(&g.device),
                    csv_text(&g.stack_line()),
                    g.instances.len().to_string(),
                    g.nodes.to_string(),
                    g.last_step.map(|s| s.to_string()).unwrap_or_default(),
                    csv_text(g.verdict.label()),
                    csv_text(&g.statement()),
                ];
                cells.join(",") + "\n"
            });
            std::iter::once(format!("{HEADERS}\n")).chain(lines).collect()
        }
    }
}
