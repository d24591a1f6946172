//! TEMPORARY stand-in for the SVG charts of issue 10 (branch stats-svg):
//! same signatures, a minimal drawing, until they land on main.

use anyhow::{ensure, Result};
use std::fmt::Write;

#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub series: String,
    pub value: Option<f64>,
    pub interval: Option<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BarGroup {
    pub label: String,
    pub bars: Vec<Bar>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub series: String,
    pub points: Vec<(f64, f64, Option<(f64, f64)>)>,
}

pub fn grouped_bars(title: &str, y_label: &str, groups: &[BarGroup]) -> Result<String> {
    ensure!(!groups.is_empty(), "bar chart {title:?}: no groups to draw");
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"480\"><title>{title}</title><text x=\"10\" y=\"20\">{title} ({y_label})</text>");
    for (i, g) in groups.iter().enumerate() {
        let _ = write!(s, "<text x=\"10\" y=\"{}\">{}:", 40 + 20 * i, g.label);
        for b in &g.bars {
            let _ = write!(s, " {}={:?}", b.series, b.value);
        }
        s.push_str("</text>");
    }
    s.push_str("</svg>\n");
    Ok(s)
}

pub fn lines(title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> Result<String> {
    ensure!(!lines.is_empty(), "line chart {title:?}: no lines to draw");
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"480\"><title>{title}</title><text x=\"10\" y=\"20\">{title} ({y_label} against {x_label})</text>");
    for (i, l) in lines.iter().enumerate() {
        let _ = write!(
            s,
            "<text x=\"10\" y=\"{}\">{}: {:?}</text>",
            40 + 20 * i,
            l.series,
            l.points
        );
    }
    s.push_str("</svg>\n");
    Ok(s)
}
