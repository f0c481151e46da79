//! The crates' layers, checked: `[workspace.metadata.layers]` of the
//! workspace's Cargo.toml lists them lowest first, and every dependency
//! between two members (normal, build or dev) must point to a lower layer.
//! The graph is `cargo metadata`'s, so the check sees what cargo builds.

use crate::cmd::{Env, Error};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// A dependency of one member on another.
#[derive(Debug, PartialEq, Eq)]
struct Edge {
    from: String,
    to: String,
    /// `normal`, `build` or `dev`.
    kind: String,
}

impl Edge {
    fn new(from: &str, to: &str, kind: &str) -> Edge {
        Edge { from: from.into(), to: to.into(), kind: kind.into() }
    }
}

/// The workspace as the check sees it.
#[derive(Debug)]
struct Graph {
    /// Every member, by name.
    members: Vec<String>,
    /// The dependencies between members.
    edges: Vec<Edge>,
    /// The layers, lowest first: the crates of each.
    layers: Vec<Vec<String>>,
}

/// Checks the workspace's crate graph against its layers; the error names
/// each edge that is not downward, and each member no layer lists.
pub fn check(root: &Path) -> Result<(), Error> {
    let out = Env::default()
        .cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output()
        .map_err(|source| Error::Start { command: "cargo metadata".into(), source })?;
    if !out.status.success() {
        return Err(Error::Layers(format!("cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr))));
    }
    let metadata: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| Error::Layers(format!("cargo metadata printed no JSON: {e}")))?;
    let graph = graph(&metadata)?;
    let problems = judge(&graph);
    if problems.is_empty() {
        eprintln!(
            "xtask: the crates' {} dependencies on each other all point down their {} layers",
            graph.edges.len(),
            graph.layers.len()
        );
        return Ok(());
    }
    Err(Error::Layers(problems.join("\n  ")))
}

/// The members, the dependencies between them and the layers, read from
/// `cargo metadata --no-deps`.
fn graph(metadata: &Value) -> Result<Graph, Error> {
    let layers = metadata["metadata"]["layers"]["order"]
        .as_array()
        .ok_or_else(|| Error::Layers("the workspace's Cargo.toml has no [workspace.metadata.layers] order".into()))?
        .iter()
        .map(|layer| layer.as_array().into_iter().flatten().filter_map(Value::as_str).map(String::from).collect())
        .collect();
    let packages = metadata["packages"].as_array().map(Vec::as_slice).unwrap_or_default();
    let members: Vec<String> = packages.iter().filter_map(|p| p["name"].as_str()).map(String::from).collect();
    let mut edges = Vec::new();
    for package in packages {
        let from = package["name"].as_str().unwrap_or_default();
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let to = dep["name"].as_str().unwrap_or_default();
            if members.iter().any(|m| m == to) {
                edges.push(Edge::new(from, to, dep["kind"].as_str().unwrap_or("normal")));
            }
        }
    }
    Ok(Graph { members, edges, layers })
}

/// What is wrong with `graph`: each crate in two layers, each member in no
/// layer, each dependency that is not downward.
fn judge(graph: &Graph) -> Vec<String> {
    let mut layer_of = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, layer) in graph.layers.iter().enumerate() {
        for name in layer {
            if layer_of.insert(name.as_str(), i).is_some() {
                problems.push(format!("{name} is in two layers of [workspace.metadata.layers]"));
            }
        }
    }
    for member in graph.members.iter().filter(|m| !layer_of.contains_key(m.as_str())) {
        problems.push(format!("{member} is in no layer: add it to [workspace.metadata.layers] in Cargo.toml"));
    }
    for Edge { from, to, kind } in &graph.edges {
        let (Some(a), Some(b)) = (layer_of.get(from.as_str()), layer_of.get(to.as_str())) else { continue };
        if b >= a {
            problems.push(format!(
                "{from} depends ({kind}) on {to}, of layer {} where its own is {}: a crate may depend only on lower layers",
                b + 1,
                a + 1
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(from: &str, to: &str, kind: &str) -> Edge {
        Edge::new(from, to, kind)
    }

    /// The graph of `edges` over `members` in `layers`.
    fn of(members: &[&str], edges: Vec<Edge>, layers: &[&[&str]]) -> Graph {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
        Graph { members: names(members), edges, layers: layers.iter().map(|l| names(l)).collect() }
    }

    #[test]
    fn downward_edges_pass_and_upward_or_sideways_ones_are_named() {
        let members = ["plugin", "record", "spin", "mlb"];
        let order: &[&[&str]] = &[&["plugin"], &["record", "spin"], &["mlb"]];
        let down =
            vec![edge("mlb", "record", "normal"), edge("mlb", "spin", "dev"), edge("record", "plugin", "normal")];
        assert_eq!(judge(&of(&members, down, order)), Vec::<String>::new());

        let up = judge(&of(&members, vec![edge("record", "mlb", "normal")], order));
        assert_eq!(up.len(), 1);
        assert!(up[0].starts_with("record depends (normal) on mlb, of layer 3 where its own is 2"), "{up:?}");
        let sideways = judge(&of(&members, vec![edge("spin", "record", "dev")], order));
        assert!(sideways[0].contains("spin depends (dev) on record"), "{sideways:?}");
    }

    #[test]
    fn a_member_in_no_layer_or_in_two_is_named() {
        let problems = judge(&of(&["new", "mlb"], Vec::new(), &[&["plugin"], &["plugin", "mlb"]]));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("plugin is in two layers"));
        assert!(problems[1].contains("new is in no layer"));
    }

    #[test]
    fn the_graph_is_read_from_cargo_metadata() {
        let metadata = serde_json::json!({
            "metadata": {"layers": {"order": [["a"], ["b"]]}},
            "packages": [
                {"name": "a", "dependencies": [{"name": "serde", "kind": null}]},
                {"name": "b", "dependencies": [{"name": "a", "kind": null}, {"name": "a", "kind": "dev"}]}
            ]
        });
        let graph = graph(&metadata).unwrap();
        assert_eq!(graph.layers, [["a"], ["b"]]);
        assert_eq!(graph.members, ["a", "b"]);
        assert_eq!(graph.edges, [edge("b", "a", "normal"), edge("b", "a", "dev")], "only members' edges");
    }
}
