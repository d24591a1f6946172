//! Figures in prose, generated from the reports' data: a figure the
//! README, a doc or a NOTES.md quotes is written as a template in an HTML
//! comment, with what it renders to after it,
//!
//! ```text
//! <!-- figure {{ verdict("hit-ratio-turnover", "fixed keeps").verdict }} -->undecided<!-- /figure -->
//! ```
//!
//! so that a reader sees the figure and `cargo xtask docs` writes it
//! again from `reports/<name>/summary.json` (as rust-analyzer's codegen
//! writes its generated docs); `stale` lists every figure whose text is
//! not what its template gives, and one test fails on it. Templates are
//! minijinja's, with the functions and filters `environment` adds.

use super::answers;
use super::summary::SummaryVerdict;
use anyhow::{anyhow, bail, Context, Result};
use minijinja::value::{Kwargs, Value};
use minijinja::{Environment, Error, ErrorKind, UndefinedBehavior};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The opening of a figure: its template follows, up to `TEMPLATE_END`.
pub const OPEN: &str = "<!-- figure ";
const TEMPLATE_END: &str = " -->";
/// The end of a figure's rendered text.
pub const END: &str = "<!-- /figure -->";

/// The documents whose figures are generated: the README, CONTRIBUTING,
/// docs/*.md, every report's NOTES.md and the patches' notes.
pub fn documents(root: &Path) -> Result<Vec<PathBuf>> {
    let mut files = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let markdown_in = |dir: PathBuf, name: Option<&str>| -> Result<Vec<PathBuf>> {
        let mut found = Vec::new();
        if !dir.is_dir() {
            return Ok(found);
        }
        for e in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
            let p = e?.path();
            let hit = match name {
                Some(n) => p.join(n).is_file().then(|| p.join(n)),
                None => (p.extension().is_some_and(|x| x == "md")).then_some(p),
            };
            found.extend(hit);
        }
        Ok(found)
    };
    files.extend(markdown_in(root.join("docs"), None)?);
    files.extend(markdown_in(root.join("reports"), Some("NOTES.md"))?);
    // patches/*.md and each series' notes, patches/<series>/*.md
    files.extend(markdown_in(root.join("patches"), None)?);
    let series = std::fs::read_dir(root.join("patches"))
        .into_iter()
        .flatten()
        .flatten();
    for dir in series.map(|e| e.path()).filter(|p| p.is_dir()) {
        files.extend(markdown_in(dir, None)?);
    }
    files.retain(|f| f.is_file());
    files.sort();
    Ok(files)
}

/// One figure of a document.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// 1-based line of its opening
    pub line: usize,
    pub template: String,
    /// byte range of its rendered text in the document
    pub text: std::ops::Range<usize>,
}

/// The figures of `text`, in order; an opening without its end, or a
/// template without its closing `-->`, is refused at its line.
pub fn figures(text: &str, file: &Path) -> Result<Vec<Figure>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(OPEN).map(|i| i + from) {
        let line = text[..at].matches('\n').count() + 1;
        let start = at + OPEN.len();
        let close = text[start..]
            .find(TEMPLATE_END)
            .map(|i| i + start)
            .ok_or_else(|| {
                anyhow!(
                    "{}:{line}: a figure's template has no closing `-->`",
                    file.display()
                )
            })?;
        let body = close + TEMPLATE_END.len();
        let end = text[body..]
            .find(END)
            .map(|i| i + body)
            .ok_or_else(|| anyhow!("{}:{line}: a figure has no `{END}`", file.display()))?;
        if let Some(nested) = text[body..end].find(OPEN) {
            let nested_line = text[..body + nested].matches('\n').count() + 1;
            bail!(
                "{}:{nested_line}: a figure opens inside the figure of line {line}",
                file.display()
            );
        }
        out.push(Figure {
            line,
            template: text[start..close].to_string(),
            text: body..end,
        });
        from = end + END.len();
    }
    Ok(out)
}

