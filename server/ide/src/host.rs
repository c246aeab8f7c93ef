//! `AnalysisHost`: the one mutable owner of the analysis state. It holds the open documents
//! (incremental [`Document`]s) over the disk, turns every edit, open, close and disk change
//! into a new revision plus a change-log entry, and hands out read-only [`Analysis`]
//! snapshots.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use model::workspace::vfs::{RealFs, Vfs};
use model::workspace::WORKSPACE_FILE;
use syntax::line_index::LineIndex;

use crate::analysis::Analysis;
use crate::index::semantic::Index;
use crate::inputs::changes::{Change, ChangeLog};
use crate::inputs::document::BlockDocument;
use crate::inputs::files::{DiskCache, Files};
use crate::inputs::summaries::Summaries;
use crate::inputs::world::World;
use crate::snapshot::{DocSnapshot, Shared, Snapshot};

struct OpenDocument {
    doc: BlockDocument,
    snap: Arc<DocSnapshot>,
}

/// Owns the documents and configuration; see the module documentation.
pub struct AnalysisHost {
    root: PathBuf,
    disk: Arc<DiskCache>,
    docs: HashMap<PathBuf, OpenDocument>,
    buffers: HashMap<PathBuf, Arc<str>>,
    revision: u64,
    current: Arc<AtomicU64>,
    world: Arc<World>,
    salt_config: Option<PathBuf>,
    minion: Option<String>,
    /// Salt's documentation of the state functions, or why there is none (yet).
    state_docs: Arc<crate::inputs::docs::DocsStatus>,
    shared: Arc<Shared>,
    /// The gitfs remotes' trees, mounted over the file system when the world is loaded.
    mounts: Arc<salt_gitfs::MountedFs<Arc<dyn Vfs>>>,
}

impl AnalysisHost {
    /// A host for the workspace rooted at `root`, reading the real disk.
    pub fn new(root: &Path) -> AnalysisHost {
        AnalysisHost::with_fs(Arc::new(RealFs), root)
    }

    /// A host over any file system (tests and benchmarks use an in-memory one).
    pub fn with_fs(fs: Arc<dyn Vfs>, root: &Path) -> AnalysisHost {
        let mounts = Arc::new(salt_gitfs::MountedFs::new(fs));
        let disk = Arc::new(DiskCache::new(mounts.clone()));
        let files = Files::new(disk.clone(), HashMap::new());
        let world = Arc::new(World::load(&files, root, None, &mounts));
        let shared = Arc::new(Shared {
            log: Mutex::new(ChangeLog::default()),
            index: Mutex::new(Index::default()),
            summaries: Summaries::default(),
            caches: Default::default(),
        });
        AnalysisHost {
            root: root.to_path_buf(),
            disk,
            docs: HashMap::new(),
            buffers: HashMap::new(),
            revision: 0,
            current: Arc::new(AtomicU64::new(0)),
            world,
            salt_config: None,
            minion: None,
            state_docs: Arc::default(),
            shared,
            mounts,
        }
    }

    /// The workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The current revision: it grows with every change.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Opens a document with the editor's text and version.
    pub fn open(&mut self, path: &Path, text: &str, version: i32) {
        let existed = self.exists(path);
        let doc = BlockDocument::new(text);
        let snap = Arc::new(DocSnapshot::new(&doc, version));
        self.buffers.insert(path.to_path_buf(), snap.text.clone());
        self.docs.insert(path.to_path_buf(), OpenDocument { doc, snap });
        if existed {
            self.commit(Change::Content(path.to_path_buf()));
        } else {
            self.rebuild_world();
            self.commit(Change::Layout(vec![path.to_path_buf()]));
        }
    }

    /// Applies edits to an open document: each replaces a byte range of the text as it is
    /// after the edits before it (`None` replaces the whole text), as LSP sends them.
    /// Edits to a document that is not open are ignored.
    pub fn change(&mut self, path: &Path, changes: Vec<(Option<Range<usize>>, String)>, version: i32) {
        let Some(open) = self.docs.get_mut(path) else { return };
        for (range, text) in &changes {
            open.doc.apply_change(range.clone(), text);
        }
        open.snap = Arc::new(DocSnapshot::new(&open.doc, version));
        self.buffers.insert(path.to_path_buf(), open.snap.text.clone());
        self.commit(Change::Content(path.to_path_buf()));
    }

    /// The line index of an open document's current text (to convert the positions of the
    /// next change).
    pub fn line_index(&self, path: &Path) -> Option<&LineIndex> {
        let snap = &self.docs.get(path)?.snap;
        Some(snap.line_index.get_or_init(|| Arc::new(LineIndex::new(&snap.text))))
    }

