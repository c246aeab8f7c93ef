//! Structure-aware: a real fixture tree (`examples/`, in memory) with one of its files
//! mutated (a span replaced by the fuzzer's bytes), compiled as `salt-analyzer lowstate`
//! compiles it (the top file, pillar, every matched SLS rendered with Salt's Jinja
//! environment, includes, extend, requisites, ordering) for every minion profile.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use model::pipeline::{compile, Request, Scope};
use model::workspace::roots::FileRoots;
use model::workspace::vfs::MemFs;
use model::workspace::Workspace;

/// The fixture, its files in a fixed order.
fn fixture() -> &'static (MemFs, Vec<PathBuf>) {
    static FIXTURE: OnceLock<(MemFs, Vec<PathBuf>)> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut fs = MemFs::default();
        let mut todo = vec![src.clone()];
        while let Some(dir) = todo.pop() {
            for e in std::fs::read_dir(&dir).expect("examples/").flatten() {
                let p = e.path();
                if p.is_dir() {
                    todo.push(p);
                } else if let Ok(text) = std::fs::read_to_string(&p) {
                    fs.files.insert(Path::new("/ws").join(p.strip_prefix(&src).unwrap()), text);
                }
            }
        }
        let paths = fs.files.keys().cloned().collect();
        (fs, paths)
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (fs, paths) = fixture();
    let mut fs = fs.clone();
    let path = &paths[data[0] as usize % paths.len()];
    let Ok(payload) = std::str::from_utf8(&data[4..]) else { return };
    let text = fs.files.get_mut(path).unwrap();
    let mut at = (u16::from_be_bytes([data[1], data[2]]) as usize) % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + data[3] as usize % 32).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.replace_range(at..end.max(at), payload);
    let Ok(ws) = Workspace::load(&fs, Path::new("/ws"), None) else { return };
    let roots = Arc::new(FileRoots::scan(&fs, &ws.opts.file_roots));
    let fs = Arc::new(fs);
    let mut minions: Vec<Option<String>> = ws.profiles.keys().map(|m| Some(m.clone())).collect();
    minions.push(None);
    for m in minions {
        let _ = compile(fs.clone(), &ws, &roots, &Request::new(m.as_deref(), Scope::Highstate));
    }
});
