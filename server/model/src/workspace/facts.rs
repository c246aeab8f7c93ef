//! What a compile asked of its minion: which top-level keys of its grains, pillar and options
//! it read, whether it used its id, and what each matcher answered for it. A [`FactLog`]
//! records the questions as they are asked, with a fingerprint of each answer; the finished
//! [`Facts`] tell whether another minion answers every question the same way. When it does, a
//! compile of that minion makes the same result, so a fleet's minions that differ only in what
//! no compile read (their ids, addresses, host names) share one compile ([`Shared`]).
//!
//! The minion data a compile reads goes through [`Data`], whose only way to the value records
//! the question; matchers record their answer where a top file or a template asks
//! (`targeting::matchers`), never the id or grains they look at to give it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::workspace::reads::hash;

/// Which minion data a key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Which {
    Grains,
    Pillar,
    /// The options templates see (`opts`, `config.get`), which hold the minion id.
    Opts,
}

/// One question a compile asked of its minion.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Question {
    /// A top-level key's value (or that there is none).
    Key(Which, String),
    /// The whole mapping (iterated, printed, changed in place).
    Whole(Which),
    /// The minion id itself.
    Id,
    /// A matcher's answer ([`MatchQuestion`]).
    Match(Arc<MatchQuestion>),
}

/// `matcher` on `tgt` as a top file or a template asks it: whether it matched, and the
/// errors it gave.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct MatchQuestion {
    /// A matcher name (`compound`, `glob`, `grain`...), or `confirm_top` with the top-file
    /// body the matcher is chosen from.
    pub matcher: String,
    pub tgt: String,
    /// The body `confirm_top` chose the matcher from (a top file's), as JSON text.
    pub body: Option<String>,
    /// `delimiter=` of a subdict matcher.
    pub delimiter: Option<String>,
    /// `minion_id=`: the id the matcher took instead of the minion's.
    pub for_id: Option<String>,
    /// The pillar the matcher looked at, when it is not the minion's own (a pillar top file is
    /// matched against the pillar compiled so far).
    pub pillar: Option<PillarSeen>,
}

/// A pillar a matcher saw, compared by fingerprint and kept to answer again.
#[derive(Debug, Clone)]
pub struct PillarSeen(pub Arc<Value>, pub u64);

impl PillarSeen {
    pub fn new(v: &Value) -> PillarSeen {
        PillarSeen(Arc::new(v.clone()), hash(&v.to_string()))
    }
}

impl PartialEq for PillarSeen {
    fn eq(&self, other: &Self) -> bool {
        self.1 == other.1
    }
}
impl Eq for PillarSeen {}
impl std::hash::Hash for PillarSeen {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.1.hash(state)
    }
}

/// The fingerprint of a value, or of its absence.
pub fn fingerprint(v: Option<&Value>) -> u64 {
    hash(&v.map(Value::to_string))
}

/// The questions asked so far, in order, each once, with its answer's fingerprint.
#[derive(Default, Debug)]
pub struct FactLog(Mutex<Asked>);

/// The questions in order, and which were asked.
#[derive(Default, Debug)]
struct Asked {
    list: Vec<(Question, u64)>,
    seen: std::collections::HashSet<Question>,
}

impl FactLog {
    pub fn new() -> Arc<FactLog> {
        Arc::new(FactLog::default())
    }

    /// Records `q` and its answer (the first answer: a question asked again was answered the
    /// same, or by data the compile itself changed).
    pub fn record(&self, q: Question, answer: impl FnOnce() -> u64) {
        let Ok(mut log) = self.0.lock() else { return };
        if !log.seen.contains(&q) {
            let a = answer();
            log.seen.insert(q.clone());
            log.list.push((q, a));
        }
    }

    /// What was asked.
    pub fn facts(&self) -> Facts {
        Facts(self.0.lock().map(|l| l.list.clone()).unwrap_or_default())
    }
}

/// Every question a compile asked, with its answers.
#[derive(Debug, Clone, Default)]
pub struct Facts(pub Vec<(Question, u64)>);

