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

    fn sample() -> Vec<Block> {
        vec![
            Block::Heading(2, "Results".into()),
            Block::Para("**pass**: `gate` removes promotion | x".into()),
            Block::Table {
                header: vec!["variant".into(), "QPS".into(), "note".into()],
                rows: vec![
                    vec!["`base`".into(), "9030".into(), "".into()],
                    vec!["gate".into(), "n/a".into(), "a|b".into()],
                ],
            },
            Block::Pre("[mysqld]\ninnodb_buffer_pool_size = 1G".into()),
        ]
    }

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

    #[test]
    fn markdown_and_jira_say_the_same() {
        let md = markdown(&sample());
        assert!(md.contains("## Results\n"), "{md}");
        assert!(
            md.contains("| variant | QPS | note |\n|---|---|---|\n| `base` | 9030 |  |"),
            "{md}"
        );
        assert!(md.contains("| gate | n/a | a\\|b |"), "{md}");
        let j = jira(&sample());
        assert!(j.contains("h2. Results\n"), "{j}");
        assert!(
            j.contains("*pass*: {{gate}} removes promotion \\| x"),
            "{j}"
        );
        assert!(
            j.contains("||variant||QPS||note||\n|{{base}}|9030| |\n|gate|n/a|a\\|b|"),
            "{j}"
        );
        assert!(
            !j.contains("{noformat}\n\\[mysqld\\]"),
            "noformat content is not escaped"
        );
        assert!(
            j.contains("{noformat}\n[mysqld]\ninnodb_buffer_pool_size = 1G\n{noformat}"),
            "{j}"
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
