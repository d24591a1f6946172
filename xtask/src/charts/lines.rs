//! Line charts: a metric against threads or time, one line per variant.

use super::frame::*;
use super::style::*;
use super::{Band, Line, Point};
use anyhow::{bail, ensure, Result};
use plotters::prelude::*;

/// Line chart: one line per series through its points in the order of x,
/// a marker at each point and an error bar for each interval. The y axis
/// includes 0, so a ratio of lines reads as a ratio of heights.
pub fn lines(title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> Result<String> {
    line_chart(title, x_label, y_label, lines, &[], Axis::FromZero)
}

/// `lines` on a y axis that spans the points and not 0: for curves a few
/// points apart high on their scale (hit ratios near 90%). Each of `bands`
/// shades the strip from its line less its margin up to the line.
pub fn lines_on_data(
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    bands: &[Band],
) -> Result<String> {
    line_chart(title, x_label, y_label, lines, bands, Axis::Data)
}

/// A line's points in the order of x, each a finite number and each
/// interval with lo <= hi.
fn sorted_points(title: &str, line: &Line) -> Result<Vec<Point>> {
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
    Ok(points)
}

pub(super) fn line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    bands: &[Band],
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
    let sorted = lines
        .iter()
        .map(|line| sorted_points(title, line))
        .collect::<Result<Vec<_>>>()?;
    // each band's outline: along its line, then back along the line less
    // its margin
    let strips = bands
        .iter()
        .map(|band| {
            let at = band_series(title, band, &series)?;
            let line = &sorted[at];
            let outline: Vec<(f64, f64)> = line
                .iter()
                .map(|&(x, y, _)| (x, y))
                .chain(line.iter().rev().map(|&(x, y, _)| (x, y - band.below)))
                .collect();
            Ok((band, series[at].1, outline))
        })
        .collect::<Result<Vec<_>>>()?;
    let feet: Vec<Point> = strips
        .iter()
        .flat_map(|(_, _, o)| o.iter().map(|&(x, y)| (x, y, None)))
        .collect();
    let all = sorted.iter().flatten().chain(&feet);
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

    let width = width_for_title(title, 800);
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (width, height_for(series.len() + bands.len())))
                .into_drawing_area();
        root.fill(&WHITE)?;
        let (title, root) = with_note(title, root)?;
        // the title over the whole image, not over the plot beside the legend
        let root = root.titled(title, (FONT, 20))?;
        let names: Vec<String> = series
            .iter()
            .map(|(s, _)| s.clone())
            .chain(bands.iter().map(|b| b.label.clone()))
            .collect();
        let (plot_area, legend_area) = root.split_horizontally(width - legend_width(&names));
        let mut chart = ChartBuilder::on(&plot_area)
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
        for (_, style, outline) in &strips {
            chart.draw_series([Polygon::new(outline.clone(), band_fill(*style).filled())])?;
        }
        for (s, ((name, style), points)) in series.iter().zip(&sorted).enumerate() {
            let c = paint(*style);
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
        for (k, (band, style, _)) in strips.iter().enumerate() {
            draw_band_legend_entry(
                &legend_area,
                series.len() + k,
                &band.label,
                band_fill(*style),
            )?;
        }
        root.present()?;
    }
    Ok(svg)
}