/// The template environment over the reports of `root`: `report(name)`
/// is a report's summary.json, `verdict(name, words)` the verdict whose
/// question holds `words`, `cell(verdict, workload)` its cell of that
/// workload, `answers(name)` a bullet per question, `runs(name)` its run
/// records in path order, `json(path)` any JSON file under reports/ (an
/// mtr result, one run), `rule(kind)` a question kind's rule as every
/// verdict line words it; the filters `fixed(n)`
/// and `signed(n)` print a number with n decimals (signed: with its
/// sign), `answer` a verdict in a few words, `thousands` an integer with
/// commas, `lowest(attr)` and `highest(attr)` pick from a list.
pub fn environment(root: &Path) -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    let cache: Arc<Mutex<BTreeMap<String, Value>>> = Arc::default();
    let reports = root.join("reports");
    // any JSON file under reports/, by its path there, read once
    let read_json = {
        let reports = reports.clone();
        move |relative: &str| -> Result<Value, Error> {
            let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(v) = cache.get(relative) {
                return Ok(v.clone());
            }
            let path = reports.join(relative);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("{}: {e}", path.display()),
                )
            })?;
            let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("{}: {e}", path.display()),
                )
            })?;
            let v = Value::from(minijinja::value::Serde(json));
            cache.insert(relative.to_string(), v.clone());
            Ok(v)
        }
    };
    let read_json = Arc::new(read_json);
    let load = {
        let read_json = read_json.clone();
        move |name: &str| read_json(&format!("{}/summary.json", inside_reports(name)?))
    };
    let load = Arc::new(load);
    {
        let load = load.clone();
        env.add_function("report", move |name: String| load(&name));
    }
    {
        let read_json = read_json.clone();
        env.add_function("json", move |path: String| {
            read_json(inside_reports(&path)?)
        });
    }
    {
        let read_json = read_json.clone();
        let reports = reports.clone();
        env.add_function("runs", move |name: String| -> Result<Value, Error> {
            let dir = reports.join(inside_reports(&name)?).join("runs");
            if !dir.is_dir() {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!("{}: no such directory of runs", dir.display()),
                ));
            }
            // in path order, so that a figure lists them the same every time
            let mut files = crate::results::store::json_files(&dir);
            files.sort();
            let runs = files
                .iter()
                .map(|f| {
                    let relative = f.strip_prefix(&reports).unwrap_or(f);
                    read_json(&relative.to_string_lossy())
                })
                .collect::<Result<Vec<Value>, Error>>()?;
            Ok(Value::from(runs))
        });
    }
    {
        let load = load.clone();
        env.add_function("verdict", move |name: String, words: String| {
            let s = load(&name)?;
            let verdicts = s.get_attr("verdicts")?;
            let found: Vec<Value> = verdicts
                .try_iter()?
                .filter(|v| {
                    v.get_attr("question")
                        .ok()
                        .and_then(|q| q.as_str().map(|q| q.contains(&words)))
                        .unwrap_or(false)
                })
                .collect();
            match found.as_slice() {
                [one] => Ok(one.clone()),
                [] => Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!("reports/{name}: no question holds `{words}`"),
                )),
                _ => Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!("reports/{name}: {} questions hold `{words}`", found.len()),
                )),
            }
        });
    }
    {
        let load = load.clone();
        env.add_function(
            "row",
            move |name: String, variant: String, kwargs: Kwargs| -> Result<Value, Error> {
                row(&load(&name)?, &name, &variant, &kwargs)
            },
        );
    }
    env.add_function("cell", |verdict: Value, workload: String| {
        verdict
            .get_attr("cells")?
            .try_iter()?
            .find(|c| {
                c.get_attr("workload")
                    .ok()
                    .and_then(|w| w.as_str().map(|w| w == workload))
                    .unwrap_or(false)
            })
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("no cell of `{workload}` in the verdict"),
                )
            })
    });
    {
        let load = load.clone();
        env.add_function("answers", move |name: String| -> Result<String, Error> {
            let verdicts = load(&name)?.get_attr("verdicts")?;
            let lines = verdicts
                .try_iter()?
                .map(|v| {
                    Ok(match summary_verdict(&v)? {
                        SummaryVerdict::Numbers(v) => format!("- {}", answers::in_brief(&v)),
                        SummaryVerdict::Words(v) => {
                            format!("- **{}**: {}", v.verdict.word(), v.question)
                        }
                    })
                })
                .collect::<Result<Vec<String>, Error>>()?;
            Ok(lines.join("\n"))
        });
    }
    // a question kind's rule, in the words every verdict line uses
    env.add_function("rule", |kind: String| -> Result<String, Error> {
        let kind: crate::results::question::Kind =
            serde_json::from_value(serde_json::Value::String(kind.clone())).map_err(|_| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!(
                    "rule(\"{kind}\"): no such question kind (below, above, no-slower, not-below)"
                ),
                )
            })?;
        Ok(answers::rule_of(kind).to_string())
    });
    env.add_filter("fixed", |x: f64, digits: usize| format!("{x:.digits$}"));
    env.add_filter("signed", |x: f64, digits: usize| format!("{x:+.digits$}"));
    env.add_filter("thousands", |x: f64| thousands(x.round() as i64));
    // seconds as the tool prints a stage's time: "48.2 s", "24m10s"
    env.add_filter("duration", crate::util::human_duration);
    env.add_filter("answer", |v: Value| -> Result<String, Error> {
        Ok(match summary_verdict(&v)? {
            SummaryVerdict::Numbers(v) => answers::answer_words(&v),
            SummaryVerdict::Words(v) => v.verdict.word().to_string(),
        })
    });
    let pick = |highest: bool| {
        move |list: Value, attr: String| -> Result<Value, Error> {
            let mut best: Option<(f64, Value)> = None;
            for item in list.try_iter()? {
                let Ok(x) = f64::try_from(item.get_attr(&attr)?) else {
                    continue;
                };
                let better = best
                    .as_ref()
                    .is_none_or(|(b, _)| if highest { x > *b } else { x < *b });
                if better {
                    best = Some((x, item));
                }
            }
            best.map(|(_, v)| v).ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("no item has a number `{attr}`"),
                )
            })
        }
    };
    env.add_filter("lowest", pick(false));
    env.add_filter("highest", pick(true));
    env
}

