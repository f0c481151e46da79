//! The JSON back-end: any serialisable value, pretty, ending in a line
//! break. A command prints its own data this way (every figure at full
//! precision); a document serialises too, as shown.

use serde::Serialize;

/// `value` as pretty JSON and a line break.
pub fn render(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).expect("mlb's values serialise") + "\n"
}
