//! What rendering one SLS file leaves for the files rendered after it in the same highstate.
//! Salt renders a highstate's files in one process, one after another: `__pillar__` is one
//! dict for the whole run, so a template that changes a pillar value in place
//! (`{% do salt['pillar.get']('vpn').update(...) %}`) changes it for every later file. The
//! templates' `pillar` variable is another dict, one for the run too (Salt 3008: a change made
//! through `pillar.vpn` reaches the later files' `pillar.vpn`, not their `pillar.get`).

use std::sync::Arc;

use crate::value::{Dict, Val};
use crate::workspace::facts::Data;

/// The state one render hands to the next ([`Carry::default`]: nothing, the minion's own data).
#[derive(Debug, Clone, Default)]
pub struct Carry {
    /// The whole pillar as the files rendered so far left it, where one changed it.
    pub pillar: Option<Arc<serde_json::Value>>,
    /// The templates' `pillar` variable as the files rendered so far left it, where one changed it.
    pub template_pillar: Option<Arc<serde_json::Value>>,
    /// The `stateconf` renderer's `stateconf.set` values so far (its module globals in Salt).
    pub stateconf: Conf,
    /// A fingerprint of the above (0 for an empty carry), for the render memo's key.
    fingerprint: u64,
}

impl Carry {
    /// Whether it carries nothing.
    pub fn is_empty(&self) -> bool {
        self.pillar.is_none() && self.template_pillar.is_none() && self.stateconf.is_empty()
    }

    /// What keys a render made with this carry: 0 when it carries nothing, so that a file's
    /// render is kept under the same key as before any file changed anything.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The carry with the two pillars a render left (`None`: it did not change that one).
    pub fn with_pillars(mut self, pillar: Option<serde_json::Value>, template_pillar: Option<serde_json::Value>) -> Carry {
        let changed = pillar.is_some() || template_pillar.is_some();
        if let Some(p) = pillar {
            self.pillar = Some(Arc::new(p));
        }
        if let Some(p) = template_pillar {
            self.template_pillar = Some(Arc::new(p));
        }
        if changed {
            self.fingerprint = self.compute();
        }
        self
    }

    fn compute(&self) -> u64 {
        if self.is_empty() {
            return 0;
        }
        let text = |p: &Option<Arc<serde_json::Value>>| p.as_ref().map(|p| p.to_string()).unwrap_or_default();
        crate::workspace::reads::hash(&format!("{}\0{}\0{}", text(&self.pillar), text(&self.template_pillar), self.stateconf.canonical())).max(1)
    }

    /// The carry with the `stateconf.set` values a `stateconf` render left.
    pub fn with_stateconf(mut self, conf: Conf) -> Carry {
        if conf != self.stateconf {
            self.stateconf = conf;
            self.fingerprint = self.compute();
        }
        self
    }

    /// The pillar a template gets: `pillar` (the minion's), or the one the earlier files left,
    /// read and recorded as `pillar` is.
    pub fn pillar_for(&self, pillar: &Data) -> Data {
        carried(&self.pillar, pillar)
    }

    /// The same for the template's `pillar` variable.
    pub fn template_pillar_for(&self, pillar: &Data) -> Data {
        carried(&self.template_pillar, pillar)
    }
}

/// `pillar` with the value a carry holds for it, if any.
fn carried(kept: &Option<Arc<serde_json::Value>>, pillar: &Data) -> Data {
    match kept {
        None => pillar.clone(),
        Some(p) => pillar.with_value(p.clone()),
    }
}

/// Salt's `STATE_CONF` and `STATE_CONF_EXT`: the `stateconf.set` values of the files rendered
/// so far in the run (`sls::id` to its values), outside `extend` and under it.
#[derive(Debug, Clone, Default)]
pub struct Conf {
    pub conf: Vec<(String, Dict)>,
    pub ext: Vec<(String, Dict)>,
}

impl PartialEq for Conf {
    fn eq(&self, other: &Conf) -> bool {
        self.canonical() == other.canonical()
    }
}

impl Conf {
    /// Whether no `stateconf` file set a value yet.
    pub fn is_empty(&self) -> bool {
        self.conf.is_empty() && self.ext.is_empty()
    }
    /// A stable text of it, for the carry's fingerprint.
    pub fn canonical(&self) -> String {
        let side = |s: &[(String, Dict)]| s.iter().map(|(k, d)| format!("{k:?}={}", Val::dict(d.clone()).canonical())).collect::<Vec<_>>().join(",");
        format!("{}|{}", side(&self.conf), side(&self.ext))
    }
    pub(crate) fn entry<'a>(side: &'a mut Vec<(String, Dict)>, id: &str) -> &'a mut Dict {
        let i = match side.iter().position(|(k, _)| k == id) {
            Some(i) => i,
            None => {
                side.push((id.to_string(), Dict::new()));
                side.len() - 1
            }
        };
        &mut side[i].1
    }
}
