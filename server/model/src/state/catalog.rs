//! The state-function catalog: every state module a Salt release line ships (by the name its
//! loader gives it), each function's arguments with their Python-repr defaults, whether it
//! takes `**kwargs`, and Salt's own words where Salt says it, or an argument passed to it, is
//! deprecated (with the version Salt removes the argument in); the same facts for
//! the state modules of the Salt extensions (saltext packages) a minion may have installed.
//! The data is generated from Salt's own loader and committed: `catalog-3006.json`,
//! `catalog-3007.json`, `catalog-3008.json` by `tests/conformance/gen_state_catalog.py` run
//! under each release, `saltexts.json` by `tests/conformance/gen_saltext_catalog.py`;
//! [`Catalog::for_version`] and [`Saltexts::builtin`] parse each once. A compile's catalog
//! ([`workspace_catalog`]) is the minion's release's core, with the extensions `saltexts:`
//! lists laid over it, with the workspace's custom `_states/*.py` modules over both (read
//! through the [`Vfs`] and parsed by `syntax::python`, never imported): Salt's loader looks in
//! the synced extension modules first, then the installed extensions, then its own.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::Value;
use syntax::python::parse_module;

use crate::version::SaltVersion;
use crate::workspace::config::Opts;
use crate::workspace::roots::FileRoots;
use crate::workspace::saltexts::normalise;
use crate::workspace::vfs::Vfs;

/// State modules and their functions, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    modules: Vec<Module>,
    /// The Salt version the built-in part was generated from (`3006.29`).
    salt_version: String,
    /// The release line of the built-in part.
    release: SaltVersion,
}

/// One state module (`pkg`, `file`, or a custom `_states/*.py`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    pub name: String,
    /// Sorted by name.
    pub functions: Vec<Function>,
    /// `Some(file)` for a workspace's `_states/*.py` module.
    pub custom: Option<PathBuf>,
    /// `Some(package)` (`saltext-mysql`) for a Salt extension's module.
    pub saltext: Option<String>,
}

/// One state function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// In signature order, without `*args`/`**kwargs`.
    pub args: Vec<Arg>,
    /// The function takes `**kwargs`.
    pub kwargs: bool,
    /// Salt's own deprecation words, when Salt says the function is deprecated.
    pub deprecated: Option<String>,
    /// The arguments Salt warns about at run time when a state passes them, sorted by name.
    pub deprecated_args: Vec<DeprecatedArg>,
    /// The docstring, for a custom module's function (read from its source). Salt's own
    /// documentation is not shipped: the editor asks the user's Salt for it.
    pub doc: Option<String>,
    /// Where a custom module's function is defined (its name in the `def`), in bytes.
    pub span: Option<std::ops::Range<usize>>,
}

/// An argument Salt warns about when a state passes it (a `salt.utils.versions.warn_until`
/// in the function's body behind `if "x" in kwargs:` or `if x is not None:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeprecatedArg {
    pub name: String,
    /// What Salt warns, its version formatted as Salt formats it.
    pub message: String,
    /// The release Salt removes it in, as Salt writes it (`3009.0 (Potassium)`), or a date.
    pub removed: String,
}

/// One argument of a state function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    pub name: String,
    /// The Python repr of the default; `None`: the argument is required.
    pub default: Option<String>,
}

const CATALOG_3006: &str = include_str!("catalog-3006.json");
const CATALOG_3007: &str = include_str!("catalog-3007.json");
const CATALOG_3008: &str = include_str!("catalog-3008.json");
const SALTEXTS_JSON: &str = include_str!("saltexts.json");

impl Catalog {
    /// The core state modules of the release line `version`, as the committed catalog
    /// generated from that release's Salt has them, parsed once.
    pub fn for_version(version: SaltVersion) -> &'static Catalog {
        static PARSED: [OnceLock<Catalog>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let (i, text) = match version {
            SaltVersion::V3006 => (0, CATALOG_3006),
            SaltVersion::V3007 => (1, CATALOG_3007),
            SaltVersion::V3008 => (2, CATALOG_3008),
        };
        PARSED[i].get_or_init(|| {
            let mut c = Catalog::from_json(text).unwrap_or_default();
            c.release = version;
            c
        })
    }

