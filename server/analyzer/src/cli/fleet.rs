//! `fleet`: the fleet's minions as read, with where each came from.

use std::process::ExitCode;

use serde_json::json;

use super::minions::load_fleet;
use super::options::{Common, Format};
use super::output::rel;
use crate::out::outln;

/// `salt-analyzer fleet`: what was read of the fleet.
pub(super) fn fleet_list(common: &Common) -> ExitCode {
    let (_, _, fleet) = match load_fleet(common) {
        Ok(f) => f,
        Err(code) => return code,
    };
    if common.format == Format::Json {
        let all: serde_json::Map<String, serde_json::Value> =
            fleet.minions.iter().map(|m| (m.id.clone(), json!({"grains": m.grains, "pillar": m.pillar, "source": rel(&m.source)}))).collect();
        outln!("{}", serde_json::to_string_pretty(&all).unwrap_or_default());
    } else {
        for m in &fleet.minions {
            let os = m.grains.get("os").and_then(|v| v.as_str()).unwrap_or("?");
            let pillar = if m.pillar.is_some() { ", cached pillar" } else { "" };
            outln!("{}  os {os}{pillar}  ({})", m.id, rel(&m.source));
        }
        outln!("{} minion(s), {} unreadable", fleet.minions.len(), fleet.problems.len());
    }
    if fleet.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
