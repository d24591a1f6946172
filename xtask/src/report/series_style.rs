//! A series' style in every chart of every report: its variant's colour
//! and its tree's marker, so that base or the fix is the same colour
//! wherever it appears, and 10.11 the same marker (`charts.rs`, `scan.rs`).

use crate::charts::{Shade, Style};
use crate::decide::analysis::Analysis;
use crate::record::Cell;

/// The palette's colours by name (charts::style's Okabe-Ito order).
const BLUE: usize = 0;
const VERMILLION: usize = 1;
const GREEN: usize = 2;
const PURPLE: usize = 3;
const ORANGE: usize = 4;
const BLACK: usize = 6;

/// Each variant of ours and its colour, the same in every report: base
/// blue, the fix vermillion, the remedy proposed upstream green. Seven
/// colours that colour-blind readers tell apart do not go round fourteen
/// variants, so variants that no report draws together share one; a test
/// holds every committed report to variants apart. A variant takes the
/// colour of the longest name here that it is or starts with before a
/// `-`: `base-again`, `fixed-d128` are kinds of base and of the fix, in
/// their colour and another shade. A settings cell run alone on a stock
/// server (MySQL's `d128`, `d512`, `t0` beside `base`) is a variant of
/// its own, with a colour of its own.
const COLOURS: [(&str, usize); 17] = [
    ("base", BLUE),
    ("fixed", VERMILLION),
    ("fixed-lookup-mark", GREEN),
    ("gate", PURPLE),
    ("clock", ORANGE),
    ("workaround", BLACK),
    ("fixed-fine-young", BLACK),
    ("fixed-fine-clock", GREEN),
    ("fixed-lookup", ORANGE),
    ("fixed-lookup-boundary", ORANGE),
    ("fixed-looked-up", PURPLE),
    ("fixed-young-boundary", PURPLE),
    ("traced", PURPLE),
    ("traced-fixed-lookup-boundary", BLACK),
    ("d128", GREEN),
    ("d512", PURPLE),
    ("t0", ORANGE),
];

/// The shade of a kind of a variant, by what follows the variant's name:
/// settings that scan and turnover reports run beside the variant, and a
/// control's second run. Another kind takes one by a hash of its name.
const KINDS: [(&str, Shade); 5] = [
    ("d128", Shade::Light),
    ("t0", Shade::Dark),
    ("again", Shade::Light),
    ("rebuilt", Shade::Dark),
    ("obt0", Shade::Light),
];

/// The markers of the trees' series, the same in every report: 10.11
/// circles, 11.8 squares, 10.5 triangles; another series takes one by a
/// hash of its name.
const TREE_MARKERS: [(&str, usize); 5] = [
    ("10.11", 0),
    ("11.8", 1),
    ("10.5", 2),
    ("12.3", 3),
    ("9.7", 5),
];

/// FNV-1a: a hash that stays the same across builds and hosts, so a name
/// outside the tables gets the same look in every report.
fn stable_hash(text: &str) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h as usize
}

/// The look of a cell: its variant's colour and shade (`variant_style`),
/// its tree's marker (`tree_marker`). Where two trees of the report would
/// share a marker (11.8.9 and 11.8.10), the later takes the next one free.
pub fn style_of(a: &Analysis, c: &Cell) -> Style {
    series_style(&a.manifest.trees, &c.tree, &c.variant)
}

/// The look of `variant` on `tree`, among a report's `trees` in order.
fn series_style(trees: &[String], tree: &str, variant: &str) -> Style {
    let (colour, shade) = variant_style(variant);
    let mut taken: Vec<usize> = Vec::new();
    let mut marker = tree_marker(tree);
    for t in trees {
        let mut m = tree_marker(t);
        while taken.contains(&(m % 6)) {
            m += 1;
        }
        taken.push(m % 6);
        if t == tree {
            marker = m;
            break;
        }
    }
    Style {
        colour,
        marker,
        shade,
    }
}

/// A variant's colour and shade: its own in `COLOURS`; a kind of one
/// there, that colour in the kind's shade; outside, both from a hash.
fn variant_style(variant: &str) -> (usize, Shade) {
    let named = COLOURS
        .iter()
        .filter(|(name, _)| {
            variant == *name
                || variant
                    .strip_prefix(name)
                    .is_some_and(|r| r.starts_with('-'))
        })
        .max_by_key(|(name, _)| name.len());
    match named {
        Some((name, colour)) if variant.len() == name.len() => (*colour, Shade::Full),
        Some((name, colour)) => (*colour, kind_shade(&variant[name.len() + 1..])),
        None => {
            let h = stable_hash(variant);
            let shade = [Shade::Full, Shade::Light, Shade::Dark][h / 7 % 3];
            (h % 7, shade)
        }
    }
}