    /// The core of `version` with the modules of the extensions `saltexts` (normalised names,
    /// [`normalise`]) laid over it: an extension's module replaces a core module of
    /// its name, as the loader looks in the installed extensions before Salt's own modules.
    /// Built once per distinct list.
    pub fn with_saltexts(version: SaltVersion, saltexts: &[String]) -> &'static Catalog {
        let core = Catalog::for_version(version);
        if saltexts.is_empty() {
            return core;
        }
        type Built = Vec<((SaltVersion, Vec<String>), &'static Catalog)>;
        static BUILT: std::sync::Mutex<Built> = std::sync::Mutex::new(Vec::new());
        let mut built = BUILT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, c)) = built.iter().find(|((v, s), _)| *v == version && s == saltexts) {
            return c;
        }
        let mut c = core.clone();
        for name in saltexts {
            let Some(package) = Saltexts::builtin().package(name) else { continue };
            for m in &package.modules {
                c.insert(m.clone());
            }
        }
        // One per distinct `saltexts:` list of a session: a handful at most.
        let c: &'static Catalog = Box::leak(Box::new(c));
        built.push(((version, saltexts.to_vec()), c));
        c
    }

    /// Parses the generator's JSON (`{"salt": VERSION, "modules": {NAME: {FUNCTION: {"args":
    /// [[ARG, DEFAULT|null]], "kwargs": BOOL, "deprecated": TEXT|null, "deprecated_args"?: {ARG:
    /// {"message": TEXT, "removed": VERSION}}}}}}`).
    pub fn from_json(text: &str) -> Option<Catalog> {
        let root: Value = serde_json::from_str(text).ok()?;
        let salt_version = root.get("salt")?.as_str()?.to_owned();
        let release = SaltVersion::parse(&salt_version).unwrap_or_default();
        Some(Catalog { modules: modules_from_json(root.get("modules")?, None)?, salt_version, release })
    }

    /// A module in place of the one of its name, or added.
    fn insert(&mut self, m: Module) {
        match self.modules.binary_search_by(|x| x.name.cmp(&m.name)) {
            Ok(i) => self.modules[i] = m,
            Err(i) => self.modules.insert(i, m),
        }
    }
}

/// The generator's `{NAME: {FUNCTION: {...}}}`, as sorted modules (of the extension `saltext`).
fn modules_from_json(value: &Value, saltext: Option<&str>) -> Option<Vec<Module>> {
    let mut modules = Vec::new();
    for (name, functions) in value.as_object()? {
        let mut fs = Vec::new();
        for (fname, f) in functions.as_object()? {
            let args = f
                .get("args")?
                .as_array()?
                .iter()
                .map(|a| {
                    let pair = a.as_array()?;
                    Some(Arg { name: pair.first()?.as_str()?.to_owned(), default: pair.get(1)?.as_str().map(str::to_owned) })
                })
                .collect::<Option<Vec<_>>>()?;
            let mut deprecated_args = Vec::new();
            for (arg, d) in f.get("deprecated_args").and_then(Value::as_object).into_iter().flatten() {
                deprecated_args.push(DeprecatedArg {
                    name: arg.clone(),
                    message: d.get("message")?.as_str()?.to_owned(),
                    removed: d.get("removed")?.as_str()?.to_owned(),
                });
            }
            deprecated_args.sort_by(|a, b| a.name.cmp(&b.name));
            fs.push(Function {
                name: fname.clone(),
                args,
                kwargs: f.get("kwargs")?.as_bool()?,
                deprecated: f.get("deprecated").and_then(Value::as_str).map(str::to_owned),
                deprecated_args,
                doc: None,
                span: None,
            });
        }
        fs.sort_by(|a, b| a.name.cmp(&b.name));
        modules.push(Module { name: name.clone(), functions: fs, custom: None, saltext: saltext.map(str::to_owned) });
    }
    modules.sort_by(|a, b| a.name.cmp(&b.name));
    Some(modules)
}

/// The Salt extensions salt-analyzer knows (`saltexts.json`: the saltext packages on PyPI,
/// each with its version and state modules), by normalised name.
#[derive(Debug, Clone, Default)]
pub struct Saltexts {
    /// Sorted by name.
    packages: Vec<Saltext>,
}

