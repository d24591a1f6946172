//! Trees: a MariaDB source tree with an id (a git commit), from Debian's
//! archive, a git remote or an existing checkout.
//!
//! Every tree ends up as a local git repository so that it has an id, and
//! so that each variant can be checked out into its own work tree without
//! touching the tree itself.

use crate::dims::{carries_upstream_fix, Series, TreeVersion};
use crate::record::Tree;
use crate::util::{cache_root, slug, Command, Stage};
use anyhow::{anyhow, bail, Context, Result};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;

mod debian_pool;
pub use debian_pool::MIRROR_ENV;

/// The trees Debian's archive serves to these machines: the series the
/// project's patches, tests and checks are verified on.
pub const DEBIAN_TREES: &[&str] = &[
    "debian:mariadb=1:10.11.18-0+deb12u1",
    "debian:mariadb-10.5=1:10.5.23-0+deb11u1",
    // served at its pool path only (tree/debian_pool.rs)
    "debian:mariadb=1:11.8.6-0+deb13u1",
];

/// How the user names a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeSpec {
    /// `debian:<source-package>=<version>`: `apt-get source` from Debian's
    /// archive through a private apt configuration, or, for a version no
    /// list names, the archive's pool path (`debian_pool`).
    Debian { package: String, version: String },
    /// `git:<url>#<ref>`: a branch, tag or commit of a git remote.
    Git { url: String, reference: String },
    /// `path:<dir>`: an existing git checkout, at its HEAD.
    Path { dir: PathBuf },
    /// `pkg:<mariadbd>`: a packaged server binary (e.g. Debian's
    /// mariadb-server): nothing to build, only settings variants apply.
    Package { mariadbd: PathBuf },
}

impl FromStr for TreeSpec {
    type Err = anyhow::Error;

    fn from_str(spec: &str) -> Result<TreeSpec> {
        let forms = "expected debian:<source-package>=<version> \
                     (e.g. debian:mariadb=1:10.11.18-0+deb12u1), git:<url>#<ref> \
                     (e.g. git:https://github.com/MariaDB/server#mariadb-11.8.9), path:<dir> \
                     or pkg:<mariadbd> (e.g. pkg:/usr/sbin/mariadbd)";
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

impl fmt::Display for TreeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeSpec::Debian { package, version } => write!(f, "debian:{package}={version}"),
            TreeSpec::Git { url, reference } => write!(f, "git:{url}#{reference}"),
            TreeSpec::Path { dir } => write!(f, "path:{}", dir.display()),
            TreeSpec::Package { mariadbd } => write!(f, "pkg:{}", mariadbd.display()),
        }
    }
}

/// Fetches (if needed) and opens the tree named by `spec`.
pub fn resolve(spec: &str) -> Result<Tree> {
    resolve_in(spec, &cache_root())
}

