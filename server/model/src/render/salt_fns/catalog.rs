//! Which execution-module functions a minion's `salt` object has: the core of its Salt release
//! (`exec-3006.json`, `exec-3007.json`, `exec-3008.json`, generated from each release's loader by
//! `tests/conformance/gen_exec_catalog.py`), the Salt extensions `saltexts:` lists
//! (`saltexts-exec.json`, by the same generator's `--saltexts`), and the workspace's custom
//! `_modules/*.py` (parsed by `syntax::python`, never imported). Names only: what a template's
//! `salt['mod.fun']` can find; the functions are still not run.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde_json::Value;

use crate::diagnostic::Code;
use crate::version::SaltVersion;
use crate::workspace::roots::FileRoots;
use crate::workspace::saltexts::normalise;
use crate::workspace::vfs::Vfs;

/// Module name to its function names.
type Modules = BTreeMap<String, BTreeSet<String>>;

const EXEC_3006: &str = include_str!("exec-3006.json");
const EXEC_3007: &str = include_str!("exec-3007.json");
const EXEC_3008: &str = include_str!("exec-3008.json");
const SALTEXTS_EXEC: &str = include_str!("saltexts-exec.json");

/// Extensions counted as installed without `saltexts:`: saltext-formula, whose `map.data` the
/// renderer answers itself (`salt_fns::map`, the mapstack model).
const ASSUMED: &[&str] = &["saltext-formula"];

/// The core execution modules of release line `version`, parsed once.
fn core(version: SaltVersion) -> &'static Modules {
    static PARSED: [OnceLock<Modules>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let (i, text) = match version {
        SaltVersion::V3006 => (0, EXEC_3006),
        SaltVersion::V3007 => (1, EXEC_3007),
        SaltVersion::V3008 => (2, EXEC_3008),
    };
    PARSED[i].get_or_init(|| {
        let root: Value = serde_json::from_str(text).unwrap_or_default();
        root.get("modules").map(modules_from_json).unwrap_or_default()
    })
}

/// The extensions' execution modules, by normalised package name, parsed once.
fn saltexts() -> &'static BTreeMap<String, Modules> {
    static PARSED: OnceLock<BTreeMap<String, Modules>> = OnceLock::new();
    PARSED.get_or_init(|| {
        let root: Value = serde_json::from_str(SALTEXTS_EXEC).unwrap_or_default();
        let packages = root.get("packages").and_then(Value::as_object).into_iter().flatten();
        packages.map(|(name, p)| (normalise(name), p.get("modules").map(modules_from_json).unwrap_or_default())).collect()
    })
}

/// `{NAME: "FUNCTION FUNCTION ..."}`.
fn modules_from_json(value: &Value) -> Modules {
    let entries = value.as_object().into_iter().flatten();
    entries.map(|(name, fs)| (name.clone(), fs.as_str().unwrap_or("").split_whitespace().map(str::to_owned).collect())).collect()
}

/// The execution functions one minion has: what `salt['mod.fun']` finds.
#[derive(Debug, Clone)]
pub struct ExecFunctions {
    version: SaltVersion,
    /// The extensions counted as installed (normalised, with [`ASSUMED`]).
    saltexts: Vec<String>,
    /// The workspace's `_modules`, by the name the loader gives them.
    custom: Modules,
    /// The release is only the default, stated nowhere: a function another supported
    /// release's core or a known extension has counts as there (rendered inert, as any
    /// function not run), since the minion may well have it; a stated release decides.
    assumed: bool,
}

/// A function or module the `salt` object does not have: what Jinja says when a template uses
/// it, and why, when salt-analyzer knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// What the object lacks: `nope.fn` of `salt['nope.fn']`, `nope` of `salt.nope.fn`, `fn` of
    /// `salt.test.fn`.
    pub key: String,
    /// Python's name for the object that lacks it, as Jinja quotes it.
    pub object: &'static str,
    /// Why, for a function a Salt extension or an older release has.
    pub reason: Option<String>,
    /// [`Code::NotInCore`] when a Salt extension provides it, else [`Code::RenderError`].
    pub code: Code,
}

impl Missing {
    /// Jinja's words under Salt: `'salt.utils.templates.AliasedLoader object' has no attribute 'nope.fn'`.
    pub fn message(&self) -> String {
        format!("{} has no attribute '{}'", self.object, self.key)
    }
}

/// What Jinja calls the `salt` object (`salt.utils.templates.AliasedLoader`) and one of its
/// modules (`salt.loader.lazy.LoadedMod`), in 3006, 3007 and 3008 alike.
const LOADER: &str = "'salt.utils.templates.AliasedLoader object'";
const LOADED_MOD: &str = "'salt.loader.lazy.LoadedMod object'";

