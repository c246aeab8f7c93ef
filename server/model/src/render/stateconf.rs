//! The `stateconf` renderer (`salt/renderers/stateconf.py`): `#!stateconf [-Gos] [yaml . jinja]`,
//! two passes (the text before `# --- end of state config ---` first, for its `stateconf.set`
//! values), then relative includes, the generated `.goal` (and `-s` `.start`, `-o` implicit
//! requires), `.id` renamed `sls::id` with its local requisites, and the `stateconf.set` values
//! kept for every file rendered after it in the run (module globals in Salt: [`Conf`], which the
//! carry holds).

use crate::diagnostic::{Code, SaltError};
use crate::render::carry::Conf;
use crate::render::context::JinjaContext;
use crate::value::{Dict, FileId, Loc, Val, V};

const STATE_NAME: &str = "stateconf";
const STATE_FUNC: &str = "stateconf.set";
const REQUISITES: [&str; 12] =
    ["require", "require_in", "watch", "watch_in", "use", "use_in", "listen", "listen_in", "onchanges", "onchanges_in", "onfail", "onfail_in"];
const REQUIRE: [&str; 5] = ["require", "watch", "listen", "onchanges", "onfail"];
const REQUIRE_IN: [&str; 5] = ["require_in", "watch_in", "listen_in", "onchanges_in", "onfail_in"];

/// The options of a `#!stateconf` line, when the file's pipe is the `stateconf` renderer alone
/// (`None`: another pipe).
pub fn argline(text: &str) -> Option<&str> {
    let line = text.lines().next()?.strip_prefix("#!")?;
    let rest = line.trim_start().strip_prefix("stateconf")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) || rest.contains('|') {
        return None;
    }
    Some(rest.trim())
}

struct Options {
    no_goal: bool,
    implicit_require: bool,
    start: bool,
}

/// A failure of Salt's preprocessing: what it raises (its `SaltRenderError` text).
struct Fail(String);

fn failed() -> Fail {
    Fail("sls preprocessing/rendering failed!".into())
}

const USAGE: &str = "Invalid use of stateconf.py renderer!";

/// Renders `text` (its first line `#!stateconf ...`) for the file `sls`, after the files whose
/// `stateconf.set` values are `conf`: the data, the Jinja hints, the conf it leaves, and the
/// pillars the second pass left ([`crate::render::jinja::Rendered`]).
pub fn render(text: &str, file: FileId, ctx: &JinjaContext, conf: &Conf) -> Result<(Val, crate::render::jinja::Rendered, Conf), SaltError> {
    let at = |message: String, code: Code| SaltError::new(code, message).at(Some(Loc { file, span: 0..0 }));
    let argline = argline(text).unwrap_or("");
    let (options, args) = getopt(argline).map_err(|(code, m)| at(m, code))?;
    let argline = if args.is_empty() { "yaml . jinja".to_string() } else { args.join(" ") };
    let (data_part, template_part) = split_renderers(&argline).ok_or_else(|| at(USAGE.into(), Code::RenderError))?;
    let (data_name, _) = data_part.split_once(' ').unwrap_or((data_part.as_str(), ""));
    let (template_name, template_args) = template_part.split_once(' ').unwrap_or((template_part.as_str(), ""));
    if !matches!(data_name, "yaml" | "json") || template_name != "jinja" {
        let other = if matches!(data_name, "yaml" | "json") { template_name } else { data_name };
        return Err(crate::render::errors::never_run(other, file));
    }
    if options.implicit_require && data_name != "yaml" {
        return Err(at("Implicit ordering is only supported if the yaml renderer is used!".into(), Code::RenderError));
    }
    if !template_args.trim().is_empty() && template_args.trim() != "-s" {
        return Err(at(format!("Unknown renderer option: {}", template_args.trim()), Code::RenderError));
    }
    let sls = ctx.sls.as_str();
    let sls_dir = if sls.contains('.') { parent_dir(&sls.replace('.', "/")) } else { sls.to_string() };
    let sls_dir = if sls_dir.is_empty() { ".".to_string() } else { sls_dir };
    let mut conf = conf.clone();
    let pass = |source: &str, context: Vec<(String, serde_json::Value)>| -> Result<(Val, crate::render::jinja::Rendered), SaltError> {
        let mut c = ctx.clone();
        c.extra.extend(context);
        let r = crate::render::jinja::render(source, &c).map_err(|e| crate::render::errors::jinja_error(e, text, file))?;
        let mut val = crate::render::data_step::render_data_as(data_name == "json", text, Some(&r.text), file)?;
        crate::render::data_step::clear_spans(&mut val, file);
        Ok((val, r))
    };
    let base = vec![("sls_dir".to_string(), serde_json::Value::String(sls_dir))];
    // The first pass: the text before the end marker, for its `stateconf.set` values.
    if let Some(end) = end_marker(text) {
        let (data, _) = pass(&text[..end], base.clone())?;
        process(data, sls, &ctx.saltenv, &options, true, &mut conf).map_err(|Fail(m)| at(m, Code::RenderError))?;
    }
    let prefix = format!("{sls}::");
    let mut context = base;
    for (k, d) in &conf.conf {
        let k = k.strip_prefix(&prefix).unwrap_or(k);
        context.retain(|(c, _)| c != k);
        context.push((k.to_string(), d.to_json()));
    }
    let (data, rendered) = pass(text, context)?;
    let data = process(data, sls, &ctx.saltenv, &options, false, &mut conf).map_err(|Fail(m)| at(m, Code::RenderError))?;
    Ok((data, rendered, conf))
}

