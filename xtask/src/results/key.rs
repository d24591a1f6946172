//! The key of one cell repetition: which tree, variant, workload, thread
//! count and repetition a result belongs to. Every place that groups,
//! orders, names or finds results uses this type, never loose strings.

use crate::record::{Cell, CellKey};
use std::fmt;
use std::path::{Path, PathBuf};

impl CellKey {
    pub fn new(tree: &str, variant: &str, workload: &str, threads: u32, repetition: u32) -> Self {
        CellKey {
            tree: tree.to_string(),
            variant: variant.to_string(),
            workload: workload.to_string(),
            threads,
            repetition,
        }
    }

    pub fn cell(&self) -> Cell {
        Cell {
            tree: self.tree.clone(),
            variant: self.variant.clone(),
            workload: self.workload.clone(),
            threads: self.threads,
        }
    }

    /// `<out>/runs/<tree>/<variant>/<workload>/threads-<n>/rep<r>.json`.
    /// (Schema 1 wrote `<workload>/rep<r>.json`; reading finds both.)
    pub fn path(&self, out: &Path) -> PathBuf {
        use crate::util::slug;
        out.join("runs")
            .join(slug(&self.tree))
            .join(slug(&self.variant))
            .join(slug(&self.workload))
            .join(format!("threads-{}", self.threads))
            .join(format!("rep{}.json", self.repetition))
    }
}

impl Cell {
    pub fn with_variant(&self, variant: &str) -> Cell {
        Cell {
            variant: variant.to_string(),
            ..self.clone()
        }
    }
}

impl fmt::Display for CellKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} rep {}", self.cell(), self.repetition)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {} thread{}",
            self.tree,
            self.variant,
            self.workload,
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys_order_by_their_fields_and_name_their_file() {
        let a = CellKey::new("10.11.18", "base", "points-covered-pk", 2, 1);
        let b = CellKey::new("10.11.18", "base", "points-covered-pk", 2, 2);
        let c = CellKey::new("10.11.18", "base", "points-covered-pk", 4, 1);
        let mut v = vec![c.clone(), b.clone(), a.clone()];
        v.sort();
        assert_eq!(v, vec![a.clone(), b.clone(), c.clone()]);
        assert_eq!(
            [a.clone(), a.clone(), b.clone()]
                .into_iter()
                .collect::<HashSet<_>>()
                .len(),
            2
        );
        assert_eq!(
            a.to_string(),
            "10.11.18 base points-covered-pk 2 threads rep 1"
        );
        assert_eq!(
            CellKey::new("t", "v", "w", 1, 3).to_string(),
            "t v w 1 thread rep 3"
        );
        assert_eq!(
            a.path(Path::new("/o")),
            PathBuf::from("/o/runs/10.11.18/base/points-covered-pk/threads-2/rep1.json")
        );
        assert_eq!(a.cell(), b.cell());
        assert_ne!(a.cell(), c.cell());
    }
}
