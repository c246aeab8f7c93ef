//! The top file compile (`targeting::top`: `get_tops`, the merge strategies, `verify_tops`,
//! matching every target with its matcher, nodegroups expanded) with Jinja on, and each
//! nodegroup expanded by itself (`nodegroup_comp`). The input is NUL-separated: the workspace
//! configuration (`salt-analyzer.yaml`: `file_roots`, `top_file_merging_strategy`,
//! `nodegroups`, ...), the minion's grains (JSON, `id` its id), its pillar (JSON), then files,
//! each `path\ntext` (`base/top.sls`, ...). Never a panic.
#![no_main]

#[path = "minion_input.rs"]
mod minion_input;

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use minion_input::{json, minion};
use model::pipeline::template_matcher;
use model::render::context::JinjaSetup;
use model::targeting::matchers::{nodegroup, MatchContext};
use model::targeting::top::compile_top;
use model::workspace::reads::find_file;
use model::workspace::roots::FileRoots;
use model::workspace::vfs::{FileTable, MemFs};
use model::workspace::Workspace;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut parts = text.split('\0');
    let mut fs = MemFs::default();
    fs.files.insert("/ws/salt-analyzer.yaml".into(), parts.next().unwrap_or("").to_string());
    let grains = json(parts.next());
    let pillar = json(parts.next());
    for f in parts {
        if let Some((path, text)) = f.split_once('\n') {
            let path = path.trim_start_matches('/');
            if !path.is_empty() && !path.split('/').any(|p| p == ".." || p.is_empty()) {
                fs.files.insert(Path::new("/ws").join(path), text.to_string());
            }
        }
    }
    let Ok(ws) = Workspace::load(&fs, Path::new("/ws"), None) else { return };
    let roots = FileRoots::scan(&fs, &ws.opts.file_roots);
    let nodegroups = ws.opts.raw.get("nodegroups").cloned().unwrap_or(Value::Object(Default::default()));
    let minion = minion(grains, pillar, nodegroups.clone());
    let ctx = MatchContext::new(&minion.id, &minion.grains, &minion.pillar).with_nodegroups(&nodegroups);
    // Imports read through the roots, as a compile reads them.
    let (fs_read, roots_read) = (fs.clone(), roots.clone());
    let read = move |env: &str, rel: &str| find_file(&fs_read, &roots_read, env, rel).and_then(|p| fs_read.files.get(&p).cloned());
    let setup = JinjaSetup::new(&minion, &ws.opts, read).with_matcher(template_matcher(&minion, None));
    let mut files = FileTable::default();
    let _ = compile_top(&fs, &ws.opts, &roots, &mut files, &ctx, Some(&setup));
    if let Value::Object(groups) = &nodegroups {
        for name in groups.keys().take(16) {
            let _ = nodegroup::nodegroup_comp(name, &nodegroups);
        }
    }
});
