//! Tests on repositories created here with the `git` command (the product never runs it).

use std::path::{Path, PathBuf};
use std::process::Command;

use model::workspace::vfs::{RealFs, Vfs};

use super::*;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=master", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// A work tree with `master` (top.sls, web/init.sls, states/db.sls, a symlink), a `dev` branch
/// that changes web and deletes db, and a tag `v1` on master's first commit.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("work");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q"]);
    write(&dir, &[("top.sls", "base: {'*': [web]}\n"), ("web/init.sls", "pkg: v1\n"), ("states/db.sls", "db: 1\n")]);
    std::os::unix::fs::symlink("../web/init.sls", dir.join("states/web.sls")).unwrap();
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "one"]);
    git(&dir, &["tag", "-a", "v1", "-m", "v1"]);
    git(&dir, &["checkout", "-q", "-b", "dev"]);
    write(&dir, &[("web/init.sls", "pkg: dev\n")]);
    git(&dir, &["rm", "-q", "states/db.sls"]);
    git(&dir, &["commit", "-q", "-am", "dev"]);
    git(&dir, &["checkout", "-q", "master"]);
    (tmp, dir)
}

#[test]
fn refs_trees_and_blobs() {
    let (_tmp, dir) = repo();
    let r = Repo::open(&dir).unwrap();
    assert_eq!(r.work_dir(), Some(dir.as_path()));
    let refs: Vec<String> = r.refs(None).unwrap().iter().map(|r| format!("{:?} {} {}", r.kind, r.name, r.full)).collect();
    assert_eq!(refs, ["Branch dev refs/heads/dev", "Branch master refs/heads/master", "Tag v1 refs/tags/v1"]);
    let master = r.tree("master").unwrap();
    assert_eq!(master.files(""), ["states/db.sls", "states/web.sls", "top.sls", "web/init.sls"]);
    assert_eq!(master.files("states"), ["db.sls", "web.sls"]);
    assert_eq!(master.read_string("states/web.sls").unwrap(), "pkg: v1\n", "a symlink is followed inside the tree");
    assert!(master.is_dir("web") && !master.is_dir("we") && master.contains("top.sls"));
    let dev = r.tree("dev").unwrap();
    assert_eq!(dev.read_string("web/init.sls").unwrap(), "pkg: dev\n");
    assert!(!dev.contains("states/db.sls"));
    assert_eq!(dev.read("states/db.sls").unwrap_err().kind(), io::ErrorKind::NotFound);
    // An annotated tag peels to its commit's tree; HEAD, `dev~1` and a SHA resolve as git's do.
    assert_eq!(r.tree("v1").unwrap().id(), master.id());
    assert_eq!(r.tree("HEAD").unwrap().id(), master.id());
    assert_eq!(r.tree("dev~1").unwrap().id(), master.id());
    let sha = r.commit_id("master").unwrap();
    assert_eq!(r.commit_id("v1").unwrap(), sha);
    assert_eq!(r.tree(&sha[..10]).unwrap().id(), master.id());
    let err = r.tree("nope").unwrap_err();
    assert!(err.0.contains("no revision `nope`"), "{err}");
}

#[test]
fn bare_clone_with_remote_branches() {
    let (tmp, dir) = repo();
    let bare = tmp.path().join("cache.git");
    // What the master's gitfs cache holds: branches under refs/remotes/origin.
    git(tmp.path(), &["init", "-q", "--bare", bare.to_str().unwrap()]);
    git(&bare, &["fetch", "-q", dir.to_str().unwrap(), "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"]);
    let r = Repo::open(&bare).unwrap();
    assert_eq!(r.work_dir(), None);
    let names: Vec<String> = r.refs(Some("origin")).unwrap().iter().map(|r| r.name.clone()).collect();
    assert_eq!(names, ["dev", "master", "v1"]);
    assert_eq!(r.tree("refs/remotes/origin/dev").unwrap().read_string("web/init.sls").unwrap(), "pkg: dev\n");
    assert!(Repo::open(&tmp.path().join("nothing")).is_err());
    assert!(r.work_tree_at("dev").unwrap_err().0.contains("bare repository"));
    assert_eq!(Repo::discover(&dir.join("web")).unwrap().work_dir(), Some(dir.as_path()));
}

