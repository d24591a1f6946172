//! A report as a list of blocks, rendered as Markdown or as Jira wiki
//! markup from the same blocks, so both formats say the same thing, and as
//! plain text for a terminal. Text may carry `code` and **bold** spans; the
//! Markdown and Jira renderers translate them, the text renderer prints
//! text as written (a compiler's error quoted in it keeps its `**`).

use std::fmt::Write;

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// level 1-3
    Heading(u8, String),
    Para(String),
    /// An item's lines that start with `- ` are a list inside the item.
    Bullets(Vec<String>),
    Table {
        header: Vec<String>,
        rows: Vec<Vec<String>>,
    },
    /// A table whose columns listed in `right_aligned` (numbers) are
    /// aligned right where the format can: Markdown's `---:` and the
    /// terminal; Jira tables have no alignment.
    AlignedTable {
        header: Vec<String>,
        right_aligned: Vec<usize>,
        rows: Vec<Vec<String>>,
    },
    /// preformatted text (my.cnf, command lines, error logs)
    Pre(String),
    /// an image file next to the report: `alt` in Markdown and text,
    /// `caption` (shorter) in Jira
    Image {
        file: String,
        alt: String,
        caption: String,
    },
    /// A file the report writes beside it under `attachments/` (a my.cnf,
    /// cmake's options): the Markdown report and the text show it as
    /// preformatted text; the Jira comment names it, for the ticket's
    /// attachments, since dumps would fill a comment.
    Attached {
        file: String,
        text: String,
    },
    /// Detail the Markdown report carries and the Jira comment does not (a
    /// Jira comment holds 32,767 characters): Jira gets `jira_note`, which
    /// says where the detail is.
    MarkdownOnly {
        blocks: Vec<Block>,
        jira_note: String,
    },
}

/// The directory under a report's own that holds its attached files.
pub const ATTACHMENTS: &str = "attachments";