/// `path` as a path inside reports/: relative, without `..`, so that a
/// template reads only the reports' own files.
fn inside_reports(path: &str) -> Result<&str, Error> {
    let p = Path::new(path);
    let outside = p.is_absolute()
        || p.components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)));
    if outside || path.is_empty() {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("`{path}` is not a path inside reports/"),
        ));
    }
    Ok(path)
}

/// The one row of report `name`'s summary of `variant`, narrowed by the
/// keyword arguments `workload`, `tree` and `threads`; none or more than
/// one is an error naming the report and what was asked.
fn row(summary: &Value, name: &str, variant: &str, kwargs: &Kwargs) -> Result<Value, Error> {
    let workload: Option<String> = kwargs.get("workload")?;
    let tree: Option<String> = kwargs.get("tree")?;
    let threads: Option<i64> = kwargs.get("threads")?;
    kwargs.assert_all_used()?;
    let text = |v: &Value, key: &str| {
        v.get_attr(key)
            .ok()
            .and_then(|x| x.as_str().map(String::from))
    };
    let found: Vec<Value> = summary
        .get_attr("rows")?
        .try_iter()?
        .filter(|r| text(r, "variant").as_deref() == Some(variant))
        .filter(|r| workload.is_none() || text(r, "workload") == workload)
        .filter(|r| tree.is_none() || text(r, "tree") == tree)
        .filter(|r| {
            threads.is_none()
                || r.get_attr("threads")
                    .ok()
                    .and_then(|t| i64::try_from(t).ok())
                    == threads
        })
        .collect();
    let asked = format!(
        "variant `{variant}`{}{}{}",
        workload
            .map(|w| format!(", workload `{w}`"))
            .unwrap_or_default(),
        tree.map(|t| format!(", tree `{t}`")).unwrap_or_default(),
        threads
            .map(|t| format!(", {t} threads"))
            .unwrap_or_default(),
    );
    match found.len() {
        1 => Ok(found.into_iter().next().expect("one row")),
        n => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("reports/{name}: {n} rows of {asked}, not one"),
        )),
    }
}

