//! Trees: a MariaDB or MySQL source tree with an id (a git commit), from
//! Debian's archive, a git remote or an existing checkout.
//!
//! Every tree ends up as a local git repository so that it has an id, and
//! so that each variant can be checked out into its own work tree without
//! touching the tree itself.

use crate::dims::{carries_upstream_fix, Engine, Series, TreeVersion};
use crate::record::Tree;
use crate::util::{cache_root, slug, Command, Stage};
use anyhow::{anyhow, bail, Context, Result};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;

mod debian;
mod debian_pool;
mod git;
mod history;

pub use debian::*;
pub use git::*;
pub use history::{history, history_in, History, HistoryCommit};

/// The trees Debian's archive serves to these machines: the series the
/// project's patches, tests and checks are verified on.
pub const DEBIAN_TREES: &[&str] = &[
    "debian:mariadb=1:10.11.18-0+deb12u1",
    "debian:mariadb-10.5=1:10.5.23-0+deb11u1",
    // served at its pool path only (tree/debian_pool.rs)
    "debian:mariadb=1:11.8.6-0+deb13u1",
];

/// `DEBIAN_TREES` as specs.
pub fn debian_trees() -> Vec<TreeSpec> {
    DEBIAN_TREES
        .iter()
        .map(|s| s.parse().expect("DEBIAN_TREES are specs"))
        .collect()
}

/// How the user names a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeSpec {
    /// `debian:<source-package>=<version>`: `apt-get source` from Debian's
    /// archive through a private apt configuration, or, for a version no
    /// list names, the archive's pool path (`debian_pool`).
    Debian { package: String, version: String },
    /// `git:<url>#<ref>`: a branch, tag or commit of a git remote.
    Git { url: String, reference: String },
    /// `path:<dir>`: an existing git checkout, at its HEAD, or
    /// `path:<dir>#<ref>` at a branch, tag or commit of it (its work tree
    /// is never touched: builds check the commit out elsewhere).
    Path {
        dir: PathBuf,
        reference: Option<String>,
    },
    /// `pkg:<mariadbd>`: a packaged server binary (e.g. Debian's
    /// mariadb-server): nothing to build, only settings variants apply.
    Package { mariadbd: PathBuf },
}

impl FromStr for TreeSpec {
    type Err = anyhow::Error;

    fn from_str(spec: &str) -> Result<TreeSpec> {
        let forms = "expected debian:<source-package>=<version> \
                     (e.g. debian:mariadb=1:10.11.18-0+deb12u1), git:<url>#<ref> \
                     (e.g. git:https://github.com/MariaDB/server#mariadb-11.8.9), path:<dir>, \
                     path:<dir>#<ref> or pkg:<mariadbd> (e.g. pkg:/usr/sbin/mariadbd)";
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
        if let Some(rest) = spec.strip_prefix("path:") {
            // a directory whose name holds `#` is a directory, not a ref
            let split = rest.rsplit_once('#').filter(|_| !Path::new(rest).is_dir());
            let (dir, reference) = match split {
                Some((dir, reference)) => {
                    if reference.is_empty() {
                        bail!("tree `{spec}`: empty reference after `#`; {forms}");
                    }
                    (dir, Some(reference.to_string()))
                }
                None => (rest, None),
            };
            if dir.is_empty() {
                bail!("tree `{spec}`: empty directory; {forms}");
            }
            return Ok(TreeSpec::Path {
                dir: dir.into(),
                reference,
            });
        }
        if let Some(binary) = spec.strip_prefix("pkg:") {
            if binary.is_empty() {
                bail!("tree `{spec}`: empty path; {forms}");
            }
            return Ok(TreeSpec::Package {
                mariadbd: binary.into(),
            });
        }
        bail!("tree `{spec}`: unknown kind; {forms}")
    }
}

