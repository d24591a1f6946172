//! A Jira text longer than one comment, cut into comments that each fit:
//! at headings where the sections fit, between blocks where one does not,
//! and between the rows of a table too long for one comment.

use std::ops::Range;

use super::doc::{jira, Block};

/// Jira refuses a comment of more characters than this.
pub const JIRA_COMMENT_LIMIT: usize = 32_767;

/// Room kept in each comment of a split report for the line that says
/// which comment it is.
const PART_LINE_ROOM: usize = 200;

/// The blocks as Jira comments, each under `limit` characters: the one
/// comment `jira` gives when it fits; else the blocks cut into as few
/// parts as fit, each part whole sections (a heading and the blocks up to
/// the next heading) where a section fits, block by block where one does
/// not, each part opening with a line that says which comment of how many
/// it is. A table over the limit is cut between its rows into tables
/// that each repeat the header; any other single block over the limit
/// stays whole in a part of its own: the caller's check of the sizes says
/// so.
pub fn jira_comments(blocks: &[Block], limit: usize) -> Vec<String> {
    let whole = jira(blocks);
    if whole.chars().count() < limit {
        return vec![whole];
    }
    let budget = limit.saturating_sub(PART_LINE_ROOM);
    let blocks = &tables_cut_to(blocks, budget);
    let size = |range: &[Block]| jira(range).chars().count();
    // sections, as ranges of blocks: a heading opens one
    let mut sections: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    for (i, b) in blocks.iter().enumerate() {
        if i > start && matches!(b, Block::Heading(..)) {
            sections.push(start..i);
            start = i;
        }
    }
    sections.push(start..blocks.len());
    // the parts, filled greedily with whole sections, or with single
    // blocks of a section too large for a part
    let mut parts: Vec<Range<usize>> = Vec::new();
    let mut part = 0..0;
    for section in sections {
        let units: Vec<Range<usize>> = if size(&blocks[section.clone()]) < budget {
            vec![section]
        } else {
            section.map(|i| i..i + 1).collect()
        };
        for unit in units {
            if !part.is_empty() && size(&blocks[part.start..unit.end]) >= budget {
                parts.push(part.clone());
                part = unit.start..unit.start;
            }
            part.end = unit.end;
        }
    }
    parts.push(part);
    let n = parts.len();
    parts
        .into_iter()
        .enumerate()
        .map(|(k, range)| {
            format!(
                "_Comment {} of {n} of this report: paste them in order._\n\n{}",
                k + 1,
                jira(&blocks[range])
            )
        })
        .collect()
}

/// The file names of a Jira text's comments: `stem.jira` for the first
/// (the only one, mostly), `stem-2.jira` and on for the rest.
pub fn jira_part_names(stem: &str, parts: usize) -> Vec<String> {
    (1..=parts)
        .map(|k| {
            if k == 1 {
                format!("{stem}.jira")
            } else {
                format!("{stem}-{k}.jira")
            }
        })
        .collect()
}

/// The blocks with every table of `budget` or more Jira characters cut
/// into tables of consecutive rows under it, each with the header.
fn tables_cut_to(blocks: &[Block], budget: usize) -> Vec<Block> {
    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        if jira(std::slice::from_ref(block)).chars().count() < budget {
            out.push(block.clone());
            continue;
        }
        match block {
            Block::Table { header, rows } => {
                out.extend(row_runs(rows, budget, |rows| Block::Table {
                    header: header.clone(),
                    rows: rows.to_vec(),
                }))
            }
            Block::AlignedTable {
                header,
                right_aligned,
                rows,
            } => out.extend(row_runs(rows, budget, |rows| Block::AlignedTable {
                header: header.clone(),
                right_aligned: right_aligned.clone(),
                rows: rows.to_vec(),
            })),
            other => out.push(other.clone()),
        }
    }
    out
}

