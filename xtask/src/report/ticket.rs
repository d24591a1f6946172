//! What a report's directory holds beside its runs that the ticket needs:
//! the cause, as the NOTES state it (its `## Cause` section), and each
//! reproduction without this tool (`repro-*/`, written by `cargo xtask
//! repro`, with what it gave where it ran). The report carries both, so
//! that its Jira text is one comment with the summary, the table, the
//! charts, the reproduction and the cause.

use super::doc::Block;
use super::figures;
use anyhow::{Context, Result};
use std::path::Path;

/// The NOTES heading that opens the section the report carries as the
/// cause: `## Cause` or `## Cause: …`.
const CAUSE_HEADING: &str = "## Cause";

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Beside {
    /// the cause section of NOTES.md: its heading's words and its body
    cause: Option<(String, String)>,
    reproductions: Vec<Reproduction>,
}

/// A directory `repro-*` of the report.
#[derive(Debug, Clone, PartialEq)]
struct Reproduction {
    dir: String,
    /// its files, relative to it, in path order
    files: Vec<String>,
    /// the command its README.md gives (its first fenced block)
    command: Option<String>,
    /// each `ran-on-<host>.txt`: its name and its text
    ran: Vec<(String, String)>,
}

impl Beside {
    /// What `dir` holds beside the runs; nothing is an empty `Beside`. A
    /// NOTES.md with two cause sections is refused at the second's line.
    pub fn read(dir: &Path) -> Result<Beside> {
        let notes = dir.join("NOTES.md");
        let cause = match std::fs::read_to_string(&notes) {
            Ok(text) => cause_section(&text, &notes)?,
            Err(_) => None,
        };
        let mut reproductions = Vec::new();
        let mut dirs: Vec<_> = std::fs::read_dir(dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_dir()
                    && p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("repro-"))
                    && p.join("README.md").is_file()
            })
            .collect();
        dirs.sort();
        for d in dirs {
            reproductions.push(Reproduction::read(&d)?);
        }
        Ok(Beside {
            cause,
            reproductions,
        })
    }

    /// The cause as report blocks: the NOTES section's heading and text,
    /// its figures as they are rendered there.
    pub fn cause_blocks(&self) -> Vec<Block> {
        let Some((heading, body)) = &self.cause else {
            return Vec::new();
        };
        let mut b = vec![Block::Heading(2, format!("{heading} (from NOTES.md)"))];
        b.extend(markdown_blocks(body));
        b
    }

    /// Each reproduction without this tool: the command, the files to
    /// attach, and what it gave on each host it ran on.
    pub fn reproduction_blocks(&self) -> Vec<Block> {
        if self.reproductions.is_empty() {
            return Vec::new();
        }
        let mut b = vec![Block::Heading(2, "Reproduction without innodb-lab".into())];
        for r in &self.reproductions {
            b.push(Block::Para(format!(
                "`{dir}/` beside this report reproduces one of its cells with two server binaries, \
                 sysbench and a shell (its README.md says what each file holds). Attach it packed, \
                 `tar czf {dir}.tar.gz {dir}`: {files}.",
                dir = r.dir,
                files = r
                    .files
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
            if let Some(command) = &r.command {
                b.push(Block::Pre(command.clone()));
            }
            for (name, text) in &r.ran {
                b.push(Block::Para(format!("What it gave (`{}/{name}`):", r.dir)));
                b.push(Block::Pre(text.clone()));
            }
        }
        b
    }
}

impl Reproduction {
    fn read(dir: &Path) -> Result<Reproduction> {
        let mut files = Vec::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(d) = pending.pop() {
            for e in std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
                let p = e?.path();
                if p.is_dir() {
                    pending.push(p);
                } else if let Ok(rel) = p.strip_prefix(dir) {
                    files.push(rel.to_string_lossy().into_owned());
                }
            }
        }
        files.sort();
        let readme = dir.join("README.md");
        let readme = std::fs::read_to_string(&readme)
            .with_context(|| format!("reading {}", readme.display()))?;
        let mut ran = Vec::new();
        for f in files
            .iter()
            .filter(|f| f.starts_with("ran-on-") && f.ends_with(".txt"))
        {
            let path = dir.join(f);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            ran.push((f.clone(), text.trim_end().to_string()));
        }
        Ok(Reproduction {
            dir: dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            files,
            command: first_fenced_block(&readme),
            ran,
        })
    }
}

/// The text of the first ``` block of a Markdown text.
fn first_fenced_block(text: &str) -> Option<String> {
    let start = text.find("```")?;
    let body = text[start + 3..].split_once('\n')?.1;
    let end = body.find("```")?;
    Some(body[..end].trim_end().to_string())
}

/// The NOTES' cause section: its heading's words after `## ` and its body
/// up to the next `## ` heading (one inside a fenced block does not end
/// it), with every figure's template taken out (its rendered text stays);
/// line numbers are the file's.
fn cause_section(text: &str, file: &Path) -> Result<Option<(String, String)>> {
    let mut found: Option<(String, Vec<&str>)> = None;
    let mut inside = false;
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let heading = if fenced {
            None
        } else {
            line.strip_prefix("## ")
        };
        let Some(words) = heading else {
            if inside {
                if let Some((_, body)) = found.as_mut() {
                    body.push(line);
                }
            }
            continue;
        };
        let is_cause = words == "Cause" || words.starts_with("Cause:");
        if is_cause {
            anyhow::ensure!(
                found.is_none(),
                "{}:{}: a second `{CAUSE_HEADING}` section: the report carries one cause",
                file.display(),
                n + 1
            );
            found = Some((words.trim().to_string(), Vec::new()));
        }
        inside = is_cause;
    }
    found
        .map(|(heading, body)| {
            let body = without_templates(&body.join("\n"), file)?;
            Ok((heading, body.trim().to_string()))
        })
        .transpose()
}

