//! How a report writes a number: n/a where nothing was measured, p
//! values that never print as 0.000, counts with their noun. Every
//! renderer of `report/` reads these; they read nothing of the report.

/// A number for a table: n/a when not measured.
pub fn num(v: Option<f64>, digits: usize) -> String {
    v.map(|x| format!("{x:.digits$}"))
        .unwrap_or_else(|| "n/a".into())
}

/// A p value with three decimals, or below 0.001 with two significant
/// digits (0.00016), so that the smallest p 5 runs a side allow is not
/// printed as 0.000.
pub fn p_words(p: Option<f64>) -> String {
    match p {
        None => "n/a".into(),
        Some(p) if p > 0.0 && p < 0.001 => {
            let digits = (-p.log10()).ceil() as usize + 1;
            format!("{p:.digits$}")
        }
        Some(p) => format!("{p:.3}"),
    }
}

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