/// A minion another compile's [`Facts`] are checked against: its answers, each computed once
/// however many kept compiles ask it.
pub struct Answers<'a> {
    pub id: &'a str,
    pub grains: &'a Value,
    pub pillar: &'a Value,
    pub opts: &'a Value,
    /// A matcher's answer for this minion.
    pub matcher: &'a dyn Fn(&MatchQuestion) -> u64,
    known: Mutex<HashMap<Question, u64>>,
}

impl<'a> Answers<'a> {
    pub fn new(id: &'a str, grains: &'a Value, pillar: &'a Value, opts: &'a Value, matcher: &'a dyn Fn(&MatchQuestion) -> u64) -> Answers<'a> {
        Answers { id, grains, pillar, opts, matcher, known: Default::default() }
    }

    fn data(&self, which: Which) -> &Value {
        match which {
            Which::Grains => self.grains,
            Which::Pillar => self.pillar,
            Which::Opts => self.opts,
        }
    }

    /// This minion's answer to `q`.
    pub fn answer(&self, q: &Question) -> u64 {
        if let Some(a) = self.known.lock().ok().and_then(|k| k.get(q).copied()) {
            return a;
        }
        let a = match q {
            Question::Key(w, k) => fingerprint(self.data(*w).get(k)),
            Question::Whole(w) => fingerprint(Some(self.data(*w))),
            Question::Id => hash(self.id),
            Question::Match(m) => (self.matcher)(m),
        };
        if let Ok(mut k) = self.known.lock() {
            k.insert(q.clone(), a);
        }
        a
    }
}

impl Facts {
    /// Whether `who` answers every question as the recorded minion did (in the order they
    /// were asked: while the answers agree, the two compiles went the same way, so a later
    /// question is the one the other compile would ask too).
    pub fn hold(&self, who: &Answers) -> bool {
        self.0.iter().all(|(q, a)| who.answer(q) == *a)
    }

    /// Whether the compile read the minion's id itself.
    pub fn read_id(&self) -> bool {
        self.0.iter().any(|(q, _)| *q == Question::Id)
    }
}

/// Minion data (its grains, pillar or options) whose reads are recorded: the value is reached
/// only through [`Data::get`] (one key) and [`Data::whole`] (all of it), each of which records
/// the question when a log is attached. Cloning shares the value.
#[derive(Clone, Debug)]
pub struct Data {
    value: Arc<Value>,
    which: Which,
    log: Option<Arc<FactLog>>,
    /// Its dicts are `OrderedDict`s in Salt: a pillar rendered from SLS files by Salt's YAML
    /// renderer (`SaltYamlSafeLoader(dictclass=OrderedDict)`), not one written in a config.
    ordered: bool,
}

impl Data {
    /// `value`, with no log yet.
    pub fn new(which: Which, value: Value) -> Data {
        Data { value: Arc::new(value), which, log: None, ordered: false }
    }

    /// The same data, its dicts `OrderedDict`s (below the top) when `yes`.
    pub fn with_ordered_dicts(self, yes: bool) -> Data {
        Data { ordered: yes, ..self }
    }

    /// Whether its dicts are `OrderedDict`s (see [`Data::with_ordered_dicts`]).
    pub fn ordered_dicts(&self) -> bool {
        self.ordered
    }

    /// Other data in this one's place (the same owner, log and dict type): the pillar a
    /// template gets after an earlier one changed it in place.
    pub fn with_value(&self, value: Arc<Value>) -> Data {
        Data { value, ..self.clone() }
    }

    /// The same data recording into `log`.
    pub fn recorded(self, log: Option<&Arc<FactLog>>) -> Data {
        Data { log: log.cloned(), ..self }
    }

    /// Whose data this is.
    pub fn which(&self) -> Which {
        self.which
    }

    /// The log reads are recorded in.
    pub fn log(&self) -> Option<&Arc<FactLog>> {
        self.log.as_ref()
    }

    /// The value of top-level key `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        let v = self.value.get(key);
        if let Some(log) = &self.log {
            log.record(Question::Key(self.which, key.to_string()), || fingerprint(v));
        }
        v
    }