fn kind_shade(kind: &str) -> Shade {
    KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, s)| *s)
        .unwrap_or(if stable_hash(kind).is_multiple_of(2) {
            Shade::Light
        } else {
            Shade::Dark
        })
}

/// A tree's marker by its series (`10.11.18` is 10.11; `mysql-9.7.2`
/// is 9.7).
fn tree_marker(tree: &str) -> usize {
    let version = tree.trim_start_matches(|c: char| !c.is_ascii_digit());
    let series: Vec<&str> = version.splitn(3, '.').take(2).collect();
    let series = series.join(".");
    TREE_MARKERS
        .iter()
        .find(|(s, _)| *s == series)
        .map(|(_, m)| *m)
        .unwrap_or_else(|| stable_hash(tree) % 6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_keeps_its_colour_a_kind_of_it_another_shade_and_a_tree_its_marker() {
        assert_eq!(variant_style("base"), (BLUE, Shade::Full));
        assert_eq!(variant_style("fixed"), (VERMILLION, Shade::Full));
        assert_eq!(variant_style("fixed-lookup-mark"), (GREEN, Shade::Full));
        assert_eq!(variant_style("base-again"), (BLUE, Shade::Light));
        assert_eq!(variant_style("base-rebuilt"), (BLUE, Shade::Dark));
        assert_eq!(variant_style("fixed-d128"), (VERMILLION, Shade::Light));
        assert_eq!(
            variant_style("fixed-lookup-mark-d128"),
            (GREEN, Shade::Light)
        );
        // the longest name wins: fixed-fine-young is not a kind of fixed
        assert_eq!(variant_style("fixed-fine-young"), (BLACK, Shade::Full));
        // a settings cell alone is a variant; after a variant, a kind of it
        assert_eq!(variant_style("d512"), (PURPLE, Shade::Full));
        // a prefix without the dash is another name
        assert_ne!(variant_style("baseline").0, BLUE);
        // outside the table, the same look every time
        assert_eq!(variant_style("candidate"), variant_style("candidate"));
        assert_eq!(stable_hash("a"), 0xe40c_292c);
        assert_eq!(tree_marker("10.11.18"), 0);
        assert_eq!(tree_marker("10.11.9"), 0);
        assert_eq!(tree_marker("11.8.6"), 1);
        assert_eq!(tree_marker("mariadb-11.8.10"), 1);
        assert_eq!(tree_marker("10.5.23"), 2);
        assert_eq!(tree_marker("mysql-9.7.2"), 5);
        // two trees of one series: the later takes the next marker
        let trees = ["11.8.9".to_string(), "11.8.10".to_string()];
        assert_eq!(series_style(&trees, "11.8.9", "base").marker % 6, 1);
        assert_eq!(series_style(&trees, "11.8.10", "base").marker % 6, 2);
    }

    /// In every committed report, no two series (a variant on a tree)
    /// look the same: each differs from the others in colour, shade or
    /// marker, so a chart never draws two of them alike.
    #[test]
    fn every_committed_report_draws_its_series_apart() {
        let reports = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports");
        let mut checked = 0;
        for entry in std::fs::read_dir(&reports).unwrap() {
            let summary = entry.unwrap().path().join("summary.json");
            let Ok(text) = std::fs::read_to_string(&summary) else {
                continue;
            };
            let json: serde_json::Value = serde_json::from_str(&text).unwrap();
            let Some(rows) = json.get("rows").and_then(|r| r.as_array()) else {
                continue;
            };
            let field = |r: &serde_json::Value, k: &str| r[k].as_str().unwrap_or("").to_string();
            let mut trees: Vec<String> = Vec::new();
            let mut series: Vec<(String, String)> = Vec::new();
            for r in rows {
                let (tree, variant) = (field(r, "tree"), field(r, "variant"));
                if !trees.contains(&tree) {
                    trees.push(tree.clone());
                }
                if !series.contains(&(tree.clone(), variant.clone())) {
                    series.push((tree, variant));
                }
            }
            let looks: Vec<(usize, Shade, usize)> = series
                .iter()
                .map(|(t, v)| {
                    let s = series_style(&trees, t, v);
                    (s.colour % 7, s.shade, s.marker % 6)
                })
                .collect();
            for (i, a) in looks.iter().enumerate() {
                for (j, b) in looks.iter().enumerate().skip(i + 1) {
                    assert_ne!(
                        a,
                        b,
                        "{}: {:?} and {:?} look the same",
                        summary.display(),
                        series[i],
                        series[j]
                    );
                }
            }
            checked += 1;
        }
        assert!(checked >= 30, "only {checked} reports read");
    }
}