/// `resolve` with the cache at `cache`.
pub fn resolve_in(spec: &str, cache: &Path) -> Result<Tree> {
    let parsed: TreeSpec = spec.parse()?;
    if let TreeSpec::Package { mariadbd } = &parsed {
        return package_tree(spec, mariadbd);
    }
    let src = match &parsed {
        TreeSpec::Debian { package, version } => debian_tree(package, version, cache)?,
        TreeSpec::Git { url, reference } => git_tree(url, reference, cache)?,
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
        TreeSpec::Package { .. } => unreachable!("handled above"),
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
    let series = Series::of_version(&version)
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

/// What the tree's VERSION file says.
pub fn read_version(src: &Path) -> Result<TreeVersion> {
    let path = src.join("VERSION");
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    TreeVersion::parse(&text).map_err(|e| anyhow!("{}: {e}", path.display()))
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
deb-src http://deb.debian.org/debian trixie main
deb-src http://deb.debian.org/debian trixie-updates main
deb-src http://deb.debian.org/debian-security trixie-security main
";

    fn new(cache: &Path) -> Result<PrivateApt> {
        Self::at(&cache.join("apt"), Self::SOURCES)
    }

    /// A private configuration in `dir` with `sources` as its list.
    fn at(dir: &Path, sources: &str) -> Result<PrivateApt> {
        let dir = dir.to_path_buf();
        for sub in [
            "lists/partial",
            "cache/archives/partial",
            "sources.list.d",
            "preferences.d",
        ] {
            fs::create_dir_all(dir.join(sub))?;
        }
        crate::util::write_atomic(&dir.join("sources.list"), sources.as_bytes())?;
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
            .deadline(std::time::Duration::from_secs(600))
            .read()
            .map(|_| ())
    }

    /// `apt-get source --download-only`; on failure, apt's own answer
    /// (its `E:` lines, or its last line) for the error that also names
    /// the pool URL tried next.
    fn download_source(&self, package: &str, version: &str, into: &Path) -> Result<(), String> {
        let out = Command::new("apt-get")
            .args(self.options())
            .args([
                "-q",
                "source",
                "--download-only",
                &format!("{package}={version}"),
            ])
            .dir(into)
            .deadline(std::time::Duration::from_secs(1800))
            .output()
            .map_err(|e| format!("{e:#}"))?;
        if out.status.success() {
            return Ok(());
        }
        Err(apt_answer(&String::from_utf8_lossy(&out.stderr)))
    }
}

/// apt's `E:` lines, or its last line when it printed none.
fn apt_answer(stderr: &str) -> String {
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("E:")).collect();
    if errors.is_empty() {
        stderr.lines().last().unwrap_or("(no output)").to_string()
    } else {
        errors.join("; ")
    }
}

/// The one error for a version that neither apt's lists nor the pool have.
fn neither_error(package: &str, version: &str, apt: &str, url: &str, status: u16) -> String {
    format!(
        "source package {package}={version} is not to be had: apt (the private deb-src \
         configuration of bookworm, bullseye and trixie) answered `{apt}`, and the archive's \
         pool path {url} answered HTTP {status}. Either set {MIRROR_ENV} to a snapshot archive \
         that has it (e.g. {MIRROR_ENV}=http://snapshot.debian.org/archive/debian/<YYYYMMDD>T000000Z) \
         or name the release as a git: tree (e.g. git:https://github.com/MariaDB/server#mariadb-<version>)"
    )
}

/// Downloads and imports a Debian source package; returns its repository.
/// apt first (a signed index vouches for the files); for a version no list
/// names, the archive's pool path (the .dsc's signature vouches).
fn debian_tree(package: &str, version: &str, cache: &Path) -> Result<PathBuf> {
    let name = slug(&format!("debian-{package}-{version}"));
    let repo_dir = cache.join("trees").join(&name);
    if repo_dir.join(".git").exists() {
        return Ok(repo_dir);
    }
    let downloads = cache.join("downloads").join(&name);
    fs::create_dir_all(&downloads)?;
    // a .dsc counts once its check wrote provenance.json (a run stopped
    // halfway leaves files that are checked again)
    let checked = downloads.join("provenance.json").exists();
    let dsc = match find_dsc(&downloads).filter(|_| checked) {
        Some(dsc) => dsc,
        None => {
            let stage = Stage::start(format!(
                "download {package}={version} from Debian's archive"
            ));
            let apt = PrivateApt::new(cache)?;
            let listed = apt
                .update()
                .map_err(|e| format!("apt-get update failed: {e:#}"))
                .and_then(|()| apt.download_source(package, version, &downloads));
            let provenance = match listed {
                Ok(()) => {
                    let dsc = find_dsc(&downloads)
                        .ok_or_else(|| anyhow!("apt left no .dsc in {}", downloads.display()))?;
                    apt_provenance(package, version, &dsc)?
                }
                Err(apt_says) => {
                    eprintln!("    apt could not get it ({apt_says}); trying the pool path");
                    from_pool(package, version, &downloads, cache, &apt_says)?
                }
            };
            eprintln!("    vouched for by {}", provenance.vouched_by);
            stage.done();
            find_dsc(&downloads).ok_or_else(|| anyhow!("no .dsc in {}", downloads.display()))?
        }
    };
    let stage = Stage::start(format!("unpack and import {}", dsc.display()));
    // not with_extension: "…-11.8.6-0" would become "…-11.8.partial", one
    // name for every 11.8 release
    let tmp = repo_dir.with_file_name(format!("{name}.partial"));
    if tmp.exists() {
        fs::remove_dir_all(&tmp)?;
    }
    fs::create_dir_all(repo_dir.parent().unwrap())?;
    // --no-check: apt's index or our dscverify checked the files already,
    // and dpkg-source would read the user's own keyrings
    Command::new("dpkg-source")
        // --no-copy: a second copy of the upstream tarball beside the tree
        // is 100 MB that nothing reads
        .args(["-x", "--no-check", "--no-copy"])
        .arg(dsc.display().to_string())
        .arg(tmp.display().to_string())
        .read()
        .context("dpkg-source could not unpack the source package")?;
    import_as_commit(&tmp, &format!("debian:{package}={version}"))?;
    fs::rename(&tmp, &repo_dir)?;
    // beside the tree, not in it: the tree holds the source and nothing else
    let record = downloads.join("provenance.json");
    if record.exists() {
        fs::copy(&record, provenance_path(&repo_dir))?;
    }
    stage.done();
    Ok(repo_dir)
}

/// The pool path, after apt said `apt_says`: a version the pool does not
/// serve either is the one error that names both answers.
fn from_pool(
    package: &str,
    version: &str,
    downloads: &Path,
    cache: &Path,
    apt_says: &str,
) -> Result<debian_pool::Provenance> {
    match debian_pool::fetch(package, version, downloads, cache) {
        Ok(p) => Ok(p),
        Err(debian_pool::PoolFailure::NotServed { url, status }) => {
            bail!(
                "{}",
                neither_error(package, version, apt_says, &url, status)
            )
        }
        Err(debian_pool::PoolFailure::Other(e)) => Err(e.context(format!(
            "{package}={version}: apt answered `{apt_says}`, and the pool path failed"
        ))),
    }
}

/// The provenance of an apt download: the files of its .dsc, checked
/// against the .dsc here too, vouched for by the signed index apt read.
fn apt_provenance(package: &str, version: &str, dsc: &Path) -> Result<debian_pool::Provenance> {
    let bytes = fs::read(dsc)?;
    let dsc_name = dsc
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let files = debian_pool::parse_dsc(&String::from_utf8_lossy(&bytes), &dsc_name)?;
    for f in &files {
        debian_pool::check_file(&dsc.with_file_name(&f.name), f, &dsc_name)?;
    }
    let p = debian_pool::Provenance {
        source: package.into(),
        version: version.into(),
        from: "apt-get source (private deb-src configuration)".into(),
        dsc: debian_pool::DscFile {
            size: bytes.len() as u64,
            sha256: crate::util::sha256_hex(&bytes),
            name: dsc_name,
        },
        files,
        vouched_by: "apt: the suite's signed InRelease, its Sources index and the .dsc's checksums"
            .into(),
        signer: None,
        keyring: None,
    };
    crate::util::write_json(&dsc.with_file_name("provenance.json"), &p)?;
    Ok(p)
}

/// Where a `debian:` tree's provenance record (what vouched for its
/// files) lies: beside the tree's directory, `<tree>.provenance.json`.
pub fn provenance_path(tree_src: &Path) -> PathBuf {
    let name = tree_src.file_name().unwrap_or_default().to_string_lossy();
    tree_src.with_file_name(format!("{name}.provenance.json"))
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
fn git_tree(url: &str, reference: &str, cache: &Path) -> Result<PathBuf> {
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

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    Command::new("cp")
        .args(["-a", "--reflink=auto", "-T"])
        .arg(from.display().to_string())
        .arg(to.display().to_string())
        .read()
        .map(|_| ())
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
        let err = resolve("pkg:/nonexistent/mariadbd")
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

        let tree = resolve_in(&format!("path:{}", src.display()), &cache).unwrap();
        assert_eq!(
            (tree.id.as_str(), tree.series),
            (id.to_string().as_str(), Series::V11_8)
        );
        assert!(tree.has_upstream_fix);

        let tree = resolve_in(&format!("git:file://{}#HEAD", src.display()), &cache).unwrap();
        assert_eq!(tree.id, id.to_string());
        assert_eq!(tree.version, "11.8.10");
        let missing =
            resolve_in(&format!("git:file://{}#no-such-tag", src.display()), &cache).unwrap_err();
        assert!(
            format!("{missing:#}").contains("no-such-tag"),
            "{missing:#}"
        );

        let out = dir.path().join("checkout");
        checkout(&tree, &out).unwrap();
        assert!(out.join("VERSION").exists());
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
