//! The impact report as people read it: text like `terraform plan` (`+` added, `-` removed,
//! `~` changed, `>` moved), one block per group of minions with the same change, and the same
//! as Markdown to post on a pull request; then the `check` findings the change introduces
//! (`+`) and resolves (`-`), each once with its minions. The JSON contract is
//! `MinionDiff::to_json` and `FindingGroup::json`.

use serde_json::Value;

use super::{CompileError, FindingChanges, FindingGroup, Group, MinionDiff, StateRef};

/// What a report is about: the two sides and how many minions it compared.
pub struct Summary<'a> {
    pub from: &'a str,
    pub to: &'a str,
    pub minions: usize,
    /// Notes on how the sides were read (a root outside the repository, read from disk).
    pub notes: &'a [String],
    /// The findings the change introduces and resolves ([`super::finding_groups`]).
    pub findings: &'a FindingChanges,
}

/// How many minions changed, stayed, fail at both sides, and (of the changed) now fail.
/// `changed + unchanged + still_failing` is every minion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub changed: usize,
    pub unchanged: usize,
    pub now_failing: usize,
    pub still_failing: usize,
}

pub fn counts(groups: &[Group], minions: usize) -> Counts {
    let sum = |f: &dyn Fn(&Group) -> bool| groups.iter().filter(|g| f(g)).map(|g| g.minions.len()).sum::<usize>();
    let still_failing = sum(&|g| g.diff.still_failing());
    let changed = sum(&|g| !g.diff.still_failing());
    Counts { changed, unchanged: minions - changed - still_failing, now_failing: sum(&|g| g.diff.now_failing()), still_failing }
}

fn summary_line(s: &Summary, groups: &[Group]) -> String {
    let c = counts(groups, s.minions);
    let mut line = format!("{} minion(s) changed, {} unchanged", c.changed, c.unchanged);
    if c.now_failing > 0 {
        line.push_str(&format!(", {} now failing", c.now_failing));
    }
    if c.still_failing > 0 {
        line.push_str(&format!(", {} still failing", c.still_failing));
    }
    let f = s.findings;
    if !f.is_empty() {
        line.push_str(&format!("; findings: {} new, {} resolved", f.new.len(), f.resolved.len()));
    }
    line
}

/// One finding group as lines: `+ error[code]: message (file:line, state ID)`, the message's
/// other lines under it, then the minions (`few` named).
fn finding_lines(g: &FindingGroup, mark: &str, pad: &str, few: usize) -> Vec<String> {
    let f = &g.finding;
    let at = match &f.id {
        Some(id) => format!("{}:{}, state {}", f.file, f.line, cut(id, 60)),
        None => format!("{}:{}", f.file, f.line),
    };
    let mut lines = f.message.lines();
    let mut out = vec![format!("{pad}{mark} {}[{}]: {} ({at})", f.severity.as_str(), f.code, lines.next().unwrap_or_default())];
    out.extend(lines.map(|l| format!("{pad}      {l}")));
    out.push(format!("{pad}      on {} minion(s): {}", g.minions.len(), names(&g.minions, few)));
    out
}

/// The findings sections: a title line each and the groups' lines (`few` minions named).
fn finding_sections(f: &FindingChanges, few: usize) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (mark, title, groups) in [("+", "new finding(s)", &f.new), ("-", "resolved finding(s)", &f.resolved)] {
        if groups.is_empty() {
            continue;
        }
        let lines = groups.iter().flat_map(|g| finding_lines(g, mark, "", few)).collect();
        out.push((format!("{} {title}", groups.len()), lines));
    }
    out
}

/// A few minion names and a count of the rest.
pub fn names(minions: &[String], few: usize) -> String {
    if minions.len() <= few {
        return minions.join(", ");
    }
    format!("{} and {} more", minions[..few].join(", "), minions.len() - few)
}

/// At most `max` characters of the first line of `s`, `…` where it was cut.
fn cut(s: &str, max: usize) -> String {
    let first = s.lines().next().unwrap_or_default();
    let more = first.len() < s.trim_end().len();
    if first.chars().count() > max {
        format!("{}…", first.chars().take(max - 1).collect::<String>())
    } else if more {
        format!("{first} …")
    } else {
        first.to_string()
    }
}

