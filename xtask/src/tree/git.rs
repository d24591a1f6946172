//! Git trees: a bare mirror of a remote and a work tree per reference,
//! checkouts of a tree for one variant, and cherry-picks onto them.

use super::*;

/// The bare mirror of `url` in the cache, fetched when one of
/// `references` (branches, tags or commits) is not in it yet.
pub(super) fn mirror(
    url: &str,
    references: &[&str],
    cache: &Path,
) -> Result<(git2::Repository, PathBuf)> {
    let mirror_dir = cache.join("git").join(format!("{}.git", slug(url)));
    let mirror = match git2::Repository::open_bare(&mirror_dir) {
        Ok(repo) => repo,
        Err(_) => {
            fs::create_dir_all(&mirror_dir)?;
            let repo = git2::Repository::init_bare(&mirror_dir)?;
            repo.remote("origin", url)?;
            repo
        }
    };
    let has = |r: &str| {
        mirror
            .revparse_single(r)
            .and_then(|o| o.peel_to_commit())
            .is_ok()
    };
    if !references.iter().all(|r| has(r)) {
        let stage = Stage::start(format!("fetch {url}"));
        let mut remote = mirror.find_remote("origin")?;
        let mut refspecs = vec![
            "+refs/heads/*:refs/heads/*".to_string(),
            "+refs/tags/*:refs/tags/*".to_string(),
        ];
        for r in references {
            if r.len() == 40 && r.chars().all(|c| c.is_ascii_hexdigit()) {
                refspecs.push(r.to_string());
            }
        }
        remote.fetch(&refspecs, None, None).with_context(|| {
            format!("cannot fetch {url} (is the remote reachable from this machine?)")
        })?;
        drop(remote);
        stage.done();
    }
    Ok((mirror, mirror_dir))
}

/// Fetches `url` into a bare mirror and checks `reference` out into a work
/// tree of its own (with the submodules the build needs).
pub(super) fn git_tree(url: &str, reference: &str, cache: &Path) -> Result<PathBuf> {
    let (mirror, mirror_dir) = mirror(url, &[reference], cache)?;
    let commit = mirror
        .revparse_single(reference)
        .and_then(|o| o.peel_to_commit())
        .with_context(|| format!("{url} has no branch, tag or commit `{reference}`"))?
        .id();
    let work_dir =
        cache
            .join("trees")
            .join(format!("git-{}-{}", slug(url), &commit.to_string()[..12]));
    if work_dir.join(".git").exists() {
        return Ok(work_dir);
    }
    let stage = Stage::start(format!("check out {reference} ({commit})"));
    // with_file_name, not with_extension: the url's dots are no extension
    let tmp = work_dir.with_file_name(format!(
        "{}.partial",
        work_dir.file_name().unwrap_or_default().to_string_lossy()
    ));
    if tmp.exists() {
        fs::remove_dir_all(&tmp)?;
    }
    {
        let repo = git2::Repository::clone(mirror_dir.to_str().unwrap(), &tmp)?;
        let object = repo.find_object(commit, None)?;
        repo.checkout_tree(&object, Some(git2::build::CheckoutBuilder::new().force()))?;
        repo.set_head_detached(commit)?;
        // relative submodule urls resolve against the real remote, not the mirror
        repo.remote_set_url("origin", url)?;
        init_submodules(&repo)?;
    }
    fs::rename(&tmp, &work_dir)?;
    stage.done();
    Ok(work_dir)
}

/// The submodules a server build needs: the client library (always) and
/// wsrep-lib (cmake looks for it even with WITH_WSREP=OFF in some series).
pub(super) fn init_submodules(repo: &git2::Repository) -> Result<()> {
    const NEEDED: [&str; 2] = ["libmariadb", "wsrep-lib"];
    for mut sm in repo.submodules()? {
        if NEEDED.contains(&sm.path().to_str().unwrap_or("")) {
            let name = sm.path().display().to_string();
            sm.update(true, None)
                .with_context(|| format!("cannot fetch submodule {name} (url {:?})", sm.url()))?;
        }
    }
    Ok(())
}

