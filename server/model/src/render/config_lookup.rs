//! Salt's `config.get` lookup (`salt/modules/config.py:get`): where a key is found among the opts,
//! grains, pillar, master pillar and `DEFAULTS`, and the merged view `merge=` reads. Shared by
//! the `config.*` template functions and the mapstack model.

use serde_json::{Map, Value};

use crate::py::data::{at, locate, Step};
use crate::py::dictupdate::{self, MergeError};
use crate::workspace::facts::Data;

/// Salt's marker for "not found" in `config.get`: a value equal to it is not found either.
pub(crate) const CONFIG_MISSING: &str = "_|-";

/// Where `config.get` (`salt/modules/config.py:get`) without `merge` looks, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigSource {
    Opts,
    Grains,
    Pillar,
    /// `pillar['master']`.
    Master,
    /// The module's `DEFAULTS`.
    Defaults,
}

/// Where `config.get(key, delimiter=delim)` without `merge` finds its value: the first of the
/// opts, grains, pillar, `pillar['master']` (each unless `omit`, in that order) and `DEFAULTS`
/// that has the key, and the path to it there. Python returns that object itself, so a caller
/// that changes the value changes the source.
pub fn config_locate(opts: &Data, grains: &Data, pillar: &Data, key: &str, delim: &str, omit: [bool; 4]) -> Option<(ConfigSource, Vec<Step>)> {
    let defaults = config_defaults();
    let sources = [ConfigSource::Opts, ConfigSource::Grains, ConfigSource::Pillar, ConfigSource::Master, ConfigSource::Defaults];
    for (i, source) in sources.into_iter().enumerate() {
        if omit.get(i).copied().unwrap_or(false) {
            continue;
        }
        let empty = Value::Object(Map::new());
        // Each source looked in is read at the key's first part.
        let data = match source {
            ConfigSource::Opts => opts.traversed(key, delim),
            ConfigSource::Grains => grains.traversed(key, delim),
            ConfigSource::Pillar => pillar.traversed(key, delim),
            ConfigSource::Master => pillar.get("master").unwrap_or(&empty),
            ConfigSource::Defaults => &defaults,
        };
        if let Some(path) = locate(data, key, delim) {
            if at(data, &path).is_some_and(|v| v.as_str() != Some(CONFIG_MISSING)) {
                return Some((source, path));
            }
        }
    }
    None
}

/// The value [`config_locate`] found.
pub fn config_source(opts: &Data, grains: &Data, pillar: &Data, source: ConfigSource, path: &[Step]) -> Option<Value> {
    let first = match path.first() {
        Some(Step::Key(k)) => Some(k.as_str()),
        _ => None,
    };
    let data = match source {
        ConfigSource::Opts => opts.first_step(first),
        ConfigSource::Grains => grains.first_step(first),
        ConfigSource::Pillar => pillar.first_step(first),
        ConfigSource::Master => pillar.get("master")?,
        ConfigSource::Defaults => return at(&config_defaults(), path).cloned(),
    };
    at(data, path).cloned()
}

/// What `config.get` with `merge` looks the key up in: `DEFAULTS`, the master pillar, the
/// pillar, the grains and the opts merged in that order (later wins) with `merge` (`recurse`
/// or `overwrite`; anything else is `recurse`, which Salt logs). `merge_lists` is the
/// `pillar_merge_lists` of the master configuration at `/etc/salt/master`, which a sandbox
/// does not read: false, the default.
pub fn config_merged(opts: &Data, grains: &Data, pillar: &Data, merge: &str) -> Result<Value, MergeError> {
    let strategy = if merge == "recurse" || merge == "overwrite" { merge } else { "recurse" };
    let empty = Value::Object(Map::new());
    let master = pillar.get("master").unwrap_or(&empty);
    let mut data = config_defaults();
    for layer in [master, pillar.whole(), grains.whole(), opts.whole()] {
        data = dictupdate::merge(&mut data, layer, strategy, "yaml", false)?;
    }
    Ok(data)
}

/// `DEFAULTS` of `salt/modules/config.py` (on Linux: `hosts.file` is `/etc/hosts`,
/// `virt:images` under `/srv`).
pub(crate) fn config_defaults() -> Value {
    serde_json::json!({
        "mongo.db": "salt", "mongo.password": "", "mongo.port": 27017, "mongo.user": "",
        "redis.db": "0", "redis.host": "salt", "redis.port": 6379,
        "test.foo": "unconfigured",
        "ca.cert_base_path": "/etc/pki",
        "solr.cores": [], "solr.host": "localhost", "solr.port": "8983", "solr.baseurl": "/solr", "solr.type": "master",
        "solr.request_timeout": null, "solr.init_script": "/etc/rc.d/solr",
        "solr.dih.import_options": {"clean": false, "optimize": true, "commit": true, "verbose": false},
        "solr.backup_path": null, "solr.num_backups": 1,
        "poudriere.config": "/usr/local/etc/poudriere.conf", "poudriere.config_dir": "/usr/local/etc/poudriere.d",
        "ldap.uri": "", "ldap.server": "localhost", "ldap.port": "389", "ldap.tls": false, "ldap.no_verify": false,
        "ldap.anonymous": true, "ldap.scope": 2, "ldap.attrs": null, "ldap.binddn": "", "ldap.bindpw": "",
        "hosts.file": "/etc/hosts", "aliases.file": "/etc/aliases",
        "virt": {"tunnel": false, "images": "/srv/salt-images"},
        "docker.exec_driver": "docker-exec",
        "docker.compare_container_networks": {
            "static": ["Aliases", "Links", "IPAMConfig"],
            "automatic": ["IPAddress", "Gateway", "GlobalIPv6Address", "IPv6Gateway"]
        }
    })
}
