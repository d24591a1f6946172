//! A report as a list of blocks, rendered as Markdown or as Jira wiki
//! markup from the same blocks, so both formats say the same thing. Text
//! may carry `code` and **bold** spans; each renderer translates them.

use std::fmt::Write;

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// level 1-3
    Heading(u8, String),
    Para(String),
    Bullets(Vec<String>),
    Table {
        header: Vec<String>,
        rows: Vec<Vec<String>>,
    },
    /// preformatted text (my.cnf, command lines, error logs)
    Pre(String),
    /// an image file next to the report
    Image {
        file: String,
        alt: String,
    },
}

pub fn markdown(blocks: &[Block]) -> String {
    let mut s = String::new();
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
            Block::Table { header, rows } => {
                let cell = |c: &String| c.replace('|', "\\|").replace('\n', " ");
                let _ = writeln!(
                    s,
                    "| {} |",
                    header.iter().map(cell).collect::<Vec<_>>().join(" | ")
                );
                let _ = writeln!(s, "|{}", "---|".repeat(header.len()));
                for r in rows {
                    let _ = writeln!(
                        s,
                        "| {} |",
                        r.iter().map(cell).collect::<Vec<_>>().join(" | ")
                    );
                }
                s.push('\n');
            }
            Block::Pre(text) => {
                let fence = if text.contains("```") { "~~~~" } else { "```" };
                let _ = writeln!(s, "{fence}\n{}\n{fence}\n", text.trim_end());
            }
            Block::Image { file, alt } => {
                let _ = writeln!(s, "![{alt}]({file})\n");
            }
        }
    }
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
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
                    let _ = writeln!(s, "* {}", inline(&i.replace('\n', " ")));
                }
                s.push('\n');
            }
            Block::Table { header, rows } => {
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
                for r in rows {
                    let _ = writeln!(s, "|{}|", r.iter().map(cell).collect::<Vec<_>>().join("|"));
                }
                s.push('\n');
            }
            Block::Pre(text) => {
                // {noformat} cannot hold its own closing tag
                let _ = writeln!(
                    s,
                    "{{noformat}}\n{}\n{{noformat}}\n",
                    text.trim_end().replace("{noformat}", "{ noformat}")
                );
            }
            Block::Image { file, alt } => {
                let _ = writeln!(s, "!{file}|alt={}!\n", escape(alt));
            }
        }
    }
    s.truncate(s.trim_end().len());
    s.push('\n');
    s
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
}
