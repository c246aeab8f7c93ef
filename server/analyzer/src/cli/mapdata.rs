//! `mapdata`: a formula's layered configuration for the minion, with the layer of each value.

use std::process::ExitCode;

use model::pipeline::Scope;

use super::minions::load_and_compile;
use super::minions::{fleet_run, Answer};
use super::options::{Common, Format};
use super::output::{error_json, rel};
use crate::out::{out, outln};

pub(super) fn mapdata(tpldir: &str, common: &Common) -> ExitCode {
    if common.fleet.fleet.is_some() {
        return fleet_run(
            common,
            |_| Scope::MapData { tpldir: tpldir.to_string() },
            None,
            false,
            |compiled| {
                let (Ok(minion), Some(data), files) = (&compiled.minion, &compiled.mapdata, &compiled.files) else {
                    return Answer { failed: true, ..Answer::default() };
                };
                Answer {
                    json: data.to_json(files, &|e| error_json(e, files)),
                    text: model::mapstack::report::text(data, files, tpldir, &minion.id, &rel),
                    failed: data.values.is_err(),
                    ..Answer::default()
                }
            },
        );
    }
    let compiled = match load_and_compile(common, None, Scope::MapData { tpldir: tpldir.to_string() }) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Ok(minion), Some(data), files) = (&compiled.minion, &compiled.mapdata, &compiled.files) else { return ExitCode::from(2) };
    match common.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&data.to_json(files, &|e| error_json(e, files))).unwrap_or_default()),
        Format::Text => out!("{}", model::mapstack::report::text(data, files, tpldir, &minion.id, &rel)),
    }
    if data.values.is_err() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