impl TreeSpec {
    /// The version the spec names (`debian:...=1:10.11.18-0+deb12u1`,
    /// `git:...#mariadb-11.8.10`, `debian:mysql-9.7=9.7.2-4`), when it
    /// names one: three numbers, a Debian epoch skipped. A path or a
    /// packaged server names none before it is opened.
    pub fn version_named(&self) -> Option<String> {
        let named = match self {
            TreeSpec::Debian { version, .. } => version,
            TreeSpec::Git { reference, .. } => reference,
            TreeSpec::Path { .. } | TreeSpec::Package { .. } => return None,
        };
        let start = named.find(|c: char| c.is_ascii_digit())?;
        let tail = &named[start..];
        // skip a Debian epoch (`1:`)
        let tail = match tail.split_once(':') {
            Some((epoch, rest)) if epoch.chars().all(|c| c.is_ascii_digit()) => rest,
            _ => tail,
        };
        let version: String = tail
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let parts: Vec<&str> = version.trim_end_matches('.').split('.').collect();
        (parts.len() == 3 && parts.iter().all(|p| !p.is_empty())).then(|| parts.join("."))
    }

    /// The engine the spec names, when it names one without a fetch:
    /// Debian's source packages `mariadb*` and `mysql-*`, upstream's tags
    /// `mariadb-<version>` and `mysql-<version>` or a `mysql-server`
    /// remote. A spec that names none (a path, a branch) is read from the
    /// tree itself once fetched.
    pub fn engine_named(&self) -> Option<Engine> {
        let by_prefix = |name: &str| {
            if name.starts_with("mariadb") {
                Some(Engine::MariaDb)
            } else if name.starts_with("mysql") {
                Some(Engine::MySql)
            } else {
                None
            }
        };
        match self {
            TreeSpec::Debian { package, .. } => by_prefix(package),
            TreeSpec::Git { url, reference } => by_prefix(reference).or_else(|| {
                let repo = url.trim_end_matches('/').trim_end_matches(".git");
                let name = repo.rsplit('/').next()?;
                match name {
                    "mysql-server" => Some(Engine::MySql),
                    "server" if repo.to_ascii_lowercase().contains("mariadb") => {
                        Some(Engine::MariaDb)
                    }
                    _ => None,
                }
            }),
            TreeSpec::Path { .. } | TreeSpec::Package { .. } => None,
        }
    }
}

impl fmt::Display for TreeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeSpec::Debian { package, version } => write!(f, "debian:{package}={version}"),
            TreeSpec::Git { url, reference } => write!(f, "git:{url}#{reference}"),
            TreeSpec::Path {
                dir,
                reference: None,
            } => write!(f, "path:{}", dir.display()),
            TreeSpec::Path {
                dir,
                reference: Some(r),
            } => write!(f, "path:{}#{r}", dir.display()),
            TreeSpec::Package { mariadbd } => write!(f, "pkg:{}", mariadbd.display()),
        }
    }
}

/// A matrix file's `spec = "..."` is parsed where the file is read (toml
/// names its line when the spec is refused) and written back as it was.
impl<'de> serde::Deserialize<'de> for TreeSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<TreeSpec, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        text.parse()
            .map_err(|e: anyhow::Error| serde::de::Error::custom(format!("{e:#}")))
    }
}

impl serde::Serialize for TreeSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Fetches (if needed) and opens the tree named by `spec`.
pub fn resolve(spec: &TreeSpec) -> Result<Tree> {
    resolve_in(spec, &cache_root())
}