fn parent_dir(path: &str) -> String {
    path.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default()
}

/// Python's `getopt.getopt(argline.split(), "Gosp")`: options up to the first other word.
fn getopt(argline: &str) -> Result<(Options, Vec<String>), (Code, String)> {
    let mut o = Options { no_goal: false, implicit_require: false, start: false };
    let words: Vec<&str> = argline.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w == "--" {
            i += 1;
            break;
        }
        if !w.starts_with('-') || w == "-" {
            break;
        }
        if w.starts_with("--") {
            return Err((Code::RenderError, format!("option {w} not recognized")));
        }
        for c in w[1..].chars() {
            match c {
                'G' => o.no_goal = true,
                'o' => o.implicit_require = true,
                's' => o.start = true,
                'p' => {
                    return Err((Code::NotAnalysed, "not analysed: salt-analyzer never runs `stateconf -p` (high data piped from another renderer)".into()));
                }
                other => return Err((Code::RenderError, format!("option -{other} not recognized"))),
            }
        }
        i += 1;
    }
    Ok((o, words[i..].iter().map(|w| w.to_string()).collect()))
}

/// `re.split(r"\s+(?<!\\)\.\s+", argline, maxsplit=1)`, each part stripped, `\.` made `.`.
fn split_renderers(argline: &str) -> Option<(String, String)> {
    let b = argline.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            let ws_start = i;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            // `\s+` then `.` not preceded by a backslash (the last whitespace is not one), then `\s+`.
            if i < b.len() && b[i] == b'.' && i + 1 < b.len() && b[i + 1].is_ascii_whitespace() {
                let fix = |s: &str| s.trim().replace("\\.", ".");
                return Some((fix(&argline[..ws_start]), fix(&argline[i + 1..])));
            }
        } else {
            i += 1;
        }
    }
    None
}

/// Where `#\s*-+\s*end of state config\s*-+` first matches.
fn end_marker(text: &str) -> Option<usize> {
    let re = regex::Regex::new(r"#\s*-+\s*end of state config\s*-+").ok()?;
    re.find(text).map(|m| m.start())
}

