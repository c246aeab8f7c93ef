//! Compiles of a fleet's minions on every core, each result handed on in the fleet's order.

/// Runs `work` on each of `items` (a fleet's minions: each a compile of its own) on `threads`
/// threads, and hands each result to `sink` in the items' order as soon as it and every one
/// before it are done. Workers run at most a few items ahead of `sink`, so a caller that
/// reduces each compile to what it prints holds a bounded number of results, never the fleet.
pub fn each_in_parallel<I: Sync, T: Send>(items: &[I], threads: usize, work: impl Fn(&I) -> T + Sync, mut sink: impl FnMut(usize, T)) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Condvar, Mutex};
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        for (i, item) in items.iter().enumerate() {
            sink(i, work(item));
        }
        return;
    }
    let window = 4 * threads;
    let next = AtomicUsize::new(0);
    let emitted = (Mutex::new(0usize), Condvar::new());
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<(usize, T)>();
        for _ in 0..threads {
            let (tx, next, emitted, work) = (tx.clone(), &next, &emitted, &work);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                // Wait while `sink` is `window` items behind (item `i - window` is in
                // progress on another thread, since items are taken in order).
                if let Ok(mut done) = emitted.0.lock() {
                    while i >= *done + window {
                        match emitted.1.wait(done) {
                            Ok(d) => done = d,
                            Err(_) => return,
                        }
                    }
                }
                if tx.send((i, work(&items[i]))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut pending = std::collections::BTreeMap::new();
        let mut want = 0;
        for (i, t) in rx {
            pending.insert(i, t);
            while let Some(t) = pending.remove(&want) {
                sink(want, t);
                want += 1;
                if let Ok(mut done) = emitted.0.lock() {
                    *done = want;
                }
                emitted.1.notify_all();
            }
        }
    });
}

/// How many compiles of different minions run at once: one per core.
pub fn parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