    /// Closes a document: the disk's text is used again.
    pub fn close(&mut self, path: &Path) {
        if self.docs.remove(path).is_none() {
            return;
        }
        self.buffers.remove(path);
        if self.exists(path) {
            self.commit(Change::Content(path.to_path_buf()));
        } else {
            self.rebuild_world();
            self.commit(Change::Layout(vec![path.to_path_buf()]));
        }
    }

    /// Files (or directories) changed, were created or were deleted on disk.
    pub fn files_changed_on_disk(&mut self, paths: &[PathBuf]) {
        if paths.is_empty() {
            return;
        }
        let layout = self.disk.invalidate(paths);
        if paths.iter().any(|p| self.is_config_file(p)) {
            self.reset();
            return;
        }
        // An open document shadows the disk: only its existence on disk can matter, and the
        // overlay keeps it existing while it is open.
        let layout: Vec<PathBuf> = layout.into_iter().filter(|p| !self.docs.contains_key(p)).collect();
        if !layout.is_empty() {
            self.rebuild_world();
            self.commit(Change::Layout(layout));
        }
        for p in paths {
            if !self.docs.contains_key(p) {
                self.commit(Change::Content(p.clone()));
            }
        }
    }

    /// Selects the minion profile hovers, the top explanation and the highstate diagnostics
    /// are for (`None`: the workspace default). The next diagnostics round reports the files
    /// whose highstate diagnostics came or went.
    pub fn set_minion(&mut self, minion: Option<String>) {
        if self.minion != minion {
            self.minion = minion;
            self.bump();
        }
    }

    /// Hands in Salt's documentation of the state functions (or why there is none): hovers
    /// show it from the next snapshot on. Nothing is recomputed, but the next diagnostics
    /// round reports every file again (an unknown-function warning about a function the
    /// user's Salt documents is dropped).
    pub fn set_state_docs(&mut self, docs: crate::inputs::docs::DocsStatus) {
        let ready = matches!(docs, crate::inputs::docs::DocsStatus::Ready(_));
        self.state_docs = Arc::new(docs);
        if ready {
            self.commit(Change::Republish);
        }
    }

    /// Forgets every computed pillar (`salt-analyzer.refreshPillar`): the next compile reads the
    /// pillar files and queries the ext_pillar databases again, and the highstate diagnostics
    /// are recompiled (files whose diagnostics changed are reported).
    pub fn refresh_pillar(&mut self) {
        self.world.ctx.memo.forget_pillars();
        self.commit(Change::Pillar);
    }

    /// The selected minion profile, if one was set.
    pub fn minion(&self) -> Option<&str> {
        self.minion.as_deref()
    }

    /// Reads the Salt configuration from `dir` (relative to the root) instead of the
    /// workspace file's `salt_config`.
    pub fn set_salt_config(&mut self, dir: Option<PathBuf>) {
        if self.salt_config != dir {
            self.salt_config = dir;
            self.reset();
        }
    }

    /// A read-only snapshot of the current revision.
    pub fn snapshot(&self) -> Analysis {
        let docs = self.docs.iter().map(|(p, d)| (p.clone(), d.snap.clone())).collect();
        Analysis::new(Snapshot {
            revision: self.revision,
            world: self.world.clone(),
            files: Files::new(self.disk.clone(), self.buffers.clone()),
            docs,
            shared: self.shared.clone(),
            current: self.current.clone(),
            minion: self.minion.clone(),
            state_docs: self.state_docs.clone(),
        })
    }

    fn exists(&self, path: &Path) -> bool {
        self.buffers.contains_key(path) || model::workspace::vfs::Vfs::is_file(&crate::inputs::files::Disk(self.disk.clone()), path)
    }

    fn is_config_file(&self, path: &Path) -> bool {
        let ws = &self.world.ws;
        path == self.root.join(WORKSPACE_FILE)
            || ws.opts.sources.iter().any(|s| s == path)
            || self.salt_config.as_ref().is_some_and(|d| path.starts_with(self.root.join(d)))
            || path.file_name().is_some_and(|n| n == "minion" || n == "master") && ws.opts.sources.iter().any(|s| s.parent() == path.parent())
            || path.extension().is_some_and(|e| e == "conf") && ws.opts.sources.iter().any(|s| s.parent() == path.parent())
    }

    fn reset(&mut self) {
        self.rebuild_world();
        self.commit(Change::Reset);
    }

    fn rebuild_world(&mut self) {
        let files = Files::new(self.disk.clone(), self.buffers.clone());
        self.world = Arc::new(World::load(&files, &self.root, self.salt_config.as_deref(), &self.mounts));
    }

    fn bump(&mut self) {
        self.revision += 1;
        self.current.store(self.revision, Ordering::SeqCst);
    }

    fn commit(&mut self, change: Change) {
        self.bump();
        if let Ok(mut log) = self.shared.log.lock() {
            log.push(self.revision, change);
        }
    }
}