/// A state as people read it, from its parts: `pkg.installed nginx`, the name too when it is
/// not the ID (`file.managed nginx_conf (/etc/nginx/nginx.conf)`), an ID or name that is long
/// or many lines (a `cmd.run` script) cut to its first line's first 60 characters. Salt's tag
/// (`state_|-id_|-name_|-fun`, in the JSON whole) is too long to read in a list.
pub fn readable(state: &str, fun: &str, id: &str, name: &str) -> String {
    let mut out = format!("{state}.{fun} {}", cut(id, 60));
    if name != id {
        out.push_str(&format!(" ({})", cut(name, 60)));
    }
    out
}

/// [`readable`] from Salt's tag (the ID taken as the part before the first `_|-` after the
/// state's); a string that is no tag is cut as it is.
pub fn readable_tag(tag: &str) -> String {
    let parts = tag.split_once("_|-").and_then(|(state, rest)| {
        let (rest, fun) = rest.rsplit_once("_|-")?;
        let (id, name) = rest.split_once("_|-")?;
        Some((state, fun, id, name))
    });
    match parts {
        Some((state, fun, id, name)) => readable(state, fun, id, name),
        None => cut(tag, 120),
    }
}

fn state(s: &StateRef) -> String {
    readable(&s.state, &s.fun, &s.id, &s.name)
}

fn value(v: &Option<Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(v) => v.to_string(),
    }
}

fn error_line(e: &CompileError) -> String {
    match (&e.file, e.line) {
        (Some(f), Some(l)) => format!("error[{}]: {} ({f}:{l})", e.code, e.message),
        _ => format!("error[{}]: {}", e.code, e.message),
    }
}

/// The body of one group: one line per change, indented by `pad`.
fn body(d: &MinionDiff, show_pillar: bool, pad: &str) -> Vec<String> {
    let mut out = Vec::new();
    if d.now_failing() {
        out.push(format!("{pad}! compiled before, fails now:"));
        out.extend(d.errors_after.iter().map(|e| format!("{pad}    {}", error_line(e))));
    } else if d.still_failing() {
        let how = if d.errors_before == d.errors_after { "with the same errors" } else { "with other errors now" };
        out.push(format!("{pad}! failed before and fails now, {how}:"));
        out.extend(d.errors_after.iter().map(|e| format!("{pad}    {}", error_line(e))));
    } else if d.errors_before != d.errors_after {
        if !d.errors_before.is_empty() {
            out.push(format!("{pad}errors before:"));
            out.extend(d.errors_before.iter().map(|e| format!("{pad}    {}", error_line(e))));
        }
        if d.errors_after.is_empty() {
            out.push(format!("{pad}compiles now"));
        } else {
            out.push(format!("{pad}errors now:"));
            out.extend(d.errors_after.iter().map(|e| format!("{pad}    {}", error_line(e))));
        }
    }
    for s in &d.added {
        out.push(format!("{pad}+ {}  [{}]", state(s), s.sls));
    }
    for s in &d.removed {
        out.push(format!("{pad}- {}  [{}]", state(s), s.sls));
    }
    for c in &d.changed {
        out.push(format!("{pad}~ {}  [{}]", state(&c.state), c.state.sls));
        for (k, (b, a)) in &c.changes {
            out.push(format!("{pad}      {k}: {} -> {}", value(b), value(a)));
        }
    }
    for r in &d.renamed {
        out.push(format!("{pad}~ {}  [{}]  renamed from {}", state(&r.state), r.state.sls, cut(&r.from.name, 60)));
        for (k, (b, a)) in &r.changes {
            out.push(format!("{pad}      {k}: {} -> {}", value(b), value(a)));
        }
    }
    for m in &d.moved {
        let place = |t: &Option<String>| t.as_deref().map_or("first".to_string(), |t| format!("after {}", readable_tag(t)));
        out.push(format!("{pad}> {} now runs {} (was {})", state(&m.state), place(&m.after_now), place(&m.after_before)));
    }
    for f in &d.files {
        out.push(format!("{pad}~ file content of {} ({})", readable_tag(&f.tag), f.source));
        out.extend(f.diff.lines().map(|l| format!("{pad}      {l}")));
    }
    for p in &d.pillar {
        let kind = match (&p.before, &p.after) {
            (None, _) => "+",
            (_, None) => "-",
            _ => "~",
        };
        if show_pillar {
            out.push(format!("{pad}{kind} pillar {}: {} -> {}", p.key, value(&p.before), value(&p.after)));
        } else {
            out.push(format!("{pad}{kind} pillar {} (value hidden; --show-pillar)", p.key));
        }
    }
    out
}

