//! Trees: a MariaDB source tree with an id (a git commit), from Debian's
//! archive, a git remote or an existing checkout.
//!
//! Every tree ends up as a local git repository so that it has an id, and
//! so that each variant can be checked out into its own work tree without
//! touching the tree itself.

use crate::util::{cache_root, slug, Command, Stage};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// How the user names a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeSpec {
    /// `debian:<source-package>=<version>`: `apt-get source` from Debian's
    /// archive through a private apt configuration.
    Debian { package: String, version: String },
    /// `git:<url>#<ref>`: a branch, tag or commit of a git remote.
    Git { url: String, reference: String },
    /// `path:<dir>`: an existing git checkout, at its HEAD.
    Path { dir: PathBuf },
}

impl FromStr for TreeSpec {
    type Err = anyhow::Error;

    fn from_str(spec: &str) -> Result<TreeSpec> {
        let forms = "expected debian:<source-package>=<version> \
                     (e.g. debian:mariadb=1:10.11.18-0+deb12u1), git:<url>#<ref> \
                     (e.g. git:https://github.com/MariaDB/server#mariadb-11.8.9) or path:<dir>";
        if let Some(rest) = spec.strip_prefix("debian:") {
            let (package, version) = rest
                .split_once('=')
                .filter(|(p, v)| !p.is_empty() && !v.is_empty())
                .ok_or_else(|| anyhow!("tree `{spec}`: no version after `=`; {forms}"))?;
            return Ok(TreeSpec::Debian {
                package: package.into(),
                version: version.into(),
            });
        }
        if let Some(rest) = spec.strip_prefix("git:") {
            let (url, reference) = rest
                .rsplit_once('#')
                .filter(|(u, r)| !u.is_empty() && !r.is_empty())
                .ok_or_else(|| anyhow!("tree `{spec}`: no `#<ref>` after the url; {forms}"))?;
            return Ok(TreeSpec::Git {
                url: url.into(),
                reference: reference.into(),
            });
        }
        if let Some(dir) = spec.strip_prefix("path:") {
            if dir.is_empty() {
                bail!("tree `{spec}`: empty directory; {forms}");
            }
            return Ok(TreeSpec::Path { dir: dir.into() });
        }
        bail!("tree `{spec}`: unknown kind; {forms}")
    }
}

impl fmt::Display for TreeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeSpec::Debian { package, version } => write!(f, "debian:{package}={version}"),
            TreeSpec::Git { url, reference } => write!(f, "git:{url}#{reference}"),
            TreeSpec::Path { dir } => write!(f, "path:{}", dir.display()),
        }
    }
}

/// A resolved tree: a local git repository at a known commit.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tree {
    /// What the user asked for, e.g. `debian:mariadb=1:10.11.18-0+deb12u1`.
    pub spec: String,
    /// The commit id of the tree's content.
    pub id: String,
    /// The local repository whose work tree holds the source.
    pub src: PathBuf,
    /// From the VERSION file, e.g. `10.11.18`.
    pub version: String,
    /// Major.minor, e.g. `10.11`: selects patches and my.cnf settings.
    pub series: String,
    /// The tree already carries the MDEV-33966 fix (touch()/access_clock
    /// instead of freed_page_clock).
    pub has_upstream_fix: bool,
}

/// Fetches (if needed) and opens the tree named by `spec`.
pub fn resolve(spec: &str) -> Result<Tree> {
    let parsed: TreeSpec = spec.parse()?;
    let src = match &parsed {
        TreeSpec::Debian { package, version } => debian_tree(package, version)?,
        TreeSpec::Git { url, reference } => git_tree(url, reference)?,
        TreeSpec::Path { dir } => {
            let dir = fs::canonicalize(dir)
                .with_context(|| format!("tree `{spec}`: no directory {}", dir.display()))?;
            git2::Repository::open(&dir).with_context(|| {
                format!(
                    "tree `{spec}`: {} is not a git checkout (run `git init` and commit it)",
                    dir.display()
                )
            })?;
            dir
        }
    };
    open(&parsed.to_string(), &src)
}

