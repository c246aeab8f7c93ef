//! `MemoryDisk`: an in-memory disk that tests and benchmarks can change while a host reads it.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use model::workspace::vfs::{MemFs, Vfs};

/// A mutable in-memory file system.
#[derive(Default)]
pub struct MemoryDisk {
    files: RwLock<BTreeMap<PathBuf, String>>,
}

impl MemoryDisk {
    /// A disk holding a `#- path` fixture rooted at `/ws`.
    pub fn from_fixture(fixture: &str) -> MemoryDisk {
        MemoryDisk { files: RwLock::new(MemFs::from_fixture(fixture).files) }
    }

    /// Writes (or creates) a file.
    pub fn write(&self, path: &Path, text: &str) {
        if let Ok(mut f) = self.files.write() {
            f.insert(path.to_path_buf(), text.to_string());
        }
    }

    /// Deletes a file.
    pub fn remove(&self, path: &Path) {
        if let Ok(mut f) = self.files.write() {
            f.remove(path);
        }
    }
}

impl Vfs for MemoryDisk {
    fn read(&self, path: &Path) -> io::Result<String> {
        self.files.read().ok().and_then(|f| f.get(path).cloned()).ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }
    fn is_file(&self, path: &Path) -> bool {
        self.files.read().is_ok_and(|f| f.contains_key(path))
    }
    fn walk(&self, root: &Path) -> Vec<String> {
        let Ok(f) = self.files.read() else { return Vec::new() };
        f.keys().filter_map(|p| p.strip_prefix(root).ok()).map(|r| r.to_string_lossy().replace('\\', "/")).collect()
    }
}