/// `resolve` with the cache at `cache`.
pub fn resolve_in(parsed: &TreeSpec, cache: &Path) -> Result<Tree> {
    let spec = parsed.to_string();
    if let TreeSpec::Package { mariadbd } = parsed {
        return package_tree(&spec, mariadbd);
    }
    // fetches share the cache's apt configuration and git mirrors: one at a
    // time (a suite beside this one may be fetching the same tree)
    let fetching = || crate::lock::work(&cache.join("trees.lock"), &format!("tree `{spec}`"));
    let src = match parsed {
        TreeSpec::Debian { package, version } => {
            let _fetching = fetching()?;
            debian_tree(package, version, cache)?
        }
        TreeSpec::Git { url, reference } => {
            let _fetching = fetching()?;
            git_tree(url, reference, cache)?
        }
        TreeSpec::Path {
            dir,
            reference: Some(reference),
        } => {
            let dir = fs::canonicalize(dir)
                .with_context(|| format!("tree `{spec}`: no directory {}", dir.display()))?;
            return open_at(&spec, &dir, reference);
        }
        TreeSpec::Path {
            dir,
            reference: None,
        } => {
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
        TreeSpec::Package { .. } => unreachable!("handled above"),
    };
    open(&spec, &src)
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
    if spec.starts_with("path:") && crate::provenance::has_local_changes(&repo) {
        eprintln!(
            "warning: tree `{spec}` has uncommitted changes; builds use its HEAD {} only",
            head.id()
        );
    }

    let TreeVersion { version, series } = read_version(src)?;
    let buf0buf = src.join("storage/innobase/include/buf0buf.h");
    let header = fs::read_to_string(&buf0buf)
        .with_context(|| format!("tree `{spec}`: no InnoDB header {}", buf0buf.display()))?;
    Ok(Tree {
        spec: spec.to_string(),
        id: head.id().to_string(),
        src: src.to_path_buf(),
        version,
        series,
        has_upstream_fix: carries_upstream_fix(&header),
        package: None,
    })
}

/// Describes commit `reference` of the repository at `src` as a tree,
/// reading its version and InnoDB header from the commit itself (the
/// work tree may be at any other commit, or changed).
fn open_at(spec: &str, src: &Path, reference: &str) -> Result<Tree> {
    let repo = git2::Repository::open(src).with_context(|| {
        format!(
            "tree `{spec}`: {} is not a git repository (run `git init` and commit it)",
            src.display()
        )
    })?;
    let commit = repo
        .revparse_single(reference)
        .and_then(|o| o.peel_to_commit())
        .with_context(|| {
            format!(
                "tree `{spec}`: {} has no branch, tag or commit `{reference}`",
                src.display()
            )
        })?;
    let file = |path: &str| -> Result<String> {
        let entry = commit
            .tree()?
            .get_path(Path::new(path))
            .with_context(|| format!("tree `{spec}`: commit {} has no {path}", commit.id()))?;
        let blob = entry.to_object(&repo)?.peel_to_blob()?;
        Ok(String::from_utf8_lossy(blob.content()).into_owned())
    };
    // the version file present names the engine
    let (engine, text) = Engine::ALL
        .into_iter()
        .find_map(|e| file(e.version_file()).ok().map(|text| (e, text)))
        .with_context(|| {
            format!(
                "tree `{spec}`: commit {} has neither VERSION (MariaDB) nor MYSQL_VERSION (MySQL)",
                commit.id()
            )
        })?;
    let TreeVersion { version, series } = TreeVersion::parse(engine, &text).map_err(|e| {
        anyhow!(
            "tree `{spec}`: {} of {}: {e}",
            engine.version_file(),
            commit.id()
        )
    })?;
    let header = file("storage/innobase/include/buf0buf.h")?;
    Ok(Tree {
        spec: spec.to_string(),
        id: commit.id().to_string(),
        src: src.to_path_buf(),
        version,
        series,
        has_upstream_fix: carries_upstream_fix(&header),
        package: None,
    })
}

/// A packaged server: its version is read from the binary itself. Whether
/// it carries the MDEV-33966 fix is read from its symbol table
/// (`buf_page_t::touch_no_stamp` is inline, but `buf_page_t::touch` is not).
fn package_tree(spec: &str, mariadbd: &Path) -> Result<Tree> {
    if !mariadbd.exists() {
        bail!(
            "tree `{spec}`: {} does not exist (Debian: apt-get install mariadb-server, or \
             tools/install-deps.sh --server-package)",
            mariadbd.display()
        );
    }
    let out = Command::new(mariadbd.display().to_string())
        .arg("--version")
        .read()?;
    let version = parse_binary_version(&out)
        .with_context(|| format!("tree `{spec}`: cannot read a version from `{}`", out.trim()))?;
    let engine = Engine::of_version_line(&out);
    if engine != Engine::MariaDb {
        bail!(
            "tree `{spec}`: `{}` is a {engine} server; packaged servers are MariaDB's only \
             (a MySQL tree is built from its source: debian:mysql-9.7=9.7.2-4)",
            out.trim()
        );
    }
    let series = Series::of_version(engine, &version)
        .with_context(|| format!("tree `{spec}`: no series in version `{version}`"))?;
    let bytes = fs::read(mariadbd)?;
    let prefix = mariadbd
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("/usr"))
        .to_path_buf();
    Ok(Tree {
        spec: spec.to_string(),
        id: crate::util::sha256_hex(&bytes),
        src: prefix,
        version,
        series,
        has_upstream_fix: contains(&bytes, b"_ZN10buf_page_t5touchEv"),
        package: Some(mariadbd.to_path_buf()),
    })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu ..." -> "10.11.19"
fn parse_binary_version(out: &str) -> Option<String> {
    let word = out.split_whitespace().skip_while(|w| *w != "Ver").nth(1)?;
    let version: String = word
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    (version.split('.').count() == 3).then_some(version)
}

/// What the tree's version file says: `VERSION` in a MariaDB tree,
/// `MYSQL_VERSION` in a MySQL one (the file present names the engine).
pub fn read_version(src: &Path) -> Result<TreeVersion> {
    let engine = engine_of(src)?;
    let path = src.join(engine.version_file());
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    TreeVersion::parse(engine, &text).map_err(|e| anyhow!("{}: {e}", path.display()))
}

/// The engine of the source tree at `src`, by its version file.
pub fn engine_of(src: &Path) -> Result<Engine> {
    Engine::ALL
        .into_iter()
        .find(|e| src.join(e.version_file()).is_file())
        .with_context(|| {
            format!(
                "{} has neither VERSION (a MariaDB tree) nor MYSQL_VERSION (a MySQL tree)",
                src.display()
            )
        })
}

/// Makes `dir` a git repository with one commit holding all its files.
/// The signature and time are fixed, so the same source always gets the
/// same id on every machine.
pub(crate) fn import_as_commit(dir: &Path, message: &str) -> Result<git2::Oid> {
    let repo = git2::Repository::init(dir)?;
    let mut index = repo.index()?;
    // FORCE: the upstream tarball ships files that its own .gitignore names
    index.add_all(["*"], git2::IndexAddOption::FORCE, None)?;
    index.write()?;
    let tree = repo.find_tree(index.write_tree()?)?;
    let sig = git2::Signature::new("innodb-lab", "innodb-lab@localhost", &git2::Time::new(0, 0))?;
    Ok(repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &[])?)
}