/// Describes the repository at `src` as a tree.
fn open(spec: &str, src: &Path) -> Result<Tree> {
    let repo = git2::Repository::open(src).with_context(|| {
        format!(
            "tree `{spec}`: cannot open the repository {}",
            src.display()
        )
    })?;
    let head = repo.head()?.peel_to_commit()?;
    if spec.starts_with("path:") {
        let dirty = repo
            .statuses(Some(git2::StatusOptions::new().include_untracked(false)))?
            .iter()
            .any(|s| s.status() != git2::Status::CURRENT);
        if dirty {
            eprintln!(
                "warning: tree `{spec}` has uncommitted changes; builds use its HEAD {} only",
                head.id()
            );
        }
    }
    let (version, series) = read_version(src)?;
    let buf0buf = src.join("storage/innobase/include/buf0buf.h");
    let header = fs::read_to_string(&buf0buf)
        .with_context(|| format!("tree `{spec}`: no InnoDB header {}", buf0buf.display()))?;
    Ok(Tree {
        spec: spec.to_string(),
        id: head.id().to_string(),
        src: src.to_path_buf(),
        version,
        series,
        has_upstream_fix: header.contains("touch_no_stamp") || header.contains("access_clock"),
    })
}

/// Reads MYSQL_VERSION_{MAJOR,MINOR,PATCH} from the tree's VERSION file.
pub fn read_version(src: &Path) -> Result<(String, String)> {
    let path = src.join("VERSION");
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_version(&text).with_context(|| format!("in {}", path.display()))
}

fn parse_version(text: &str) -> Result<(String, String)> {
    let field = |name: &str| -> Result<String> {
        text.lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix(name)?
                    .strip_prefix('=')
                    .map(str::trim)
            })
            .map(str::to_string)
            .ok_or_else(|| anyhow!("no {name}= line"))
    };
    let (major, minor, patch) = (
        field("MYSQL_VERSION_MAJOR")?,
        field("MYSQL_VERSION_MINOR")?,
        field("MYSQL_VERSION_PATCH")?,
    );
    Ok((
        format!("{major}.{minor}.{patch}"),
        format!("{major}.{minor}"),
    ))
}

/// The private apt configuration: deb-src entries for Debian's suites, with
/// its own lists and cache, so the host's apt setup is left as it was.
struct PrivateApt {
    dir: PathBuf,
}

impl PrivateApt {
    const SOURCES: &'static str = "\
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src http://deb.debian.org/debian-security bookworm-security main
deb-src http://deb.debian.org/debian bullseye main
deb-src http://deb.debian.org/debian bullseye-updates main
deb-src http://deb.debian.org/debian-security bullseye-security main
";

    fn new() -> Result<PrivateApt> {
        let dir = cache_root().join("apt");
        for sub in [
            "lists/partial",
            "cache/archives/partial",
            "sources.list.d",
            "preferences.d",
        ] {
            fs::create_dir_all(dir.join(sub))?;
        }
        crate::util::write_atomic(&dir.join("sources.list"), Self::SOURCES.as_bytes())?;
        Ok(PrivateApt { dir })
    }

    fn options(&self) -> Vec<String> {
        let d = |s: &str| self.dir.join(s).display().to_string();
        [
            ("Dir::Etc::SourceList", d("sources.list")),
            ("Dir::Etc::SourceParts", d("sources.list.d")),
            ("Dir::Etc::Preferences", d("preferences")),
            ("Dir::Etc::PreferencesParts", d("preferences.d")),
            ("Dir::State::Lists", d("lists")),
            ("Dir::Cache", d("cache")),
            // the lists live under root's cache, which _apt cannot write
            ("APT::Sandbox::User", "root".to_string()),
        ]
        .into_iter()
        .flat_map(|(k, v)| ["-o".to_string(), format!("{k}={v}")])
        .collect()
    }

    fn update(&self) -> Result<()> {
        Command::new("apt-get")
            .args(self.options())
            .args(["-q", "update"])
            .read()
            .map(|_| ())
    }