/// 12345 as `12,345`.
fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A verdict of a report's summary.json, as the templates hold it, read
/// back into its type (numbers, or a schema 1 or 2 verdict's words).
fn summary_verdict(v: &Value) -> Result<SummaryVerdict, Error> {
    serde_json::to_value(v)
        .and_then(serde_json::from_value)
        .map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))
}

/// One figure's text as its template gives it; an error names the file
/// and the figure's line.
fn render(env: &Environment, f: &Figure, file: &Path) -> Result<String> {
    env.render_str(&f.template, ()).map_err(|e| {
        anyhow!(
            "{}:{}: the figure `{}`: {e:#}",
            file.display(),
            f.line,
            f.template
        )
    })
}

/// `text` with every figure rendered again; an error names the file and
/// the figure's line.
pub fn fill(env: &Environment, text: &str, file: &Path) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for f in figures(text, file)? {
        let rendered = render(env, &f, file)?;
        out.push_str(&text[last..f.text.start]);
        out.push_str(&rendered);
        last = f.text.end;
    }
    out.push_str(&text[last..]);
    Ok(out)
}

/// A figure whose text is not what its template gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Stale {
    pub file: PathBuf,
    pub line: usize,
    pub template: String,
    pub says: String,
    pub gives: String,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: `{}` gives {:?}, the file says {:?}",
            self.file.display(),
            self.line,
            self.template,
            self.gives,
            self.says
        )
    }
}

/// Every stale figure of the documents of `root`.
pub fn stale(root: &Path) -> Result<Vec<Stale>> {
    stale_in(root, &documents(root)?)
}

/// `files` (paths from the working directory or absolute), each checked
/// to be one of the documents of `root` whose figures are generated; an
/// empty list is all of them.
pub fn chosen(root: &Path, files: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let all = documents(root)?;
    if files.is_empty() {
        return Ok(all);
    }
    let canonical: Vec<Option<PathBuf>> =
        all.iter().map(|d| std::fs::canonicalize(d).ok()).collect();
    files
        .iter()
        .map(|f| {
            let full = std::fs::canonicalize(f)
                .with_context(|| format!("{}: no such document", f.display()))?;
            all.iter()
                .zip(&canonical)
                .find(|(_, c)| c.as_deref() == Some(full.as_path()))
                .map(|(d, _)| d.clone())
                .ok_or_else(|| {
                    anyhow!(
                        "{}: not a document whose figures are generated (the README, CONTRIBUTING, docs/*.md, a report's NOTES.md, the patches' notes)",
                        f.display()
                    )
                })
        })
        .collect()
}

/// Every stale figure of `files`, rendered from the reports of `root`.
pub fn stale_in(root: &Path, files: &[PathBuf]) -> Result<Vec<Stale>> {
    let env = environment(root);
    let mut found = Vec::new();
    for file in files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        for f in figures(&text, file)? {
            let gives = render(&env, &f, file)?;
            let says = &text[f.text.clone()];
            if says != gives {
                found.push(Stale {
                    file: file.clone(),
                    line: f.line,
                    template: f.template.clone(),
                    says: says.to_string(),
                    gives,
                });
            }
        }
    }
    Ok(found)
}

/// Renders every figure of the documents of `root` again; the files
/// that changed.
pub fn write(root: &Path) -> Result<Vec<PathBuf>> {
    write_in(root, &documents(root)?)
}

