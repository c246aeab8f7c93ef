//! What `state.show_top` prints (`salt/modules/state.py` `show_top`) and the `top --explain`
//! text and JSON built from a [`TopResult`].

use std::path::PathBuf;

use super::TopResult;
use crate::value::Loc;
use crate::workspace::vfs::FileTable;

impl TopResult {
    /// `state.show_top`'s JSON: the matches, or the verify errors.
    pub fn show_top_json(&self) -> serde_json::Value {
        if !self.verify_errors.is_empty() {
            return serde_json::Value::Array(self.verify_errors.iter().map(|e| e.message.clone().into()).collect());
        }
        serde_json::Value::Object(self.matches.iter().map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone()))).collect())
    }
}

impl TopResult {
    /// The `top --explain` text: every section decision and target outcome, then the result.
    pub fn explain_text(&self, minion: &str, files: &FileTable, rel: &dyn Fn(&std::path::Path) -> String) -> String {
        let mut out = String::new();
        let at = |loc: &Option<Loc>, path: &Option<PathBuf>| -> String {
            match (loc, path) {
                (Some(l), _) if (l.file as usize) < files.len() => {
                    let (line, col) = files.human(l.file, l.span.start);
                    format!("{}:{line}:{col}", rel(files.path(l.file)))
                }
                (_, Some(p)) => rel(p),
                _ => "?".into(),
            }
        };
        out.push_str(&format!(
            "Top file for minion `{minion}` (top_file_merging_strategy: {}; environments in order: {})\n",
            self.strategy,
            self.env_order.join(", ")
        ));
        for e in self.render_errors.iter().chain(&self.verify_errors) {
            out.push_str(&format!("error: {}\n", e.message));
        }
        if let Some(e) = self.raised.as_ref().filter(|e| !self.verify_errors.contains(e)) {
            out.push_str(&format!("error: state.show_lowstate and state.apply fail: {}\n", e.message));
        }
        out.push_str("\nSections:\n");
        if self.sections.is_empty() {
            out.push_str("  (no top file defines any section)\n");
        }
        for s in &self.sections {
            out.push_str(&format!(
                "  {} section `{}` in {}'s top file ({}): {}\n",
                if s.used { "✓" } else { "✗" },
                s.section,
                s.top_env,
                at(&s.loc, &s.path),
                s.reason
            ));
        }
        out.push_str("\nTargets:\n");
        if self.targets.is_empty() {
            out.push_str("  (no targets)\n");
        }
        for t in &self.targets {
            let verdict = if t.matched { "matched" } else { "did not match" };
            out.push_str(&format!(
                "  {} [{}] target `{}` ({}, {}): {verdict}: {}\n",
                if t.matched { "✓" } else { "✗" },
                t.section,
                t.target,
                t.matcher,
                at(&t.loc, &t.source),
                t.explanation
            ));
            for e in &t.errors {
                out.push_str(&format!("      error: {e}\n"));
            }
            if !t.contributes.is_empty() {
                let list: Vec<String> = t.contributes.iter().map(|(e, s)| format!("{e}:{s}")).collect();
                out.push_str(&format!("      adds {}\n", list.join(", ")));
            }
        }
        out.push_str("\nResult:\n");
        if !self.render_errors.is_empty() {
            out.push_str("  (a top file failed to render, so Salt uses an empty top: nothing matches)\n");
        } else if self.matches.is_empty() {
            out.push_str("  (nothing matched: no states for this minion)\n");
        }
        for (env, list) in &self.matches {
            out.push_str(&format!("  {env}: {}\n", list.join(", ")));
        }
        out
    }