/// An attached file's name as Jira knows it: attachments are one flat
/// list, so the file's name alone.
fn attachment_name(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

/// Every file the blocks attach, as (path under the report, contents).
pub fn attached_files(blocks: &[Block]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for b in blocks {
        match b {
            Block::Attached { file, text } => out.push((
                format!("{ATTACHMENTS}/{}", attachment_name(file)),
                format!("{}\n", text.trim_end()),
            )),
            Block::MarkdownOnly { blocks, .. } => out.extend(attached_files(blocks)),
            _ => {}
        }
    }
    out
}

pub fn markdown(blocks: &[Block]) -> String {
    let mut s = String::new();
    markdown_blocks(&mut s, blocks);
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
}

fn markdown_blocks(s: &mut String, blocks: &[Block]) {
    for b in blocks {
        match b {
            Block::Heading(level, text) => {
                let _ = writeln!(s, "{} {text}\n", "#".repeat(*level as usize));
            }
            Block::Para(text) => {
                let _ = writeln!(s, "{text}\n");
            }
            Block::Bullets(items) => {
                for i in items {
                    let _ = writeln!(s, "- {}", i.replace('\n', "\n  "));
                }
                s.push('\n');
            }
            Block::Table { header, rows } => markdown_table(s, header, rows, &[]),
            Block::AlignedTable {
                header,
                right_aligned,
                rows,
            } => markdown_table(s, header, rows, right_aligned),
            Block::Pre(text) | Block::Attached { text, .. } => {
                let fence = if text.contains("```") { "~~~~" } else { "```" };
                let _ = writeln!(s, "{fence}\n{}\n{fence}\n", text.trim_end());
            }
            Block::Image { file, alt, .. } => {
                let _ = writeln!(s, "![{alt}]({file})\n");
            }
            Block::MarkdownOnly { blocks, .. } => markdown_blocks(s, blocks),
        }
    }
}

fn markdown_table(
    s: &mut String,
    header: &[String],
    rows: &[Vec<String>],
    right_aligned: &[usize],
) {
    let line = |cells: &[String]| {
        let cells: Vec<String> = cells
            .iter()
            .map(|c| c.replace('|', "\\|").replace('\n', " "))
            .collect();
        format!("| {} |", cells.join(" | "))
    };
    let _ = writeln!(s, "{}", line(header));
    let rule: String = (0..header.len())
        .map(|i| {
            if right_aligned.contains(&i) {
                "---:|"
            } else {
                "---|"
            }
        })
        .collect();
    let _ = writeln!(s, "|{rule}");
    for r in rows {
        let _ = writeln!(s, "{}", line(r));
    }
    s.push('\n');
}

/// Jira wiki markup for MariaDB's tracker: `h2.` headings, `||h||`
/// header rows, `|c|` rows, `{noformat}` blocks.
pub fn jira(blocks: &[Block]) -> String {
    let mut s = String::new();
    for b in blocks {
        match b {
            Block::Heading(level, text) => {
                let _ = writeln!(s, "h{level}. {}\n", inline(text));
            }
            Block::Para(text) => {
                let _ = writeln!(s, "{}\n", inline(text));
            }
            Block::Bullets(items) => {
                for i in items {
                    jira_item(&mut s, i);
                }
                s.push('\n');
            }
            Block::Table { header, rows } | Block::AlignedTable { header, rows, .. } => {
                jira_table(&mut s, header, rows)
            }
            Block::Pre(text) => {
                // {noformat} cannot hold its own closing tag
                let _ = writeln!(
                    s,
                    "{{noformat}}\n{}\n{{noformat}}\n",
                    text.trim_end().replace("{noformat}", "{ noformat}")
                );
            }
            Block::Attached { file, .. } => {
                let _ = writeln!(s, "attached: [^{}]\n", attachment_name(file));
            }
            // Jira shows an attached PNG inline, an SVG only as a link
            Block::Image { file, caption, .. } => {
                let png = crate::charts::png::png_name(file);
                let _ = writeln!(s, "!{png}|alt={}!\n", escape(caption));
            }
            Block::MarkdownOnly { jira_note, .. } => {
                let _ = writeln!(s, "{}\n", inline(jira_note));
            }
        }
    }
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
}

/// One bullet: its lines that start with `- ` become `**` items under it,
/// as Markdown shows them; its other lines are joined to the line before,
/// since a Jira item is one line.
fn jira_item(s: &mut String, item: &str) {
    let mut entries: Vec<(&str, String)> = Vec::new();
    for line in item.split('\n') {
        match (line.strip_prefix("- "), entries.last_mut()) {
            (Some(nested), Some(_)) => entries.push(("**", nested.to_string())),
            (_, Some((_, text))) => {
                text.push(' ');
                text.push_str(line);
            }
            (_, None) => entries.push(("*", line.to_string())),
        }
    }
    for (marker, text) in entries {
        let _ = writeln!(s, "{marker} {}", inline(&text));
    }
}

/// A Jira table, where a comment has at most 32,767 characters: a column
/// whose every row (of two or more) holds the same value, or repeats the
/// start of another column's cell, is said once in a line above the table
/// instead of in each row.
fn jira_table(s: &mut String, header: &[String], rows: &[Vec<String>]) {
    let constant: Vec<usize> = if rows.len() < 2 {
        Vec::new()
    } else {
        (0..header.len())
            .filter(|&i| {
                let first = rows[0].get(i);
                first.is_some_and(|v| !v.trim().is_empty())
                    && rows.iter().all(|r| r.get(i) == first)
            })
            .collect()
    };
    // a table keeps at least one column of its own
    let constant = if constant.len() == header.len() {
        Vec::new()
    } else {
        constant
    };
    // a column that in every row repeats the start of another column's
    // cell, before a parenthesis (a min-max range beside an interval that
    // is that range with its coverage), is said once too; two columns
    // that happen to be equal are both kept
    let repeats: Vec<(usize, usize)> = if rows.len() < 2 {
        Vec::new()
    } else {
        (0..header.len())
            .filter(|i| !constant.contains(i))
            .filter_map(|i| {
                let j = (0..header.len()).find(|&j| {
                    j != i
                        && !constant.contains(&j)
                        && rows.iter().all(|r| match (r.get(i), r.get(j)) {
                            // the whole of `a`, then the end of `b` or a space:
                            // 10 is not a repeat of 1
                            (Some(a), Some(b)) => {
                                !a.trim().is_empty()
                                    && b.strip_prefix(a.as_str())
                                        .is_some_and(|rest| rest.starts_with(" ("))
                            }
                            _ => false,
                        })
                })?;
                Some((i, j))
            })
            .collect()
    };
    let constant: Vec<usize> = constant
        .into_iter()
        .chain(repeats.iter().map(|&(i, _)| i))
        .collect();
    if !constant.is_empty() {
        let said: Vec<String> = constant
            .iter()
            .map(|&i| match repeats.iter().find(|(r, _)| *r == i) {
                Some((_, j)) => format!("{} repeats the start of {}", header[i], header[*j]),
                None => format!("{} {}", header[i], rows[0][i]),
            })
            .collect();
        let _ = writeln!(
            s,
            "{}\n",
            inline(&format!("In every row: {}.", said.join("; ")))
        );
    }
    let keep = |v: &[String]| -> Vec<String> {
        v.iter()
            .enumerate()
            .filter(|(i, _)| !constant.contains(i))
            .map(|(_, c)| c.clone())
            .collect()
    };
    let header = keep(header);
    let rows: Vec<Vec<String>> = rows.iter().map(|r| keep(r)).collect();
    let cell = |c: &String| {
        let t = inline(&c.replace('\n', " "));
        // an empty Jira cell collapses the row: give it a space
        if t.trim().is_empty() {
            " ".to_string()
        } else {
            t
        }
    };
    let _ = writeln!(
        s,
        "||{}||",
        header.iter().map(cell).collect::<Vec<_>>().join("||")
    );
    for r in &rows {
        let _ = writeln!(s, "|{}|", r.iter().map(cell).collect::<Vec<_>>().join("|"));
    }
    s.push('\n');
}

/// Plain text for a terminal: a table in aligned columns under a rule of
/// dashes, the other blocks as lines, a blank line between blocks.
pub fn text(blocks: &[Block]) -> String {
    let mut s = String::new();
    text_blocks(&mut s, blocks);
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
}

fn text_blocks(s: &mut String, blocks: &[Block]) {
    for b in blocks {
        match b {
            Block::Heading(_, text) | Block::Para(text) => {
                let _ = writeln!(s, "{text}\n");
            }
            Block::Bullets(items) => {
                for i in items {
                    let _ = writeln!(s, "- {}", i.replace('\n', "\n  "));
                }
                s.push('\n');
            }
            Block::Table { header, rows } => text_table(s, header, rows, &[]),
            Block::AlignedTable {
                header,
                right_aligned,
                rows,
            } => text_table(s, header, rows, right_aligned),
            Block::Pre(text) | Block::Attached { text, .. } => {
                let _ = writeln!(s, "{}\n", text.trim_end());
            }
            Block::Image { file, alt, .. } => {
                let _ = writeln!(s, "{alt}: {file}\n");
            }
            Block::MarkdownOnly { blocks, .. } => text_blocks(s, blocks),
        }
    }
}

/// Columns two spaces apart, each as wide as its widest cell (in
/// characters); a line ends at its last character.
fn text_table(s: &mut String, header: &[String], rows: &[Vec<String>], right_aligned: &[usize]) {
    let cell = |c: &String| c.replace('\n', " ");
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            std::iter::once(header)
                .chain(rows.iter().map(Vec::as_slice))
                .filter_map(|r| r.get(i))
                .map(|c| cell(c).chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, width))| {
                let c = cell(c);
                let pad = " ".repeat(width - c.chars().count());
                if right_aligned.contains(&i) {
                    pad + &c
                } else {
                    c + &pad
                }
            })
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let _ = writeln!(s, "{}", line(header));
    let rule_width = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
    let _ = writeln!(s, "{}", "-".repeat(rule_width));
    for r in rows {
        let _ = writeln!(s, "{}", line(r));
    }
    s.push('\n');
}