/// One Salt extension package.
#[derive(Debug, Clone)]
pub struct Saltext {
    /// Normalised ([`normalise`]): `saltext-mysql`.
    pub name: String,
    /// The version its modules were catalogued from.
    pub version: String,
    /// Its state modules, sorted by name (none for an extension of other kinds of modules).
    pub modules: Vec<Module>,
}

impl Saltexts {
    /// The committed extension catalog, parsed once.
    pub fn builtin() -> &'static Saltexts {
        static PARSED: OnceLock<Saltexts> = OnceLock::new();
        PARSED.get_or_init(|| Saltexts::from_json(SALTEXTS_JSON).unwrap_or_default())
    }

    /// Parses `{"salt": VERSION, "packages": {NAME: {"version": V, "modules": {...}}}}`.
    pub fn from_json(text: &str) -> Option<Saltexts> {
        let root: Value = serde_json::from_str(text).ok()?;
        let mut packages = Vec::new();
        for (name, p) in root.get("packages")?.as_object()? {
            let name = normalise(name);
            let modules = modules_from_json(p.get("modules")?, Some(&name))?;
            packages.push(Saltext { version: p.get("version")?.as_str()?.to_owned(), modules, name });
        }
        packages.sort_by(|a, b| a.name.cmp(&b.name));
        Some(Saltexts { packages })
    }

    /// Every package, sorted by name.
    pub fn packages(&self) -> impl Iterator<Item = &Saltext> {
        self.packages.iter()
    }

    /// The package `name` (as users write it: [`normalise`]).
    pub fn package(&self, name: &str) -> Option<&Saltext> {
        let name = normalise(name);
        self.packages.binary_search_by(|p| p.name.as_str().cmp(&name)).ok().map(|i| &self.packages[i])
    }

    /// The first package (by name) whose state module `module` has `function`.
    pub fn provider(&self, module: &str, function: &str) -> Option<&Saltext> {
        self.packages.iter().find(|p| p.module(module).is_some_and(|m| m.function(function).is_some()))
    }
}

impl Saltext {
    pub fn module(&self, name: &str) -> Option<&Module> {
        self.modules.binary_search_by(|m| m.name.as_str().cmp(name)).ok().map(|i| &self.modules[i])
    }
}

impl Catalog {
    /// The Salt version the built-in modules come from (`3008.4`).
    pub fn salt_version(&self) -> &str {
        &self.salt_version
    }

    /// The release line of the built-in modules.
    pub fn release(&self) -> SaltVersion {
        self.release
    }

    /// Every module, sorted by name.
    pub fn modules(&self) -> impl Iterator<Item = &Module> {
        self.modules.iter()
    }

    pub fn module(&self, name: &str) -> Option<&Module> {
        self.modules.binary_search_by(|m| m.name.as_str().cmp(name)).ok().map(|i| &self.modules[i])
    }

    pub fn function(&self, module: &str, function: &str) -> Option<&Function> {
        self.module(module)?.function(function)
    }

    /// This catalog with `custom` modules laid over it: a custom module of a built-in's name
    /// replaces it (Salt's loader looks in the extension modules first), and of two custom
    /// modules of one name the first wins (the first file root, as Salt's `extension_modules`
    /// sync keeps one file per name).
    pub fn with_custom(&self, custom: impl IntoIterator<Item = Module>) -> Catalog {
        let mut out = self.clone();
        let mut seen = std::collections::HashSet::new();
        for mut m in custom {
            if !seen.insert(m.name.clone()) {
                continue;
            }
            m.functions.sort_by(|a, b| a.name.cmp(&b.name));
            m.functions.dedup_by(|b, a| a.name == b.name);
            out.insert(m);
        }
        out
    }
}

/// The catalog of a compile with `opts`: the core of its Salt release ([`Opts::version`]),
/// the extensions it lists ([`Opts::saltexts`]), and the workspace's custom state modules
/// over both: what a minion of this workspace calls after `saltutil.sync_states`. Reads go
/// through `fs`, so a recorder sees every `_states` listing and file this depends on.
pub fn workspace_catalog(fs: &dyn Vfs, roots: &FileRoots, opts: &Opts) -> Cow<'static, Catalog> {
    catalog_with(opts, custom_modules(fs, roots))
}