/// Tables made by `table` of runs of consecutive rows, each run as long as
/// it stays under `budget` (one row at least).
fn row_runs(
    rows: &[Vec<String>],
    budget: usize,
    table: impl Fn(&[Vec<String>]) -> Block,
) -> Vec<Block> {
    let size = |rows: &[Vec<String>]| jira(&[table(rows)]).chars().count();
    let mut runs = Vec::new();
    let mut start = 0;
    for end in 1..=rows.len() {
        if end - start > 1 && size(&rows[start..end]) >= budget {
            runs.push(table(&rows[start..end - 1]));
            start = end - 1;
        }
    }
    if start < rows.len() {
        runs.push(table(&rows[start..]));
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sections of paragraphs with a unique word each, about `chars` long
    /// in all.
    fn long_report(sections: usize, paras: usize, para_chars: usize) -> Vec<Block> {
        let mut blocks = Vec::new();
        for s in 0..sections {
            blocks.push(Block::Heading(2, format!("Section {s}")));
            for p in 0..paras {
                let word = format!("w{s}x{p} ");
                let text = word.repeat(para_chars / word.len());
                blocks.push(Block::Para(text.trim_end().to_string()));
            }
        }
        blocks
    }

    #[test]
    fn a_report_that_fits_is_one_comment_as_jira_renders_it() {
        let blocks = long_report(2, 2, 100);
        assert_eq!(
            jira_comments(&blocks, JIRA_COMMENT_LIMIT),
            vec![jira(&blocks)]
        );
        assert_eq!(jira_part_names("report", 1), ["report.jira"]);
    }

    #[test]
    fn a_long_report_is_cut_at_headings_into_comments_under_the_limit_losing_nothing() {
        // 6 sections of about 9,000 characters: 54,000 in all
        let blocks = long_report(6, 3, 3000);
        let parts = jira_comments(&blocks, JIRA_COMMENT_LIMIT);
        assert!(parts.len() >= 2, "{} parts", parts.len());
        let n = parts.len();
        for (k, part) in parts.iter().enumerate() {
            assert!(part.chars().count() < JIRA_COMMENT_LIMIT, "part {k}");
            assert!(
                part.starts_with(&format!("_Comment {} of {n} of this report", k + 1)),
                "{}",
                &part[..80]
            );
            // each part after its first line opens with a heading
            let body = part.split_once("\n\n").unwrap().1;
            assert!(body.starts_with("h2. Section "), "{}", &body[..40]);
        }
        // every block once, in order
        let bodies: String = parts
            .iter()
            .map(|p| p.split_once("\n\n").unwrap().1.trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n\n");
        assert!(
            bodies + "\n" == jira(&blocks),
            "the parts are not the whole"
        );
        assert_eq!(
            jira_part_names("report", 3),
            ["report.jira", "report-2.jira", "report-3.jira"]
        );
    }

    #[test]
    fn a_section_over_the_limit_is_cut_between_its_blocks() {
        // one heading and 12 paragraphs of 4,000 characters
        let blocks = long_report(1, 12, 4000);
        let parts = jira_comments(&blocks, JIRA_COMMENT_LIMIT);
        assert!(parts.len() >= 2);
        assert!(parts.iter().all(|p| p.chars().count() < JIRA_COMMENT_LIMIT));
    }

    #[test]
    fn a_table_over_the_limit_is_cut_between_its_rows_each_part_under_it() {
        // 400 rows of about 150 characters: 60,000 in all, in one section
        let rows: Vec<Vec<String>> = (0..400)
            .map(|i| {
                vec![
                    format!("innodb.t{i:03}"),
                    format!("pass, {i} s, {}", "x".repeat(120)),
                ]
            })
            .collect();
        let blocks = vec![
            Block::Heading(2, "Tests".into()),
            Block::Table {
                header: vec!["test".into(), "status".into()],
                rows,
            },
        ];
        let parts = jira_comments(&blocks, JIRA_COMMENT_LIMIT);
        assert!(parts.len() >= 2, "{} parts", parts.len());
        for (k, part) in parts.iter().enumerate() {
            assert!(part.chars().count() < JIRA_COMMENT_LIMIT, "part {k}");
            assert!(part.contains("||test||status||"), "part {k} has no header");
        }
        // every row in exactly one part, in order
        let all = parts.concat();
        let mut last = 0;
        for i in 0..400 {
            let name = format!("innodb.t{i:03}");
            assert_eq!(all.matches(&name).count(), 1, "{name}");
            let at = all.find(&name).unwrap();
            assert!(at > last, "{name} out of order");
            last = at;
        }
    }
}