/// `process_high_data`.
fn process(mut data: Val, sls: &str, saltenv: &str, o: &Options, extract: bool, conf: &mut Conf) -> Result<Val, Fail> {
    let Some(d) = data.as_dict_mut() else { return Err(failed()) };
    // rewrite_single_shorthand_state_decl
    for (_, states) in d.0.iter_mut() {
        if let V::Str(s) = &states.v {
            let at = states.at.clone();
            *states = Val::dict(Dict(vec![(Val::str(s.clone()).at(at.clone()), Val::list(Vec::new()).at(at.clone()))])).at(at);
        }
    }
    rewrite_includes(d, sls, saltenv)?;
    if !extract && o.implicit_require {
        if let Some(sid) = has_names(d)? {
            return Err(Fail(format!(
                "'names' declaration(found in state id: {sid}) is not supported with implicitly ordered states! You should generate the states in a template for-loop instead."
            )));
        }
        add_implicit_requires(d)?;
    }
    if o.start {
        add_start_state(d)?;
    }
    if !extract && !o.no_goal {
        add_goal_state(d)?;
    }
    rename_state_ids(d, sls, false)?;
    extract_state_confs(d, false, conf)?;
    Ok(data)
}

fn key_str(k: &Val) -> Result<&str, Fail> {
    k.as_str().ok_or_else(failed)
}

