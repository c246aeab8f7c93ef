//! The state-function catalog: every state module Salt 3008 ships (by the name its loader
//! gives it), each function's arguments with their Python-repr defaults, whether it takes
//! `**kwargs`, and Salt's own words where Salt says it is deprecated. The data
//! (`catalog.json`) is generated from the pinned Salt by `tests/conformance/gen_state_catalog.py`
//! and committed; [`Catalog::builtin`] parses it once. [`Catalog::with_custom`] lays a
//! workspace's custom `_states/*.py` modules over it (a custom module replaces a built-in one
//! of the same name, as Salt's loader prefers the extension modules); [`workspace_catalog`] is
//! the catalog of a workspace (built-in plus its file roots' `_states/*.py`, read through the
//! [`Vfs`] and parsed by `syntax::python`, never imported).

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::Value;
use syntax::python::parse_module;

use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::Vfs;

/// State modules and their functions, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    modules: Vec<Module>,
    /// The Salt version the built-in part was generated from.
    salt_version: String,
}

/// One state module (`pkg`, `file`, or a custom `_states/*.py`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    pub name: String,
    /// Sorted by name.
    pub functions: Vec<Function>,
    /// `Some(file)` for a workspace's `_states/*.py` module.
    pub custom: Option<PathBuf>,
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
    /// The docstring, for a custom module's function (read from its source). Salt's own
    /// documentation is not shipped: the editor asks the user's Salt for it.
    pub doc: Option<String>,
    /// Where a custom module's function is defined (its name in the `def`), in bytes.
    pub span: Option<std::ops::Range<usize>>,
}

/// One argument of a state function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    pub name: String,
    /// The Python repr of the default; `None`: the argument is required.
    pub default: Option<String>,
}

const BUILTIN_JSON: &str = include_str!("catalog.json");

impl Catalog {
    /// The catalog committed in the repo (generated from the pinned Salt 3008.4), parsed once.
    pub fn builtin() -> &'static Catalog {
        static BUILTIN: OnceLock<Catalog> = OnceLock::new();
        BUILTIN.get_or_init(|| Catalog::from_json(BUILTIN_JSON).unwrap_or_default())
    }

    /// Parses the generator's JSON (`{"salt": VERSION, "modules": {NAME: {FUNCTION: {"args":
    /// [[ARG, DEFAULT|null]], "kwargs": BOOL, "deprecated": TEXT|null}}}}`).
    pub fn from_json(text: &str) -> Option<Catalog> {
        let root: Value = serde_json::from_str(text).ok()?;
        let salt_version = root.get("salt")?.as_str()?.to_owned();
        let mut modules = Vec::new();
        for (name, functions) in root.get("modules")?.as_object()? {
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
                fs.push(Function {
                    name: fname.clone(),
                    args,
                    kwargs: f.get("kwargs")?.as_bool()?,
                    deprecated: f.get("deprecated").and_then(Value::as_str).map(str::to_owned),
                    doc: None,
                    span: None,
                });
            }
            fs.sort_by(|a, b| a.name.cmp(&b.name));
            modules.push(Module { name: name.clone(), functions: fs, custom: None });
        }
        modules.sort_by(|a, b| a.name.cmp(&b.name));
        Some(Catalog { modules, salt_version })
    }

    /// The Salt version the built-in modules come from.
    pub fn salt_version(&self) -> &str {
        &self.salt_version
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
            match out.modules.binary_search_by(|x| x.name.cmp(&m.name)) {
                Ok(i) => out.modules[i] = m,
                Err(i) => out.modules.insert(i, m),
            }
        }
        out
    }
}

/// The built-in catalog with the workspace's custom state modules laid over it: what a
/// minion of this workspace calls after `saltutil.sync_states`. Reads go through `fs`, so a
/// recorder sees every `_states` listing and file this depends on.
pub fn workspace_catalog(fs: &dyn Vfs, roots: &FileRoots) -> Cow<'static, Catalog> {
    catalog_with(custom_modules(fs, roots))
}

/// The built-in catalog with the custom modules `custom` ([`custom_modules`]) laid over it.
pub fn catalog_with(custom: Vec<Module>) -> Cow<'static, Catalog> {
    if custom.is_empty() {
        return Cow::Borrowed(Catalog::builtin());
    }
    Cow::Owned(Catalog::builtin().with_custom(custom))
}

/// The `_states/*.py` modules of every environment's file roots, parsed (never imported): as
/// `saltutil.sync_states` copies them (`salt/utils/extmods.py` `sync`: the first root of an
/// environment that has a file serves it, a later environment's file of the same name
/// overwrites an earlier one's), then named as the loader names them (`__virtualname__` or the
/// file name; public top-level functions renamed by `__func_alias__`). Sorted by file name.
pub fn custom_modules(fs: &dyn Vfs, roots: &FileRoots) -> Vec<Module> {
    let mut files: std::collections::BTreeMap<String, PathBuf> = std::collections::BTreeMap::new();
    for env in roots.envs.values() {
        let mut this_env: std::collections::BTreeMap<String, PathBuf> = std::collections::BTreeMap::new();
        for root in &env.roots {
            let dir = root.join("_states");
            for rel in fs.walk(&dir) {
                if rel.contains('/') || !rel.ends_with(".py") || rel == "__init__.py" {
                    continue;
                }
                this_env.entry(rel.clone()).or_insert_with(|| dir.join(&rel));
            }
        }
        files.extend(this_env);
    }
    let mut out = Vec::new();
    for (rel, path) in files {
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
                doc: f.doc.clone(),
                span: Some(f.span.clone()),
            })
            .collect();
        out.push(Module { name, functions, custom: Some(path) });
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
        let c = Catalog::builtin();
        assert!(c.salt_version().starts_with("3008"), "{}", c.salt_version());
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
            doc: None,
            span: None,
        };
        let m = Module { name: "pkg".into(), functions: vec![f], custom: Some("_states/pkg.py".into()) };
        let c = Catalog::builtin().with_custom([m]);
        assert!(c.function("pkg", "latest").is_none());
        assert!(!c.function("pkg", "installed").unwrap().kwargs);
        assert!(c.function("file", "managed").is_some());
        expect_test::expect!["pkg.installed(name)"].assert_eq(&c.function("pkg", "installed").unwrap().signature("pkg"));
    }
}