/// A tiny committed "server" tree (VERSION 11.8.10 and a buf0buf.h with
/// `header`) under `dir`, for tests that need resolve() to accept a tree.
#[cfg(test)]
pub(crate) fn fake_server_tree(dir: &Path, header: &str) -> (PathBuf, git2::Oid) {
    let src = dir.join("server");
    fs::create_dir_all(src.join("storage/innobase/include")).unwrap();
    fs::write(
        src.join("VERSION"),
        "MYSQL_VERSION_MAJOR=11\nMYSQL_VERSION_MINOR=8\nMYSQL_VERSION_PATCH=10\n",
    )
    .unwrap();
    fs::write(src.join("storage/innobase/include/buf0buf.h"), header).unwrap();
    let id = import_as_commit(&src, "test").unwrap();
    (src, id)
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
                dir: "/src/server".into(),
                reference: None
            }
        );
        let at = "path:/src/server#mariadb-10.5.6"
            .parse::<TreeSpec>()
            .unwrap();
        assert_eq!(
            at,
            TreeSpec::Path {
                dir: "/src/server".into(),
                reference: Some("mariadb-10.5.6".into())
            }
        );
        assert_eq!(at.to_string(), "path:/src/server#mariadb-10.5.6");
    }

    #[test]
    fn versions_come_from_debian_and_git_specs() {
        let version = |spec: &str| spec.parse::<TreeSpec>().unwrap().version_named();
        assert_eq!(
            version("debian:mariadb=1:10.11.18-0+deb12u1").as_deref(),
            Some("10.11.18")
        );
        assert_eq!(
            version("debian:mariadb-10.5=1:10.5.23-0+deb11u1").as_deref(),
            Some("10.5.23")
        );
        assert_eq!(
            version("debian:mysql-9.7=9.7.2-4").as_deref(),
            Some("9.7.2")
        );
        assert_eq!(
            version("git:https://github.com/MariaDB/server#mariadb-11.8.10").as_deref(),
            Some("11.8.10")
        );
        assert_eq!(version("git:https://github.com/MariaDB/server#main"), None);
        assert_eq!(version("path:/src/10.11.1"), None);
        assert_eq!(version("pkg:/usr/sbin/mariadbd-10.11.18"), None);
    }

    #[test]
    fn a_spec_is_written_back_as_it_was_read() {
        for spec in [
            "debian:mariadb=1:10.11.18-0+deb12u1",
            "git:https://github.com/MariaDB/server#mariadb-11.8.10",
            "path:/src/server",
            "path:/src/server#mariadb-10.5.6",
            "pkg:/usr/sbin/mariadbd",
        ] {
            let parsed: TreeSpec = spec.parse().unwrap();
            assert_eq!(parsed.to_string(), spec);
            let json = serde_json::to_string(&parsed).unwrap();
            assert_eq!(json, format!("\"{spec}\""));
            assert_eq!(serde_json::from_str::<TreeSpec>(&json).unwrap(), parsed);
        }
        let refused = serde_json::from_str::<TreeSpec>("\"svn:foo\"").unwrap_err();
        assert!(refused.to_string().contains("unknown kind"), "{refused}");
    }

    #[test]
    fn the_engine_a_spec_names() {
        let engine = |spec: &str| spec.parse::<TreeSpec>().unwrap().engine_named();
        let (maria, mysql) = (Some(Engine::MariaDb), Some(Engine::MySql));
        assert_eq!(engine("debian:mariadb=1:10.11.18-0+deb12u1"), maria);
        assert_eq!(engine("debian:mariadb-10.5=1:10.5.23-0+deb11u1"), maria);
        assert_eq!(engine("debian:mysql-9.7=9.7.2-4"), mysql);
        assert_eq!(
            engine("git:https://github.com/mysql/mysql-server#mysql-8.4.11"),
            mysql
        );
        assert_eq!(
            engine("git:https://github.com/mysql/mysql-server.git#trunk"),
            mysql
        );
        assert_eq!(
            engine("git:https://github.com/MariaDB/server#mariadb-11.8.10"),
            maria
        );
        assert_eq!(engine("git:https://example.org/fork#main"), None);
        assert_eq!(engine("path:/src/server"), None);
    }

    #[test]
    fn bad_specs_say_what_is_expected() {
        for bad in [
            "debian:mariadb",
            "git:https://x/y",
            "svn:foo",
            "path:",
            "path:/x#",
        ] {
            let err = bad.parse::<TreeSpec>().unwrap_err().to_string();
            assert!(err.contains(bad) && err.contains("expected"), "{err}");
        }
    }

    #[test]
    fn a_version_nobody_has_gets_one_error_naming_both_tries() {
        let stderr = "Reading package lists...\nE: Can not find version '1:11.8.99-1' of package 'mariadb'\nE: Unable to find a source package for mariadb=1:11.8.99-1\n";
        let apt = apt_answer(stderr);
        assert_eq!(
            apt,
            "E: Can not find version '1:11.8.99-1' of package 'mariadb'; \
             E: Unable to find a source package for mariadb=1:11.8.99-1"
        );
        assert_eq!(apt_answer("W: only a warning\n"), "W: only a warning");
        let url = "http://deb.debian.org/debian/pool/main/m/mariadb/mariadb_11.8.99-1.dsc";
        let err = neither_error("mariadb", "1:11.8.99-1", &apt, url, 404);
        for part in [
            "mariadb=1:11.8.99-1",
            "Can not find version",
            &format!("{url} answered HTTP 404"),
            "INNODB_LAB_DEBIAN_MIRROR=http://snapshot.debian.org/archive/debian/",
            "git:https://github.com/MariaDB/server#mariadb-",
        ] {
            assert!(err.contains(part), "`{part}` missing from: {err}");
        }
    }

    #[test]
    fn binary_version() {
        let out = "/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)\n";
        assert_eq!(parse_binary_version(out).as_deref(), Some("10.11.19"));
        assert_eq!(parse_binary_version("mysqld Ver 8.4"), None);
        let err = resolve(&"pkg:/nonexistent/mariadbd".parse().unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/nonexistent/mariadbd does not exist"),
            "{err}"
        );
    }

    #[test]
    fn git_and_path_trees_from_a_local_repository() {
        // a tiny "server" tree: enough for resolve() to read its version and header
        let dir = tempfile::tempdir().unwrap();
        let (src, id) = fake_server_tree(dir.path(), "void touch_no_stamp();\n");
        let cache = dir.path().join("cache");

        let tree = resolve_in(&format!("path:{}", src.display()).parse().unwrap(), &cache).unwrap();
        assert_eq!(
            (tree.id.as_str(), tree.series),
            (id.to_string().as_str(), Series::V11_8)
        );
        assert!(tree.has_upstream_fix);

        let tree = resolve_in(
            &format!("git:file://{}#HEAD", src.display())
                .parse()
                .unwrap(),
            &cache,
        )
        .unwrap();
        assert_eq!(tree.id, id.to_string());
        assert_eq!(tree.version, "11.8.10");
        let missing = resolve_in(
            &format!("git:file://{}#no-such-tag", src.display())
                .parse()
                .unwrap(),
            &cache,
        )
        .unwrap_err();
        assert!(
            format!("{missing:#}").contains("no-such-tag"),
            "{missing:#}"
        );

        let out = dir.path().join("checkout");
        checkout(&tree, &out).unwrap();
        assert!(out.join("VERSION").exists());
    }

    #[test]
    fn a_mysql_tree_from_a_local_repository_is_read_as_mysql() {
        // mysql-server's layout: MYSQL_VERSION, no VERSION, as a user's
        // `git:https://github.com/mysql/mysql-server#mysql-8.4.11` has it
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("mysql-server");
        fs::create_dir_all(src.join("storage/innobase/include")).unwrap();
        fs::write(
            src.join("MYSQL_VERSION"),
            "MYSQL_VERSION_MAJOR=8\nMYSQL_VERSION_MINOR=4\nMYSQL_VERSION_PATCH=11\nMYSQL_VERSION_EXTRA=\nMYSQL_VERSION_MATURITY=\"LTS\"\n",
        )
        .unwrap();
        fs::write(
            src.join("storage/innobase/include/buf0buf.h"),
            "uint32_t freed_page_clock;\n",
        )
        .unwrap();
        let id = import_as_commit(&src, "mysql-8.4.11").unwrap();
        let cache = dir.path().join("cache");
        for spec in [
            format!("git:file://{}#HEAD", src.display()),
            format!("path:{}", src.display()),
            format!("path:{}#HEAD", src.display()),
        ] {
            let tree = resolve_in(&spec.parse().unwrap(), &cache).unwrap();
            assert_eq!(tree.id, id.to_string(), "{spec}");
            assert_eq!(tree.version, "8.4.11", "{spec}");
            assert_eq!(tree.series.to_string(), "mysql-8.4", "{spec}");
            assert!(!tree.has_upstream_fix, "{spec}");
        }
        // a tree with neither version file says which it looked for
        fs::remove_file(src.join("MYSQL_VERSION")).unwrap();
        let err = format!("{:#}", read_version(&src).unwrap_err());
        assert!(
            err.contains("VERSION") && err.contains("MYSQL_VERSION"),
            "{err}"
        );
    }

    /// A "server" repository with a base commit and a fix on top; returns
    /// (dir, base id, fix id).
    fn repo_with_fix(file_at_base: &str, fix: &str) -> (tempfile::TempDir, git2::Oid, git2::Oid) {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("upstream");
        fs::create_dir_all(&src).unwrap();
        fs::write(src.join("buf0buf.h"), file_at_base).unwrap();
        let base = import_as_commit(&src, "base").unwrap();
        let repo = git2::Repository::open(&src).unwrap();
        fs::write(src.join("buf0buf.h"), fix).unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("buf0buf.h")).unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@t").unwrap();
        let parent = repo.find_commit(base).unwrap();
        let fixed = repo
            .commit(Some("HEAD"), &sig, &sig, "MDEV-33966", &tree, &[&parent])
            .unwrap();
        (dir, base, fixed)
    }

    /// A checkout of the upstream repository's `base` commit, fetched the
    /// way a variant's checkout would be: (repo, its dir, upstream url).
    fn checkout_of(
        dir: &tempfile::TempDir,
        base: git2::Oid,
    ) -> (git2::Repository, PathBuf, String) {
        let checkout_dir = dir.path().join("checkout");
        let repo = git2::Repository::init(&checkout_dir).unwrap();
        let url = format!("file://{}", dir.path().join("upstream").display());
        repo.remote_anonymous(&url)
            .unwrap()
            .fetch(&[base.to_string().as_str()], None, None)
            .unwrap();
        {
            let obj = repo.find_object(base, None).unwrap();
            let opts = &mut git2::build::CheckoutBuilder::new();
            repo.checkout_tree(&obj, Some(opts.force())).unwrap();
        }
        repo.set_head_detached(base).unwrap();
        (repo, checkout_dir, url)
    }

    #[test]
    fn cherry_picks_a_fix_from_a_remote() {
        let (dir, base, fix) = repo_with_fix("a\nfreed_page_clock\nc\n", "a\naccess_clock\nc\n");
        let (repo, checkout_dir, url) = checkout_of(&dir, base);
        cherry_pick(&repo, &url, &[fix.to_string()]).unwrap();
        assert_eq!(
            fs::read_to_string(checkout_dir.join("buf0buf.h")).unwrap(),
            "a\naccess_clock\nc\n"
        );
    }

    #[test]
    fn a_conflicting_pick_names_the_file() {
        let (dir, base, fix) = repo_with_fix("a\nfreed_page_clock\nc\n", "a\naccess_clock\nc\n");
        let (repo, checkout_dir, url) = checkout_of(&dir, base);
        // a local change to the same line: the pick cannot apply cleanly
        fs::write(checkout_dir.join("buf0buf.h"), "a\nlocal_change\nc\n").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("buf0buf.h")).unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@t").unwrap();
        let parent = repo.find_commit(base).unwrap();
        let local = repo
            .commit(None, &sig, &sig, "local", &tree, &[&parent])
            .unwrap();
        repo.set_head_detached(local).unwrap();
        let err = cherry_pick(&repo, &url, &[fix.to_string()])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("conflicts in: buf0buf.h") && err.contains(&fix.to_string()),
            "{err}"
        );
        let missing = cherry_pick(
            &repo,
            &url,
            &["0123456789012345678901234567890123456789".into()],
        );
        assert!(
            format!("{:#}", missing.unwrap_err()).contains("0123456789"),
            "a missing commit is named"
        );
    }
}
