//! SVG charts for the reports: grouped bars (one group per workload, one
//! bar per variant with its interval) and lines (a metric against threads
//! or time, one line per variant). Pure functions from data to an SVG
//! string; the same input gives the same bytes, so reports can be diffed
//! and the charts snapshot-tested.
//!
//! plotters is built without a font backend: the SVG keeps text as
//! `<text>` elements for the viewer to render, and plotters only estimates
//! text widths for the layout, so no system font library is needed.

use anyhow::{bail, ensure, Context, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How a series is drawn: the colour of its bars or line and the marker
/// on each value. The caller chooses it, so that one variant keeps its
/// look in every chart (and every report) whatever else is drawn beside
/// it; colour i is taken mod 7 and marker i mod 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub colour: usize,
    pub marker: usize,
}

impl Style {
    /// Colour i and marker i: series i of a chart whose series have no
    /// meaning of their own.
    pub fn nth(i: usize) -> Style {
        Style {
            colour: i,
            marker: i,
        }
    }
}

/// One variant's bar in a group.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub series: String,
    pub style: Style,
    /// None: not measured; drawn as an "n/a" mark, never as a zero bar
    pub value: Option<f64>,
    /// drawn as an error bar when the value is present
    pub interval: Option<(f64, f64)>,
    /// lines of text written beyond the end of the bar (past its error
    /// bar): above a bar of 0 or more, below a negative one, the first
    /// line nearest the bar. Empty: a bar too short to see says its value.
    pub label: Vec<String>,
}

/// A horizontal line across a bar chart at `y` (an allowed change, a
/// bound), dashed, with `label` beside a dashed swatch in the legend.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub y: f64,
    pub label: String,
}

/// The bars of one workload.
#[derive(Debug, Clone, PartialEq)]
pub struct BarGroup {
    pub label: String,
    pub bars: Vec<Bar>,
}

/// A point of a line: (x, y, optional interval (lo, hi) of y).
pub type Point = (f64, f64, Option<(f64, f64)>);

/// One variant's line. Points are joined in the order of x.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub series: String,
    pub style: Style,
    pub points: Vec<Point>,
}

/// Okabe-Ito colours (told apart with the common colour blindnesses),
/// without the yellow that vanishes on white.
const PALETTE: [RGBColor; 7] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x00, 0x00),
];

fn colour(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

/// A series' marker, drawn on each point and bar top and in the legend, so
/// that series stay apart where colours do not (printed in grey, a
/// colour-blind reader, more series than colours).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    Cross,
    TriangleDown,
}