/// Renders every figure of `files` again from the reports of `root`; the
/// files that changed. Every file is rendered before any is written, so a
/// bad figure in one leaves all of them as they were.
pub fn write_in(root: &Path, files: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let env = environment(root);
    let mut filled_files = Vec::new();
    for file in files.iter().cloned() {
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        let filled = fill(&env, &text, &file)?;
        if filled != text {
            filled_files.push((file, filled));
        }
    }
    let mut changed = Vec::new();
    for (file, filled) in filled_files {
        crate::util::write_atomic(&file, filled.as_bytes())?;
        changed.push(file);
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository of one report whose summary.json holds one margin
    /// verdict, and a NOTES.md quoting it.
    fn repo(notes: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("reports/r");
        std::fs::create_dir_all(&report).unwrap();
        let verdict = serde_json::json!({
            "question": "fixed keeps base's hit ratio (at most 0.2 points below)",
            "kind": "not-below", "metric": "hit_ratio_pct", "unit": "points",
            "variant": "fixed", "against": "base", "margin": 0.2,
            "verdict": "undecided", "runs_to_decide": 12,
            "cells": [
                {"tree": "10.11.18", "workload": "w1", "threads": 2,
                 "against_tree": "10.11.18", "against_variant": "base",
                 "answer": "undecided", "runs": 2, "against_runs": 2, "estimate": -1.78,
                 "interval": {"lo": -1.9, "hi": -1.6, "coverage": 0.6666666666666667,
                              "method": "hodges-lehmann", "paired": false, "n": 2},
                 "runs_to_decide": {"n": 6, "paired": true}},
                {"tree": "10.11.18", "workload": "w2", "threads": 2,
                 "against_tree": "10.11.18", "against_variant": "base",
                 "answer": "undecided", "runs": 2, "against_runs": 2, "estimate": -0.31,
                 "runs_to_decide": {"n": 12, "paired": true}}
            ]
        });
        std::fs::write(
            report.join("summary.json"),
            serde_json::json!({
                "verdicts": [verdict],
                "rows": [
                    {"tree": "10.11.18", "variant": "base", "workload": "w1", "threads": 2,
                     "median": {"hit_ratio_pct": 91.25}},
                    {"tree": "11.8.6", "variant": "base", "workload": "w1", "threads": 2,
                     "median": {"hit_ratio_pct": 90.5}}
                ]
            })
            .to_string(),
        )
        .unwrap();
        std::fs::write(dir.path().join("reports/r/NOTES.md"), notes).unwrap();
        dir
    }

    #[test]
    fn a_figure_is_rendered_from_its_report_and_a_stale_one_is_named() {
        let notes = "The gap is <!-- figure {{ (verdict(\"r\", \"fixed keeps\").cells | lowest(\"estimate\")).estimate | signed(2) }} -->-1.5<!-- /figure --> points, \
                     and <!-- figure {{ verdict(\"r\", \"fixed keeps\") | answer }} -->fail<!-- /figure -->.\n";
        let dir = repo(notes);
        let found = stale(dir.path()).unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].gives, "-1.78");
        assert_eq!(found[0].says, "-1.5");
        assert_eq!(found[0].line, 1);
        assert_eq!(found[1].gives, "undecided (about 12 pairs would decide it)");
        assert!(
            found[0].to_string().contains("reports/r/NOTES.md:1"),
            "{}",
            found[0]
        );
        // written again, nothing is stale and the prose around stays
        let changed = write(dir.path()).unwrap();
        assert_eq!(changed.len(), 1);
        assert!(stale(dir.path()).unwrap().is_empty());
        let text = std::fs::read_to_string(dir.path().join("reports/r/NOTES.md")).unwrap();
        assert!(text.starts_with("The gap is <!-- figure"), "{text}");
        assert!(
            text.contains("-->-1.78<!-- /figure --> points, and"),
            "{text}"
        );
        assert!(
            write(dir.path()).unwrap().is_empty(),
            "a second write changes nothing"
        );
    }

    #[test]
    fn a_bad_figure_is_refused_with_its_file_and_line() {
        let dir = repo(
            "one\ntwo <!-- figure {{ verdict(\"r\", \"nothing\").verdict }} -->x<!-- /figure -->\n",
        );
        let err = format!("{:#}", stale(dir.path()).unwrap_err());
        assert!(
            err.contains("NOTES.md:2") && err.contains("no question holds `nothing`"),
            "{err}"
        );
        let dir = repo("a <!-- figure {{ report(\"r\").nope }} -->x<!-- /figure -->\n");
        let err = format!("{:#}", stale(dir.path()).unwrap_err());
        assert!(err.contains("NOTES.md:1"), "{err}");
        let dir = repo("\n\n<!-- figure {{ 1 }} -->x\n");
        let err = format!("{:#}", stale(dir.path()).unwrap_err());
        assert!(
            err.contains("NOTES.md:3") && err.contains("/figure"),
            "{err}"
        );
    }

    #[test]
    fn a_row_is_found_by_variant_and_the_keywords_given_or_refused_by_name() {
        let dir = repo(
            "<!-- figure {{ row(\"r\", \"base\", tree=\"11.8.6\").median.hit_ratio_pct | fixed(1) }} -->x<!-- /figure -->\n",
        );
        assert_eq!(stale(dir.path()).unwrap()[0].gives, "90.5");
        let dir = repo(
            "<!-- figure {{ row(\"r\", \"base\", workload=\"w1\").median.hit_ratio_pct }} -->x<!-- /figure -->\n",
        );
        let err = format!("{:#}", stale(dir.path()).unwrap_err());
        assert!(
            err.contains("reports/r: 2 rows of variant `base`, workload `w1`, not one"),
            "{err}"
        );
        let dir = repo(
            "<!-- figure {{ row(\"r\", \"base\", tree=\"10.11.18\", rate=1).median }} -->x<!-- /figure -->\n",
        );
        let err = format!("{:#}", stale(dir.path()).unwrap_err());
        assert!(err.contains("rate"), "{err}");
    }

    #[test]
    fn runs_and_json_read_the_reports_own_files_and_nothing_outside() {
        let dir = repo("<!-- figure {{ runs(\"r\") | map(attribute=\"repetition\") | join(\",\") }} {{ json(\"r/mtr.json\").passed }} {{ json(\"r/mtr.json\").seconds | duration }} -->x<!-- /figure -->\n");
        let runs = dir.path().join("reports/r/runs/10.11.18/base/w1/threads-2");
        std::fs::create_dir_all(&runs).unwrap();
        // path order: rep10 sorts before rep2, as the files are named
        for rep in [2, 10] {
            std::fs::write(
                runs.join(format!("rep{rep}.json")),
                format!("{{\"repetition\": {rep}}}"),
            )
            .unwrap();
        }
        std::fs::write(
            dir.path().join("reports/r/mtr.json"),
            "{\"passed\": 7, \"seconds\": 1450.4}",
        )
        .unwrap();
        assert_eq!(stale(dir.path()).unwrap()[0].gives, "10,2 7 24m10s");
        for outside in ["../secret.json", "/etc/passwd", "r/../../x.json"] {
            let dir = repo(&format!(
                "<!-- figure {{{{ json(\"{outside}\") }}}} -->x<!-- /figure -->\n"
            ));
            let err = format!("{:#}", stale(dir.path()).unwrap_err());
            assert!(err.contains("is not a path inside reports/"), "{err}");
        }
    }

    #[test]
    fn answers_lists_every_question_in_brief() {
        let dir = repo("<!-- figure {{ answers(\"r\") }} -->\n<!-- /figure -->\n");
        write(dir.path()).unwrap();
        let text = std::fs::read_to_string(dir.path().join("reports/r/NOTES.md")).unwrap();
        assert!(
            text.contains("- **undecided**: fixed keeps base's hit ratio (at most 0.2 points below): -1.78 to -0.31 points from base; about 12 pairs would decide it"),
            "{text}"
        );
    }
}