/// The text report.
pub fn text(s: &Summary, groups: &[Group], show_pillar: bool) -> String {
    let mut out = format!("salt-analyzer diff {}..{}: {}\n", s.from, s.to, summary_line(s, groups));
    for n in s.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    for g in groups {
        let (mark, title) = match () {
            _ if g.diff.now_failing() => ("!", " now failing"),
            _ if g.diff.still_failing() => ("!", " still failing"),
            _ => ("~", ""),
        };
        out.push_str(&format!("\n{mark} {} minion(s){title}: {}\n", g.minions.len(), names(&g.minions, 5)));
        for line in body(&g.diff, show_pillar, "  ") {
            out.push_str(&line);
            out.push('\n');
        }
    }
    for (title, lines) in finding_sections(s.findings, 5) {
        out.push_str(&format!("\n{title}:\n"));
        for line in lines {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}

/// The Markdown report, for a pull-request comment.
pub fn markdown(s: &Summary, groups: &[Group], show_pillar: bool) -> String {
    let c = counts(groups, s.minions);
    let mut out = format!("### salt-analyzer: `{}` → `{}`\n\n**{}**\n", s.from, s.to, summary_line(s, groups));
    if c.now_failing > 0 {
        out.push_str(&format!("\n> [!CAUTION]\n> {} minion(s) compiled before this change and fail after it.\n", c.now_failing));
    }
    if c.still_failing > 0 {
        out.push_str(&format!(
            "\n> [!WARNING]\n> {} minion(s) failed to compile before this change and still fail: nothing is known of their highstate.\n",
            c.still_failing
        ));
    }
    for n in s.notes {
        out.push_str(&format!("\n_Note: {n}_\n"));
    }
    for g in groups {
        let title = match () {
            _ if g.diff.now_failing() => "fails now",
            _ if g.diff.still_failing() => "still failing",
            _ => "changed",
        };
        out.push_str(&format!(
            "\n<details{}><summary><b>{} minion(s) {title}</b>: {}</summary>\n\n",
            if g.diff.now_failing() { " open" } else { "" },
            g.minions.len(),
            names(&g.minions, 10)
        ));
        let (files, rest): (Vec<String>, Vec<String>) = {
            let d = MinionDiff { files: Vec::new(), ..g.diff.clone() };
            (g.diff.files.iter().map(|f| format!("`{}` ({})\n\n```diff\n{}```\n", readable_tag(&f.tag), f.source, f.diff)).collect(), body(&d, show_pillar, ""))
        };
        if !rest.is_empty() {
            out.push_str("```diff\n");
            for line in rest {
                out.push_str(&line);
                out.push('\n');
            }
            out.push_str("```\n");
        }
        for f in files {
            out.push_str(&format!("\nManaged file {f}"));
        }
        out.push_str("\n</details>\n");
    }
    for (title, lines) in finding_sections(s.findings, 10) {
        out.push_str(&format!("\n<details open><summary><b>{title}</b></summary>\n\n```diff\n"));
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str("```\n\n</details>\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    #[test]
    fn tags_read_as_function_id_and_name_cut_when_long() {
        let long = "pg_dumpall --clean --if-exists | gzip > /var/backups/postgres/all-$(date +%F).sql.gz && find /var/backups -mtime +7 -delete";
        let got = [
            "pkg_|-nginx_|-nginx_|-installed".to_string(),
            "file_|-nginx_conf_|-/etc/nginx/nginx.conf_|-managed".to_string(),
            format!("cmd_|-backup_|-{long}_|-run"),
            "cmd_|-script_|-set -e\nmake install\n_|-run".to_string(),
            "not a tag".to_string(),
        ]
        .map(|t| readable_tag(&t))
        .join("\n");
        expect![[r#"
            pkg.installed nginx
            file.managed nginx_conf (/etc/nginx/nginx.conf)
            cmd.run backup (pg_dumpall --clean --if-exists | gzip > /var/backups/postgr…)
            cmd.run script (set -e …)
            not a tag"#]]
        .assert_eq(&got);
    }
}
