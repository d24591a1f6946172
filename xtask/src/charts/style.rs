//! How a series looks in a chart: its colour, its marker, and its entry
//! in the legend.

use super::frame::*;
use super::{Shade, Style};
use anyhow::{Context, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Okabe-Ito colours (told apart with the common colour blindnesses),
/// without the yellow that vanishes on white.
pub(super) const PALETTE: [RGBColor; 7] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x00, 0x00),
];

pub(super) fn colour(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

/// `c` mixed with white, `keep` of it left.
pub(super) fn tint(c: RGBColor, keep: f64) -> RGBColor {
    let mix = |x: u8| (f64::from(x) * keep + 255.0 * (1.0 - keep)).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

/// The colour a style is drawn in: its palette colour in its shade.
pub(super) fn paint(style: Style) -> RGBColor {
    let c = colour(style.colour);
    let dark = |x: u8| (f64::from(x) * 0.55).round() as u8;
    match style.shade {
        Shade::Full => c,
        Shade::Light => tint(c, 0.5),
        // black darkens to nothing: its darker shade is a dark grey
        Shade::Dark if c == RGBColor(0, 0, 0) => RGBColor(0x55, 0x55, 0x55),
        Shade::Dark => RGBColor(dark(c.0), dark(c.1), dark(c.2)),
    }
}

/// Where `band`'s series is among the chart's `series`; a band of no
/// finite margin of 0 or more, or under a series the chart does not draw,
/// is refused by name.
pub(super) fn band_series(
    title: &str,
    band: &super::Band,
    series: &[(String, Style)],
) -> Result<usize> {
    anyhow::ensure!(
        band.below.is_finite() && band.below >= 0.0,
        "chart {title:?}: the band {:?} reaches {} below its series, not a finite number of 0 or more",
        band.label,
        band.below
    );
    series
        .iter()
        .position(|(s, _)| *s == band.series)
        .with_context(|| {
            format!(
                "chart {title:?}: the band {:?} is under the series {:?}, which the chart does not draw",
                band.label, band.series
            )
        })
}

/// The shading of a margin's band: the series' colour, pale enough that
/// the points over it stay clear.
pub(super) fn band_fill(style: Style) -> RGBColor {
    tint(paint(style), 0.22)
}

/// A band's entry in the legend, at slot `index`: a box in its fill.
pub(super) fn draw_band_legend_entry<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    index: usize,
    label: &str,
    fill: RGBColor,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let (x, y) = legend_slot(index);
    area.draw(&Rectangle::new(
        [
            (x, y - LEGEND_SWATCH / 2),
            (x + LEGEND_SWATCH, y + LEGEND_SWATCH / 2),
        ],
        fill.filled(),
    ))?;
    area.draw(&Text::new(
        label.to_string(),
        (x + LEGEND_SWATCH + 6, y),
        TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
    ))?;
    Ok(())
}

/// A series' marker, drawn on each point and bar top and in the legend, so
/// that series stay apart where colours do not (printed in grey, a
/// colour-blind reader, more series than colours).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    Cross,
    TriangleDown,
}

pub(super) const MARKERS: [Marker; 6] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::Cross,
    Marker::TriangleDown,
];

/// Seven colours against six markers: `Style::nth(i)` gets colour i mod 7
/// and marker i mod 6, so the first 42 series each have a pair of their
/// own and neighbours differ in both.
pub(super) fn marker(index: usize) -> Marker {
    MARKERS[index % MARKERS.len()]
}

/// The marker's outline, in pixels around its centre.
pub(super) fn marker_outline(m: Marker, r: i32) -> Vec<(i32, i32)> {
    match m {
        Marker::Circle => (0..16)
            .map(|k| {
                let a = f64::from(k) * std::f64::consts::TAU / 16.0;
                (
                    (f64::from(r) * a.cos()).round() as i32,
                    (f64::from(r) * a.sin()).round() as i32,
                )
            })
            .collect(),
        Marker::Square => vec![(-r, -r), (r, -r), (r, r), (-r, r)],
        Marker::TriangleUp => vec![(0, -r - 1), (r + 1, r), (-r - 1, r)],
        Marker::TriangleDown => vec![(0, r + 1), (r + 1, -r), (-r - 1, -r)],
        Marker::Diamond => vec![(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)],
        Marker::Cross => {
            let t = (r / 3).max(1);
            vec![
                (-t, -r),
                (t, -r),
                (t, -t),
                (r, -t),
                (r, t),
                (t, t),
                (t, r),
                (-t, r),
                (-t, t),
                (-r, t),
                (-r, -t),
                (-t, -t),
            ]
        }
    }
}

/// A point in pixels around a marker's centre.
pub(super) type Offset = (i32, i32);

/// The marker of a style at its drawn size: the polygon to fill, and the
/// same outline closed, to stroke.
pub(super) fn marker_shape(style: Style) -> (Vec<Offset>, Vec<Offset>) {
    let outline = marker_outline(marker(style.marker), 4);
    let mut closed = outline.clone();
    closed.push(outline[0]);
    (outline, closed)
}

pub(super) type Plot<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws the marker of `style` centred on `at`, filled with `fill` and
/// outlined in `edge`.
pub(super) fn draw_marker(
    chart: &mut Plot<'_, '_>,
    at: (f64, f64),
    style: Style,
    fill: RGBColor,
    edge: RGBColor,
) -> Result<()> {
    let (outline, closed) = marker_shape(style);
    chart.draw_series([EmptyElement::at(at) + Polygon::new(outline, fill.filled())])?;
    chart.draw_series([EmptyElement::at(at) + PathElement::new(closed, edge.stroke_width(1))])?;
    Ok(())
}

pub(super) const LEGEND_SWATCH: i32 = 14;

/// Room for the legend right of the plot: swatch, gap, and a crude width
/// estimate of the longest name at 14 px.
pub(super) fn legend_width(series: &[String]) -> u32 {
    let longest = series.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    (40 + LEGEND_SWATCH as usize + longest * 8).min(400) as u32
}

/// How a series looks in the legend: a filled box (bars) or a line.
pub(super) enum Swatch {
    Box(RGBColor),
    Line(RGBColor),
}

/// Where the legend's entry `index` starts: its swatch's left end.
pub(super) fn legend_slot(index: usize) -> (i32, i32) {
    (8, 60 + index as i32 * 24)
}

pub(super) fn draw_legend_entry(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    index: usize,
    name: &str,
    style: Style,
    swatch: Swatch,
) -> Result<()> {
    let (x, y) = legend_slot(index);
    let centre = (x + LEGEND_SWATCH / 2, y);
    let (fill, edge) = match swatch {
        Swatch::Box(c) => {
            area.draw(&Rectangle::new(
                [
                    (x, y - LEGEND_SWATCH / 2),
                    (x + LEGEND_SWATCH, y + LEGEND_SWATCH / 2),
                ],
                c.filled(),
            ))?;
            (WHITE, BLACK)
        }
        Swatch::Line(c) => {
            area.draw(&PathElement::new(
                [(x, y), (x + LEGEND_SWATCH, y)],
                c.stroke_width(2),
            ))?;
            (c, c)
        }
    };
    let (outline, closed) = marker_shape(style);
    area.draw(&(EmptyElement::at(centre) + Polygon::new(outline, fill.filled())))?;
    area.draw(&(EmptyElement::at(centre) + PathElement::new(closed, edge.stroke_width(1))))?;
    area.draw(&Text::new(
        name.to_string(),
        (x + LEGEND_SWATCH + 6, y),
        TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
    ))
    .with_context(|| format!("legend entry {name:?}"))?;
    Ok(())
}