#[test]
fn mounts_with_root_and_mountpoint_shadow_the_disk() {
    let (_tmp, dir) = repo();
    let r = Repo::open(&dir).unwrap();
    // gitfs: `root: states`, `mountpoint: salt://formulas/x` at a synthetic path.
    let at = PathBuf::from("/gitfs/x@master");
    let mut m = Mount::new(&at, r.tree("master").unwrap());
    m.root = "states".into();
    m.mountpoint = "formulas/x".into();
    let fs = MountedFs::with_mounts(RealFs, vec![m]);
    assert_eq!(fs.walk(&at), ["formulas/x/db.sls", "formulas/x/web.sls"]);
    assert_eq!(fs.walk(&at.join("formulas")), ["x/db.sls", "x/web.sls"]);
    assert_eq!(fs.read(&at.join("formulas/x/db.sls")).unwrap(), "db: 1\n");
    assert!(fs.is_file(&at.join("formulas/x/web.sls")));
    assert!(!fs.is_file(&at.join("top.sls")) && !fs.is_file(&at.join("formulas/x")));
    // diff: the work tree itself shown at `dev`; files outside it still come from the disk.
    let fs = MountedFs::with_mounts(RealFs, vec![r.work_tree_at("dev").unwrap()]);
    assert_eq!(fs.read(&dir.join("web/init.sls")).unwrap(), "pkg: dev\n");
    assert!(!fs.is_file(&dir.join("states/db.sls")), "deleted at dev though on disk");
    assert_eq!(fs.walk(&dir), ["states/web.sls", "top.sls", "web/init.sls"], ".git is not a file of the tree");
    let parent = dir.parent().unwrap();
    std::fs::write(parent.join("outside.sls"), "x: 1\n").unwrap();
    assert_eq!(fs.read(&parent.join("outside.sls")).unwrap(), "x: 1\n");
    // `..` leaves the mount as it leaves the directory (a profile's `grains_file: ../x.json`).
    assert_eq!(fs.read(&dir.join("../outside.sls")).unwrap(), "x: 1\n");
    assert!(fs.is_file(&dir.join("./states/../web/init.sls")));
    assert_eq!(fs.read(&dir.join("states/../web/init.sls")).unwrap(), "pkg: dev\n");
    assert_eq!(fs.walk(parent), ["outside.sls", "work/states/web.sls", "work/top.sls", "work/web/init.sls"]);
    // A mount inside another shadows it below its own path; a later mount at a path replaces one.
    let fs = MountedFs::with_mounts(
        NoDisk,
        vec![Mount::new("/m", r.tree("master").unwrap()), Mount::new("/m/web", r.tree("master").unwrap()), Mount::new("/m/web", r.tree("dev").unwrap())],
    );
    assert_eq!(fs.read(Path::new("/m/web/web/init.sls")).unwrap(), "pkg: dev\n");
    assert_eq!(fs.walk(Path::new("/m")).len(), 4);
    assert_eq!(fs.walk(Path::new("/")), ["m/states/db.sls", "m/states/web.sls", "m/top.sls", "m/web/states/web.sls", "m/web/top.sls", "m/web/web/init.sls"]);
}

/// A disk with no files, for mounts at made-up paths.
struct NoDisk;

impl Vfs for NoDisk {
    fn read(&self, path: &Path) -> io::Result<String> {
        Err(io::Error::new(io::ErrorKind::NotFound, path.display().to_string()))
    }
    fn is_file(&self, _: &Path) -> bool {
        false
    }
    fn walk(&self, _: &Path) -> Vec<String> {
        Vec::new()
    }
}

#[test]
fn links_stay_inside() {
    assert_eq!(resolve_link("a/b/c.sls", "../d.sls").as_deref(), Some("a/d.sls"));
    assert_eq!(resolve_link("a/c.sls", "./x/y.sls").as_deref(), Some("a/x/y.sls"));
    assert_eq!(resolve_link("c.sls", "../x.sls"), None);
    assert_eq!(resolve_link("c.sls", "/etc/passwd"), None);
}

