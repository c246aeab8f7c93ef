//! The fleet: every minion a master knows, with the grains (and pillar) Salt itself keeps for
//! it, read from what Salt writes: the master's minion data cache (Salt 3008's `localfs` banks
//! `grains/<id>.p` and `pillar/<id>.p`; Salt ≤ 3007's `minions/<id>/data.p` with `grains` and
//! `pillar` keys; both msgpack as `salt.payload` dumps it), `salt '*' grains.items --out=json`
//! (one object with `--static`, a stream of one-key objects without), or a directory of
//! `<id>.json` grains files. Pure over the [`Vfs`]; a part that cannot be read is a problem
//! naming its file, and the rest of the fleet is still read.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::workspace::config::ConfigError;
use crate::workspace::minion::Minion;
use crate::workspace::vfs::Vfs;
use crate::workspace::Workspace;

/// One minion of the fleet, as its source describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetMinion {
    pub id: String,
    pub grains: Value,
    /// The pillar the master cached for it (the minion data cache only).
    pub pillar: Option<Value>,
    /// The file its grains came from.
    pub source: PathBuf,
}

/// The fleet's minions (sorted by id, each once) and what could not be read.
#[derive(Debug, Clone, Default)]
pub struct Fleet {
    pub minions: Vec<Arc<FleetMinion>>,
    pub problems: Vec<ConfigError>,
}

impl Fleet {
    /// The minions of shard `k` of `n` (1-based): a stable hash of the id, so a minion stays in
    /// its shard while others join or leave the fleet.
    pub fn shard(&mut self, k: usize, n: usize) {
        self.minions.retain(|m| in_shard(&m.id, k, n));
    }
}

/// Whether minion `id` belongs to shard `k` of `n` (1-based; FNV-1a of the id, modulo `n`).
pub fn in_shard(id: &str, k: usize, n: usize) -> bool {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    n > 0 && (h % n as u64) as usize + 1 == k
}

/// `K/N` as given to `--shard`: `1 <= K <= N`.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s.split_once('/').ok_or_else(|| format!("`{s}`: expected K/N, such as 1/4"))?;
    let (k, n) = (k.trim().parse::<usize>().map_err(|e| format!("`{s}`: {e}"))?, n.trim().parse::<usize>().map_err(|e| format!("`{s}`: {e}"))?);
    if n == 0 || k == 0 || k > n {
        return Err(format!("`{s}`: K must be between 1 and N"));
    }
    Ok((k, n))
}

/// Every minion of the fleet sources `paths` (a master cachedir, a `grains.items` JSON file or
/// a directory of `<id>.json` files each). A minion two sources have is taken from the first.
pub fn read(fs: &dyn Vfs, paths: &[PathBuf]) -> Fleet {
    let mut fleet = Fleet::default();
    let mut seen = std::collections::HashSet::new();
    for path in paths {
        let (found, problems) = read_one(fs, path);
        fleet.problems.extend(problems);
        for m in found {
            if seen.insert(m.id.clone()) {
                fleet.minions.push(Arc::new(m));
            }
        }
    }
    fleet.minions.sort_by(|a, b| a.id.cmp(&b.id));
    fleet
}

impl Fleet {
    /// Each part of the fleet that could not be read as one finding at its file (at its line,
    /// for a JSON file): the minions it would have named are not checked.
    pub fn diagnostics(&self, fs: &dyn Vfs) -> Vec<crate::diagnostic::Diagnostic> {
        use crate::diagnostic::{Code, Diagnostic, Severity};
        self.problems
            .iter()
            .map(|p| {
                let start = match (p.line, fs.read_bytes(&p.path)) {
                    (0, _) | (_, Err(_)) => 0,
                    (line, Ok(bytes)) => bytes.split_inclusive(|b| *b == b'\n').take(line - 1).map(<[u8]>::len).sum(),
                };
                Diagnostic {
                    file: p.path.clone(),
                    span: start..start,
                    severity: Severity::Error,
                    code: Code::UnreadableFile,
                    message: format!("Fleet: {}", p.message),
                    related: Vec::new(),
                    fix: Vec::new(),
                }
            })
            .collect()
    }
}

fn problem(path: &Path, message: impl Into<String>) -> ConfigError {
    ConfigError { path: path.to_path_buf(), line: 0, message: message.into() }
}