    /// All of it, for a lookup of `path` split by `delimiter` (Salt's `traverse_dict_and_list`,
    /// `config.get`'s search): what the lookup can reach is the value under `path`'s first
    /// part (the key as written, or as YAML loads it), which is what is recorded.
    pub fn traversed(&self, path: &str, delimiter: &str) -> &Value {
        if let Some(log) = &self.log {
            let first = if delimiter.is_empty() { path } else { path.split(delimiter).next().unwrap_or(path) };
            for k in std::iter::once(first.to_string()).chain(crate::py::builtins::yamlify_to_other_string(first)) {
                log.record(Question::Key(self.which, k.clone()), || fingerprint(self.value.get(&k)));
            }
        }
        &self.value
    }

    /// The value at `path` (steps from the top), recording its first key.
    pub fn first_step(&self, first: Option<&str>) -> &Value {
        match (first, &self.log) {
            (Some(k), Some(log)) => {
                log.record(Question::Key(self.which, k.to_string()), || fingerprint(self.value.get(k)));
                &self.value
            }
            (None, _) => self.whole(),
            (Some(_), None) => &self.value,
        }
    }

    /// The value to change in place, after a recorded read found where (a copy when another
    /// clone shares it).
    pub fn make_mut(&mut self) -> &mut Value {
        Arc::make_mut(&mut self.value)
    }

    /// All of it (iterated, printed, searched, copied into something that is).
    pub fn whole(&self) -> &Value {
        if let Some(log) = &self.log {
            log.record(Question::Whole(self.which), || fingerprint(Some(&self.value)));
        }
        &self.value
    }

    /// The value without recording: only for fingerprints that key a cache by the whole
    /// minion (never for what goes into a result).
    pub fn unrecorded(&self) -> &Value {
        &self.value
    }
}

/// Results computed for one minion, each kept with the facts it was computed from, for
/// another minion that answers them all the same (a fleet run's: `pipeline::Memo::sharing`).
/// What is kept is bounded by an estimate of its size: past [`SHARED_BUDGET`] a new result
/// replaces the oldest that no other minion has used yet, or is not kept.
pub struct Shared<T> {
    kept: Mutex<Kept<T>>,
}

struct Kept<T> {
    entries: Vec<Entry<T>>,
    /// The sum of the entries' weights.
    weight: usize,
}

struct Entry<T> {
    facts: Arc<Facts>,
    t: Arc<T>,
    weight: usize,
    /// How many other minions it served.
    used: Arc<std::sync::atomic::AtomicUsize>,
}

impl<T> Default for Shared<T> {
    fn default() -> Self {
        Shared { kept: Mutex::new(Kept { entries: Vec::new(), weight: 0 }) }
    }
}

/// About how many bytes of results a [`Shared`] keeps (a compile of a 200-file highstate
/// weighs a few MB; a fleet has tens to a few hundred kinds of minion).
pub const SHARED_BUDGET: usize = 512 << 20;

impl<T> Shared<T> {
    /// A kept result that `fits` and whose facts `who` answers the same way.
    pub fn find(&self, who: &Answers, fits: impl Fn(&T) -> bool) -> Option<Arc<T>> {
        type Candidate<T> = (Arc<Facts>, Arc<T>, Arc<std::sync::atomic::AtomicUsize>);
        let kept: Vec<Candidate<T>> =
            self.kept.lock().ok()?.entries.iter().filter(|e| fits(&e.t)).map(|e| (e.facts.clone(), e.t.clone(), e.used.clone())).collect();
        let (_, t, used) = kept.into_iter().find(|(f, ..)| f.hold(who))?;
        used.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(t)
    }

    /// Keeps `t`, computed from `facts`, weighing about `weight` bytes (a compile that read the
    /// minion's id fits no other minion, and is not kept).
    pub fn put(&self, facts: Facts, t: Arc<T>, weight: usize) {
        if facts.read_id() {
            return;
        }
        let Ok(mut kept) = self.kept.lock() else { return };
        while kept.weight + weight > SHARED_BUDGET {
            // The oldest result no other minion used: likely a minion of a kind of its own.
            let Some(i) = kept.entries.iter().position(|e| e.used.load(std::sync::atomic::Ordering::Relaxed) == 0) else { return };
            let gone = kept.entries.remove(i);
            kept.weight -= gone.weight;
        }
        kept.weight += weight;
        kept.entries.push(Entry { facts: Arc::new(facts), t, weight, used: Default::default() });
    }

    /// How many results are kept.
    pub fn len(&self) -> usize {
        self.kept.lock().map(|k| k.entries.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