/// Jira's characters with a meaning of their own, escaped.
fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    let mut prev = ' ';
    for c in text.chars() {
        // a `-` that starts a word would open -strikethrough- (and `--` is
        // a dash); inside words (10.11.18-0, points-covered-pk) it is text
        let opens = c == '-' && !prev.is_alphanumeric();
        if opens
            || matches!(
                c,
                '|' | '{' | '}' | '[' | ']' | '*' | '_' | '^' | '~' | '+' | '!' | '#'
            )
        {
            s.push('\\');
        }
        s.push(c);
        prev = c;
    }
    s
}

/// `code` to {{code}}, **bold** to *bold*, everything else escaped.
fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    loop {
        let code = rest.find('`');
        let bold = rest.find("**");
        match (code, bold) {
            (Some(c), b) if b.is_none_or(|b| c < b) => {
                let Some(end) = rest[c + 1..].find('`') else {
                    out.push_str(&escape(rest));
                    break;
                };
                out.push_str(&escape(&rest[..c]));
                let inner = &rest[c + 1..c + 1 + end];
                if inner.is_empty() {
                    out.push_str("\\`\\`");
                } else {
                    let _ = write!(out, "{{{{{}}}}}", escape(inner));
                }
                rest = &rest[c + 2 + end..];
            }
            (_, Some(b)) => {
                let Some(end) = rest[b + 2..].find("**") else {
                    out.push_str(&escape(rest));
                    break;
                };
                out.push_str(&escape(&rest[..b]));
                let _ = write!(out, "*{}*", inline(&rest[b + 2..b + 2 + end]));
                rest = &rest[b + 4 + end..];
            }
            _ => {
                out.push_str(&escape(rest));
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dash_that_starts_a_word_is_escaped() {
        assert_eq!(
            inline("-5.2% of points-covered-pk, --until"),
            "\\-5.2% of points-covered-pk, \\-\\-until"
        );
    }

    #[test]
    fn a_jira_table_says_a_column_of_one_value_once() {
        let table = |rows: Vec<Vec<&str>>| {
            jira(&[Block::Table {
                header: ["tree", "variant", "QPS"].map(String::from).to_vec(),
                rows: rows
                    .into_iter()
                    .map(|r| r.into_iter().map(String::from).collect())
                    .collect(),
            }])
        };
        let j = table(vec![
            vec!["10.11.18", "base", "9030"],
            vec!["10.11.18", "gate", "9400"],
        ]);
        assert_eq!(
            j,
            "In every row: tree 10.11.18.\n\n||variant||QPS||\n|base|9030|\n|gate|9400|\n"
        );
        // one row, or every column constant: nothing is folded
        let one = table(vec![vec!["10.11.18", "base", "9030"]]);
        assert!(one.starts_with("||tree||variant||QPS||"), "{one}");
        let same = table(vec![vec!["a", "b", "c"], vec!["a", "b", "c"]]);
        assert!(same.starts_with("||tree||variant||QPS||"), "{same}");
        // a column that repeats the start of another in every row
        let ranges = jira(&[Block::Table {
            header: ["variant", "interval", "min-max"]
                .map(String::from)
                .to_vec(),
            rows: vec![
                ["base", "3869-5350 (93.8%)", "3869-5350"]
                    .map(String::from)
                    .to_vec(),
                ["gate", "3605-5293 (87.5%)", "3605-5293"]
                    .map(String::from)
                    .to_vec(),
            ],
        }]);
        assert!(
            ranges.starts_with(
                "In every row: min-max repeats the start of interval.\n\n||variant||interval||\n"
            ),
            "{ranges}"
        );
        // a number that only begins another is no repeat
        let numbers = jira(&[Block::Table {
            header: ["variant", "threads", "runs"].map(String::from).to_vec(),
            rows: vec![
                ["base", "1", "10"].map(String::from).to_vec(),
                ["gate", "2", "20"].map(String::from).to_vec(),
            ],
        }]);
        assert!(
            numbers.starts_with("||variant||threads||runs||"),
            "{numbers}"
        );
        // Markdown keeps every column
        let md = markdown(&[Block::Table {
            header: ["tree", "QPS"].map(String::from).to_vec(),
            rows: vec![vec!["x".into(), "1".into()], vec!["x".into(), "2".into()]],
        }]);
        assert!(md.contains("| tree | QPS |"), "{md}");
    }

    /// What a reader takes from one rendered block: its kind and its
    /// words with the format's markup taken away. A block's Markdown and
    /// its Jira must read as the same `Said`, and as the block itself.
    #[derive(Debug, PartialEq)]
    enum Said {
        Heading(u8, String),
        Para(String),
        /// (depth, text) of each item, continued lines joined by a space
        Items(Vec<(u8, String)>),
        /// the header, then the rows
        Rows(Vec<Vec<String>>),
        Pre(String),
    }

    /// The block's own words: `code` and **bold** spans as plain text.
    fn meant(b: &Block) -> Said {
        let plain = |t: &str| t.replace("**", "").replace('`', "");
        match b {
            Block::Heading(level, t) => Said::Heading(*level, plain(t)),
            Block::Para(t) => Said::Para(plain(t)),
            Block::Bullets(items) => {
                let mut out: Vec<(u8, String)> = Vec::new();
                for item in items {
                    for (i, line) in item.split('\n').enumerate() {
                        match line.strip_prefix("- ") {
                            Some(nested) if i > 0 => out.push((2, plain(nested))),
                            _ if i > 0 => {
                                let last = out.last_mut().expect("a first line");
                                last.1 = format!("{} {}", last.1, plain(line));
                            }
                            _ => out.push((1, plain(line))),
                        }
                    }
                }
                Said::Items(out)
            }
            Block::Table { header, rows } | Block::AlignedTable { header, rows, .. } => Said::Rows(
                std::iter::once(header)
                    .chain(rows)
                    .map(|r| r.iter().map(|c| plain(&c.replace('\n', " "))).collect())
                    .collect(),
            ),
            Block::Pre(t) => Said::Pre(t.trim_end().to_string()),
            other => panic!("not a block both formats render as text: {other:?}"),
        }
    }

    /// Splits a table line at the `|` that are not escaped.
    fn cells(line: &str, separator: &str) -> Vec<String> {
        let guarded = line.replace("\\|", "\u{0}");
        let inner = guarded
            .strip_prefix(separator)
            .and_then(|l| l.strip_suffix(separator))
            .unwrap_or_else(|| panic!("a table line: {line}"));
        inner
            .split(separator)
            .map(|c| c.replace('\u{0}', "|"))
            .collect()
    }

    fn read_markdown(md: &str) -> Said {
        let md = md.trim_end();
        let plain = |t: &str| t.replace("**", "").replace('`', "");
        if let Some(rest) = md.strip_prefix('#') {
            let level = 1 + rest.chars().take_while(|&c| c == '#').count();
            return Said::Heading(level as u8, plain(rest[level - 1..].trim_start()));
        }
        if let Some(inner) = md.strip_prefix("```\n") {
            return Said::Pre(inner.strip_suffix("\n```").expect("a fence").to_string());
        }
        if md.starts_with("- ") {
            let mut out: Vec<(u8, String)> = Vec::new();
            for line in md.lines() {
                if let Some(t) = line.strip_prefix("- ") {
                    out.push((1, plain(t)));
                } else if let Some(t) = line.strip_prefix("  - ") {
                    out.push((2, plain(t)));
                } else {
                    let last = out.last_mut().expect("an item before");
                    last.1 = format!("{} {}", last.1, plain(line.trim_start()));
                }
            }
            return Said::Items(out);
        }
        if md.starts_with("| ") {
            let rows = md
                .lines()
                .enumerate()
                // the second line is the rule (and the alignment)
                .filter(|(i, _)| *i != 1)
                .map(|(_, l)| {
                    cells(l, "|")
                        .iter()
                        .map(|c| plain(c.strip_prefix(' ').unwrap_or(c)))
                        .map(|c| c.strip_suffix(' ').unwrap_or(&c).to_string())
                        .collect()
                })
                .collect();
            return Said::Rows(rows);
        }
        Said::Para(plain(md))
    }

    fn read_jira(j: &str) -> Said {
        let j = j.trim_end();
        // {{code}} and *bold* spans taken away, then escapes undone
        let plain = |t: &str| {
            let t = t.replace("{{", "").replace("}}", "");
            let mut out = String::new();
            let mut chars = t.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => out.extend(chars.next()),
                    '*' => {}
                    c => out.push(c),
                }
            }
            out
        };
        if let Some(rest) = j.strip_prefix('h') {
            if let Some((level, text)) = rest.split_once(". ") {
                if let Ok(level) = level.parse::<u8>() {
                    return Said::Heading(level, plain(text));
                }
            }
        }
        if let Some(inner) = j.strip_prefix("{noformat}\n") {
            let inner = inner.strip_suffix("\n{noformat}").expect("closed");
            return Said::Pre(inner.to_string());
        }
        if j.starts_with("* ") {
            let items = j
                .lines()
                .map(|l| match l.strip_prefix("** ") {
                    Some(t) => (2, plain(t)),
                    None => (1, plain(l.strip_prefix("* ").expect("an item"))),
                })
                .collect();
            return Said::Items(items);
        }
        if j.starts_with("||") {
            let mut lines = j.lines();
            let header = cells(lines.next().expect("a header"), "||");
            let rows = std::iter::once(header)
                .chain(lines.map(|l| cells(l, "|")))
                .map(|r| {
                    r.iter()
                        // an empty cell is written as a space
                        .map(|c| if c == " " { String::new() } else { plain(c) })
                        .collect()
                })
                .collect();
            return Said::Rows(rows);
        }
        Said::Para(plain(j))
    }

    #[test]
    fn markdown_and_jira_say_the_same_block_by_block() {
        let row = |cells: &[&str]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        let blocks = vec![
            Block::Heading(2, "Results of `fixed`".into()),
            Block::Heading(3, "10.11.18 [base]".into()),
            Block::Para(
                "**pass**: `gate` removes promotion | x; -5.2% of points-covered-pk, \
                 95% interval [-6.1, -4.0] {Hodges-Lehmann} *not* bold_"
                    .into(),
            ),
            Block::Bullets(vec![
                "skipped, by reason:\n- 101: Requires debug build\n- 5: Not as root".into(),
                "a long item\ncontinued with `code`".into(),
                "**fail**: -0.71 points".into(),
            ]),
            Block::Table {
                header: row(&["variant", "QPS", "note"]),
                rows: vec![
                    row(&["`base`", "9030", ""]),
                    row(&["gate", "n/a", "a|b"]),
                    row(&["fixed-lookup-mark", "9 100", "**pass**"]),
                ],
            },
            Block::AlignedTable {
                header: row(&["tree", "passed", "interval"]),
                right_aligned: vec![1],
                rows: vec![
                    row(&["10.11.18", "459", "-0.73 to -0.62"]),
                    row(&["11.8.6", "12", "+92.1 to +93.5"]),
                ],
            },
            Block::Pre("[mysqld]\ninnodb_buffer_pool_size = 1G\n# a | b *c*".into()),
        ];
        for b in &blocks {
            let md = markdown(std::slice::from_ref(b));
            let j = jira(std::slice::from_ref(b));
            assert_eq!(read_markdown(&md), meant(b), "Markdown of {b:?}:\n{md}");
            assert_eq!(read_jira(&j), meant(b), "Jira of {b:?}:\n{j}");
        }
        // a reader that takes the markup away still sees a changed word
        let changed = jira(&[Block::Para("**pass**: `gate`".into())]).replace("gate", "base");
        assert_ne!(
            read_jira(&changed),
            meant(&Block::Para("**pass**: `gate`".into()))
        );
    }

    #[test]
    fn right_aligned_columns_are_marked_in_markdown_only() {
        let table = Block::AlignedTable {
            header: vec!["variant".into(), "passed".into()],
            right_aligned: vec![1],
            rows: vec![vec!["base".into(), "459".into()]],
        };
        assert_eq!(
            markdown(std::slice::from_ref(&table)),
            "| variant | passed |\n|---|---:|\n| base | 459 |\n"
        );
        assert_eq!(jira(&[table]), "||variant||passed||\n|base|459|\n");
    }

    #[test]
    fn a_list_inside_a_bullet_is_nested_in_jira() {
        let bullets = Block::Bullets(vec![
            "skipped, by reason:\n- 101: Requires debug build\n- 5: Not as root".into(),
            "a long item\ncontinued".into(),
        ]);
        assert_eq!(
            markdown(std::slice::from_ref(&bullets)),
            "- skipped, by reason:\n  - 101: Requires debug build\n  - 5: Not as root\n- a long item\n  continued\n"
        );
        assert_eq!(
            jira(&[bullets]),
            "* skipped, by reason:\n** 101: Requires debug build\n** 5: Not as root\n* a long item continued\n"
        );
    }

    #[test]
    fn the_text_table_aligns_columns_under_a_rule() {
        let blocks = vec![
            Block::AlignedTable {
                header: vec!["tree".into(), "patch".into(), "units".into()],
                right_aligned: vec![2],
                rows: vec![
                    vec![
                        "10.11.18".into(),
                        "patches/10.11/gate.patch".into(),
                        "5".into(),
                    ],
                    vec!["10.5.23".into(), "".into(), "12".into()],
                ],
            },
            Block::Bullets(vec!["10.5.23 gate: hunk 2\nfailed".into()]),
        ];
        assert_eq!(
            text(&blocks),
            "tree      patch                     units\n\
             -----------------------------------------\n\
             10.11.18  patches/10.11/gate.patch      5\n\
             10.5.23                                12\n\
             \n\
             - 10.5.23 gate: hunk 2\n  failed\n"
        );
    }
}