fn rewrite_includes(d: &mut Dict, sls: &str, saltenv: &str) -> Result<(), Fail> {
    for (k, v) in d.0.iter_mut() {
        match k.as_str() {
            Some("include") => {
                let Some(items) = v.as_list_mut() else { return Err(failed()) };
                for item in items.iter_mut() {
                    // Salt pops the dict's last item (`{env: name}`) and puts back only a relative one.
                    let (env, incl) = match &mut item.v {
                        V::Dict(e) => match e.0.pop() {
                            Some((env, incl)) => (Some(env), incl),
                            None => return Err(failed()),
                        },
                        V::Str(_) => (None, item.clone()),
                        _ => return Err(failed()),
                    };
                    let Some(name) = incl.as_str() else { return Err(failed()) };
                    if name.starts_with('.') {
                        let abs = relative_to_abs_sls(name, sls)?;
                        let env = env.unwrap_or_else(|| Val::str(saltenv));
                        let at = item.at.clone();
                        *item = Val::dict(Dict(vec![(env, Val::str(abs).at(incl.at.clone()))])).at(at);
                    }
                }
            }
            Some("exclude") => {
                let Some(items) = v.as_list_mut() else { return Err(failed()) };
                for item in items.iter_mut() {
                    match &mut item.v {
                        V::Dict(e) => {
                            if let Some(s) = e.get_mut("sls") {
                                if let Some(name) = s.as_str().filter(|n| n.starts_with('.')) {
                                    let abs = relative_to_abs_sls(name, sls)?;
                                    *s = Val::str(abs).at(s.at.clone());
                                }
                            }
                        }
                        V::Str(s) if s.contains("sls") => return Err(failed()),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn relative_to_abs_sls(relative: &str, sls: &str) -> Result<String, Fail> {
    let levels = relative.len() - relative.trim_start_matches('.').len();
    let suffix = &relative[levels..];
    let comps: Vec<&str> = sls.split('.').collect();
    if levels > comps.len() {
        return Err(Fail("Attempted relative include goes beyond top level package".into()));
    }
    let mut out: Vec<&str> = comps[..comps.len() - levels].to_vec();
    out.push(suffix);
    Ok(out.join("."))
}

fn local_to_abs_sid(sid: &str, sls: &str) -> Result<String, Fail> {
    if sid.contains("::") {
        return relative_to_abs_sls(sid, sls);
    }
    let abs = relative_to_abs_sls(sid, &format!("{sls}."))?;
    Ok(match abs.rsplit_once('.') {
        Some((a, b)) => format!("{a}::{b}"),
        None => abs,
    })
}

fn state_name(sname: &str) -> &str {
    sname.split_once('.').map_or(sname, |(s, _)| s)
}

/// The items of a state's argument list as Python iterates them: the dicts among them
/// (`nvlist`'s candidates); `None` where Python cannot iterate it.
fn iter_dicts(args: &mut Val) -> Result<Vec<&mut Dict>, Fail> {
    match &mut args.v {
        V::List(items) => Ok(items.iter_mut().filter_map(|i| i.as_dict_mut()).collect()),
        V::Str(_) | V::Dict(_) => Ok(Vec::new()),
        _ => Err(failed()),
    }
}

/// `nvlist2(args, names)`: each `{state: id}` item under the requisites `names`, as
/// (the item, its state, its id).
fn each_requisite(args: &mut Val, names: &[&str], f: &mut dyn FnMut(&mut Dict) -> Result<(), Fail>) -> Result<(), Fail> {
    for item in iter_dicts(args)? {
        let Some((name, value)) = item.0.first_mut() else { return Err(failed()) };
        if !name.as_str().is_some_and(|n| names.contains(&n)) {
            continue;
        }
        for req in iter_dicts(value)? {
            if req.0.is_empty() {
                return Err(failed());
            }
            f(req)?;
        }
    }
    Ok(())
}

/// `statelist`: (sid, state, args) of every state, but `__` ids and states and `excludes`.
fn each_state(d: &mut Dict, excludes: &[&str], f: &mut dyn FnMut(&str, &str, &mut Val) -> Result<(), Fail>) -> Result<(), Fail> {
    for (sid, states) in d.0.iter_mut() {
        let sid = key_str(sid)?.to_string();
        if sid.starts_with("__") || excludes.contains(&sid.as_str()) {
            continue;
        }
        let Some(states) = states.as_dict_mut() else { return Err(failed()) };
        for (sname, args) in states.0.iter_mut() {
            let sname = key_str(sname)?.to_string();
            if sname.starts_with("__") {
                continue;
            }
            f(&sid, &sname, args)?;
        }
    }
    Ok(())
}

fn has_names(d: &mut Dict) -> Result<Option<String>, Fail> {
    let mut found = None;
    each_state(d, &["include", "exclude"], &mut |sid, _, args| {
        if sid != "extend" && found.is_none() && iter_dicts(args)?.iter().any(|i| i.first_key_str() == Some("names")) {
            found = Some(sid.to_string());
        }
        Ok(())
    })?;
    Ok(found)
}

fn rename_state_ids(d: &mut Dict, sls: &str, is_extend: bool) -> Result<(), Fail> {
    if !is_extend {
        if let Some(ext) = d.get_mut("extend") {
            let Some(ext) = ext.as_dict_mut() else { return Err(failed()) };
            rename_state_ids(ext, sls, true)?;
        }
    }
    each_state(d, &["include", "exclude"], &mut |_, _, args| {
        each_requisite(args, &REQUISITES, &mut |req| {
            let (_, id) = &mut req.0[0];
            let Some(s) = id.as_str() else { return Err(failed()) };
            if s.starts_with('.') {
                *id = Val::str(local_to_abs_sid(s, sls)?).at(id.at.clone());
            }
            Ok(())
        })
    })?;
    let ids: Vec<String> = d.0.iter().map(|(k, _)| key_str(k).map(str::to_string)).collect::<Result<_, _>>()?;
    for sid in ids {
        if !sid.starts_with('.') {
            continue;
        }
        let new = local_to_abs_sid(&sid, sls)?;
        if d.contains(&new) {
            return Err(Fail(format!("Can't rename state id({sid}) into {new} because the later already exists!")));
        }
        let Some((key, mut body)) = d.remove(&sid) else { continue };
        let Some(states) = body.as_dict_mut() else { return Err(failed()) };
        for (sname, args) in states.0.iter_mut() {
            if sname.as_str().is_some_and(|s| state_name(s) == STATE_NAME) {
                continue;
            }
            let named = iter_dicts(args)?.iter().any(|i| i.first_key_str() == Some("name"));
            if !named {
                let Some(items) = args.as_list_mut() else { return Err(failed()) };
                items.insert(0, Val::dict(Dict(vec![(Val::str("name"), Val::str(&sid[1..]))])).at(key.at.clone()));
            }
        }
        d.0.push((Val::str(new).at(key.at), body));
    }
    Ok(())
}

fn tag(sid: &str, state: &str) -> String {
    format!("{sid}:{}", state_name(state))
}

fn add_implicit_requires(d: &mut Dict) -> Result<(), Fail> {
    let mut after = std::collections::HashSet::new();
    for (sid, states) in &d.0 {
        let sid = key_str(sid)?;
        match &states.v {
            V::Dict(s) => {
                for k in s.keys() {
                    after.insert(tag(sid, key_str(k)?));
                }
            }
            V::List(items) => {
                for k in items {
                    if let Some(k) = k.as_str() {
                        after.insert(tag(sid, k));
                    }
                }
            }
            _ => {}
        }
    }
    let mut before = std::collections::HashSet::new();
    let mut prev: Option<(String, String)> = None;
    each_state(d, &["include", "exclude"], &mut |sid, sname, args| {
        if sid == "extend" {
            // Salt keeps the requisites an `extend` adds (`EXTENDED_REQUIRE`) to check the
            // extended state's own file when it renders later; not kept here.
            return Ok(());
        }
        let t = tag(sid, sname);
        after.remove(&t);
        let mut check = |names: &[&str], set: &std::collections::HashSet<String>, msg: &str| {
            each_requisite(args, names, &mut |req| {
                let (s, id) = &req.0[0];
                let r = tag(&id.py_str(), &s.py_str());
                if set.contains(&r) {
                    return Err(Fail(format!("State({t}) can't {msg} a state({r}) defined {}!", if msg.contains("_in") { "before it" } else { "after it" })));
                }
                Ok(())
            })
        };
        check(&REQUIRE, &after, "require/watch/listen/onchanges/onfail")?;
        check(&REQUIRE_IN, &before, "require_in/watch_in/listen_in/onchanges_in/onfail_in")?;
        if let Some((pstate, psid)) = &prev {
            let prev_item = Val::dict(Dict(vec![(Val::str(pstate), Val::str(psid))]));
            let mut done = false;
            if let V::List(items) = &mut args.v {
                for item in items.iter_mut() {
                    if let Some(i) = item.as_dict_mut() {
                        if i.first_key_str() == Some("require") {
                            let Some(reqs) = i.0[0].1.as_list_mut() else { return Err(failed()) };
                            reqs.insert(0, prev_item.clone());
                            done = true;
                            break;
                        }
                    }
                }
                if !done {
                    items.push(Val::dict(Dict(vec![(Val::str("require"), Val::list(vec![prev_item]))])));
                }
            } else {
                return Err(failed());
            }
        }
        before.insert(t);
        prev = Some((state_name(sname).to_string(), sid.to_string()));
        Ok(())
    })
}

fn add_start_state(d: &mut Dict) -> Result<(), Fail> {
    if d.contains(".start") {
        return Err(Fail("Can't generate start state(.start)! The same state id already exists!".into()));
    }
    if d.is_empty() {
        return Ok(());
    }
    let mut first = None;
    for (sid, states) in &d.0 {
        let sid = key_str(sid)?;
        if matches!(sid, "include" | "exclude" | "extend") || sid.starts_with("__") {
            continue;
        }
        let Some(s) = states.as_dict() else { return Err(failed()) };
        let state = s.first_key_str().ok_or_else(failed)?;
        first = Some((state_name(state).to_string(), sid.to_string()));
        break;
    }
    let Some((state, sid)) = first else { return Err(Fail("Can't determine the first state in the sls file!".into())) };
    let reqin = Val::dict(Dict(vec![(Val::str(state), Val::str(sid))]));
    let args = Val::list(vec![Val::dict(Dict(vec![(Val::str("require_in"), Val::list(vec![reqin]))]))]);
    d.0.push((Val::str(".start"), Val::dict(Dict(vec![(Val::str(STATE_FUNC), args)]))));
    Ok(())
}

fn add_goal_state(d: &mut Dict) -> Result<(), Fail> {
    if d.contains(".goal") {
        return Err(Fail("Can't generate goal state(.goal)! The same state id already exists!".into()));
    }
    let mut reqs = Vec::new();
    each_state(d, &["include", "exclude", "extend"], &mut |sid, state, _| {
        reqs.push(Val::dict(Dict(vec![(Val::str(state_name(state)), Val::str(sid))])));
        Ok(())
    })?;
    let args = Val::list(vec![Val::dict(Dict(vec![(Val::str("require"), Val::list(reqs))]))]);
    d.0.push((Val::str(".goal"), Val::dict(Dict(vec![(Val::str(STATE_FUNC), args)]))));
    Ok(())
}

/// Python's `x in container` for a state id's body.
fn contains(body: &Val, key: &str) -> bool {
    match &body.v {
        V::Dict(d) => d.contains(key),
        V::List(items) => items.iter().any(|i| i.as_str() == Some(key)),
        V::Str(s) => s.contains(key),
        _ => false,
    }
}

fn extract_state_confs(d: &Dict, is_extend: bool, conf: &mut Conf) -> Result<(), Fail> {
    for (sid, body) in &d.0 {
        let sid = key_str(sid)?;
        if sid == "extend" && !is_extend {
            let Some(ext) = body.as_dict() else { return Err(failed()) };
            extract_state_confs(ext, true, conf)?;
            continue;
        }
        let key = if contains(body, STATE_NAME) {
            STATE_NAME
        } else if contains(body, STATE_FUNC) {
            STATE_FUNC
        } else {
            continue;
        };
        let Some(items) = body.as_dict().and_then(|b| b.get(key)) else { return Err(failed()) };
        let items: Vec<&Val> = match &items.v {
            V::List(items) => items.iter().collect(),
            V::Str(_) | V::Dict(_) => Vec::new(),
            _ => return Err(failed()),
        };
        let entry = Conf::entry(if is_extend { &mut conf.ext } else { &mut conf.conf }, sid);
        for item in items {
            if let Some(i) = item.as_dict() {
                let Some((k, v)) = i.0.first() else { return Err(failed()) };
                entry.set(k.clone(), v.clone());
            }
        }
        if !is_extend {
            if let Some(i) = conf.ext.iter().position(|(k, _)| k == sid) {
                let own = conf.conf.iter().find(|(k, _)| k == sid).map(|(_, d)| d.clone()).unwrap_or_default();
                let ext = &mut conf.ext[i].1;
                for requisite in REQUIRE {
                    if let Some(e) = ext.get_mut(requisite) {
                        let add = own.get(requisite).cloned();
                        match (&mut e.v, add.map(|a| a.v)) {
                            (V::List(l), Some(V::List(a))) => l.extend(a),
                            (V::List(_), None) => {}
                            _ => return Err(failed()),
                        }
                    }
                }
                let ext = ext.clone();
                Conf::entry(&mut conf.conf, sid).update(ext);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_ids_become_absolute_as_salt_names_them() {
        let got = [(".goal", "iptables.service"), ("..x", "a.b.c"), ("..other::goal", "a.b"), (".y", "top")]
            .map(|(sid, sls)| local_to_abs_sid(sid, sls).map_err(|f| f.0).unwrap_or_else(|e| e));
        expect_test::expect![[r#"["iptables.service::goal", "a.b::x", "other::goal", "top::y"]"#]].assert_eq(&format!("{got:?}"));
        let rel = [(".b", "a.x"), ("..c", "a.x"), ("...d", "a.x")].map(|(r, sls)| relative_to_abs_sls(r, sls).map_err(|f| f.0).unwrap_or_else(|e| e));
        expect_test::expect![[r#"["a.b", "c", "Attempted relative include goes beyond top level package"]"#]].assert_eq(&format!("{rel:?}"));
    }

    #[test]
    fn the_argline_splits_as_salt_splits_it() {
        let parts = ["-G yaml . jinja", "", "-Go yaml -o . jinja", "yaml", "-x"].map(|a| match getopt(a) {
            Ok((o, args)) => format!("G={} o={} s={} {:?}", o.no_goal, o.implicit_require, o.start, split_renderers(&args.join(" "))),
            Err((_, e)) => e,
        });
        expect_test::expect![[r#"
            G=true o=false s=false Some(("yaml", "jinja"))
            G=false o=false s=false None
            G=true o=true s=false Some(("yaml -o", "jinja"))
            G=false o=false s=false None
            option -x not recognized"#]]
        .assert_eq(&parts.join("\n"));
        assert_eq!(argline("#!stateconf -G yaml . jinja\n"), Some("-G yaml . jinja"));
        assert_eq!(argline("#!jinja|yaml|stateconf\n"), None);
        assert_eq!(argline("#!stateconfx\n"), None);
    }
}
