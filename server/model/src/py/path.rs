//! Python's `posixpath.normpath`, which Salt's file server and Jinja's path filters apply.

/// `posixpath.normpath`.
pub fn normpath(path: &str) -> String {
    if path.is_empty() {
        return ".".into();
    }
    // POSIX keeps exactly two leading slashes; three or more are one.
    let initial = if path.starts_with("//") && !path.starts_with("///") {
        "//"
    } else if path.starts_with('/') {
        "/"
    } else {
        ""
    };
    let mut comps: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        if comp.is_empty() || comp == "." {
            continue;
        }
        if comp != ".." || (initial.is_empty() && comps.is_empty()) || comps.last() == Some(&"..") {
            comps.push(comp);
        } else if !comps.is_empty() {
            comps.pop();
        }
    }
    let out = format!("{initial}{}", comps.join("/"));
    if out.is_empty() {
        ".".into()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normpath_as_python() {
        for (path, want) in [
            ("", "."),
            ("pkg//init.sls", "pkg/init.sls"),
            ("./a/./b", "a/b"),
            ("a/../b", "b"),
            ("../a", "../a"),
            ("//a//b", "//a/b"),
            ("///a", "/a"),
            ("ß/ℝ/../💣", "ß/💣"),
        ] {
            assert_eq!(normpath(path), want, "{path}");
        }
    }
}