    /// The `top --explain --format json` data.
    pub fn explain_json(&self, files: &FileTable) -> serde_json::Value {
        use serde_json::json;
        // As the CLI's error entries: `line` 1-based, `range` 0-based with UTF-16 columns.
        let pos = |loc: &Option<Loc>, path: &Option<PathBuf>| match loc {
            Some(l) if (l.file as usize) < files.len() => json!({
                "file": files.path(l.file).display().to_string(),
                "line": files.human(l.file, l.span.start).0,
                "range": files.range_json(l.file, &l.span),
            }),
            _ => json!({"file": path.as_ref().map(|p| p.display().to_string()), "line": null, "range": null}),
        };
        json!({
            "strategy": self.strategy,
            "env_order": self.env_order,
            "errors": self.render_errors.iter().chain(&self.verify_errors).map(|e| e.message.clone()).collect::<Vec<_>>(),
            "sections": self.sections.iter().map(|s| json!({
                "top_env": s.top_env, "section": s.section, "used": s.used, "reason": s.reason, "at": pos(&s.loc, &s.path),
            })).collect::<Vec<_>>(),
            "targets": self.targets.iter().map(|t| json!({
                "section": t.section, "target": t.target, "matcher": t.matcher, "matched": t.matched,
                "explanation": t.explanation, "errors": t.errors,
                "contributes": t.contributes.iter().map(|(e, s)| json!([e, s])).collect::<Vec<_>>(),
                "at": pos(&t.loc, &t.source),
            })).collect::<Vec<_>>(),
            "matches": self.show_top_json(),
            "raised": self.raised.as_ref().map(|e| e.message.clone()),
            "avail_envs": self.avail_envs,
        })
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::super::tests::top;
    use crate::workspace::vfs::FileTable;

    /// `top --explain` for a four-env tree: the sections and targets, as text.
    fn explain(strategy: &str, extra: &str) -> String {
        let fixture = format!(
            "#- salt-analyzer.yaml\nfile_roots: {{base: [b], dev: [d], qa: [q], zz: [z]}}\ntop_file_merging_strategy: {strategy}\n{extra}\n\
#- b/top.sls\nbase: {{'*': [b_common]}}\ndev: {{'*': [dev_from_base_top]}}\n\
#- d/top.sls\ndev: {{'*': [dev_from_dev_top]}}\nbase: {{'*': [base_from_dev_top]}}\nqa: {{'*': [qa_from_dev_top]}}\n\
#- q/top.sls\nqa: {{'*': [qa_from_qa_top], 'db*': [qa_db]}}\nzz: {{'*': [zz_from_qa_top]}}\n"
        );
        let r = top(&fixture, None);
        let files = FileTable::default();
        let text = r.explain_text("web01", &files, &|p| p.display().to_string());
        text.lines()
            .filter(|l| l.contains("section") || l.contains("target") || l.starts_with("  ") && l.contains(": "))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every rule of every strategy, as `top --explain` words it (`salt/state.py` `BaseHighState._merge_tops_merge`, `_merge_tops_same`, `_merge_tops_merge_all`).
    #[test]
    fn explain_covers_each_rule_of_each_strategy() {
        expect![[r#"
              ✓ section `base` in base's top file (/ws/b/top.sls): used: base's top file is authoritative for every environment (top_file_merging_strategy: merge)
              ✓ section `dev` in base's top file (/ws/b/top.sls): used: base's top file is authoritative for every environment (top_file_merging_strategy: merge)
              ✗ section `dev` in dev's top file (/ws/d/top.sls): ignored: base's top file already defines `dev` (top_file_merging_strategy: merge)
              ✗ section `base` in dev's top file (/ws/d/top.sls): ignored: a `base` section in dev's top file is only read from base's own top file (top_file_merging_strategy: merge)
              ✗ section `qa` in dev's top file (/ws/d/top.sls): ignored: a `qa` section in dev's top file is only read from qa's own top file (top_file_merging_strategy: merge)
              ✓ section `qa` in qa's top file (/ws/q/top.sls): used: no top file read before it defines `qa` (top_file_merging_strategy: merge)
              ✗ section `zz` in qa's top file (/ws/q/top.sls): ignored: a `zz` section in qa's top file is only read from zz's own top file (top_file_merging_strategy: merge)
              ✓ [base] target `*` (compound, /ws/b/top.sls): matched: compound: `*` -> True
              ✓ [dev] target `*` (compound, /ws/b/top.sls): matched: compound: `*` -> True
              ✓ [qa] target `*` (compound, /ws/q/top.sls): matched: compound: `*` -> True
              ✗ [qa] target `db*` (compound, /ws/q/top.sls): did not match: compound: `db*` -> False
              base: b_common
              dev: dev_from_base_top
              qa: qa_from_qa_top"#]]
        .assert_eq(&explain("merge", ""));
        expect![[r#"
              ✓ section `base` in base's top file (/ws/b/top.sls): used: base's own section in its own top file (top_file_merging_strategy: same)
              ✗ section `dev` in base's top file (/ws/b/top.sls): ignored: only the `base` section of base's top file counts (top_file_merging_strategy: same)
              ✓ section `dev` in dev's top file (/ws/d/top.sls): used: dev's own section in its own top file (top_file_merging_strategy: same)
              ✗ section `base` in dev's top file (/ws/d/top.sls): ignored: only the `dev` section of dev's top file counts (top_file_merging_strategy: same)
              ✗ section `qa` in dev's top file (/ws/d/top.sls): ignored: only the `dev` section of dev's top file counts (top_file_merging_strategy: same)
              ✓ section `qa` in qa's top file (/ws/q/top.sls): used: qa's own section in its own top file (top_file_merging_strategy: same)
              ✗ section `zz` in qa's top file (/ws/q/top.sls): ignored: only the `qa` section of qa's top file counts (top_file_merging_strategy: same)
              ✓ section `zz` in qa's top file (/ws/q/top.sls): used: zz has no top file, so its section comes from the default_top environment `qa` (top_file_merging_strategy: same)
              ✓ [base] target `*` (compound, /ws/b/top.sls): matched: compound: `*` -> True
              ✓ [dev] target `*` (compound, /ws/d/top.sls): matched: compound: `*` -> True
              ✓ [qa] target `*` (compound, /ws/q/top.sls): matched: compound: `*` -> True
              ✗ [qa] target `db*` (compound, /ws/q/top.sls): did not match: compound: `db*` -> False
              ✓ [zz] target `*` (compound, /ws/q/top.sls): matched: compound: `*` -> True
              base: b_common
              dev: dev_from_dev_top
              qa: qa_from_qa_top
              zz: zz_from_qa_top"#]].assert_eq(&explain("same", "default_top: qa"));
        expect![[r#"
              ✓ section `base` in base's top file (/ws/b/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `dev` in base's top file (/ws/b/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `dev` in dev's top file (/ws/d/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `base` in dev's top file (/ws/d/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `qa` in dev's top file (/ws/d/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `qa` in qa's top file (/ws/q/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ section `zz` in qa's top file (/ws/q/top.sls): used: every section of every top file is merged (top_file_merging_strategy: merge_all)
              ✓ [base] target `*` (compound, /ws/b/top.sls): matched: compound: `*` -> True
              ✓ [dev] target `*` (compound, /ws/b/top.sls): matched: compound: `*` -> True
              ✓ [qa] target `*` (compound, /ws/d/top.sls): matched: compound: `*` -> True
              ✗ [qa] target `db*` (compound, /ws/q/top.sls): did not match: compound: `db*` -> False
              ✓ [zz] target `*` (compound, /ws/q/top.sls): matched: compound: `*` -> True
              base: b_common, base_from_dev_top
              dev: dev_from_base_top, dev_from_dev_top
              qa: qa_from_dev_top, qa_from_qa_top
              zz: zz_from_qa_top"#]]
        .assert_eq(&explain("merge_all", ""));
    }
}
