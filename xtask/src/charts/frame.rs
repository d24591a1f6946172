//! The frame every chart shares: its size, its axes' ranges and ticks,
//! the note under it, and how small values are written.

use super::Style;
use anyhow::{ensure, Result};
use plotters::prelude::*;

pub(super) const HEIGHT: u32 = 480;

/// The chart's height: 480 px, or more when the legend (24 px an entry,
/// from 60 px down) needs it, so that every series keeps its entry.
pub(super) fn height_for(series: usize) -> u32 {
    HEIGHT.max(100 + 24 * series as u32)
}
pub(super) const FONT: &str = "sans-serif";
/// A bar label's line height in pixels, and the share of the y range each
/// line beyond the longest bar is given.
pub(super) const LABEL_LINE_PX: i32 = 13;
pub(super) const LABEL_LINE_SHARE: f64 = 0.05;

pub(super) fn span(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// The range of the values with 8% head room away from zero (so error bars
/// and "n/a" marks stay inside); (0, 1) when everything is 0.
pub(super) fn padded_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = span(values).unwrap_or((0.0, 0.0));
    if lo == hi {
        return (lo.min(0.0), if hi > 0.0 { hi * 1.08 } else { 1.0 });
    }
    let pad = (hi - lo) * 0.08;
    (
        if lo < 0.0 { lo - pad } else { lo },
        if hi > 0.0 { hi + pad } else { hi },
    )
}

/// The span of the values with 8% room on both sides; a single value gets
/// 1% of itself (or 1) either side.
pub(super) fn padded_both_ways(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = span(values).unwrap_or((0.0, 1.0));
    let pad = if lo == hi {
        (lo.abs() * 0.01).max(1.0)
    } else {
        (hi - lo) * 0.08
    };
    (lo - pad, hi + pad)
}

/// Height of the note's first line under a chart, and of each further
/// line of a note too long for one.
pub(super) const NOTE_PX: u32 = 22;
pub(super) const NOTE_LINE_PX: u32 = 16;

/// A title's second line (after `\n`) is a note under the whole chart, in
/// smaller type, for what the title has no room for (what the whiskers
/// are and how much they cover): the first line stays the caption. A note
/// wider than the chart (~7 px a character at 13 px) is wrapped at word
/// boundaries.
pub(super) fn with_note<DB: DrawingBackend>(
    title: &str,
    root: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(&str, DrawingArea<DB, plotters::coord::Shift>)>
where
    DB::ErrorType: 'static,
{
    let Some((caption, note)) = title.split_once('\n') else {
        return Ok((title, root));
    };
    let (width, height) = root.dim_in_pixel();
    let lines = wrap(note, (width.saturating_sub(20) / 7).max(20) as usize);
    let foot_px = NOTE_PX + NOTE_LINE_PX * (lines.len() as u32 - 1);
    let (main, foot) = root.split_vertically(height.saturating_sub(foot_px));
    for (k, line) in lines.iter().enumerate() {
        foot.draw_text(
            line,
            &TextStyle::from((FONT, 13).into_font()).color(&BLACK),
            (10, 4 + NOTE_LINE_PX as i32 * k as i32),
        )?;
    }
    Ok((caption, main))
}

/// Pixels a title of `chars` characters takes at the 20 px title size
/// (about 11 px a character in DejaVu Sans, the sans-serif of Debian's
/// renderers), with 10 px at each side.
const TITLE_CHAR_PX: u32 = 11;

/// `width`, widened where the first line of `title` would not fit: a
/// title wider than its image is cut at both sides by every renderer.
pub(super) fn width_for_title(title: &str, width: u32) -> u32 {
    let caption = title.split('\n').next().unwrap_or(title);
    width.max(caption.chars().count() as u32 * TITLE_CHAR_PX + 20)
}

/// `text` in lines of at most `width` characters, broken at spaces (a
/// word longer than a line keeps a line of its own); at least one line.
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// A bar shorter than this share of the y range gets its value written
/// above it.
pub(super) const TINY_BAR: f64 = 0.01;

/// The value of a bar too short to see: 0 as "0", others with two
/// significant digits (1.8e-5, 4.2e-3, 0.35).
pub(super) fn small_value(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() < 0.01 {
        format!("{v:.1e}")
    } else {
        format!("{v:.2}")
    }
}

/// An axis tick: integers without decimals, others with at most three.
pub(super) fn tick(v: f64) -> String {
    if v.fract() == 0.0 || v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Where a chart's y axis starts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Axis {
    /// at 0 (a bar chart draws a bar from 0 to each value)
    FromZero,
    /// at the values (a bar chart draws a marker at each)
    Data,
}

/// A vertical error bar from lo to hi at x with whiskers half_width wide
/// (in x units). plotters' ErrorBar also rings the value, which the bar top
/// or the line's marker already shows.
pub(super) fn error_bar(
    x: f64,
    half_width: f64,
    lo: f64,
    hi: f64,
    c: RGBColor,
) -> [PathElement<(f64, f64)>; 3] {
    let (l, r) = (x - half_width, x + half_width);
    [[(x, lo), (x, hi)], [(l, lo), (r, lo)], [(l, hi), (r, hi)]]
        .map(|line| PathElement::new(line, c.stroke_width(1)))
}

/// The distinct series in the order they first appear, each with its
/// style; a series given two styles is refused by name.
pub(super) fn series_of<'a>(
    title: &str,
    named: impl Iterator<Item = (&'a String, Style)>,
) -> Result<Vec<(String, Style)>> {
    let mut series: Vec<(String, Style)> = Vec::new();
    for (name, style) in named {
        match series.iter().find(|(s, _)| s == name) {
            Some((_, first)) => ensure!(
                *first == style,
                "chart {title:?}: series {name:?} is drawn in two styles, {first:?} and {style:?}"
            ),
            None => series.push((name.clone(), style)),
        }
    }
    Ok(series)
}
