//! Reading a jobs file (JSON or YAML) and validating every job.

use super::error::JobsError;
use super::model::{Job, Program, RawJob, Scope};
use super::render::{control_char, is_option, shell_words, value};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A loaded, validated jobs file.
#[derive(Clone, Debug, PartialEq)]
pub struct JobsFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// The file's base name before the first `.` (`JOB_FILE`, the suite name).
    pub suite: String,
    /// Its jobs, in file order.
    pub jobs: Vec<Job>,
}

/// Reads and validates the jobs file at `path`. `.yaml`/`.yml` files are read
/// as YAML, anything else as JSON.
pub fn load(path: &Path) -> Result<JobsFile, JobsError> {
    let text = mlb_record::reading::read_input(path).map_err(|source| JobsError::Read { path: path.into(), source })?;
    parse(path, &text)
}

/// Parses and validates jobs file text; `path` names it in errors and decides
/// the format.
pub fn parse(path: &Path, text: &str) -> Result<JobsFile, JobsError> {
    let yaml = matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"));
    let raw: Vec<RawJob> = if yaml { from_yaml(path, text)? } else { from_json(path, text)? };
    if raw.is_empty() {
        return Err(JobsError::Empty { path: path.into() });
    }
    let jobs: Vec<Job> =
        raw.into_iter().enumerate().map(|(i, r)| validate(path, i + 1, r)).collect::<Result<_, _>>()?;
    unique_names(path, &jobs)?;
    let suite = suite_name(path);
    if let Some(control) = control_char(&suite) {
        return Err(JobsError::SuiteName { path: path.into(), control });
    }
    Ok(JobsFile { path: path.into(), suite, jobs })
}

/// Refuses a name given to two jobs: names pick jobs (`--name`,
/// `--exclude`, `--resume`) and name their reports and logs.
fn unique_names(path: &Path, jobs: &[Job]) -> Result<(), JobsError> {
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(jobs.len());
    for job in jobs {
        if let Some(earlier) = first.insert(&job.name, job.position) {
            return Err(JobsError::Job {
                path: path.into(),
                position: job.position,
                job: job.name.clone(),
                message: format!(
                    "job #{earlier} has the same name; a name picks a job for --name/--exclude/--resume and \
                     names its reports and logs"
                ),
                fix: Some("rename one of them"),
            });
        }
    }
    Ok(())
}

/// The base name of `path` before its first `.`.
pub fn suite_name(path: &Path) -> String {
    let base = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    base.split('.').next().unwrap_or_default().to_string()
}

fn from_json(path: &Path, text: &str) -> Result<Vec<RawJob>, JobsError> {
    serde_json::from_str(text).map_err(|e| JobsError::Syntax {
        path: path.into(),
        line: e.line() as u64,
        column: e.column() as u64,
        message: strip_position(&e.to_string()),
        format: "JSON",
    })
}

fn from_yaml(path: &Path, text: &str) -> Result<Vec<RawJob>, JobsError> {
    if text.trim().is_empty() {
        return Err(JobsError::Syntax {
            path: path.into(),
            line: 1,
            column: 1,
            message: "the file is empty".into(),
            format: "YAML",
        });
    }
    serde_saphyr::from_str(text).map_err(|e| {
        let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
        let message = e.to_string().lines().next().unwrap_or("invalid YAML").to_string();
        JobsError::Syntax { path: path.into(), line, column, message, format: "YAML" }
    })
}

/// serde_json appends " at line L column C"; the error already says where.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

fn validate(path: &Path, position: usize, raw: RawJob) -> Result<Job, JobsError> {
    let fail = |message: String, fix: Option<&'static str>| JobsError::Job {
        path: path.into(),
        position,
        job: raw.name.clone(),
        message,
        fix,
    };
    if raw.name.trim().is_empty() {
        return Err(fail("the job has no name".into(), Some("set `name`")));
    }
    if let Some(control) = control_char(&raw.name) {
        return Err(fail(
            format!(
                "the name holds a control character ({control:?}); a name is part of report and log file names and \
                 of result lines"
            ),
            Some("remove it from the name"),
        ));
    }
    let program = match (&raw.cmd, &raw.plugin) {
        (Some(c), None) if !c.trim().is_empty() => Program::Cmd(c.clone()),
        (None, Some(p)) if !p.trim().is_empty() => Program::Plugin(p.clone()),
        (Some(_), Some(_)) => return Err(fail("sets both `cmd` and `plugin`".into(), Some("keep one"))),
        _ => return Err(fail("sets neither `cmd` nor `plugin`".into(), Some("name a command or a workload plugin"))),
    };
    let cmd = matches!(program, Program::Cmd(_));
    for (key, v) in &raw.args.0 {
        check_arg(key, v, cmd).map_err(|(m, fix)| fail(format!("argument `{key}`: {m}"), fix))?;
    }
    let scope = match (raw.cgroup, raw.group) {
        (Some(Scope::All), Some(group)) => {
            return Err(fail(
                format!(
                    "`\"group\": \"{}\"` runs one instance per slot, all of them one group, but \
                     `\"cgroup\": \"all\"` asks for one instance seeing every device",
                    group.as_str()
                ),
                Some("remove `cgroup` (or set it to `student`)"),
            ))
        }
        (Some(scope), _) => scope,
        (None, Some(_)) => Scope::Student,
        (None, None) => Scope::All,
    };
    Ok(Job { position, name: raw.name, program, args: raw.args, scope, group: raw.group })
}