/// The catalog of a compile with `opts`, with the custom modules `custom`
/// ([`custom_modules`]) laid over it.
pub fn catalog_with(opts: &Opts, custom: Vec<Module>) -> Cow<'static, Catalog> {
    let base = Catalog::with_saltexts(opts.version, &opts.saltexts);
    if custom.is_empty() {
        return Cow::Borrowed(base);
    }
    Cow::Owned(base.with_custom(custom))
}

/// The `_states/*.py` modules of every environment's file roots, parsed (never imported): as
/// `saltutil.sync_states` copies them (`salt/utils/extmods.py` `sync`: the first root of an
/// environment that has a file serves it, a later environment's file of the same name
/// overwrites an earlier one's), then named as the loader names them (`__virtualname__` or the
/// file name; public top-level functions renamed by `__func_alias__`). Sorted by file name.
pub fn custom_modules(fs: &dyn Vfs, roots: &FileRoots) -> Vec<Module> {
    let mut out = Vec::new();
    for (rel, path) in crate::workspace::roots::synced_files(fs, roots, "_states") {
        let Ok(text) = fs.read(&path) else { continue };
        let py = parse_module(&text);
        let name = py.virtualname.clone().unwrap_or_else(|| rel.trim_end_matches(".py").to_string());
        let functions = py
            .functions
            .iter()
            .filter(|f| !f.name.starts_with('_'))
            .map(|f| Function {
                name: py.func_alias.iter().find(|(k, _)| *k == f.name).map_or_else(|| f.name.clone(), |(_, v)| v.clone()),
                args: f.params.iter().map(|(n, d)| Arg { name: n.clone(), default: d.clone() }).collect(),
                kwargs: f.kwargs,
                deprecated: None,
                deprecated_args: Vec::new(),
                doc: f.doc.clone(),
                span: Some(f.span.clone()),
            })
            .collect();
        out.push(Module { name, functions, custom: Some(path), saltext: None });
    }
    out
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.binary_search_by(|f| f.name.as_str().cmp(name)).ok().map(|i| &self.functions[i])
    }
}

impl Function {
    pub fn arg(&self, name: &str) -> Option<&Arg> {
        self.args.iter().find(|a| a.name == name)
    }

    /// The argument `name`, when Salt warns that it is deprecated.
    pub fn deprecated_arg(&self, name: &str) -> Option<&DeprecatedArg> {
        self.deprecated_args.binary_search_by(|a| a.name.as_str().cmp(name)).ok().map(|i| &self.deprecated_args[i])
    }