/// A fresh checkout of `tree` at its id, in `dest` (which must not exist).
/// Variants are patched in such checkouts, never in the tree itself.
pub fn checkout(tree: &Tree, dest: &Path) -> Result<git2::Repository> {
    if dest.exists() {
        fs::remove_dir_all(dest).with_context(|| format!("cannot remove {}", dest.display()))?;
    }
    let repo = git2::build::RepoBuilder::new()
        .clone_local(git2::build::CloneLocal::Local)
        .clone(tree.src.to_str().context("tree path is not UTF-8")?, dest)
        .with_context(|| {
            format!(
                "cannot clone {} into {}",
                tree.src.display(),
                dest.display()
            )
        })?;
    let commit = git2::Oid::from_str(&tree.id)?;
    repo.checkout_tree(
        &repo.find_object(commit, None)?,
        Some(git2::build::CheckoutBuilder::new().force()),
    )?;
    repo.set_head_detached(commit)?;
    // submodule work trees (git: trees) are copied as they are checked out
    let src_repo = git2::Repository::open(&tree.src)?;
    for sm in src_repo.submodules()? {
        let from = tree.src.join(sm.path());
        if from.join(".git").exists() {
            copy_dir(&from, &dest.join(sm.path()))?;
        }
    }
    Ok(repo)
}

/// Cherry-picks `commits` (fetched from `remote`) onto the checkout `repo`,
/// in order, into its work tree and index. A commit that conflicts is an
/// error naming the commit and the conflicting files; nothing is guessed.
pub fn cherry_pick(repo: &git2::Repository, remote: &str, commits: &[String]) -> Result<()> {
    let missing: Vec<&String> = commits
        .iter()
        .filter(|c| {
            git2::Oid::from_str(c)
                .and_then(|o| repo.find_commit(o))
                .is_err()
        })
        .collect();
    if !missing.is_empty() {
        let mut origin = repo.remote_anonymous(remote)?;
        let refspecs: Vec<&str> = missing.iter().map(|c| c.as_str()).collect();
        origin.fetch(&refspecs, None, None).with_context(|| {
            format!(
                "cannot fetch {} from {remote} (is the remote reachable from this machine?)",
                refspecs.join(" ")
            )
        })?;
    }
    let sig = git2::Signature::new("innodb-lab", "innodb-lab@localhost", &git2::Time::new(0, 0))?;
    for c in commits {
        let oid = git2::Oid::from_str(c).with_context(|| format!("`{c}` is not a commit id"))?;
        let commit = repo
            .find_commit(oid)
            .with_context(|| format!("{remote} has no commit {c}"))?;
        repo.cherrypick(&commit, None)
            .with_context(|| format!("cherry-pick of {c} failed"))?;
        let mut index = repo.index()?;
        if index.has_conflicts() {
            let files: Vec<String> = index
                .conflicts()?
                .flatten()
                .filter_map(|c| c.our.or(c.their).or(c.ancestor))
                .map(|e| String::from_utf8_lossy(&e.path).into_owned())
                .collect();
            repo.cleanup_state()?;
            bail!(
                "cherry-pick of {c} from {remote} conflicts in: {}",
                files.join(", ")
            );
        }
        // commit it, so that the next pick starts from a clean index
        let tree = repo.find_tree(index.write_tree()?)?;
        let head = repo.head()?.peel_to_commit()?;
        let message = commit.message().unwrap_or("cherry-pick");
        let new = repo.commit(None, &sig, &sig, message, &tree, &[&head])?;
        repo.set_head_detached(new)?;
        repo.cleanup_state()?;
    }
    Ok(())
}

pub(super) fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    Command::new("cp")
        .args(["-a", "--reflink=auto", "-T"])
        .arg(from.display().to_string())
        .arg(to.display().to_string())
        .read()
        .map(|_| ())
}
