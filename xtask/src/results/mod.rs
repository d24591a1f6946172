//! Results: the layer between running and reporting. A cell's key, where
//! its result lives, how results are written and read (both schemas), and
//! what a failure records. The runner writes through it; reports and
//! `validate` read through it; neither knows about the other.

pub mod failure;
pub mod key;
pub mod manifest;
pub mod merge;
pub mod metric;
pub mod question;
pub mod store;

pub use manifest::Manifest;
pub use metric::Metric;
pub use question::Question;
pub use store::read_results;

#[cfg(test)]
mod tests {
    /// results < report < matrix: no module imports one above it, so
    /// reports stay functions of results and the runner writes them.
    #[test]
    fn layers_do_not_import_upward() {
        let src = crate::util::repo_root().join("xtask/src");
        let below: [(&str, &[&str]); 3] = [
            ("results", &["report", "matrix", "validate"]),
            ("report", &["matrix", "validate"]),
            ("matrix", &["validate"]),
        ];
        for (dir, banned) in below {
            for entry in std::fs::read_dir(src.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let text = std::fs::read_to_string(&path).unwrap();
                for b in banned {
                    // built here, so that this test does not find itself
                    let import = format!("crate::{b}");
                    assert!(
                        !text.contains(&import),
                        "{} imports {import}",
                        path.display()
                    );
                }
            }
        }
    }
}
