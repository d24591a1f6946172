//! The history between two commits of a git tree, for bisection: the
//! commits after `good` up to and including `bad`, oldest first, along
//! first parents (a merge is one step, as `git bisect --first-parent`
//! takes it), each with the tree spec that names the tree at it.

use super::*;

/// One commit: its full id, the first line of its message, and the spec
/// of the tree at it (`git:<url>#<id>` or `path:<dir>#<id>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryCommit {
    pub id: String,
    pub subject: String,
    pub spec: String,
}

/// `good` and the commits after it up to `bad`, oldest first (`bad` last).
#[derive(Debug, Clone)]
pub struct History {
    pub good: HistoryCommit,
    pub after_good: Vec<HistoryCommit>,
}

/// The history of the repository `spec` names (its own reference is
/// ignored) between `good` and `bad`.
pub fn history(spec: &TreeSpec, good: &str, bad: &str) -> Result<History> {
    history_in(spec, good, bad, &cache_root())
}

/// `history` with the cache at `cache` (where a git remote is mirrored).
pub fn history_in(spec: &TreeSpec, good: &str, bad: &str, cache: &Path) -> Result<History> {
    let (repo, prefix) = match spec {
        TreeSpec::Git { url, .. } => (mirror(url, &[good, bad], cache)?.0, format!("git:{url}")),
        TreeSpec::Path { dir, .. } => {
            let dir = fs::canonicalize(dir)
                .with_context(|| format!("tree `{spec}`: no directory {}", dir.display()))?;
            let repo = git2::Repository::open(&dir).with_context(|| {
                format!("tree `{spec}`: {} is not a git repository", dir.display())
            })?;
            (repo, format!("path:{}", dir.display()))
        }
        _ => bail!(
            "tree `{spec}`: a bisection walks the commits of a git repository; name one as \
             git:<url>#<ref> or path:<dir> (a Debian source or a package has no history)"
        ),
    };
    let find = |reference: &str| {
        repo.revparse_single(reference)
            .and_then(|o| o.peel_to_commit())
            .with_context(|| format!("tree `{spec}`: no branch, tag or commit `{reference}`"))
    };
    let good_commit = find(good)?;
    let bad_commit = find(bad)?;
    let described = |c: &git2::Commit| HistoryCommit {
        id: c.id().to_string(),
        subject: c
            .summary_bytes()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default(),
        spec: format!("{prefix}#{}", c.id()),
    };
    if good_commit.id() == bad_commit.id() {
        bail!(
            "--good {good} and --bad {bad} are the same commit {}",
            good_commit.id()
        );
    }
    if !repo.graph_descendant_of(bad_commit.id(), good_commit.id())? {
        bail!(
            "--bad {bad} ({}) does not descend from --good {good} ({}): the good commit must \
             come first in the history (swap them to find the commit that fixed something)",
            bad_commit.id(),
            good_commit.id()
        );
    }
    let mut walk = repo.revwalk()?;
    walk.push(bad_commit.id())?;
    walk.hide(good_commit.id())?;
    walk.simplify_first_parent()?;
    walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::REVERSE)?;
    let mut after_good = Vec::new();
    for oid in walk {
        after_good.push(described(&repo.find_commit(oid?)?));
    }
    // along first parents the walk must start right after good: a good
    // commit on a merged side branch would let in mainline commits that
    // do not contain it
    let first = repo.find_commit(git2::Oid::from_str(&after_good[0].id)?)?;
    if first.parent_id(0).ok() != Some(good_commit.id()) {
        bail!(
            "--good {good} ({}) is not on the first-parent history of --bad {bad}: name a \
             commit of that line (for a merged branch, its merge commit's first parent)",
            good_commit.id()
        );
    }
    Ok(History {
        good: described(&good_commit),
        after_good,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository of `n` commits on one file, each with a fixed time:
    /// (dir, ids oldest first).
    fn linear_repo(n: usize) -> (tempfile::TempDir, Vec<git2::Oid>) {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let mut ids = Vec::new();
        for i in 0..n {
            fs::write(dir.path().join("f"), format!("{i}\n")).unwrap();
            let mut index = repo.index().unwrap();
            index.add_path(Path::new("f")).unwrap();
            let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
            let sig = git2::Signature::new("t", "t@t", &git2::Time::new(i as i64, 0)).unwrap();
            let parents: Vec<git2::Commit> = ids
                .last()
                .map(|id| repo.find_commit(*id).unwrap())
                .into_iter()
                .collect();
            let parents: Vec<&git2::Commit> = parents.iter().collect();
            let id = repo
                .commit(
                    Some("HEAD"),
                    &sig,
                    &sig,
                    &format!("commit {i}"),
                    &tree,
                    &parents,
                )
                .unwrap();
            ids.push(id);
        }
        (dir, ids)
    }

    #[test]
    fn the_commits_after_good_up_to_bad_oldest_first() {
        let (dir, ids) = linear_repo(5);
        let spec: TreeSpec = format!("path:{}", dir.path().display()).parse().unwrap();
        let h = history_in(&spec, &ids[1].to_string(), "HEAD", dir.path()).unwrap();
        assert_eq!(h.good.id, ids[1].to_string());
        let got: Vec<&str> = h.after_good.iter().map(|c| c.id.as_str()).collect();
        let want: Vec<String> = ids[2..].iter().map(|i| i.to_string()).collect();
        assert_eq!(got, want);
        assert_eq!(h.after_good[0].subject, "commit 2");
        let canonical = fs::canonicalize(dir.path()).unwrap();
        assert_eq!(
            h.after_good[2].spec,
            format!("path:{}#{}", canonical.display(), ids[4])
        );
        // swapped endpoints, one commit twice, a reference it lacks
        let swapped = history_in(&spec, "HEAD", &ids[1].to_string(), dir.path()).unwrap_err();
        assert!(
            format!("{swapped:#}").contains("does not descend"),
            "{swapped:#}"
        );
        let same = history_in(&spec, "HEAD", "HEAD", dir.path()).unwrap_err();
        assert!(format!("{same:#}").contains("the same commit"), "{same:#}");
        let missing = history_in(&spec, "v1.0", "HEAD", dir.path()).unwrap_err();
        assert!(format!("{missing:#}").contains("`v1.0`"), "{missing:#}");
        let debian =
            history_in(&"debian:mariadb=1".parse().unwrap(), "a", "b", dir.path()).unwrap_err();
        assert!(
            format!("{debian:#}").contains("has no history"),
            "{debian:#}"
        );
    }
}