    fn download_source(&self, package: &str, version: &str, into: &Path) -> Result<()> {
        Command::new("apt-get")
            .args(self.options())
            .args([
                "-q",
                "source",
                "--download-only",
                &format!("{package}={version}"),
            ])
            .dir(into)
            .read()
            .map(|_| ())
    }
}

/// Downloads and imports a Debian source package; returns its repository.
fn debian_tree(package: &str, version: &str) -> Result<PathBuf> {
    let name = slug(&format!("debian-{package}-{version}"));
    let repo_dir = cache_root().join("trees").join(&name);
    if repo_dir.join(".git").exists() {
        return Ok(repo_dir);
    }
    let downloads = cache_root().join("downloads").join(&name);
    fs::create_dir_all(&downloads)?;
    let dsc = find_dsc(&downloads);
    let dsc = match dsc {
        Some(dsc) => dsc,
        None => {
            let stage = Stage::start(format!(
                "download {package}={version} from Debian's archive"
            ));
            let apt = PrivateApt::new()?;
            apt.update()
                .context("apt-get update with the private deb-src configuration failed")?;
            apt.download_source(package, version, &downloads).with_context(|| {
                format!(
                    "cannot download source package {package}={version}; `apt-cache showsrc {package}` \
                     with the configuration in {} lists the versions the archive has",
                    apt.dir.display()
                )
            })?;
            stage.done();
            find_dsc(&downloads).ok_or_else(|| anyhow!("no .dsc in {}", downloads.display()))?
        }
    };
    let stage = Stage::start(format!("unpack and import {}", dsc.display()));
    let tmp = repo_dir.with_extension("partial");
    if tmp.exists() {
        fs::remove_dir_all(&tmp)?;
    }
    fs::create_dir_all(repo_dir.parent().unwrap())?;
    Command::new("dpkg-source")
        .args(["-x", "--no-check"])
        .arg(dsc.display().to_string())
        .arg(tmp.display().to_string())
        .read()
        .context("dpkg-source could not unpack the source package")?;
    import_as_commit(&tmp, &format!("debian:{package}={version}"))?;
    fs::rename(&tmp, &repo_dir)?;
    stage.done();
    Ok(repo_dir)
}

fn find_dsc(dir: &Path) -> Option<PathBuf> {
    fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "dsc"))
}

/// Makes `dir` a git repository with one commit holding all its files.
/// The signature and time are fixed, so the same source always gets the
/// same id on every machine.
fn import_as_commit(dir: &Path, message: &str) -> Result<git2::Oid> {
    let repo = git2::Repository::init(dir)?;
    let mut index = repo.index()?;
    // FORCE: the upstream tarball ships files that its own .gitignore names
    index.add_all(["*"], git2::IndexAddOption::FORCE, None)?;
    index.write()?;
    let tree = repo.find_tree(index.write_tree()?)?;
    let sig = git2::Signature::new("innodb-lab", "innodb-lab@localhost", &git2::Time::new(0, 0))?;
    Ok(repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &[])?)
}

