//! The folded stacks of the profile passes: files under `profiles/` in a
//! results directory, named by the runs that made them. A file a run
//! names must be there and be folded text; a path that would leave the
//! results directory is refused.

use crate::record::{FoldedStacks, RunResult};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// `dir/name`, where a run's `name` must stay inside the results directory.
pub fn inside(dir: &Path, name: &str) -> Result<PathBuf> {
    let path = Path::new(name);
    if !path.components().all(|c| matches!(c, Component::Normal(_))) {
        bail!("a profile named `{name}` would lie outside the results directory");
    }
    Ok(dir.join(path))
}

/// Every folded file the runs of `dir` name, read and parsed, by name.
pub fn read(dir: &Path, results: &[RunResult]) -> Result<BTreeMap<String, FoldedStacks>> {
    let mut stacks = BTreeMap::new();
    for r in results {
        let Some(pass) = r.outcome.as_ref().and_then(|o| o.profile.as_ref()) else {
            continue;
        };
        for profiler in crate::record::Profiler::ALL {
            let Some(name) = pass.folded(profiler) else {
                continue;
            };
            if stacks.contains_key(name) {
                continue;
            }
            let file = inside(dir, name).with_context(|| format!("{}", r.key))?;
            // a directory copied without its profiles still reports
            // everything else; the stacks are absent, and said to be
            if !file.exists() {
                eprintln!(
                    "warning: {}: its {} profile {} is missing: left out of the stacks",
                    r.key,
                    profiler.word(),
                    file.display()
                );
                continue;
            }
            let text = std::fs::read_to_string(&file).with_context(|| {
                format!("{}: cannot read its profile {}", r.key, file.display())
            })?;
            let folded = FoldedStacks::parse(&text)
                .with_context(|| format!("{} is not folded stacks", file.display()))?;
            stacks.insert(name.to_string(), folded);
        }
    }
    Ok(stacks)
}
