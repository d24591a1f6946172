//! SVG charts for the reports: grouped bars (one group per workload, one
//! bar per variant with its interval) and lines (a metric against threads
//! or time, one line per variant). Pure functions from data to an SVG
//! string; the same input gives the same bytes, so reports can be diffed
//! and the charts snapshot-tested.
//!
//! plotters is built without a font backend: the SVG keeps text as
//! `<text>` elements for the viewer to render, and plotters only estimates
//! text widths for the layout, so no system font library is needed.

mod bars;
mod frame;
mod lines;
pub mod png;
mod style;

pub use bars::{grouped_bars, grouped_points};
pub use lines::{lines, lines_on_data};

/// How a series is drawn: the colour of its bars or line and the marker
/// on each value. The caller chooses it, so that one variant keeps its
/// look in every chart (and every report) whatever else is drawn beside
/// it; colour i is taken mod 7 and marker i mod 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub colour: usize,
    pub marker: usize,
    /// the colour as it is, or lighter or darker: kinds of one variant
    /// (its settings changed) keep its colour in another shade
    pub shade: Shade,
}

/// A colour's shade: as the palette gives it, mixed with white, or with
/// black.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shade {
    Full,
    Light,
    Dark,
}

impl Style {
    /// Colour i and marker i: series i of a chart whose series have no
    /// meaning of their own.
    pub fn nth(i: usize) -> Style {
        Style {
            colour: i,
            marker: i,
            shade: Shade::Full,
        }
    }
}

/// The region a margin allows under a series: from each of its values
/// less `below` up to the value, shaded behind the points (a group wide in
/// grouped charts, along the line in line charts), with `label` in the
/// legend. A margin question's baseline gets one: a variant whose value
/// lies in or above it is within the margin by eye (the verdict decides by
/// the interval of the difference).
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    pub series: String,
    pub below: f64,
    pub label: String,
    /// the groups of a grouped chart it is drawn in (a question about
    /// some workloads); every group when empty. Line charts draw it along
    /// the whole line.
    pub groups: Vec<String>,
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
pub struct RefLine {
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

#[cfg(test)]
mod tests {
    use super::frame::*;
    use super::style::*;
    use super::*;
    use plotters::prelude::RGBColor;
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

    /// A margin's band sits under its series in every group (and along its
    /// line), in a pale fill of the series' colour with its own legend
    /// entry, and the axis reaches its foot; a band under a series the
    /// chart does not draw is refused by name.
    #[test]
    fn a_margin_band_is_drawn_under_its_series_and_the_axis_reaches_its_foot() {
        let groups = [
            BarGroup {
                label: "w1".into(),
                bars: vec![
                    bar("base", Some(92.0), None),
                    bar("fixed", Some(91.9), None),
                ],
            },
            BarGroup {
                label: "w2".into(),
                bars: vec![bar("fixed", Some(93.0), None)],
            },
            BarGroup {
                label: "w3".into(),
                bars: vec![bar("base", Some(94.0), None)],
            },
        ];
        let band = Band {
            series: "base".into(),
            below: 3.0,
            label: "base less 3 points".into(),
            groups: Vec::new(),
        };
        let fill = band_fill(look("base"));
        let svg =
            grouped_points("hit ratio", "%", &groups, &[], std::slice::from_ref(&band)).unwrap();
        let doc = parse(&svg);
        // w1 and w3 have base; w2 has none; and the legend's box
        assert_eq!(filled_rects(&doc, fill), 2 + 1);
        assert!(texts(&doc).iter().any(|t| t == "base less 3 points"));
        // 92 - 3 = 89: the axis goes below it
        let ticks: Vec<f64> = texts(&doc).iter().filter_map(|t| t.parse().ok()).collect();
        assert!(ticks.iter().any(|t| *t <= 89.0), "{ticks:?}");
        // a band about w3 alone: its box there, and the legend's
        let w3 = Band {
            groups: vec!["w3".into()],
            ..band.clone()
        };
        let svg = grouped_points("hit ratio", "%", &groups, &[], &[w3]).unwrap();
        assert_eq!(filled_rects(&parse(&svg), fill), 1 + 1);
        let unknown = Band {
            series: "gate".into(),
            ..band.clone()
        };
        let err = grouped_points("hit ratio", "%", &groups, &[], &[unknown]).unwrap_err();
        assert!(err.to_string().contains("\"gate\""), "{err}");

        let svg = lines_on_data("t", "x", "y", &example_lines(), &[band]).unwrap();
        let doc = parse(&svg);
        let strips = elements(&doc, "polygon")
            .filter(|n| {
                n.attribute("fill")
                    .is_some_and(|v| v.eq_ignore_ascii_case(&hex(fill)))
            })
            .count();
        assert_eq!(strips, 1, "one strip along base's line");
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
        let rule = RefLine {
            y: 91.9,
            label: "base less 0.2 points".into(),
        };
        let svg = grouped_points("hit ratio", "%", &groups, &[rule], &[]).unwrap();
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
        let on_data = lines_on_data("t", "x", "y", &example_lines(), &[]).unwrap();
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
        let rule = RefLine {
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
        let bad = RefLine {
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
