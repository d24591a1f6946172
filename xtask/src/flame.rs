//! Flame graphs drawn from folded stacks with the `inferno` crate (the Rust
//! port of Brendan Gregg's FlameGraph): one profile, or the differential
//! graph of two (the second's frames coloured by how their share moved
//! from the first's: red grew, blue shrank). Input is folded text, so this
//! stays below the records that hold it.

use anyhow::{Context, Result};
use inferno::flamegraph::{self, Options};

/// A flame graph of `folded`, titled; `count_name` says what a sample is
/// (`samples`, `thread stacks`). Colours come from the function names, so
/// one function has one colour in every graph and a graph drawn again from
/// the same stacks is the same file.
pub fn graph(folded: &str, title: &str, subtitle: &str, count_name: &str) -> Result<String> {
    let mut opts = options(title, subtitle, count_name);
    let mut svg = Vec::new();
    flamegraph::from_lines(&mut opts, folded.lines(), &mut svg)
        .with_context(|| format!("inferno could not draw the flame graph `{title}`"))?;
    Ok(String::from_utf8(svg)?)
}

/// The differential flame graph from `before` to `after`: the shape is
/// `after`'s, a frame's colour its change in share, `before` scaled to
/// `after`'s number of samples so that a longer or busier profile does not
/// redden everything.
pub fn differential(before: &str, after: &str, title: &str, subtitle: &str) -> Result<String> {
    let both = pair(before, after)?;
    graph(&both, title, subtitle, "samples")
}

/// The differential flame graph drawn on `before`'s shape: a frame that
/// `after` lost keeps its `before` width and is blue, which `differential`
/// (on `after`'s shape) cannot show; the colours mean the same in both
/// (red grew, blue shrank), `after` scaled to `before`'s samples.
pub fn differential_on_before(
    before: &str,
    after: &str,
    title: &str,
    subtitle: &str,
) -> Result<String> {
    // inferno draws the second count's shape and colours by second less
    // first; negated, the colour is after less before again
    let both = pair(after, before)?;
    let mut opts = options(title, subtitle, "samples");
    opts.negate_differentials = true;
    let mut svg = Vec::new();
    flamegraph::from_lines(&mut opts, both.lines(), &mut svg)
        .with_context(|| format!("inferno could not draw the flame graph `{title}`"))?;
    Ok(String::from_utf8(svg)?)
}

/// The folded stacks of `first` and `second` as one differential file
/// (`stack first second`), `first` scaled to `second`'s number of samples.
fn pair(first: &str, second: &str) -> Result<String> {
    let mut both = Vec::new();
    let diff = inferno::differential::Options {
        normalize: true,
        strip_hex: false,
    };
    inferno::differential::from_readers(diff, first.as_bytes(), second.as_bytes(), &mut both)
        .context("inferno could not pair the two profiles")?;
    Ok(String::from_utf8(both)?)
}

fn options<'a>(title: &str, subtitle: &str, count_name: &str) -> Options<'a> {
    let mut opts = Options::default();
    opts.title = title.to_string();
    opts.subtitle = (!subtitle.is_empty()).then(|| subtitle.to_string());
    opts.count_name = count_name.to_string();
    opts.deterministic = true;
    opts.hash = true;
    opts.image_width = Some(1200);
    opts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graph_names_its_frames_and_is_the_same_drawn_twice() {
        let folded = "main;buf_page_get_low;buf_page_make_young 3\nmain;row_search_mvcc 5\n";
        let svg = graph(folded, "base", "points-covered-pk", "samples").unwrap();
        assert!(svg.starts_with("<?xml"), "{}", &svg[..40]);
        assert!(svg.contains("buf_page_make_young"));
        assert!(svg.contains("base"));
        assert_eq!(
            svg,
            graph(folded, "base", "points-covered-pk", "samples").unwrap()
        );
        let diff = differential(
            folded,
            "main;buf_page_get_low 3\nmain;row_search_mvcc 5\n",
            "fixed against base",
            "",
        )
        .unwrap();
        // the differential's shape is the second profile's
        assert!(diff.contains("row_search_mvcc"));
        assert!(!diff.contains("buf_page_make_young"));
    }

    #[test]
    fn drawn_on_the_first_profile_a_removed_frame_stands_with_its_loss() {
        let base = "main;buf_page_get_low;buf_page_make_young 3\nmain;row_search_mvcc 5\n";
        let fixed = "main;buf_page_get_low 3\nmain;row_search_mvcc 5\n";
        let diff = differential_on_before(base, fixed, "fixed against base", "").unwrap();
        // base's 3 of 8 samples, all gone: a share of 37.50% and a change
        // of -37.50% (after less before, as in the other direction)
        assert!(
            diff.contains("buf_page_make_young (3 samples, 37.50%; -37.50%)"),
            "{diff}"
        );
        let grown = differential_on_before(fixed, base, "base against fixed", "").unwrap();
        assert!(!grown.contains("buf_page_make_young"));
        assert_eq!(
            diff,
            differential_on_before(base, fixed, "fixed against base", "").unwrap()
        );
    }
}
