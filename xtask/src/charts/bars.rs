//! Grouped bars (one group per workload, one bar per variant with its
//! interval) and grouped points.

use super::frame::*;
use super::style::*;
use super::{Band, Bar, BarGroup, RefLine, Style};
use anyhow::{bail, ensure, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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
    rules: &[RefLine],
) -> Result<String> {
    grouped(title, y_label, groups, rules, &[], Axis::FromZero)
}

/// `grouped_bars` without the bars: each value a filled marker with its
/// error bar on an axis that spans the values and rules, not 0, so that a
/// few points between two hit ratios of 90% stay visible. Each of `bands`
/// shades, in each group, its series' value less its margin up to the
/// value, across the group.
pub fn grouped_points(
    title: &str,
    y_label: &str,
    groups: &[BarGroup],
    rules: &[RefLine],
    bands: &[Band],
) -> Result<String> {
    grouped(title, y_label, groups, rules, bands, Axis::Data)
}

/// A band as drawn: its series' look and one rectangle per group.
struct BandBoxes<'a> {
    band: &'a Band,
    style: Style,
    rects: Vec<[(f64, f64); 2]>,
}

/// Each band's rectangles: per group where its series has a value, the
/// group's span from the value less the margin up to the value.
fn band_boxes<'a>(
    title: &str,
    groups: &[BarGroup],
    series: &[(String, Style)],
    bands: &'a [Band],
) -> Result<Vec<BandBoxes<'a>>> {
    bands
        .iter()
        .map(|band| {
            let style = series[band_series(title, band, series)?].1;
            let boxes = groups
                .iter()
                .enumerate()
                .filter(|(_, group)| band.groups.is_empty() || band.groups.contains(&group.label))
                .filter_map(|(g, group)| {
                    let v = group.bars.iter().find(|b| b.series == band.series)?.value?;
                    Some([(g as f64 + 0.05, v - band.below), (g as f64 + 0.95, v)])
                })
                .collect();
            Ok(BandBoxes {
                band,
                style,
                rects: boxes,
            })
        })
        .collect()
}

pub(super) fn grouped(
    title: &str,
    y_label: &str,
    groups: &[BarGroup],
    rules: &[RefLine],
    bands: &[Band],
    axis: Axis,
) -> Result<String> {
    ensure!(!groups.is_empty(), "bar chart {title:?}: no groups to draw");
    let series = series_of(
        title,
        groups
            .iter()
            .flat_map(|g| g.bars.iter().map(|b| (&b.series, b.style))),
    )?;
    let slots = slots_of(title, groups, &series)?;
    for rule in rules {
        ensure!(
            rule.y.is_finite(),
            "bar chart {title:?}: the line {:?} is at {}, not a finite number",
            rule.label,
            rule.y
        );
    }
    let boxes = band_boxes(title, groups, &series, bands)?;
    // the y axis holds each band's foot as it holds a rule
    let reach: Vec<RefLine> = rules
        .iter()
        .cloned()
        .chain(boxes.iter().flat_map(|b| {
            b.rects.iter().map(|[(_, lo), _]| RefLine {
                y: *lo,
                label: String::new(),
            })
        }))
        .collect();
    let (y_lo, y_hi) = y_range(groups, &reach, axis);
    let group_count = groups.len();
    let slot_count = series.len().max(1);
    let width = chart_width(title, groups, slot_count);
    let names: Vec<String> = series
        .iter()
        .map(|(s, _)| s.clone())
        .chain(rules.iter().map(|r| r.label.clone()))
        .chain(bands.iter().map(|b| b.label.clone()))
        .collect();
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (width, height_for(names.len()))).into_drawing_area();
        root.fill(&WHITE)?;
        let (title, root) = with_note(title, root)?;
        // the title over the whole image, not over the plot beside the legend
        let root = root.titled(title, (FONT, 20))?;
        let (plot_area, legend_area) = root.split_horizontally(width - legend_width(&names));
        let mut chart = ChartBuilder::on(&plot_area)
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

        draw_group_labels(&root, &chart, groups, y_lo)?;
        // behind the rules, whiskers and markers
        for b in &boxes {
            chart.draw_series(
                b.rects
                    .iter()
                    .map(|r| Rectangle::new(*r, band_fill(b.style).filled())),
            )?;
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
        for (s, (name, style)) in series.iter().enumerate() {
            for (g, row) in slots.iter().enumerate() {
                let slot = Slot {
                    left: bar_x(g, s),
                    width: slot_width,
                    style: *style,
                };
                draw_slot(&mut chart, &slot, row[s], axis, (y_lo, y_hi))?;
            }
            draw_legend_entry(&legend_area, s, name, *style, Swatch::Box(paint(*style)))?;
        }
        draw_rule_legend(&legend_area, rules, series.len())?;
        for (k, b) in boxes.iter().enumerate() {
            draw_band_legend_entry(
                &legend_area,
                series.len() + rules.len() + k,
                &b.band.label,
                band_fill(b.style),
            )?;
        }
        root.present()?;
    }
    Ok(svg)
}

/// Each group's label below the axis at the group's centre (plotters
/// places x labels at round numbers, not at group centres).
fn draw_group_labels(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    chart: &Plot<'_, '_>,
    groups: &[BarGroup],
    y_lo: f64,
) -> Result<()> {
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
    Ok(())
}

/// Where one bar goes: its slot's left edge and width, and its series' look.
struct Slot {
    left: f64,
    width: f64,
    style: Style,
}