/// `text` with each figure's opening (its template) and end taken out.
fn without_templates(text: &str, file: &Path) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for f in figures::figures(text, file)? {
        let open = text[..f.text.start]
            .rfind(figures::OPEN)
            .unwrap_or(f.text.start);
        out.push_str(&text[last..open]);
        out.push_str(&text[f.text.clone()]);
        last = f.text.end + figures::END.len();
    }
    out.push_str(&text[last..]);
    Ok(out)
}

/// Markdown prose as report blocks: paragraphs, `###` headings, fenced
/// blocks, and lists (`- ` or `1. `, both as bullets; a nested `- ` kept
/// as a list inside the item); a line that continues an item or a
/// paragraph joins it. That is what a cause section holds: a table or a
/// quote would come out as a paragraph of its text, so the section keeps
/// to prose and lists.
fn markdown_blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut para: Vec<String> = Vec::new();
    let mut items: Vec<String> = Vec::new();
    let mut fence: Option<Vec<String>> = None;
    let flush = |para: &mut Vec<String>, items: &mut Vec<String>, blocks: &mut Vec<Block>| {
        if !para.is_empty() {
            blocks.push(Block::Para(para.join(" ")));
            para.clear();
        }
        if !items.is_empty() {
            blocks.push(Block::Bullets(std::mem::take(items)));
        }
    };
    for line in text.lines() {
        if let Some(lines) = fence.as_mut() {
            if line.trim_start().starts_with("```") {
                blocks.push(Block::Pre(lines.join("\n")));
                fence = None;
            } else {
                lines.push(line.to_string());
            }
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            flush(&mut para, &mut items, &mut blocks);
            fence = Some(Vec::new());
        } else if trimmed.is_empty() {
            flush(&mut para, &mut items, &mut blocks);
        } else if let Some(h) = line.strip_prefix("### ") {
            flush(&mut para, &mut items, &mut blocks);
            blocks.push(Block::Heading(3, h.trim().to_string()));
        } else if let Some(item) = list_item(line) {
            if line.starts_with(' ') && !items.is_empty() {
                // a list inside the item
                let last = items.last_mut().expect("an item");
                last.push_str("\n- ");
                last.push_str(item);
            } else {
                if !para.is_empty() {
                    blocks.push(Block::Para(para.join(" ")));
                    para.clear();
                }
                items.push(item.to_string());
            }
        } else if let Some(last) = items.last_mut() {
            last.push(' ');
            last.push_str(trimmed);
        } else {
            para.push(trimmed.to_string());
        }
    }
    if let Some(lines) = fence {
        blocks.push(Block::Pre(lines.join("\n")));
    }
    flush(&mut para, &mut items, &mut blocks);
    blocks
}

