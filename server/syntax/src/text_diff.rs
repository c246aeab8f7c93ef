//! Where two versions of a text differ: their common prefix and suffix.

/// The differing middle of two texts: `old[..start] == new[..start]` and
/// `old[old_end..] == new[new_end..]`, every offset on a character boundary of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Changed {
    pub start: usize,
    pub old_end: usize,
    pub new_end: usize,
}

/// The longest common prefix and then the longest common suffix of what remains, stepped
/// back to character boundaries; `None` when the texts are equal.
pub fn changed(old: &str, new: &str) -> Option<Changed> {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if start == a.len() && start == b.len() {
        return None;
    }
    // The bytes before `start` are equal, so stepping back to a lead byte works for both.
    while !(old.is_char_boundary(start) && new.is_char_boundary(start)) {
        start -= 1;
    }
    let room = a.len().min(b.len()) - start;
    let mut suffix = a.iter().rev().zip(b.iter().rev()).take(room).take_while(|(x, y)| x == y).count();
    while !(old.is_char_boundary(a.len() - suffix) && new.is_char_boundary(b.len() - suffix)) {
        suffix -= 1;
    }
    Some(Changed { start, old_end: a.len() - suffix, new_end: b.len() - suffix })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_middle_on_character_boundaries() {
        assert_eq!(changed("abc", "abc"), None);
        assert_eq!(changed("abc", "abxc"), Some(Changed { start: 2, old_end: 2, new_end: 3 }));
        assert_eq!(changed("aaa", "aa"), Some(Changed { start: 2, old_end: 3, new_end: 2 }));
        // `ß` (c3 9f) and `ä` (c3 a4) share their lead byte; `💣` and `😀` share three.
        assert_eq!(changed("xßy", "xäy"), Some(Changed { start: 1, old_end: 3, new_end: 3 }));
        assert_eq!(changed("💣", "😀"), Some(Changed { start: 0, old_end: 4, new_end: 4 }));
        assert_eq!(changed("a💣b", "a"), Some(Changed { start: 1, old_end: 6, new_end: 1 }));
    }
}