const MARKERS: [Marker; 6] = [
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
fn marker(index: usize) -> Marker {
    MARKERS[index % MARKERS.len()]
}

/// The marker's outline, in pixels around its centre.
fn marker_outline(m: Marker, r: i32) -> Vec<(i32, i32)> {
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
type Offset = (i32, i32);

/// The marker of a style at its drawn size: the polygon to fill, and the
/// same outline closed, to stroke.
fn marker_shape(style: Style) -> (Vec<Offset>, Vec<Offset>) {
    let outline = marker_outline(marker(style.marker), 4);
    let mut closed = outline.clone();
    closed.push(outline[0]);
    (outline, closed)
}

type Plot<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws the marker of `style` centred on `at`, filled with `fill` and
/// outlined in `edge`.
fn draw_marker(
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

const HEIGHT: u32 = 480;

/// The chart's height: 480 px, or more when the legend (24 px an entry,
/// from 60 px down) needs it, so that every series keeps its entry.
fn height_for(series: usize) -> u32 {
    HEIGHT.max(100 + 24 * series as u32)
}
const FONT: &str = "sans-serif";
const LEGEND_SWATCH: i32 = 14;

/// Grouped bar chart: x is one group per `BarGroup` (a workload), each with
/// one bar per series (a variant) in the order the series first appear,
/// an error bar for each interval, each bar's label beyond its end, and
/// "n/a" where a series has no value in a group (or no bar there at all).
/// Each of `rules` is a dashed line across the plot. The y axis includes
/// 0 and every rule.
pub fn grouped_bars(
    title: &str,
    y_label: &str,
    groups: &[BarGroup],
    rules: &[Rule],
) -> Result<String> {
    grouped(title, y_label, groups, rules, Axis::FromZero)
}

/// `grouped_bars` without the bars: each value a filled marker with its
/// error bar on an axis that spans the values and rules, not 0, so that a
/// few points between two hit ratios of 90% stay visible.
pub fn grouped_points(
    title: &str,
    y_label: &str,
    groups: &[BarGroup],
    rules: &[Rule],
) -> Result<String> {
    grouped(title, y_label, groups, rules, Axis::Data)
}

/// Where a chart's y axis starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Axis {
    /// at 0 (a bar chart draws a bar from 0 to each value)
    FromZero,
    /// at the values (a bar chart draws a marker at each)
    Data,
}

fn grouped(
    title: &str,
    y_label: &str,
    groups: &[BarGroup],
    rules: &[Rule],
    axis: Axis,
) -> Result<String> {
    ensure!(!groups.is_empty(), "bar chart {title:?}: no groups to draw");
    let series = series_of(
        title,
        groups
            .iter()
            .flat_map(|g| g.bars.iter().map(|b| (&b.series, b.style))),
    )?;
    let mut slots: Vec<Vec<Option<&Bar>>> = Vec::with_capacity(groups.len());
    for group in groups {
        let mut row = vec![None; series.len()];
        for bar in &group.bars {
            let i = series
                .iter()
                .position(|(s, _)| *s == bar.series)
                .unwrap_or(0);
            if row[i].is_some() {
                bail!(
                    "bar chart {title:?}: group {:?} has two bars of series {:?}",
                    group.label,
                    bar.series
                );
            }
            check_bar(title, &group.label, bar)?;
            row[i] = Some(bar);
        }
        slots.push(row);
    }
    for rule in rules {
        ensure!(
            rule.y.is_finite(),
            "bar chart {title:?}: the line {:?} is at {}, not a finite number",
            rule.label,
            rule.y
        );
    }
    let present = || {
        groups
            .iter()
            .flat_map(|g| &g.bars)
            .filter(|b| b.value.is_some())
    };
    let values = present()
        .flat_map(|b| {
            let (lo, hi) = b.interval.unwrap_or((f64::NAN, f64::NAN));
            [b.value, Some(lo), Some(hi)]
        })
        .flatten()
        .filter(|v| v.is_finite());
    let values = values.chain(rules.iter().map(|r| r.y));
    let (y_lo, y_hi) = match axis {
        Axis::FromZero => padded_range(values.chain([0.0])),
        Axis::Data => padded_both_ways(values),
    };
    // room for the labels beyond the longest bars, a share of the range
    // per line of text
    let lines_beyond = |up: bool| {
        present()
            .filter(|b| b.value.is_some_and(|v| (v >= 0.0) == up))
            .map(|b| b.label.len())
            .max()
            .unwrap_or(0) as f64
    };
    let range = y_hi - y_lo;
    let (y_lo, y_hi) = (
        y_lo - range * LABEL_LINE_SHARE * lines_beyond(false),
        y_hi + range * LABEL_LINE_SHARE * lines_beyond(true),
    );

    let group_count = groups.len();
    let slot_count = series.len().max(1);
    // room for every bar and for each group's label under it (~8 px a
    // character at 14 px), and for each bar's label (~7 px a character
    // at 12 px)
    let longest_label = groups
        .iter()
        .map(|g| g.label.chars().count())
        .max()
        .unwrap_or(0);
    let longest_bar_label = present()
        .flat_map(|b| b.label.iter().map(|l| l.chars().count()))
        .max()
        .unwrap_or(0);
    let group_px = (slot_count * 26.max(longest_bar_label * 7 + 6)).max(longest_label * 8 + 16);
    let width = (260 + group_count * group_px).clamp(640, 2400) as u32;
    let names: Vec<String> = series
        .iter()
        .map(|(s, _)| s.clone())
        .chain(rules.iter().map(|r| r.label.clone()))
        .collect();
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (width, height_for(names.len()))).into_drawing_area();
        root.fill(&WHITE)?;
        let (title, root) = with_note(title, root)?;
        let (plot_area, legend_area) = root.split_horizontally(width - legend_width(&names));
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(title, (FONT, 20))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..group_count as f64, y_lo..y_hi)?;
        // plotters places x labels at round numbers, not at group centres:
        // the group labels are drawn below the axis by hand
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(0)
            .y_label_formatter(&|y| tick(*y))
            .y_desc(y_label)
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 15))
            .draw()?;

        let label_style =
            TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
        for (g, group) in groups.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(g as f64 + 0.5, y_lo));
            root.draw(&Text::new(
                group.label.clone(),
                (x, y + 8),
                label_style.clone(),
            ))?;
        }
        for rule in rules {
            chart.draw_series([plotters::element::DashedPathElement::new(
                [(0.0, rule.y), (group_count as f64, rule.y)],
                6,
                4,
                BLACK.stroke_width(1),
            )])?;
        }
        // each group spans [g, g+1): bars fill the middle 80%
        let slot_width = 0.8 / slot_count as f64;
        let bar_x = |g: usize, s: usize| g as f64 + 0.1 + slot_width * s as f64;
        let na_style = TextStyle::from((FONT, 13).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        // above the marker
        let value_style = TextStyle::from((FONT, 12).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        let below_style = TextStyle::from((FONT, 12).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (s, (name, style)) in series.iter().enumerate() {
            let fill = colour(style.colour).filled();
            for (g, row) in slots.iter().enumerate() {
                let left = bar_x(g, s);
                let centre = left + slot_width / 2.0;
                let Some((bar, value)) = row[s].and_then(|b| b.value.map(|v| (b, v))) else {
                    let floor = if axis == Axis::FromZero { 0.0 } else { y_lo };
                    chart.draw_series([Text::new("n/a", (centre, floor), na_style.clone())])?;
                    continue;
                };
                if axis == Axis::FromZero {
                    chart.draw_series([Rectangle::new(
                        [
                            (left + slot_width * 0.08, 0.0),
                            (left + slot_width * 0.92, value),
                        ],
                        fill,
                    )])?;
                }
                if let Some((lo, hi)) = bar.interval {
                    chart.draw_series(error_bar(centre, slot_width * 0.2, lo, hi, BLACK))?;
                }
                let marker_fill = match axis {
                    Axis::FromZero => WHITE,
                    Axis::Data => colour(style.colour),
                };
                draw_marker(&mut chart, (centre, value), *style, marker_fill, BLACK)?;
                if !bar.label.is_empty() {
                    // a block of lines past the bar's end and its whisker
                    let (lo, hi) = bar.interval.unwrap_or((value, value));
                    let n = bar.label.len() as i32;
                    for (k, line) in bar.label.iter().enumerate() {
                        let k = k as i32;
                        let text = if value >= 0.0 {
                            EmptyElement::at((centre, value.max(hi)))
                                + Text::new(
                                    line.clone(),
                                    (0, -6 - LABEL_LINE_PX * (n - 1 - k)),
                                    value_style.clone(),
                                )
                        } else {
                            EmptyElement::at((centre, value.min(lo)))
                                + Text::new(
                                    line.clone(),
                                    (0, 6 + LABEL_LINE_PX * k),
                                    below_style.clone(),
                                )
                        };
                        chart.draw_series([text])?;
                    }
                } else if axis == Axis::FromZero && value.abs() < (y_hi - y_lo) * TINY_BAR {
                    // a bar too short to see says its value: a 0 is a
                    // measured 0, not a missing bar (6 px above the marker)
                    chart.draw_series([EmptyElement::at((centre, value.max(0.0)))
                        + Text::new(small_value(value), (0, -6), value_style.clone())])?;
                }
            }
            draw_legend_entry(
                &legend_area,
                s,
                name,
                *style,
                Swatch::Box(colour(style.colour)),
            )?;
        }
        // the rules' labels in the legend, under the series: a label on
        // the plot would sit under some workload's bar
        for (k, rule) in rules.iter().enumerate() {
            let (x, y) = legend_slot(series.len() + k);
            legend_area.draw(&plotters::element::DashedPathElement::new(
                [(x, y), (x + LEGEND_SWATCH, y)],
                4,
                3,
                BLACK.stroke_width(1),
            ))?;
            legend_area.draw(&Text::new(
                rule.label.clone(),
                (x + LEGEND_SWATCH + 6, y),
                TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
        root.present()?;
    }
    Ok(svg)
}

/// A bar label's line height in pixels, and the share of the y range each
/// line beyond the longest bar is given.
const LABEL_LINE_PX: i32 = 13;
const LABEL_LINE_SHARE: f64 = 0.05;

/// Line chart: one line per series through its points in the order of x,
/// a marker at each point and an error bar for each interval. The y axis
/// includes 0, so a ratio of lines reads as a ratio of heights.
pub fn lines(title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> Result<String> {
    line_chart(title, x_label, y_label, lines, Axis::FromZero)
}

/// `lines` on a y axis that spans the points and not 0: for curves a few
/// points apart high on their scale (hit ratios near 90%).
pub fn lines_on_data(title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> Result<String> {
    line_chart(title, x_label, y_label, lines, Axis::Data)
}

fn line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    axis: Axis,
) -> Result<String> {
    ensure!(!lines.is_empty(), "line chart {title:?}: no lines to draw");
    if let Some(twice) = lines
        .iter()
        .map(|l| &l.series)
        .find(|s| lines.iter().filter(|l| &l.series == *s).count() > 1)
    {
        bail!("line chart {title:?}: two lines named {twice:?}");
    }
    let series = series_of(title, lines.iter().map(|l| (&l.series, l.style)))?;
    let mut sorted: Vec<Vec<Point>> = Vec::with_capacity(lines.len());
    for line in lines {
        for &(x, y, interval) in &line.points {
            let (lo, hi) = interval.unwrap_or((y, y));
            ensure!(
                [x, y, lo, hi].iter().all(|v| v.is_finite()),
                "line chart {title:?}: series {:?} has a point that is not a finite number: \
                 ({x}, {y}, {interval:?})",
                line.series
            );
            ensure!(
                lo <= hi,
                "line chart {title:?}: series {:?} at x = {x} has an interval with lo > hi: \
                 {interval:?}",
                line.series
            );
        }
        let mut points = line.points.clone();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        sorted.push(points);
    }
    let all = sorted.iter().flatten();
    let (x_lo, x_hi) = span(all.clone().map(|p| p.0)).unwrap_or((0.0, 1.0));
    // 3% room at the sides keeps the end markers and whiskers whole
    let x_pad = if x_lo == x_hi {
        1.0
    } else {
        (x_hi - x_lo) * 0.03
    };
    let (x_lo, x_hi) = (x_lo - x_pad, x_hi + x_pad);
    let whisker = (x_hi - x_lo) * 0.008;
    let ys = all.flat_map(|&(_, y, i)| {
        let (lo, hi) = i.unwrap_or((y, y));
        [y, lo, hi]
    });
    let (y_lo, y_hi) = match axis {
        Axis::FromZero => padded_range(ys.chain([0.0])),
        Axis::Data => padded_both_ways(ys),
    };

    let width = 800;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height_for(series.len())))
            .into_drawing_area();
        root.fill(&WHITE)?;
        let (title, root) = with_note(title, root)?;
        let names: Vec<String> = series.iter().map(|(s, _)| s.clone()).collect();
        let (plot_area, legend_area) = root.split_horizontally(width - legend_width(&names));
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(title, (FONT, 20))
            .margin(10)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_label_formatter(&|x| tick(*x))
            .y_label_formatter(&|y| tick(*y))
            .x_desc(x_label)
            .y_desc(y_label)
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 15))
            .draw()?;
        for (s, ((name, style), points)) in series.iter().zip(&sorted).enumerate() {
            let c = colour(style.colour);
            chart.draw_series(LineSeries::new(
                points.iter().map(|&(x, y, _)| (x, y)),
                c.stroke_width(2),
            ))?;
            for &(x, y, _) in points {
                draw_marker(&mut chart, (x, y), *style, c, c)?;
            }
            for &(x, _, interval) in points {
                if let Some((lo, hi)) = interval {
                    chart.draw_series(error_bar(x, whisker, lo, hi, c))?;
                }
            }
            draw_legend_entry(&legend_area, s, name, *style, Swatch::Line(c))?;
        }
        root.present()?;
    }
    Ok(svg)
}