/// The text of a list item's first line (`- x`, `12. x`), indented or not.
fn list_item(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix("- ") {
        return Some(rest);
    }
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    (digits > 0)
        .then(|| t[digits..].strip_prefix(". "))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_section_becomes_blocks_without_its_figures_templates() {
        let notes = "# R\n\n## Summary\n\nnot this\n\n## Cause: two rules\n\n\
                     1. **One.** The fix moves <!-- figure {{ 1 }} -->0.5<!-- /figure --> pages\n   \
                     a query.\n   - nested\n2. **Two.** `set_old_threshold_ms()`\n\n\
                     After the list.\n\n```\ncode  kept\n```\n\n## Next\n\nnot this either\n";
        let (heading, body) = cause_section(notes, Path::new("NOTES.md"))
            .unwrap()
            .unwrap();
        assert_eq!(heading, "Cause: two rules");
        assert!(
            !body.contains("figure") && body.contains("moves 0.5 pages"),
            "{body}"
        );
        assert_eq!(
            markdown_blocks(&body),
            [
                Block::Bullets(vec![
                    "**One.** The fix moves 0.5 pages a query.\n- nested".into(),
                    "**Two.** `set_old_threshold_ms()`".into(),
                ]),
                Block::Para("After the list.".into()),
                Block::Pre("code  kept".into()),
            ]
        );
        let twice = "## Cause\n\na\n\n## Cause: again\n\nb\n";
        let err = cause_section(twice, Path::new("r/NOTES.md")).unwrap_err();
        assert!(err.to_string().contains("r/NOTES.md:5"), "{err}");
        assert_eq!(
            cause_section("## Causes\n\nx\n", Path::new("N")).unwrap(),
            None
        );
    }

    #[test]
    fn a_reproduction_beside_the_report_is_listed_with_its_command_and_what_it_gave() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path().join("repro-10.11.18-w");
        std::fs::create_dir_all(r.join("lua")).unwrap();
        std::fs::write(
            r.join("README.md"),
            "# x\n\n```\n./run.sh A B [REPS]\n```\n\n```\nnot this\n```\n",
        )
        .unwrap();
        std::fs::write(r.join("run.sh"), "").unwrap();
        std::fs::write(r.join("lua/read_only.lua"), "").unwrap();
        std::fs::write(r.join("ran-on-vm.txt"), "median base: 92.73%\n").unwrap();
        // a directory without a README is not a reproduction
        std::fs::create_dir_all(dir.path().join("repro-other")).unwrap();
        let beside = Beside::read(dir.path()).unwrap();
        assert_eq!(beside.cause, None);
        let b = beside.reproduction_blocks();
        let text = super::super::doc::markdown(&b);
        assert!(
            text.contains("tar czf repro-10.11.18-w.tar.gz repro-10.11.18-w"),
            "{text}"
        );
        assert!(
            text.contains("`README.md`, `lua/read_only.lua`, `ran-on-vm.txt`, `run.sh`"),
            "{text}"
        );
        assert!(
            text.contains("./run.sh A B [REPS]") && !text.contains("not this"),
            "{text}"
        );
        assert!(text.contains("median base: 92.73%"), "{text}");
        assert!(!text.contains("repro-other"), "{text}");
    }
}
