//! The checks Salt makes on the merged top before matching: `salt/state.py` `BaseHighState.verify_tops`.

use super::MergedTop;
use crate::diagnostic::{Code, SaltError};
use crate::value::{Loc, V};

/// `BaseHighState.verify_tops`.
pub fn verify_tops(top: &MergedTop) -> Vec<SaltError> {
    verify_tops_keyed(top, &[])
}

/// [`verify_tops`], told which merged sections came from keys YAML did not load as strings
/// (`1:`, `true:`): Salt's merged top keeps the key's type, and rejects it.
pub(super) fn verify_tops_keyed(top: &MergedTop, non_string: &[(String, Option<Loc>)]) -> Vec<SaltError> {
    let mut errors = Vec::new();
    for (env, targets) in top {
        if env == "include" {
            continue;
        }
        if let Some((_, at)) = non_string.iter().find(|(n, _)| n == env) {
            errors.push(SaltError::new(Code::MalformedState, format!("Environment {env} in top file is not formed as a string")).at(at.clone()));
        }
        if env.is_empty() {
            errors.push(SaltError::new(Code::MalformedState, "Empty saltenv statement in top file"));
        }
        for t in targets {
            let at = t.target.at.clone();
            let Some(list) = t.body.as_list() else {
                let mut e = SaltError::new(
                    Code::MalformedState,
                    format!(
                        "Malformed topfile: state declarations for matcher {} in saltenv {} are not formed as a list (got {})",
                        t.target.py_repr(),
                        crate::value::py_str_repr(env),
                        t.body.py_type()
                    ),
                )
                .at(at);
                if t.body.as_str().is_some() {
                    e.message.push_str(
                        "\nThe Salt docs show `'target': sls_name` as a shorthand, but state.apply and state.show_top reject it: write a list (`- sls_name`).",
                    );
                }
                errors.push(e);
                continue;
            };
            for item in list {
                match &item.v {
                    V::Dict(d) => {
                        for (_, v) in &d.0 {
                            if !v.truthy() {
                                errors.push(
                                    SaltError::new(
                                        Code::MalformedState,
                                        format!("Improperly formatted top file matcher in saltenv {}: {} file", item.py_repr(), v.py_str()),
                                    )
                                    .at(item.at.clone()),
                                );
                            }
                        }
                    }
                    V::Str(s) if s.is_empty() => {
                        errors.push(SaltError::new(Code::MalformedState, format!("Environment {env} contains an empty sls index")).at(item.at.clone()))
                    }
                    _ => {}
                }
            }
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use serde_json::json;

    use super::super::tests::{check, top};

    #[test]
    fn a_section_key_that_is_not_a_string_fails_verify_tops() {
        //, checked against Salt 3008: `1:` next to `base:` in base's top file.
        check(
            "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\nbase: {'*': [a]}\n1: {'*': [a]}\n",
            None,
            expect![[r#"
                show_top: ["Environment 1 in top file is not formed as a string"]
            "#]],
        );
        // In dev's own top file, merge ignores it: it is not dev's section.
        let r = top("#- salt-analyzer.yaml\nfile_roots: {base: [base], dev: [dev]}\n#- dev/top.sls\ndev: {'*': [d]}\n1: {'*': [a]}\n", None);
        assert_eq!(r.show_top_json(), json!({"dev": ["d"]}));
    }
}
