//! PNG renderings of the SVG charts, for Jira: many Jira instances show an
//! attached PNG inline and an SVG only as a link. Debian's `rsvg-convert`
//! (librsvg2-bin, which tools/install-deps.sh installs) renders them, with
//! DejaVu Sans for the charts' sans-serif text and white behind them.

use crate::environment;
use crate::util::Command;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The renderer's program.
pub const RENDERER: &str = "rsvg-convert";

/// The PNG beside `svg`: the same name with `.png`.
pub fn png_name(svg: &str) -> String {
    match svg.strip_suffix(".svg") {
        Some(stem) => format!("{stem}.png"),
        None => format!("{svg}.png"),
    }
}

/// Renders `svg` into the PNG beside it and returns its path; the
/// renderer missing is an error that says how to install it.
pub fn render(svg: &Path) -> Result<PathBuf> {
    if environment::current().find_program(RENDERER).is_none() {
        bail!(
            "{RENDERER} is not installed: the PNG renderings of the charts (which report.jira \
             shows) need it; `apt-get install librsvg2-bin` (tools/install-deps.sh installs it)"
        );
    }
    let name = svg
        .file_name()
        .and_then(|n| n.to_str())
        .with_context(|| format!("{}: not a chart file name", svg.display()))?;
    let png = svg.with_file_name(png_name(name));
    // the renderer writes a scratch file; the PNG itself is written
    // atomically, as every file of a report is
    let scratch = tempfile::Builder::new()
        .suffix(".png")
        .tempfile()
        .context("no temporary file for the PNG renderer")?;
    Command::new(RENDERER)
        .args(["--background-color", "white", "--output"])
        .arg(scratch.path().display().to_string())
        .arg(svg.display().to_string())
        .deadline(Duration::from_secs(120))
        .read()
        .with_context(|| format!("rendering {} as a PNG", svg.display()))?;
    let bytes = std::fs::read(scratch.path())
        .with_context(|| format!("reading the PNG rendered from {}", svg.display()))?;
    crate::util::write_atomic(&png, &bytes)?;
    Ok(png)
}

/// The width and height a PNG file says it has (its IHDR chunk).
pub fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.len() < 24 || &bytes[..8] != SIGNATURE || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    Some((word(16), word(20)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_is_named_and_measured_as_its_png() {
        assert_eq!(png_name("qps-change.svg"), "qps-change.png");
        let mut header = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        header.extend(640u32.to_be_bytes());
        header.extend(480u32.to_be_bytes());
        assert_eq!(png_size(&header), Some((640, 480)));
        assert_eq!(png_size(b"<svg"), None);
    }

    /// The real renderer: a chart of ours comes out as a PNG of the SVG's
    /// size.
    #[test]
    #[ignore = "needs rsvg-convert (librsvg2-bin): cargo xtask test installs it and runs this"]
    fn a_chart_renders_as_a_png_of_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("chart.svg");
        let text = super::super::lines_on_data(
            "a line",
            "threads",
            "QPS",
            &[super::super::Line {
                series: "base".into(),
                style: super::super::Style::nth(0),
                points: vec![(1.0, 2.0, None), (2.0, 3.0, Some((2.5, 3.5)))],
            }],
            &[],
        )
        .unwrap();
        std::fs::write(&svg, text).unwrap();
        let png = render(&svg).unwrap();
        assert_eq!(png, dir.path().join("chart.png"));
        let size = png_size(&std::fs::read(&png).unwrap());
        assert_eq!(size, Some((800, 480)));
    }
}