impl ExecFunctions {
    /// A minion of `version` with the extensions `saltexts` (as users write them) and the custom
    /// modules `custom` ([`custom_modules`]).
    pub fn new(version: SaltVersion, saltexts: &[String], custom: Vec<(String, Vec<String>)>) -> ExecFunctions {
        ExecFunctions::with_release_known(version, true, saltexts, custom)
    }

    /// [`ExecFunctions::new`], saying whether anything stated the release (`known`: else it is
    /// the default, and what any release or extension has counts as there).
    pub fn with_release_known(version: SaltVersion, known: bool, saltexts: &[String], custom: Vec<(String, Vec<String>)>) -> ExecFunctions {
        let mut exts: Vec<String> = saltexts.iter().map(|s| normalise(s)).chain(ASSUMED.iter().map(|s| s.to_string())).collect();
        exts.sort();
        exts.dedup();
        let mut modules = Modules::new();
        for (name, fs) in custom {
            modules.entry(name).or_default().extend(fs);
        }
        ExecFunctions { version, saltexts: exts, custom: modules, assumed: !known }
    }

    /// What a render depends on: the release, the extensions and the custom functions.
    pub fn fingerprint(&self) -> u64 {
        crate::workspace::reads::hash(&format!("{} {} {:?} {:?}", self.version, self.assumed, self.saltexts, self.custom))
    }

    fn sources(&self) -> impl Iterator<Item = &Modules> {
        let exts = self.saltexts.iter().filter_map(|s| saltexts().get(s));
        // On an assumed release, every release's core and every known extension.
        let others = self.assumed.then(|| SaltVersion::ALL.iter().map(|v| core(*v)).chain(saltexts().values())).into_iter().flatten();
        std::iter::once(core(self.version)).chain(exts).chain(std::iter::once(&self.custom)).chain(others)
    }

    /// The module `module` exists (some of its functions can be found).
    pub fn has_module(&self, module: &str) -> bool {
        self.sources().any(|m| m.contains_key(module))
    }

    /// `module.function` can be found.
    pub fn has(&self, module: &str, function: &str) -> bool {
        self.sources().any(|m| m.get(module).is_some_and(|fs| fs.contains(function)))
    }

    /// `salt[name]` (`name` with a dot): `None` when it exists.
    pub fn item(&self, name: &str) -> Option<Missing> {
        let (module, function) = name.split_once('.')?;
        if self.has(module, function) {
            return None;
        }
        Some(self.missing(name.to_string(), LOADER, module, Some(function)))
    }

    /// `salt.module`: `None` when the module exists.
    pub fn module(&self, module: &str) -> Option<Missing> {
        if self.has_module(module) {
            return None;
        }
        Some(self.missing(module.to_string(), LOADER, module, None))
    }

    /// `salt.module.function` of an existing module: `None` when the function exists.
    pub fn attribute(&self, module: &str, function: &str) -> Option<Missing> {
        if self.has(module, function) {
            return None;
        }
        Some(self.missing(function.to_string(), LOADED_MOD, module, Some(function)))
    }

    fn missing(&self, key: String, object: &'static str, module: &str, function: Option<&str>) -> Missing {
        let what = function.map_or_else(|| module.to_string(), |f| format!("{module}.{f}"));
        let provides = |m: &Modules| m.get(module).is_some_and(|fs| function.is_none_or(|f| fs.contains(f)));
        let older: Vec<String> = SaltVersion::ALL.iter().filter(|v| **v < self.version && provides(core(**v))).map(|v| v.to_string()).collect();
        // A custom module of that name hides any extension's: no extension can help.
        let package = saltexts().iter().find(|(_, m)| provides(m)).map(|(name, _)| name).filter(|_| !self.custom.contains_key(module));
        match package {
            Some(package) => {
                let mut reason = format!("`{what}` is not in Salt {}'s core: install {package}, or list it under `saltexts:`", self.version);
                if !older.is_empty() {
                    reason.push_str(&format!(
                        "\nSalt {} ship it in their core: if this minion runs one of them, say so with `salt_version:`",
                        older.join(" and ")
                    ));
                }
                Missing { key, object, reason: Some(reason), code: Code::NotInCore }
            }
            None => {
                let reason = (!older.is_empty()).then(|| {
                    format!(
                        "`{what}`: Salt {} shipped it; Salt {} removed it from its core, and no Salt extension salt-analyzer knows provides it",
                        older.join(" and "),
                        self.version
                    )
                });
                Missing { key, object, reason, code: Code::RenderError }
            }
        }
    }
}

