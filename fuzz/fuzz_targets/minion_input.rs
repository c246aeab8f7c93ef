//! What the targets that build a minion from their input share (included by `#[path]`).

use model::workspace::minion::Minion;
use serde_json::Value;

/// A JSON part of the input; an empty mapping when it is missing or not JSON.
pub fn json(text: Option<&str>) -> Value {
    text.and_then(|t| serde_json::from_str(t).ok()).unwrap_or(Value::Object(Default::default()))
}

/// A minion with these grains (its id the grain `id`, else `web01`), pillar and nodegroups.
pub fn minion(grains: Value, pillar: Value, nodegroups: Value) -> Minion {
    Minion {
        id: grains.get("id").and_then(Value::as_str).unwrap_or("web01").to_string(),
        grains,
        pillar,
        nodegroups,
        literal_pillar: None,
        source: "fuzz".into(),
        functions: Value::Object(Default::default()),
    }
}
