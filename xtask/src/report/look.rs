//! A variant's look in every chart of every report: its family's colour
//! and marker, so that base or the fix is the same colour wherever it
//! appears (`charts.rs`, `scan.rs`).

use crate::charts::Style;
use crate::decide::analysis::Analysis;
use crate::record::Cell;

/// Variant families with a look of their own, in the order of their
/// colours and markers. A variant takes the look of the longest family
/// name it is or starts with before a `-` (`base-again`, `base-d128` are
/// kinds of base: base's colour, a marker of their own), so that a
/// variant keeps its colour in every chart of every report.
const FAMILIES: [&str; 7] = [
    "base",
    "fixed",
    "gate",
    "clock",
    "workaround",
    "fixed-fine-young",
    "traced",
];

/// FNV-1a: a hash that stays the same across builds and hosts, so a name
/// outside the families gets the same look in every report.
fn stable_hash(text: &str) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h as usize
}

/// The look of a cell's variant (`variant_look`); where the report has
/// several trees, the marker moves on by the tree's rank, so that one
/// variant's trees stay apart.
pub fn look(a: &Analysis, c: &Cell) -> Style {
    let mut style = variant_look(&c.variant);
    if a.manifest.trees.len() > 1 {
        style.marker += a.manifest.tree_rank(&c.tree);
    }
    style
}

/// A variant's colour and marker: its family's colour; its family's
/// marker, or for a kind of the family another one chosen by the rest of
/// its name; outside the families, both from a hash of the name.
fn variant_look(variant: &str) -> Style {
    let family = FAMILIES
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            variant == **f
                || variant
                    .strip_prefix(**f)
                    .is_some_and(|r| r.starts_with('-'))
        })
        .max_by_key(|(_, f)| f.len());
    let (colour, marker) = match family {
        Some((i, f)) if variant.len() == f.len() => (i, i),
        Some((i, f)) => (i, i + 1 + stable_hash(&variant[f.len()..]) % 5),
        None => {
            let h = stable_hash(variant);
            (h % 7, h / 7 % 6)
        }
    };
    Style { colour, marker }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_keeps_its_family_colour_and_a_kind_of_it_another_marker() {
        let base = variant_look("base");
        let fixed = variant_look("fixed");
        assert_eq!((base.colour, base.marker), (0, 0));
        assert_eq!((fixed.colour, fixed.marker), (1, 1));
        for kind in ["base-again", "base-rebuilt", "base-d128"] {
            let k = variant_look(kind);
            assert_eq!(k.colour, base.colour, "{kind}");
            assert_ne!(k.marker % 6, base.marker % 6, "{kind}");
        }
        // the longest family wins: fixed-fine-young is not a kind of fixed
        assert_eq!(variant_look("fixed-fine-young"), Style::nth(5));
        assert_eq!(variant_look("fixed-fine-young-d128").colour, 5);
        assert_eq!(variant_look("fixed-t0").colour, fixed.colour);
        // a prefix without the dash is another name
        assert_ne!(variant_look("baseline"), base);
        // outside the families, the same look every time
        assert_eq!(variant_look("candidate"), variant_look("candidate"));
        assert_eq!(stable_hash("a"), 0xe40c_292c);
    }
}