/// One source: a directory (a master cachedir, or `<id>.json` files) or a JSON file.
fn read_one(fs: &dyn Vfs, path: &Path) -> (Vec<FleetMinion>, Vec<ConfigError>) {
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    if fs.is_file(path) {
        // A fleet's `grains.items` output grows with the fleet (5,000 minions: about 20 MB):
        // it is data Salt wrote, read once, not a state-tree file under `MAX_FILE_BYTES`.
        match fs.read_bytes(path).map(String::from_utf8) {
            Ok(Ok(text)) => grains_items(path, &text, &mut found, &mut problems),
            Ok(Err(e)) => problems.push(problem(path, format!("cannot read the fleet: not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()))),
            Err(e) => problems.push(problem(path, format!("cannot read the fleet: {e}"))),
        }
        return (found, problems);
    }
    // Salt 3008: the `localfs` cache's `grains` and `pillar` banks.
    let grains_dir = path.join("grains");
    let mut cached = false;
    for rel in fs.walk(&grains_dir) {
        let Some(id) = rel.strip_suffix(".p").filter(|id| !id.contains('/')) else { continue };
        cached = true;
        let file = grains_dir.join(&rel);
        let grains = match cached_mapping(fs, &file, id, "cached grains") {
            Ok(g) => g,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        let pillar_file = path.join("pillar").join(format!("{id}.p"));
        let pillar = if fs.is_file(&pillar_file) {
            match cached_mapping(fs, &pillar_file, id, "cached pillar") {
                Ok(p) => Some(p),
                Err(e) => {
                    problems.push(e);
                    continue;
                }
            }
        } else {
            None
        };
        found.push(FleetMinion { id: id.to_string(), grains, pillar, source: file });
    }
    // Salt ≤ 3007: `minions/<id>/data.p`, a mapping with `grains` and `pillar`.
    let minions_dir = path.join("minions");
    for rel in fs.walk(&minions_dir) {
        let Some(id) = rel.strip_suffix("/data.p").filter(|id| !id.contains('/')) else { continue };
        cached = true;
        if found.iter().any(|m| m.id == id) {
            continue;
        }
        let file = minions_dir.join(&rel);
        let data = match cached_mapping(fs, &file, id, "cached minion data") {
            Ok(Value::Object(d)) => d,
            Ok(_) => continue,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        let Some(grains @ Value::Object(_)) = data.get("grains").cloned() else {
            problems.push(problem(&file, format!("minion `{id}`: the cached minion data has no `grains` mapping")));
            continue;
        };
        let pillar = data.get("pillar").filter(|p| p.is_object()).cloned();
        found.push(FleetMinion { id: id.to_string(), grains, pillar, source: file });
    }
    if cached {
        return (found, problems);
    }
    // A directory of `<id>.json` grains files (`salt-call --local grains.items --out=json`).
    let mut any = false;
    for rel in fs.walk(path) {
        let Some(id) = rel.strip_suffix(".json").filter(|id| !id.contains('/')) else { continue };
        any = true;
        let file = path.join(&rel);
        match crate::workspace::minion::read_data(fs, &file) {
            Ok(g @ Value::Object(_)) => {
                let id = g.get("id").and_then(Value::as_str).unwrap_or(id).to_string();
                found.push(FleetMinion { id, grains: g, pillar: None, source: file });
            }
            Ok(other) => problems.push(problem(&file, format!("the grains are {}, not a mapping", kind(&other)))),
            Err(e) => problems.push(problem(&file, e.message)),
        }
    }
    if !any {
        problems.push(problem(
            path,
            "no minions found: expected a master cachedir (`grains/<id>.p` or `minions/<id>/data.p`), a directory of `<id>.json` grains files, or the output of `salt '*' grains.items --out=json`",
        ));
    }
    (found, problems)
}

/// `salt '*' grains.items --out=json`: with `--static` one object mapping each id to its
/// grains; without, one object per minion, one after the other. A minion that did not return
/// (Salt prints a string for it) is a problem.
fn grains_items(path: &Path, text: &str, found: &mut Vec<FleetMinion>, problems: &mut Vec<ConfigError>) {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    loop {
        let at = stream.byte_offset();
        match stream.next() {
            None => break,
            Some(Ok(Value::Object(m))) => {
                for (id, grains) in m {
                    match grains {
                        g @ Value::Object(_) => found.push(FleetMinion { id, grains: g, pillar: None, source: path.to_path_buf() }),
                        Value::String(s) => problems.push(problem(path, format!("minion `{id}` has no grains here: {s}"))),
                        other => problems.push(problem(path, format!("minion `{id}`: the grains are {}, not a mapping", kind(&other)))),
                    }
                }
            }
            Some(Ok(other)) => {
                let line = syntax::line_index::line_number(text, at);
                problems.push(ConfigError { path: path.to_path_buf(), line, message: format!("expected an object of minion ids, found {}", kind(&other)) });
            }
            Some(Err(e)) => {
                problems.push(ConfigError { path: path.to_path_buf(), line: e.line(), message: format!("not the JSON of `grains.items --out=json`: {e}") });
                break;
            }
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "None",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// The mapping a cache file of minion `id` holds (`what` it is, for the problem).
fn cached_mapping(fs: &dyn Vfs, file: &Path, id: &str, what: &str) -> Result<Value, ConfigError> {
    match read_msgpack(fs, file) {
        Ok(m @ Value::Object(_)) => Ok(m),
        Ok(other) => Err(problem(file, format!("minion `{id}`: the {what} is {}, not a mapping", kind(&other)))),
        Err(e) => Err(problem(file, format!("minion `{id}`: cannot read the {what}: {e}"))),
    }
}

/// A file `salt.payload.dump` wrote, as JSON values (`salt.payload.load` then `json.dumps`).
fn read_msgpack(fs: &dyn Vfs, path: &Path) -> Result<Value, String> {
    let bytes = fs.read_bytes(path).map_err(|e| e.to_string())?;
    decode_payload(&bytes)
}

/// Decode one msgpack document as `salt.payload.loads` does (str as text, bin as bytes, ext 78
/// a datetime), printed as Salt's JSON outputter prints the result: keys as strings, bytes as
/// text, a datetime as `str()` gives it.
pub fn decode_payload(bytes: &[u8]) -> Result<Value, String> {
    let mut rd = bytes;
    let value = rmpv::decode::read_value(&mut rd).map_err(|e| format!("not msgpack as salt.payload writes it: {e}"))?;
    if !rd.is_empty() {
        return Err(format!("not msgpack as salt.payload writes it: {} bytes after the data", rd.len()));
    }
    Ok(to_json(value))
}

fn to_json(v: rmpv::Value) -> Value {
    use rmpv::Value as M;
    match v {
        M::Nil => Value::Null,
        M::Boolean(b) => Value::Bool(b),
        M::Integer(i) => i.as_i64().map(Value::from).or_else(|| i.as_u64().map(Value::from)).unwrap_or(Value::Null),
        M::F32(f) => serde_json::Number::from_f64(f64::from(f)).map_or(Value::Null, Value::Number),
        M::F64(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        M::String(s) => Value::String(String::from_utf8_lossy(s.as_bytes()).into_owned()),
        M::Binary(b) => Value::String(String::from_utf8_lossy(&b).into_owned()),
        M::Array(a) => Value::Array(a.into_iter().map(to_json).collect()),
        M::Map(m) => Value::Object(m.into_iter().map(|(k, v)| (key(k), to_json(v))).collect()),
        M::Ext(78, data) => Value::String(datetime(&String::from_utf8_lossy(&data))),
        M::Ext(_, data) => Value::String(String::from_utf8_lossy(&data).into_owned()),
    }
}

/// A mapping key as `json.dumps` writes it (a string; numbers, booleans and None spelled out).
fn key(k: rmpv::Value) -> String {
    match to_json(k) {
        Value::String(s) => s,
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// `%Y%m%dT%H:%M:%S.%f` (how `salt.payload` packs a datetime) as Python's `str(datetime)`.
fn datetime(s: &str) -> String {
    let (date, time) = s.split_once('T').unwrap_or((s, ""));
    if date.len() != 8 || !date.bytes().all(|b| b.is_ascii_digit()) {
        return s.to_string();
    }
    let time = match time.split_once('.') {
        Some((t, us)) if us.bytes().all(|b| b == b'0') => t.to_string(),
        _ => time.to_string(),
    };
    format!("{}-{}-{} {time}", &date[..4], &date[4..6], &date[6..])
}

/// The minion a fleet entry is: its grains (with its `id`), and the pillar the master cached
/// for it where the workspace configures no pillar (no `pillar_roots`, no `ext_pillar`), since
/// then that pillar is the only one there is; else the pipeline computes it.
pub fn minion(ws: &Workspace, m: &FleetMinion) -> Minion {
    let mut grains = m.grains.clone();
    if let Value::Object(g) = &mut grains {
        g.entry("id").or_insert_with(|| m.id.clone().into());
    }
    let computed = !ws.opts.pillar_roots.is_empty() || ws.opts.raw.get("ext_pillar").is_some_and(|e| !e.is_null());
    let literal = if computed { None } else { m.pillar.clone() };
    Minion {
        id: m.id.clone(),
        grains,
        pillar: literal.clone().unwrap_or_else(|| Value::Object(Default::default())),
        nodegroups: crate::workspace::minion::nodegroups(ws),
        literal_pillar: literal,
        source: format!("fleet minion `{}` ({})", m.id, m.source.display()),
        // A fleet minion pins no answers (only a profile does).
        functions: Value::Object(Default::default()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::workspace::vfs::MemFs;

    /// msgpack as `salt.payload.dumps(..., use_bin_type=True)` writes it.
    fn pack(v: &Value) -> Vec<u8> {
        fn conv(v: &Value) -> rmpv::Value {
            match v {
                Value::Null => rmpv::Value::Nil,
                Value::Bool(b) => rmpv::Value::Boolean(*b),
                Value::Number(n) if n.is_f64() => rmpv::Value::F64(n.as_f64().unwrap_or_default()),
                Value::Number(n) => n.as_i64().map_or(rmpv::Value::Nil, rmpv::Value::from),
                Value::String(s) => rmpv::Value::from(s.as_str()),
                Value::Array(a) => rmpv::Value::Array(a.iter().map(conv).collect()),
                Value::Object(m) => rmpv::Value::Map(m.iter().map(|(k, v)| (rmpv::Value::from(k.as_str()), conv(v))).collect()),
            }
        }
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &conv(v)).expect("encode");
        out
    }

    fn fs_with(blobs: &[(&str, Vec<u8>)], files: &[(&str, &str)]) -> MemFs {
        let mut fs = MemFs::default();
        for (p, b) in blobs {
            fs.blobs.insert(PathBuf::from(p), b.clone());
        }
        for (p, t) in files {
            fs.files.insert(PathBuf::from(p), t.to_string());
        }
        fs
    }

    fn ids(f: &Fleet) -> Vec<&str> {
        f.minions.iter().map(|m| m.id.as_str()).collect()
    }

    #[test]
    fn salt_3008_cache_banks_with_an_unreadable_entry() {
        let fs = fs_with(
            &[
                ("/c/grains/web01.p", pack(&json!({"id": "web01", "os": "Debian", "num_cpus": 2, "ipv4": ["10.0.0.1"]}))),
                ("/c/pillar/web01.p", pack(&json!({"app": {"port": 80}}))),
                ("/c/grains/db01.p", pack(&json!({"id": "db01", "os": "RedHat"}))),
                ("/c/grains/broken.p", b"\xc1 not msgpack".to_vec()),
            ],
            &[],
        );
        let fleet = read(&fs, &[PathBuf::from("/c")]);
        assert_eq!(ids(&fleet), ["db01", "web01"]);
        let web = &fleet.minions[1];
        assert_eq!(web.grains["ipv4"], json!(["10.0.0.1"]));
        assert_eq!(web.pillar, Some(json!({"app": {"port": 80}})));
        assert_eq!(fleet.minions[0].pillar, None);
        assert_eq!(fleet.problems.len(), 1);
        let p = &fleet.problems[0];
        assert_eq!(p.path, PathBuf::from("/c/grains/broken.p"));
        assert!(p.message.contains("minion `broken`") && p.message.contains("msgpack"), "{}", p.message);
    }

    #[test]
    fn salt_3007_minions_data_files() {
        let fs = fs_with(
            &[
                ("/c/minions/web01/data.p", pack(&json!({"grains": {"id": "web01", "roles": ["web"]}, "pillar": {"k": "v"}}))),
                ("/c/minions/web02/data.p", pack(&json!({"pillar": {}}))),
                ("/c/minions/web01/files/etc/motd", b"hi".to_vec()),
            ],
            &[],
        );
        let fleet = read(&fs, &[PathBuf::from("/c")]);
        assert_eq!(ids(&fleet), ["web01"]);
        assert_eq!(fleet.minions[0].pillar, Some(json!({"k": "v"})));
        assert_eq!(fleet.problems.len(), 1, "{:?}", fleet.problems);
        assert!(fleet.problems[0].message.contains("no `grains` mapping"));
    }

    #[test]
    fn grains_items_static_and_streamed() {
        let fs = fs_with(
            &[],
            &[
                ("/f/static.json", "{\"a\": {\"id\": \"a\", \"os\": \"Debian\"}, \"b\": {\"id\": \"b\"}}\n"),
                ("/f/stream.json", "{\n    \"c\": {\"id\": \"c\"}\n}\n{\n    \"d\": \"Minion did not return. [No response]\"\n}\n{\"e\": {\"id\": \"e\"}}\n"),
                ("/f/bad.json", "{\"x\": {\"id\": \"x\"}}\n{\"y\": \n"),
            ],
        );
        let fleet = read(&fs, &[PathBuf::from("/f/static.json"), PathBuf::from("/f/stream.json")]);
        assert_eq!(ids(&fleet), ["a", "b", "c", "e"]);
        assert_eq!(fleet.problems.len(), 1);
        assert!(fleet.problems[0].message.contains("minion `d`"), "{}", fleet.problems[0].message);
        let bad = read(&fs, &[PathBuf::from("/f/bad.json")]);
        assert_eq!(ids(&bad), ["x"]);
        assert_eq!(bad.problems[0].line, 3, "{:?}", bad.problems);
    }

    #[test]
    fn a_directory_of_grains_files() {
        let fs = fs_with(
            &[],
            &[
                ("/g/web01.json", "{\"local\": {\"id\": \"web01\", \"os\": \"Debian\"}}"),
                ("/g/web02.json", "{\"os\": \"Ubuntu\"}"),
                ("/g/bad.json", "{\"os\": [}"),
                ("/g/notes.txt", "x"),
            ],
        );
        let fleet = read(&fs, &[PathBuf::from("/g")]);
        assert_eq!(ids(&fleet), ["web01", "web02"]);
        assert_eq!(fleet.problems.len(), 1);
        assert_eq!(fleet.problems[0].path, PathBuf::from("/g/bad.json"));
        let none = read(&fs, &[PathBuf::from("/nowhere")]);
        assert!(none.minions.is_empty() && none.problems[0].message.contains("no minions found"));
    }

    #[test]
    fn payload_types_as_salt_prints_them() {
        let mut out = Vec::new();
        let v = rmpv::Value::Map(vec![
            (rmpv::Value::from(1), rmpv::Value::Binary(b"raw".to_vec())),
            (rmpv::Value::from("when"), rmpv::Value::Ext(78, b"20240102T03:04:05.000000".to_vec())),
            (rmpv::Value::from("big"), rmpv::Value::from(u64::MAX)),
        ]);
        rmpv::encode::write_value(&mut out, &v).expect("encode");
        assert_eq!(decode_payload(&out), Ok(json!({"1": "raw", "when": "2024-01-02 03:04:05", "big": u64::MAX})));
        assert!(decode_payload(b"").is_err());
    }

    #[test]
    fn shards_split_the_fleet_without_overlap() {
        let ids: Vec<String> = (0..200).map(|i| format!("m{i:03}")).collect();
        let mut seen = std::collections::HashSet::new();
        for k in 1..=3 {
            let part: Vec<&String> = ids.iter().filter(|id| in_shard(id, k, 3)).collect();
            assert!(part.len() > 40, "shard {k} has {}", part.len());
            for id in part {
                assert!(seen.insert(id.clone()));
            }
        }
        assert_eq!(seen.len(), ids.len());
        assert_eq!(parse_shard("2/4"), Ok((2, 4)));
        assert!(parse_shard("0/4").is_err() && parse_shard("5/4").is_err() && parse_shard("x").is_err());
    }
}