/// A vertical error bar from lo to hi at x with whiskers half_width wide
/// (in x units). plotters' ErrorBar also rings the value, which the bar top
/// or the line's marker already shows.
fn error_bar(
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
fn series_of<'a>(
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

fn check_bar(title: &str, group: &str, bar: &Bar) -> Result<()> {
    let context = || {
        format!(
            "bar chart {title:?}, group {group:?}, series {:?}",
            bar.series
        )
    };
    if let Some(v) = bar.value {
        ensure!(
            v.is_finite(),
            "{}: value {v} is not a finite number",
            context()
        );
    }
    if let Some((lo, hi)) = bar.interval {
        ensure!(
            lo.is_finite() && hi.is_finite() && lo <= hi,
            "{}: interval ({lo}, {hi}) is not a finite range with lo <= hi",
            context()
        );
    }
    Ok(())
}

fn span(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// The range of the values with 8% head room away from zero (so error bars
/// and "n/a" marks stay inside); (0, 1) when everything is 0.
fn padded_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
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
fn padded_both_ways(values: impl Iterator<Item = f64>) -> (f64, f64) {
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
const NOTE_PX: u32 = 22;
const NOTE_LINE_PX: u32 = 16;

/// A title's second line (after `\n`) is a note under the whole chart, in
/// smaller type, for what the title has no room for (what the whiskers
/// are and how much they cover): the first line stays the caption. A note
/// wider than the chart (~7 px a character at 13 px) is wrapped at word
/// boundaries.
fn with_note<DB: DrawingBackend>(
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

/// `text` in lines of at most `width` characters, broken at spaces (a
/// word longer than a line keeps a line of its own); at least one line.
fn wrap(text: &str, width: usize) -> Vec<String> {
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

/// Room for the legend right of the plot: swatch, gap, and a crude width
/// estimate of the longest name at 14 px.
fn legend_width(series: &[String]) -> u32 {
    let longest = series.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    (40 + LEGEND_SWATCH as usize + longest * 8).min(400) as u32
}

/// How a series looks in the legend: a filled box (bars) or a line.
enum Swatch {
    Box(RGBColor),
    Line(RGBColor),
}

/// Where the legend's entry `index` starts: its swatch's left end.
fn legend_slot(index: usize) -> (i32, i32) {
    (8, 60 + index as i32 * 24)
}

fn draw_legend_entry(
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

/// A bar shorter than this share of the y range gets its value written
/// above it.
const TINY_BAR: f64 = 0.01;

/// The value of a bar too short to see: 0 as "0", others with two
/// significant digits (1.8e-5, 4.2e-3, 0.35).
fn small_value(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() < 0.01 {
        format!("{v:.1e}")
    } else {
        format!("{v:.2}")
    }
}

/// An axis tick: integers without decimals, others with at most three.
fn tick(v: f64) -> String {
    if v.fract() == 0.0 || v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The look the examples' variants keep in every test: base, fixed,
    /// candidate, then `v<i>` as the i-th.
    fn look(series: &str) -> Style {
        match series {
            "base" => Style::nth(0),
            "fixed" => Style::nth(1),
            "candidate" => Style::nth(2),
            "gate" => Style::nth(3),
            "clock" => Style::nth(4),
            v => Style::nth(v.trim_start_matches('v').parse().unwrap_or(5)),
        }
    }

    fn bar(series: &str, value: Option<f64>, interval: Option<(f64, f64)>) -> Bar {
        Bar {
            series: series.into(),
            style: look(series),
            value,
            interval,
            label: Vec::new(),
        }
    }

    /// Three workloads, three variants; `candidate` was not measured on
    /// scan_mixed and `fixed` has no bar there at all.
    fn example_groups() -> Vec<BarGroup> {
        vec![
            BarGroup {
                label: "oltp_read_only".into(),
                bars: vec![
                    bar("base", Some(10_400.0), Some((10_100.0, 10_650.0))),
                    bar("fixed", Some(11_250.0), Some((10_900.0, 11_500.0))),
                    bar("candidate", Some(12_100.0), Some((11_800.0, 12_600.0))),
                ],
            },
            BarGroup {
                label: "point_select_hot".into(),
                bars: vec![
                    bar("base", Some(21_000.0), Some((20_200.0, 21_900.0))),
                    bar("fixed", Some(20_700.0), None),
                    bar("candidate", Some(23_400.0), Some((22_900.0, 24_000.0))),
                ],
            },
            BarGroup {
                label: "scan_mixed".into(),
                bars: vec![
                    bar("base", Some(6_100.0), Some((5_800.0, 6_400.0))),
                    bar("candidate", None, None),
                ],
            },
        ]
    }

    fn example_lines() -> Vec<Line> {
        let line = |series: &str, style: usize, qps: [f64; 4]| Line {
            series: series.into(),
            style: Style::nth(style),
            points: [1.0, 2.0, 4.0, 8.0]
                .into_iter()
                .zip(qps)
                .map(|(t, q)| (t, q, Some((q * 0.95, q * 1.04))))
                .rev() // given out of order: drawn in the order of x
                .collect(),
        };
        vec![
            line("base", 0, [5_200.0, 9_800.0, 10_400.0, 10_100.0]),
            line("candidate", 1, [5_300.0, 10_200.0, 12_100.0, 12_300.0]),
        ]
    }

    /// Parses the SVG as XML (a broken document fails here) and returns it.
    fn parse(svg: &str) -> roxmltree::Document<'_> {
        let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        doc
    }

    fn elements<'a>(
        doc: &'a roxmltree::Document<'a>,
        tag: &'a str,
    ) -> impl Iterator<Item = roxmltree::Node<'a, 'a>> + 'a {
        doc.descendants().filter(move |n| n.has_tag_name(tag))
    }

    fn texts(doc: &roxmltree::Document) -> Vec<String> {
        elements(doc, "text")
            .map(|n| n.text().unwrap_or("").trim().to_string())
            .collect()
    }

    fn hex(c: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
    }

    fn filled_rects(doc: &roxmltree::Document, c: RGBColor) -> usize {
        elements(doc, "rect")
            .filter(|n| {
                n.attribute("fill")
                    .is_some_and(|f| f.eq_ignore_ascii_case(&hex(c)))
            })
            .count()
    }

    fn black_polylines(doc: &roxmltree::Document) -> usize {
        elements(doc, "polyline")
            .filter(|n| n.attribute("stroke") == Some("#000000"))
            .count()
    }

    #[test]
    fn grouped_bars_draw_one_bar_per_value_and_na_for_the_rest() {
        let svg = grouped_bars(
            "QPS by workload",
            "queries per second",
            &example_groups(),
            &[],
        )
        .unwrap();
        let doc = parse(&svg);
        // a bar per present value plus the legend swatch; no zero bars
        assert_eq!(filled_rects(&doc, colour(0)), 3 + 1, "base");
        assert_eq!(filled_rects(&doc, colour(1)), 2 + 1, "fixed");
        assert_eq!(filled_rects(&doc, colour(2)), 2 + 1, "candidate");
        let texts = texts(&doc);
        // fixed has no bar in scan_mixed, candidate no value there
        assert_eq!(texts.iter().filter(|t| *t == "n/a").count(), 2, "{texts:?}");
        for label in [
            "QPS by workload",
            "queries per second",
            "oltp_read_only",
            "point_select_hot",
            "scan_mixed",
            "base",
            "fixed",
            "candidate",
        ] {
            assert!(
                texts.iter().any(|t| t == label),
                "{label} missing: {texts:?}"
            );
        }
    }

    #[test]
    fn grouped_bars_draw_an_error_bar_per_interval() {
        let with = grouped_bars("t", "y", &example_groups(), &[]).unwrap();
        let mut groups = example_groups();
        for b in groups.iter_mut().flat_map(|g| &mut g.bars) {
            b.interval = None;
        }
        let without = grouped_bars("t", "y", &groups, &[]).unwrap();
        // six intervals on present values, three strokes each
        assert_eq!(
            black_polylines(&parse(&with)) - black_polylines(&parse(&without)),
            6 * 3
        );
    }

    #[test]
    fn all_absent_bars_still_make_a_chart() {
        let groups = [BarGroup {
            label: "w".into(),
            bars: vec![
                bar("base", None, None),
                bar("candidate", None, Some((1.0, 2.0))),
            ],
        }];
        let doc_svg = grouped_bars("t", "y", &groups, &[]).unwrap();
        let doc = parse(&doc_svg);
        assert_eq!(texts(&doc).iter().filter(|t| *t == "n/a").count(), 2);
        assert_eq!(filled_rects(&doc, colour(0)), 1, "only the legend swatch");
        let plain = grouped_bars(
            "t",
            "y",
            &[BarGroup {
                label: "w".into(),
                bars: vec![bar("base", None, None), bar("candidate", None, None)],
            }],
            &[],
        )
        .unwrap();
        assert_eq!(
            black_polylines(&doc),
            black_polylines(&parse(&plain)),
            "no error bar without a value"
        );
    }

    #[test]
    fn negative_bars_hang_below_zero() {
        let groups = [BarGroup {
            label: "w".into(),
            bars: vec![
                bar("fixed", Some(-4.0), Some((-6.0, -1.0))),
                bar("candidate", Some(12.0), None),
            ],
        }];
        let svg = grouped_bars("change against base", "%", &groups, &[]).unwrap();
        let doc = parse(&svg);
        let rect = |c: RGBColor| {
            let n = elements(&doc, "rect")
                .find(|n| n.attribute("fill") == Some(hex(c).as_str()))
                .unwrap();
            let num = |a: &str| n.attribute(a).unwrap().parse::<i32>().unwrap();
            (num("y"), num("height"))
        };
        let (down_top, down_height) = rect(colour(1));
        let (up_top, up_height) = rect(colour(2));
        assert!(down_height > 0 && up_height > 0);
        // both start at the zero line: one below it, one above
        assert_eq!(down_top, up_top + up_height);
        assert!((up_height as f64 / down_height as f64 - 3.0).abs() < 0.1);
    }

    #[test]
    fn a_second_title_line_is_a_note_under_the_chart() {
        for svg in [
            grouped_bars(
                "QPS (median)\nwhiskers: 87.5% coverage",
                "q",
                &example_groups(),
                &[],
            )
            .unwrap(),
            lines(
                "QPS (median)\nwhiskers: 87.5% coverage",
                "t",
                "q",
                &example_lines(),
            )
            .unwrap(),
        ] {
            let doc = parse(&svg);
            let t = texts(&doc);
            assert!(t.iter().any(|x| x == "QPS (median)"), "{t:?}");
            let note = elements(&doc, "text")
                .find(|e| {
                    e.text()
                        .is_some_and(|x| x.trim() == "whiskers: 87.5% coverage")
                })
                .expect("the note is drawn");
            // under the plot, at the bottom of the chart
            let y: f64 = note.attribute("y").unwrap().parse().unwrap();
            assert!(y > f64::from(HEIGHT - NOTE_PX) - 1.0, "{y}");
        }
    }

    #[test]
    fn bad_bars_are_refused_by_name() {
        let err = |groups: &[BarGroup]| {
            grouped_bars("QPS", "y", groups, &[])
                .unwrap_err()
                .to_string()
        };
        assert!(err(&[]).contains("no groups"));
        let nan = [BarGroup {
            label: "w1".into(),
            bars: vec![bar("base", Some(f64::NAN), None)],
        }];
        let e = err(&nan);
        assert!(
            e.contains("\"w1\"") && e.contains("\"base\"") && e.contains("NaN"),
            "{e}"
        );
        let twice = [BarGroup {
            label: "w1".into(),
            bars: vec![bar("base", Some(1.0), None), bar("base", Some(2.0), None)],
        }];
        assert!(err(&twice).contains("two bars of series \"base\""));
        let inverted = [BarGroup {
            label: "w1".into(),
            bars: vec![bar("v", Some(1.0), Some((3.0, 2.0)))],
        }];
        assert!(err(&inverted).contains("lo <= hi"));
    }

    #[test]
    fn lines_draw_one_line_and_marker_per_point() {
        let svg = lines(
            "QPS by threads",
            "threads",
            "queries per second",
            &example_lines(),
        )
        .unwrap();
        let doc = parse(&svg);
        for s in 0..2 {
            let c = hex(colour(s));
            let strokes = elements(&doc, "polyline")
                .filter(|n| {
                    n.attribute("stroke")
                        .is_some_and(|v| v.eq_ignore_ascii_case(&c))
                })
                .filter(|n| n.attribute("stroke-width") == Some("2"))
                .collect::<Vec<_>>();
            // the line and the legend sample
            assert_eq!(strokes.len(), 2, "series {s}");
            // the line runs left to right through four points
            let xs: Vec<f64> = strokes[0]
                .attribute("points")
                .unwrap()
                .split_whitespace()
                .map(|p| p.split(',').next().unwrap().parse().unwrap())
                .collect();
            assert_eq!(xs.len(), 4);
            assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
            // a marker per point and one in the legend
            let markers = elements(&doc, "polygon")
                .filter(|n| {
                    n.attribute("fill")
                        .is_some_and(|v| v.eq_ignore_ascii_case(&c))
                })
                .count();
            assert_eq!(markers, 4 + 1, "series {s}");
        }
        let texts = texts(&doc);
        for label in [
            "QPS by threads",
            "threads",
            "queries per second",
            "base",
            "candidate",
        ] {
            assert!(
                texts.iter().any(|t| t == label),
                "{label} missing: {texts:?}"
            );
        }
    }

    #[test]
    fn twelve_series_keep_a_colour_and_marker_pair_each_and_neighbours_differ_in_both() {
        let pairs: Vec<(RGBColor, Marker)> = (0..12).map(|i| (colour(i), marker(i))).collect();
        for i in 0..pairs.len() {
            for j in 0..i {
                assert!(pairs[i] != pairs[j], "series {j} and {i} look alike");
            }
            if i > 0 {
                assert!(pairs[i].0 != pairs[i - 1].0 && pairs[i].1 != pairs[i - 1].1);
            }
        }
        // drawn: each series' legend entry has its marker's outline
        let groups = [BarGroup {
            label: "w".into(),
            bars: (0..12)
                .map(|i| bar(&format!("v{i}"), Some(1.0 + i as f64), None))
                .collect(),
        }];
        let svg = grouped_bars("t", "y", &groups, &[]).unwrap();
        let doc = parse(&svg);
        let shapes: std::collections::BTreeSet<usize> = elements(&doc, "polygon")
            .map(|n| n.attribute("points").unwrap().split_whitespace().count())
            .collect();
        // circle 16 corners, square and diamond 4, triangles 3, cross 12
        assert_eq!(shapes, [3, 4, 12, 16].into_iter().collect());
        // the legend of 42 series fits the chart
        let many = [BarGroup {
            label: "w".into(),
            bars: (0..42)
                .map(|i| bar(&format!("v{i}"), Some(1.0), None))
                .collect(),
        }];
        let svg = grouped_bars("t", "y", &many, &[]).unwrap();
        let doc = parse(&svg);
        let height: f64 = doc
            .root_element()
            .attribute("height")
            .unwrap()
            .parse()
            .unwrap();
        let last = elements(&doc, "text")
            .find(|n| n.text().is_some_and(|t| t.trim() == "v41"))
            .expect("the last legend entry is drawn");
        let y: f64 = last.attribute("y").unwrap().parse().unwrap();
        assert!(y < height, "legend entry at {y} of {height}");
    }

    #[test]
    fn a_zero_bar_says_0_and_a_tiny_one_its_value() {
        let groups = [BarGroup {
            label: "w".into(),
            bars: vec![
                bar("base", Some(25.8), None),
                bar("gate", Some(0.0), None),
                bar("fixed", Some(0.000018), None),
                bar("clock", None, None),
            ],
        }];
        let svg = grouped_bars("mutex", "acquisitions / query", &groups, &[]).unwrap();
        let t = texts(&parse(&svg));
        assert_eq!(
            t.iter().filter(|x| *x == "0").count(),
            1 + 1,
            "the bar and the axis: {t:?}"
        );
        assert!(t.iter().any(|x| x == "1.8e-5"), "{t:?}");
        assert!(t.iter().any(|x| x == "n/a"), "{t:?}");
        assert!(
            !t.iter().any(|x| x == "25.80"),
            "a visible bar is not labelled: {t:?}"
        );
    }

    #[test]
    fn bad_lines_are_refused_by_name() {
        let err = |l: &[Line]| lines("t", "x", "y", l).unwrap_err().to_string();
        assert!(err(&[]).contains("no lines"));
        let mut two = example_lines();
        two[1].series = "base".into();
        assert!(err(&two).contains("two lines named \"base\""));
        let mut inf = example_lines();
        inf[1].points[0].1 = f64::INFINITY;
        let e = err(&inf);
        assert!(e.contains("\"candidate\"") && e.contains("finite"), "{e}");
    }

    #[test]
    fn same_input_same_bytes() {
        let groups = example_groups();
        assert_eq!(
            grouped_bars("t", "y", &groups, &[]).unwrap(),
            grouped_bars("t", "y", &groups, &[]).unwrap()
        );
        let l = example_lines();
        assert_eq!(
            lines("t", "x", "y", &l).unwrap(),
            lines("t", "x", "y", &l).unwrap()
        );
    }

    #[test]
    fn a_long_note_is_wrapped_under_the_chart_and_loses_no_word() {
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
        assert_eq!(wrap("averyverylongword x", 5), ["averyverylongword", "x"]);
        assert_eq!(wrap("", 5), [""]);
        let note = "whiskers: the interval of the change, HL = Hodges-Lehmann, exact 90%; \
                    dashed: the threshold beyond which a change counts";
        let svg = grouped_bars(&format!("t\n{note}"), "%", &example_groups(), &[]).unwrap();
        let doc = parse(&svg);
        let width: usize = doc
            .root_element()
            .attribute("width")
            .unwrap()
            .parse()
            .unwrap();
        let drawn: Vec<String> = texts(&doc)
            .into_iter()
            .filter(|t| note.contains(t.as_str()) && t.len() > 10)
            .collect();
        assert!(drawn.len() >= 2, "{drawn:?}");
        assert!(drawn.iter().all(|l| l.chars().count() * 7 <= width));
        assert_eq!(drawn.join(" "), note);
    }

    #[test]
    fn points_span_the_values_not_zero_and_draw_no_bar() {
        let groups = [BarGroup {
            label: "pareto".into(),
            bars: vec![
                bar("base", Some(92.1), Some((91.8, 92.4))),
                bar("fixed", Some(88.1), Some((87.5, 88.6))),
            ],
        }];
        let rule = Rule {
            y: 91.9,
            label: "base less 0.2 points".into(),
        };
        let svg = grouped_points("hit ratio", "%", &groups, &[rule]).unwrap();
        let doc = parse(&svg);
        let ticks = texts(&doc);
        assert!(
            !ticks.iter().any(|t| t == "0"),
            "no 0 on the axis: {ticks:?}"
        );
        assert!(ticks.iter().any(|t| t == "90"), "{ticks:?}");
        // only the legend swatches are filled rectangles
        assert_eq!(filled_rects(&doc, colour(0)), 1);
        assert_eq!(filled_rects(&doc, colour(1)), 1);
        // one marker in the series' colour per value (the legend's marker
        // on a box swatch is white)
        for c in [colour(0), colour(1)] {
            let markers = elements(&doc, "polygon")
                .filter(|n| {
                    n.attribute("fill")
                        .is_some_and(|v| v.eq_ignore_ascii_case(&hex(c)))
                })
                .count();
            assert_eq!(markers, 1, "{}", hex(c));
        }
    }

    #[test]
    fn lines_on_data_leave_zero_off_the_axis() {
        let ticks = |svg: &str| texts(&parse(svg));
        let from_zero = lines("t", "x", "y", &example_lines()).unwrap();
        let on_data = lines_on_data("t", "x", "y", &example_lines()).unwrap();
        assert!(ticks(&from_zero).iter().any(|t| t == "0"));
        assert!(
            !ticks(&on_data).iter().any(|t| t == "0"),
            "{:?}",
            ticks(&on_data)
        );
    }

    /// The y attribute of the one text element that says `what`.
    fn text_y(doc: &roxmltree::Document, what: &str) -> f64 {
        let found: Vec<f64> = elements(doc, "text")
            .filter(|n| n.text().is_some_and(|t| t.trim() == what))
            .map(|n| n.attribute("y").unwrap().parse().unwrap())
            .collect();
        assert_eq!(found.len(), 1, "{what:?} drawn once: {:?}", texts(doc));
        found[0]
    }

    #[test]
    fn a_rule_is_a_dashed_line_with_its_label_and_the_axis_reaches_it() {
        let groups = [BarGroup {
            label: "w".into(),
            bars: vec![bar("fixed", Some(2.0), Some((1.0, 3.0)))],
        }];
        let rule = Rule {
            y: -5.0,
            label: "allowed change -5%".into(),
        };
        let plain = grouped_bars("t", "%", &groups, &[]).unwrap();
        let ruled = grouped_bars("t", "%", &groups, std::slice::from_ref(&rule)).unwrap();
        let (plain, ruled) = (parse(&plain), parse(&ruled));
        // dashes: many short black strokes more than without the rule
        assert!(
            black_polylines(&ruled) > black_polylines(&plain) + 10,
            "{} against {}",
            black_polylines(&ruled),
            black_polylines(&plain)
        );
        assert!(texts(&ruled).iter().any(|t| t == &rule.label));
        // the axis now reaches below zero to the rule: a negative tick
        assert!(
            texts(&ruled).iter().any(|t| t.starts_with('-')),
            "{:?}",
            texts(&ruled)
        );
        assert!(!texts(&plain).iter().any(|t| t.starts_with('-')));
        let bad = Rule {
            y: f64::NAN,
            label: "allowed".into(),
        };
        let e = grouped_bars("t", "%", &groups, &[bad])
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"allowed\"") && e.contains("NaN"), "{e}");
    }

    #[test]
    fn labels_stand_past_the_bar_end_in_reading_order() {
        let mut up = bar("fixed", Some(4.0), Some((2.0, 6.0)));
        up.label = vec!["+4.0%".into(), "pass".into()];
        let mut down = bar("candidate", Some(-3.0), Some((-7.0, 1.0)));
        down.label = vec!["-3.0%".into(), "undecided".into()];
        let groups = [BarGroup {
            label: "w".into(),
            bars: vec![up, down],
        }];
        let doc_svg = grouped_bars("t", "%", &groups, &[]).unwrap();
        let doc = parse(&doc_svg);
        let zero = text_y(&doc, "0");
        // above the rising bar, first line on top; below the falling one
        let (a, b) = (text_y(&doc, "+4.0%"), text_y(&doc, "pass"));
        assert!(a < b && b < zero, "{a} {b} {zero}");
        let (c, d) = (text_y(&doc, "-3.0%"), text_y(&doc, "undecided"));
        assert!(zero < c && c < d, "{zero} {c} {d}");
    }

    #[test]
    fn a_series_drawn_in_two_styles_is_refused_by_name() {
        let mut other = bar("fixed", Some(1.0), None);
        other.style = Style::nth(5);
        let groups = [
            BarGroup {
                label: "w1".into(),
                bars: vec![bar("fixed", Some(1.0), None)],
            },
            BarGroup {
                label: "w2".into(),
                bars: vec![other],
            },
        ];
        let e = grouped_bars("t", "y", &groups, &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"fixed\"") && e.contains("two styles"), "{e}");
    }

    fn snapshot(name: &str, actual: &str) {
        let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "snapshots", name]
            .iter()
            .collect();
        crate::snapshot::assert_matches(actual, &path);
    }

    #[test]
    fn charts_match_their_snapshots() {
        let bars = grouped_bars(
            "QPS by workload (median, 95% CI)",
            "queries per second",
            &example_groups(),
            &[],
        )
        .unwrap();
        snapshot("grouped_bars.svg", &bars);
        let qps = lines(
            "QPS by threads (median, 95% CI)",
            "threads",
            "queries per second",
            &example_lines(),
        )
        .unwrap();
        snapshot("lines.svg", &qps);
    }
}