    /// `name(a, b=None, **kwargs)`, Python's way of writing the signature.
    pub fn signature(&self, module: &str) -> String {
        let mut parts: Vec<String> = self
            .args
            .iter()
            .map(|a| match &a.default {
                Some(d) => format!("{}={d}", a.name),
                None => a.name.clone(),
            })
            .collect();
        if self.kwargs {
            parts.push("**kwargs".into());
        }
        format!("{module}.{}({})", self.name, parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_has_salts_modules() {
        let c = Catalog::for_version(SaltVersion::V3008);
        assert!(c.salt_version().starts_with("3008"), "{}", c.salt_version());
        assert_eq!(c.release(), SaltVersion::V3008);
        assert!(c.modules().count() > 100);
        let installed = c.function("pkg", "installed").expect("pkg.installed");
        assert_eq!(installed.args[0], Arg { name: "name".into(), default: None });
        assert_eq!(installed.arg("refresh").and_then(|a| a.default.as_deref()), Some("None"));
        assert!(installed.kwargs);
        assert!(c.function("pkg", "nope").is_none());
        // `__virtualname__`, not the file name: x509_v2.py is the `x509` a 3008 minion loads.
        assert!(c.function("x509", "certificate_managed").is_some());
        assert!(c.module("x509_v2").is_none());
        // `__func_alias__`: file.py defines `copy_` and aliases it to `copy`.
        assert!(c.function("file", "copy").is_some());
        assert!(c.function("file", "copy_").is_none());
        assert!(c.function("file", "shortcut").unwrap().deprecated.is_some());
        assert!(c.modules().zip(c.modules().skip(1)).all(|(a, b)| a.name < b.name));
    }

    #[test]
    fn custom_replaces_builtin() {
        let f = Function {
            name: "installed".into(),
            args: vec![Arg { name: "name".into(), default: None }],
            kwargs: false,
            deprecated: None,
            deprecated_args: Vec::new(),
            doc: None,
            span: None,
        };
        let m = Module { name: "pkg".into(), functions: vec![f], custom: Some("_states/pkg.py".into()), saltext: None };
        let c = Catalog::for_version(SaltVersion::V3008).with_custom([m]);
        assert!(c.function("pkg", "latest").is_none());
        assert!(!c.function("pkg", "installed").unwrap().kwargs);
        assert!(c.function("file", "managed").is_some());
        expect_test::expect!["pkg.installed(name)"].assert_eq(&c.function("pkg", "installed").unwrap().signature("pkg"));
    }

    #[test]
    fn each_release_has_its_own_core() {
        let (c6, c7, c8) = (Catalog::for_version(SaltVersion::V3006), Catalog::for_version(SaltVersion::V3007), Catalog::for_version(SaltVersion::V3008));
        for (c, v) in [(c6, "3006."), (c7, "3007."), (c8, "3008.")] {
            assert!(c.salt_version().starts_with(v), "{}", c.salt_version());
        }
        // 3008 moved most modules into Salt extensions.
        assert!(c6.modules().count() > 300 && c7.modules().count() > 300 && c8.modules().count() < 200);
        for c in [c6, c7] {
            assert!(c.function("mysql_user", "present").is_some());
            assert!(c.function("docker_container", "running").is_some());
            // Before 3008, `x509` is x509.py: x509_v2.py loads only with `features: {x509_v2: true}`.
            assert!(c.function("x509", "certificate_managed").unwrap().arg("ca_server").is_none());
        }
        assert!(c8.module("mysql_user").is_none());
        assert!(c8.function("x509", "certificate_managed").unwrap().arg("ca_server").is_some());
        // `nxos.py` and `nxos_upgrade.py` both load as `nxos`: the loader has both's functions.
        assert!(c6.function("nxos", "user_present").is_some() && c6.function("nxos", "image_running").is_some());
        // Each release's own deprecation words: 3007 deprecates the zabbix modules (for 3009).
        assert!(c6.function("zabbix_host", "present").unwrap().deprecated.is_none());
        let words = c7.function("zabbix_host", "present").unwrap().deprecated.as_deref().unwrap();
        assert!(words.contains("removed in version 3009") && words.contains("saltext.zabbix"), "{words}");
    }

    #[test]
    fn saltexts_lay_over_the_core() {
        let exts = Saltexts::builtin();
        let mysql = exts.package("saltext.mysql").expect("saltext-mysql");
        assert!(mysql.module("mysql_user").is_some() && !mysql.version.is_empty());
        assert_eq!(exts.provider("mysql_user", "present").map(|p| p.name.as_str()), Some("saltext-mysql"));
        assert_eq!(exts.provider("docker_container", "running").map(|p| p.name.as_str()), Some("saltext-dockermod"));
        assert!(exts.provider("mysql_user", "nope").is_none());
        // An extension of execution modules only is still known.
        assert!(exts.package("formula").is_some_and(|p| p.modules.is_empty()));
        // The names `saltexts:` accepts are the packages of this catalog.
        assert_eq!(exts.packages().map(|p| p.name.clone()).collect::<Vec<_>>(), crate::workspace::saltexts::known());
        let c = Catalog::with_saltexts(SaltVersion::V3008, &["saltext-mysql".into()]);
        assert_eq!(c.module("mysql_user").and_then(|m| m.saltext.as_deref()), Some("saltext-mysql"));
        assert!(c.function("file", "managed").is_some());
        assert_eq!(c.release(), SaltVersion::V3008);
        assert!(std::ptr::eq(c, Catalog::with_saltexts(SaltVersion::V3008, &["saltext-mysql".into()])), "built once");
        assert!(std::ptr::eq(Catalog::with_saltexts(SaltVersion::V3006, &[]), Catalog::for_version(SaltVersion::V3006)));
    }
}
