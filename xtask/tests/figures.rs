//! Every figure the README, CONTRIBUTING, docs/, the reports' NOTES.md
//! and the patches' notes generate from the reports' data is what its
//! template gives today (`cargo xtask docs` writes them again).

use std::path::Path;

#[test]
fn every_generated_figure_is_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let stale = xtask::report::figures::stale(&root).unwrap();
    assert!(
        stale.is_empty(),
        "{} stale figure(s), `cargo xtask docs` writes them again:\n{}",
        stale.len(),
        stale
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_documents_with_figures_include_the_readme_and_every_notes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let docs = xtask::report::figures::documents(&root).unwrap();
    assert!(docs.contains(&root.join("README.md")), "{docs:?}");
    let notes = docs.iter().filter(|d| d.ends_with("NOTES.md")).count();
    assert!(notes >= 39, "{notes} NOTES");
    // the README generates its verdict figures: a hand-typed one is what
    // this test exists to stop
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains(xtask::report::figures::OPEN),
        "the README has no figure"
    );
}