/// Fetches `url` into a bare mirror and checks `reference` out into a work
/// tree of its own (with the submodules the build needs).
fn git_tree(url: &str, reference: &str) -> Result<PathBuf> {
    let mirror_dir = cache_root().join("git").join(format!("{}.git", slug(url)));
    let mirror = match git2::Repository::open_bare(&mirror_dir) {
        Ok(repo) => repo,
        Err(_) => {
            fs::create_dir_all(&mirror_dir)?;
            let repo = git2::Repository::init_bare(&mirror_dir)?;
            repo.remote("origin", url)?;
            repo
        }
    };
    let commit = match mirror
        .revparse_single(reference)
        .and_then(|o| o.peel_to_commit())
    {
        Ok(c) => c.id(),
        Err(_) => {
            let stage = Stage::start(format!("fetch {url}"));
            let mut remote = mirror.find_remote("origin")?;
            let mut refspecs = vec![
                "+refs/heads/*:refs/heads/*".to_string(),
                "+refs/tags/*:refs/tags/*".to_string(),
            ];
            if reference.len() == 40 && reference.chars().all(|c| c.is_ascii_hexdigit()) {
                refspecs.push(reference.to_string());
            }
            remote.fetch(&refspecs, None, None).with_context(|| {
                format!("cannot fetch {url} (is the remote reachable from this machine?)")
            })?;
            stage.done();
            mirror
                .revparse_single(reference)
                .and_then(|o| o.peel_to_commit())
                .with_context(|| format!("{url} has no branch, tag or commit `{reference}`"))?
                .id()
        }
    };
    let work_dir =
        cache_root()
            .join("trees")
            .join(format!("git-{}-{}", slug(url), &commit.to_string()[..12]));
    if work_dir.join(".git").exists() {
        return Ok(work_dir);
    }
    let stage = Stage::start(format!("check out {reference} ({commit})"));
    let tmp = work_dir.with_extension("partial");
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
fn init_submodules(repo: &git2::Repository) -> Result<()> {
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

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    Command::new("cp")
        .args(["-a", "--reflink=auto", "-T"])
        .arg(from.display().to_string())
        .arg(to.display().to_string())
        .read()
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_kinds() {
        assert_eq!(
            "debian:mariadb=1:10.11.18-0+deb12u1"
                .parse::<TreeSpec>()
                .unwrap(),
            TreeSpec::Debian {
                package: "mariadb".into(),
                version: "1:10.11.18-0+deb12u1".into()
            }
        );
        assert_eq!(
            "git:https://github.com/MariaDB/server#mariadb-11.8.9"
                .parse::<TreeSpec>()
                .unwrap(),
            TreeSpec::Git {
                url: "https://github.com/MariaDB/server".into(),
                reference: "mariadb-11.8.9".into()
            }
        );
        assert_eq!(
            "path:/src/server".parse::<TreeSpec>().unwrap(),
            TreeSpec::Path {
                dir: "/src/server".into()
            }
        );
    }

    #[test]
    fn bad_specs_say_what_is_expected() {
        for bad in ["debian:mariadb", "git:https://x/y", "svn:foo", "path:"] {
            let err = bad.parse::<TreeSpec>().unwrap_err().to_string();
            assert!(err.contains(bad) && err.contains("expected"), "{err}");
        }
    }

    #[test]
    fn version_file() {
        let text = "MYSQL_VERSION_MAJOR=10\nMYSQL_VERSION_MINOR=11\nMYSQL_VERSION_PATCH=18\nSERVER_MATURITY=stable\n";
        assert_eq!(
            parse_version(text).unwrap(),
            ("10.11.18".into(), "10.11".into())
        );
        assert!(parse_version("MYSQL_VERSION_MAJOR=10\n")
            .unwrap_err()
            .to_string()
            .contains("MINOR"));
    }

    #[test]
    fn git_and_path_trees_from_a_local_repository() {
        // a tiny "server" tree: enough for resolve() to read its version and header
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("server");
        fs::create_dir_all(src.join("storage/innobase/include")).unwrap();
        fs::write(
            src.join("VERSION"),
            "MYSQL_VERSION_MAJOR=11\nMYSQL_VERSION_MINOR=8\nMYSQL_VERSION_PATCH=10\n",
        )
        .unwrap();
        fs::write(
            src.join("storage/innobase/include/buf0buf.h"),
            "void touch_no_stamp();\n",
        )
        .unwrap();
        let id = import_as_commit(&src, "test").unwrap();
        std::env::set_var("INNODB_LAB_CACHE", dir.path().join("cache"));

        let tree = resolve(&format!("path:{}", src.display())).unwrap();
        assert_eq!(
            (tree.id.as_str(), tree.series.as_str()),
            (id.to_string().as_str(), "11.8")
        );
        assert!(tree.has_upstream_fix);

        let tree = resolve(&format!("git:file://{}#HEAD", src.display())).unwrap();
        assert_eq!(tree.id, id.to_string());
        assert_eq!(tree.version, "11.8.10");
        let missing = resolve(&format!("git:file://{}#no-such-tag", src.display())).unwrap_err();
        assert!(
            format!("{missing:#}").contains("no-such-tag"),
            "{missing:#}"
        );

        let out = dir.path().join("checkout");
        checkout(&tree, &out).unwrap();
        assert!(out.join("VERSION").exists());
    }
}