/// One slot of a group: "n/a" where its series has no value there, else
/// the bar (on an axis from 0), its interval, its marker and its label,
/// or its value where the bar is too short to see.
fn draw_slot(
    chart: &mut Plot<'_, '_>,
    slot: &Slot,
    bar: Option<&Bar>,
    axis: Axis,
    (y_lo, y_hi): (f64, f64),
) -> Result<()> {
    let centre = slot.left + slot.width / 2.0;
    let Some((bar, value)) = bar.and_then(|b| b.value.map(|v| (b, v))) else {
        let floor = if axis == Axis::FromZero { 0.0 } else { y_lo };
        let na_style = TextStyle::from((FONT, 13).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        chart.draw_series([Text::new("n/a", (centre, floor), na_style)])?;
        return Ok(());
    };
    if axis == Axis::FromZero {
        chart.draw_series([Rectangle::new(
            [
                (slot.left + slot.width * 0.08, 0.0),
                (slot.left + slot.width * 0.92, value),
            ],
            paint(slot.style).filled(),
        )])?;
    }
    if let Some((lo, hi)) = bar.interval {
        chart.draw_series(error_bar(centre, slot.width * 0.2, lo, hi, BLACK))?;
    }
    let marker_fill = match axis {
        Axis::FromZero => WHITE,
        Axis::Data => paint(slot.style),
    };
    draw_marker(chart, (centre, value), slot.style, marker_fill, BLACK)?;
    // above the marker
    let value_style = TextStyle::from((FONT, 12).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    if !bar.label.is_empty() {
        draw_bar_label(chart, bar, centre, value, value_style)?;
    } else if axis == Axis::FromZero && value.abs() < (y_hi - y_lo) * TINY_BAR {
        // a bar too short to see says its value: a 0 is a measured 0, not
        // a missing bar (6 px above the marker)
        chart.draw_series([EmptyElement::at((centre, value.max(0.0)))
            + Text::new(small_value(value), (0, -6), value_style)])?;
    }
    Ok(())
}

/// A bar's label: a block of lines past the bar's end and its whisker
/// (above a positive value, below a negative one).
fn draw_bar_label(
    chart: &mut Plot<'_, '_>,
    bar: &Bar,
    centre: f64,
    value: f64,
    above: TextStyle,
) -> Result<()> {
    let below = TextStyle::from((FONT, 12).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let (lo, hi) = bar.interval.unwrap_or((value, value));
    let n = bar.label.len() as i32;
    for (k, line) in bar.label.iter().enumerate() {
        let k = k as i32;
        let text = if value >= 0.0 {
            EmptyElement::at((centre, value.max(hi)))
                + Text::new(
                    line.clone(),
                    (0, -6 - LABEL_LINE_PX * (n - 1 - k)),
                    above.clone(),
                )
        } else {
            EmptyElement::at((centre, value.min(lo)))
                + Text::new(line.clone(), (0, 6 + LABEL_LINE_PX * k), below.clone())
        };
        chart.draw_series([text])?;
    }
    Ok(())
}

/// Each group's bars by series slot (None where a series has no bar in
/// the group); a series twice in a group, or a bar that does not check, is
/// an error naming them.
fn slots_of<'a>(
    title: &str,
    groups: &'a [BarGroup],
    series: &[(String, Style)],
) -> Result<Vec<Vec<Option<&'a Bar>>>> {
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
    Ok(slots)
}

/// The bars that have a value.
fn present(groups: &[BarGroup]) -> impl Iterator<Item = &Bar> + Clone {
    groups
        .iter()
        .flat_map(|g| &g.bars)
        .filter(|b| b.value.is_some())
}

/// The y range: the values, their intervals and the rules, padded, with
/// room beyond the longest bars for their labels (a share of the range
/// per line of text).
fn y_range(groups: &[BarGroup], rules: &[RefLine], axis: Axis) -> (f64, f64) {
    let values = present(groups)
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
    let lines_beyond = |up: bool| {
        present(groups)
            .filter(|b| b.value.is_some_and(|v| (v >= 0.0) == up))
            .map(|b| b.label.len())
            .max()
            .unwrap_or(0) as f64
    };
    let range = y_hi - y_lo;
    (
        y_lo - range * LABEL_LINE_SHARE * lines_beyond(false),
        y_hi + range * LABEL_LINE_SHARE * lines_beyond(true),
    )
}

/// The image's width: room for every bar and for each group's label under
/// it (~8 px a character at 14 px), for each bar's label (~7 px a
/// character at 12 px), and for the title.
fn chart_width(title: &str, groups: &[BarGroup], slot_count: usize) -> u32 {
    let group_count = groups.len();
    let longest_label = groups
        .iter()
        .map(|g| g.label.chars().count())
        .max()
        .unwrap_or(0);
    let longest_bar_label = present(groups)
        .flat_map(|b| b.label.iter().map(|l| l.chars().count()))
        .max()
        .unwrap_or(0);
    let group_px = (slot_count * 26.max(longest_bar_label * 7 + 6)).max(longest_label * 8 + 16);
    let width = (260 + group_count * group_px).clamp(640, 2400) as u32;
    width_for_title(title, width)
}

/// The rules' labels in the legend, under the series' `first` entries: a
/// label on the plot would sit under some workload's bar.
fn draw_rule_legend<DB: DrawingBackend>(
    legend_area: &DrawingArea<DB, plotters::coord::Shift>,
    rules: &[RefLine],
    first: usize,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    for (k, rule) in rules.iter().enumerate() {
        let (x, y) = legend_slot(first + k);
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
    Ok(())
}

pub(super) fn check_bar(title: &str, group: &str, bar: &Bar) -> Result<()> {
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