/// A value is a scalar or a non-empty list of scalars; a command's
/// positional argument (a key that is not an option) has no value. Refused:
/// what is wrong, and what to do about it.
fn check_arg(key: &str, v: &Value, cmd: bool) -> Result<(), (String, Option<&'static str>)> {
    let scalar = |v: &Value| !matches!(v, Value::Array(_) | Value::Object(_));
    match v {
        Value::Object(_) => return Err(("a value must be a scalar or a list of scalars, not a map".into(), None)),
        Value::Array(items) if items.is_empty() => {
            return Err(("an empty list gives no config".into(), Some("give at least one value")))
        }
        Value::Array(items) if !items.iter().all(scalar) => {
            return Err(("a list must hold scalars only".into(), None));
        }
        _ => {}
    }
    if cmd && !is_option(key) && !value(v).is_empty() {
        return Err(("a positional argument (a key not starting with `-`) takes the empty value \"\"".into(), None));
    }
    if cmd {
        let texts = std::iter::once(key).chain(match v {
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            other => other.as_str().into_iter().collect::<Vec<_>>(),
        });
        for text in texts {
            if shell_words(text).is_none() {
                return Err((
                    format!(
                        "`{text}` has an unclosed quote, and a command's arguments are split into words as the \
                         original's shell split them"
                    ),
                    Some("close the quote or escape it with a backslash"),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(name: &str, text: &str) -> String {
        mlb_record::fix::one_line(&parse(Path::new(name), text).unwrap_err())
    }

    #[test]
    fn suite_is_the_base_name_before_the_first_dot() {
        assert_eq!(suite_name(Path::new("/x/baselines.v2.json")), "baselines");
    }

    #[test]
    fn json_and_yaml_give_the_same_jobs() {
        let json = r#"[{"name": "a", "plugin": "spin", "args": {"--z": 1, "--a": [0.1, 21.80]}, "cgroup": "student"},
                      {"name": "b", "cmd": "./run.sh", "args": {"/data": ""}}]"#;
        let yaml = "- name: a\n  plugin: spin\n  args:\n    --z: 1\n    --a: [0.1, 21.80]\n  cgroup: student\n\
                    - name: b\n  cmd: ./run.sh\n  args:\n    /data: \"\"\n";
        let j = parse(Path::new("s.json"), json).unwrap();
        let y = parse(Path::new("s.yaml"), yaml).unwrap();
        assert_eq!(j.jobs, y.jobs);
        assert_eq!(j.jobs[0].args.0.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["--z", "--a"]);
        assert_eq!(j.jobs[1].scope, Scope::All);
        assert_eq!(j.jobs[1].position, 2);
    }

    #[test]
    fn syntax_errors_name_file_line_and_column() {
        let e = err("bad.json", "[\n  {\"name\": \"a\",\n   \"cmd\": \"x\" \"args\": {}}\n]");
        assert!(e.starts_with("bad.json:3:15: expected `,` or `}`"), "{e}");
        let e = err("empty.json", "");
        assert!(e.starts_with("empty.json:1:0: EOF while parsing"), "{e}");
        let e = err("bad.yaml", "- name: a\n  cmd: [unclosed\n");
        assert!(e.starts_with("bad.yaml:") && !e.starts_with("bad.yaml:0:0"), "{e}");
        let e = err("empty.yml", "  \n");
        assert!(e.starts_with("empty.yml:1:1: the file is empty"), "{e}");
        assert!(err("none.json", "[]").contains("holds no job"));
    }

    #[test]
    fn bad_jobs_name_the_job() {
        let e = err("f.json", r#"[{"name": "a", "cmd": "x"}, {"name": "b", "cmd": "x", "plugin": "spin"}]"#);
        assert!(e.contains("job #2 `b`: sets both"), "{e}");
        let e = err("f.json", r#"[{"name": "c", "args": {}}]"#);
        assert!(e.contains("`c`: sets neither"), "{e}");
        let e = err("f.json", r#"[{"name": "d", "cmd": "x", "args": {"--a": []}}]"#);
        assert!(e.contains("`d`: argument `--a`: an empty list"), "{e}");
        let e = err("f.json", r#"[{"name": "e", "cmd": "x", "args": {"pos": 3}}]"#);
        assert!(e.contains("positional"), "{e}");
        let e = err("f.json", r#"[{"name": "q", "cmd": "x", "args": {"--title": ["ok", "it's"]}}]"#);
        assert!(e.contains("`q`: argument `--title`: `it's` has an unclosed quote"), "{e}");
        parse(Path::new("f.json"), r#"[{"name": "q", "plugin": "spin", "args": {"title": "it's"}}]"#).unwrap();
        parse(Path::new("f.json"), r#"[{"name": "e", "plugin": "spin", "args": {"repeat": 3}}]"#).unwrap();
        let e = err("f.json", r#"[{"name": "f", "cmd": "x", "cgroup": "gpu"}]"#);
        assert!(e.starts_with("f.json:1:") && e.contains("unknown variant `gpu`"), "{e}");
        let e = err("f.json", r#"[{"name": "h", "plugin": "spin", "group": "ddp", "cgroup": "all"}]"#);
        assert!(e.contains("job #1 `h`: `\"group\": \"ddp\"` runs one instance per slot"), "{e}");
        assert!(e.contains("fix: remove `cgroup`"), "{e}");
        let e = err("f.json", r#"[{"name": "i", "plugin": "spin", "group": "mesh"}]"#);
        assert!(e.contains("unknown variant `mesh`"), "{e}");
        let g = parse(Path::new("f.json"), r#"[{"name": "d", "plugin": "spin", "group": "ddp"}]"#).unwrap();
        assert_eq!((g.jobs[0].scope, g.jobs[0].group), (Scope::Student, Some(super::super::model::Group::Ddp)));
        let e = err("f.json", r#"[{"name": "g", "cmd": "x", "agrs": {}}]"#);
        assert!(e.contains("unknown field `agrs`"), "{e}");
    }
}