/// The `_modules/*.py` of every environment's file roots, parsed (never imported), as
/// `saltutil.sync_modules` copies them ([`crate::workspace::roots::synced_files`]) and the
/// loader names them: `__virtualname__` or the file name, with the public top-level functions renamed
/// by `__func_alias__`. Reads go through `fs`, so a recorder sees the listings and files.
pub fn custom_modules(fs: &dyn Vfs, roots: &FileRoots) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (rel, path) in crate::workspace::roots::synced_files(fs, roots, "_modules") {
        let Ok(text) = fs.read(&path) else { continue };
        let py = syntax::python::parse_module(&text);
        let name = py.virtualname.clone().unwrap_or_else(|| rel.trim_end_matches(".py").to_string());
        let alias = |f: &str| py.func_alias.iter().find(|(k, _)| k == f).map_or_else(|| f.to_string(), |(_, v)| v.clone());
        out.push((name, py.functions.iter().filter(|f| !f.name.starts_with('_')).map(|f| alias(&f.name)).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn show(m: Option<Missing>) -> String {
        match m {
            None => "found".into(),
            Some(m) => format!("{:?}: {}\n{}", m.code, m.message(), m.reason.unwrap_or_default()),
        }
    }

    #[test]
    fn core_per_release() {
        let v6 = ExecFunctions::new(SaltVersion::V3006, &[], Vec::new());
        let v8 = ExecFunctions::new(SaltVersion::V3008, &[], Vec::new());
        // `pkg` is several files (`aptpkg.py`, `yumpkg.py`, ...) under one name: their union.
        for f in ["pkg.install", "pkg.version", "test.ping", "cmd.run", "grains.get", "map.data"] {
            let (m, f) = f.split_once('.').unwrap();
            assert!(v6.has(m, f) && v8.has(m, f), "{m}.{f}");
        }
        assert!(v6.has("docker", "ps"));
        assert!(!v8.has("docker", "ps"));
        expect![[r#"
            NotInCore: 'salt.utils.templates.AliasedLoader object' has no attribute 'docker.ps'
            `docker.ps` is not in Salt 3008's core: install saltext-dockermod, or list it under `saltexts:`
            Salt 3006 and 3007 ship it in their core: if this minion runs one of them, say so with `salt_version:`"#]]
        .assert_eq(&show(v8.item("docker.ps")));
        expect![[r#"
            RenderError: 'salt.utils.templates.AliasedLoader object' has no attribute 'boto_s3'
            `boto_s3`: Salt 3006 and 3007 shipped it; Salt 3008 removed it from its core, and no Salt extension salt-analyzer knows provides it"#]]
        .assert_eq(&show(v8.module("boto_s3")));
        expect![[r#"
            RenderError: 'salt.loader.lazy.LoadedMod object' has no attribute 'nope'
        "#]]
        .assert_eq(&show(v8.attribute("test", "nope")));
        assert_eq!(show(v6.item("docker.ps")), "found");
    }

    #[test]
    fn on_an_assumed_release_what_any_release_or_extension_has_is_there() {
        let assumed = ExecFunctions::with_release_known(SaltVersion::V3008, false, &[], Vec::new());
        // 3006's core, an extension's module: the minion may have either.
        assert_eq!((show(assumed.item("docker.ps")), show(assumed.module("boto_s3"))), ("found".to_string(), "found".to_string()));
        assert!(assumed.item("nope.fn").is_some() && assumed.attribute("test", "nope").is_some());
        assert_ne!(assumed.fingerprint(), ExecFunctions::new(SaltVersion::V3008, &[], Vec::new()).fingerprint());
    }

    #[test]
    fn saltexts_and_custom_modules() {
        let listed = ExecFunctions::new(SaltVersion::V3008, &["saltext.dockermod".to_string()], Vec::new());
        assert!(listed.item("docker.ps").is_none() && listed.module("docker").is_none());
        let custom = ExecFunctions::new(SaltVersion::V3008, &[], vec![("docker".into(), vec!["mine".into()])]);
        assert!(custom.item("docker.mine").is_none());
        // A custom module of that name hides the extension's.
        expect![[r#"
            RenderError: 'salt.utils.templates.AliasedLoader object' has no attribute 'docker.ps'
            `docker.ps`: Salt 3006 and 3007 shipped it; Salt 3008 removed it from its core, and no Salt extension salt-analyzer knows provides it"#]]
        .assert_eq(&show(custom.item("docker.ps")));
        assert_ne!(listed.fingerprint(), custom.fingerprint());
    }

    #[test]
    fn custom_modules_as_the_loader_names_them() {
        let fs = crate::workspace::vfs::MemFs::from_fixture(
            "#- srv/_modules/site.py\n__virtualname__ = 'corp'\n__func_alias__ = {'list_': 'list'}\ndef list_():\n    pass\ndef _private():\n    pass\ndef owner(name, default=None):\n    pass\n#- srv/_modules/plain.py\ndef hello():\n    return 'hi'\n",
        );
        let roots = FileRoots::scan(&fs, &[("base".to_string(), vec![std::path::PathBuf::from("/ws/srv")])].into_iter().collect());
        expect![[r#"[("plain", ["hello"]), ("corp", ["list", "owner"])]"#]].assert_eq(&format!("{:?}", custom_modules(&fs, &roots)));
    }
}
