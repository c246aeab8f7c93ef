//! The Salt 3008 resource matchers: `resource` (`T@`, `salt/matchers/resource_match.py`)
//! and `managing_minion` (`M@`, `salt/matchers/managing_minion_match.py`).

use crate::py::builtins::truthy;
use serde_json::Value;

use super::{py, quote, MatchContext, MatchError, MatchErrorKind, MatchOutcome};

/// `resource_match.match(tgt)`: with `type:id`, whether `id` is among the minion's resources
/// of that type; with a bare type, whether the minion has any resource of it.
pub fn resource(ctx: &MatchContext, tgt: &Value) -> MatchOutcome {
    let shown = py::str_of(tgt);
    let resources = ctx.resources;
    if !truthy(resources) {
        return MatchOutcome::new("resource", shown, false, "this minion manages no resources");
    }
    let Value::String(t) = tgt else {
        return MatchOutcome::failed(
            "resource",
            shown,
            MatchError::raised(MatchErrorKind::InvalidTarget, format!("resource target {} is not a string (Salt raises TypeError)", py::repr(tgt))),
        );
    };
    let Value::Object(map) = resources else {
        return MatchOutcome::failed(
            "resource",
            shown,
            MatchError::raised(MatchErrorKind::InvalidData, "opts[\"resources\"] is not a dict (Salt raises AttributeError)"),
        );
    };
    if let Some((rtype, rid)) = t.split_once(':') {
        let matched = match map.get(rtype) {
            None => false,
            Some(Value::Array(items)) => items.iter().any(|v| v.as_str() == Some(rid)),
            Some(Value::Object(m)) => m.contains_key(rid),
            Some(Value::String(s)) => s.contains(rid),
            Some(other) => {
                return MatchOutcome::failed(
                    "resource",
                    shown,
                    MatchError::raised(
                        MatchErrorKind::InvalidData,
                        format!("resources of type {} are {} (Salt raises TypeError)", quote(rtype), py::repr(other)),
                    ),
                )
            }
        };
        let verb = if matched { "manages" } else { "does not manage" };
        MatchOutcome::new("resource", t.as_str(), matched, format!("this minion {verb} resource {} of type {}", quote(rid), quote(rtype)))
    } else {
        let matched = map.get(t.as_str()).is_some_and(truthy);
        let verb = if matched { "manages" } else { "does not manage" };
        MatchOutcome::new("resource", t.as_str(), matched, format!("this minion {verb} resources of type {}", quote(t)))
    }
}

/// `managing_minion_match.match(tgt)`: the minion id equals the target exactly.
pub fn managing_minion(ctx: &MatchContext, tgt: &Value) -> MatchOutcome {
    let shown = py::str_of(tgt);
    let matched = tgt.as_str() == Some(ctx.minion_id);
    let verb = if matched { "is" } else { "is not" };
    MatchOutcome::new("managing_minion", shown.clone(), matched, format!("minion id {} {verb} {}", quote(ctx.minion_id), quote(&shown)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resource_targets() {
        let g = json!({});
        let r = json!({"vcf_host": ["esxi-01"], "empty": []});
        let ctx = MatchContext::new("vcenter-1", &g, &g).with_resources(&r);
        assert!(resource(&ctx, &json!("vcf_host")).matched);
        assert!(resource(&ctx, &json!("vcf_host:esxi-01")).matched);
        assert!(!resource(&ctx, &json!("vcf_host:esxi-02")).matched);
        assert!(!resource(&ctx, &json!("empty")).matched);
        assert!(managing_minion(&ctx, &json!("vcenter-1")).matched);
        assert!(!managing_minion(&ctx, &json!("vcenter-*")).matched);
        let none = MatchContext::new("m", &g, &g);
        assert!(!resource(&none, &json!("vcf_host")).matched);
    }
}