#[test]
fn serving_a_master_config_with_a_remote_that_has_no_local_copy() {
    let (tmp, dir) = repo();
    let etc = tmp.path().join("etc");
    std::fs::create_dir_all(&etc).unwrap();
    let cache = tmp.path().join("cache");
    let url = "https://git.example.com/formulas.git";
    let cached = "https://git.example.com/cached.git";
    std::fs::write(
        etc.join("master"),
        format!(
            "fileserver_backend: [roots, gitfs]\ncachedir: {}\nfile_roots: {{base: [{}]}}\ngitfs_remotes:\n  - file://{}:\n    - root: states\n  - {url}\n  - {cached}:\n    - mountpoint: salt://cached\n",
            cache.display(),
            tmp.path().join("srv").display(),
            dir.display()
        ),
    )
    .unwrap();
    // The master's own cache: GitPython's clone under <cachedir>/gitfs/<hash>/_.
    let hash = serve::cache_basehash(&model::workspace::gitfs::Remote { id: cached.into(), ..Default::default() });
    let clone = cache.join("gitfs").join(&hash).join("_");
    std::fs::create_dir_all(&clone).unwrap();
    git(&clone, &["init", "-q"]);
    git(&clone, &["fetch", "-q", dir.to_str().unwrap(), "+refs/heads/*:refs/remotes/origin/*"]);
    let load = || model::workspace::Workspace::load(&RealFs, tmp.path(), Some(&etc)).unwrap();
    let mut ws = load();
    let served = serve::serve_gitfs(&mut ws);
    assert_eq!(served.problems.len(), 1, "{:?}", served.problems);
    assert_eq!(served.problems[0].remote, url);
    assert!(served.problems[0].message.contains("has no local copy") && served.problems[0].message.contains("gitfs_clones"), "{}", served.problems[0].message);
    let envs: Vec<String> = ws.opts.gitfs_roots.iter().map(|(e, r)| format!("{e}: {}", r.len())).collect();
    assert_eq!(envs, ["base: 2", "dev: 2", "v1: 2"], "fetching follows the tags");
    let fs = MountedFs::with_mounts(RealFs, served.mounts);
    let roots = model::workspace::roots::FileRoots::scan(&fs, &ws.opts.served_roots());
    assert_eq!(roots.list_states("base"), ["cached.states.db", "cached.states.web", "cached.top", "cached.web", "db", "web"]);
    assert_eq!(roots.list_states("dev"), ["cached.states.web", "cached.top", "cached.web", "web"]);
    let web = roots.get_state("dev", "cached.web").unwrap();
    assert_eq!(fs.read(&web.path).unwrap(), "pkg: dev\n");
    let diags = serve::diagnostics(&ws, &served.problems);
    assert_eq!((diags[0].code.as_str(), diags[0].file.clone()), ("gitfs-remote", etc.join("master")));
    // `gitfs_clones` in salt-analyzer.yaml maps the remote to a clone: now it is served too.
    std::fs::write(tmp.path().join("salt-analyzer.yaml"), format!("gitfs_clones:\n  {url}: {}\n", dir.display())).unwrap();
    let mut ws = load();
    let served = serve::serve_gitfs(&mut ws);
    assert!(served.problems.is_empty(), "{:?}", served.problems);
    assert_eq!(ws.opts.gitfs_roots["base"].len(), 3);
}

#[test]
fn serving_git_pillar_from_the_masters_cache_and_a_file_remote() {
    let (tmp, dir) = repo();
    let etc = tmp.path().join("etc");
    std::fs::create_dir_all(&etc).unwrap();
    let cache = tmp.path().join("cache");
    let cached = "https://git.example.com/pillar.git";
    let env_id = format!("__env__ {cached}");
    std::fs::write(
        etc.join("master"),
        format!(
            "cachedir: {}\npillarenv: dev\next_pillar:\n  - git:\n    - master file://{}:\n      - root: states\n    - dev {cached}:\n      - mountpoint: salt://m\n    - {env_id}\n    - nope file://{}\n    - master {}:\n      - root: nowhere\n",
            cache.display(),
            dir.display(),
            dir.display(),
            dir.display()
        ),
    )
    .unwrap();
    // GitPython's clones under <cachedir>/git_pillar/<hash>/_ (an `__env__` id: /<target>).
    let clone = |id: &str, base: &str| {
        let hash = serve::cache_basehash(&model::workspace::gitfs::Remote { id: id.into(), ..Default::default() });
        let c = cache.join("git_pillar").join(hash).join(base);
        std::fs::create_dir_all(&c).unwrap();
        git(&c, &["init", "-q"]);
        git(&c, &["fetch", "-q", dir.to_str().unwrap(), "+refs/heads/*:refs/remotes/origin/*"]);
    };
    clone(&format!("dev {cached}"), "_");
    clone(&env_id, "dev");
    let mut ws = model::workspace::Workspace::load(&RealFs, tmp.path(), Some(&etc)).unwrap();
    let served = serve::serve_gitfs(&mut ws);
    // A branch the copy lacks and a root the tree lacks (a plain path is a remote too).
    let problems: Vec<&str> = served.problems.iter().map(|p| p.message.split(" '").next().unwrap_or_default()).collect();
    assert_eq!(problems, ["git_pillar remote", "Root path"], "{:?}", served.problems);
    assert!(served.problems[0].message.contains("has no branch or tag 'nope'"), "{:?}", served.problems);
    let entries = ws.opts.git_pillar.as_ref().expect("served");
    let trees: Vec<String> = entries[0]
        .remotes
        .iter()
        .map(|r| format!("{}: {}", r.remote.id.split_whitespace().next().unwrap_or_default(), r.trees.keys().cloned().collect::<Vec<_>>().join(",")))
        .collect();
    assert_eq!(trees, ["master: master", "dev: dev", "__env__: dev", "nope: ", "master: "]);
    let fs = MountedFs::with_mounts(RealFs, served.mounts);
    let at = |i: usize, t: &str| entries[0].remotes[i].trees[t].clone();
    assert_eq!(fs.walk(&at(0, "master")), ["db.sls", "web.sls"], "the root's files");
    assert_eq!(fs.read(&at(1, "dev").join("m/web/init.sls")).unwrap(), "pkg: dev\n", "below the mountpoint");
    assert_eq!(fs.read(&at(2, "dev").join("web/init.sls")).unwrap(), "pkg: dev\n", "__env__ is the pillarenv's branch");
}
