//! Debian source packages: through a private apt configuration when apt
//! lists the version, else from the archive's pool path (`debian_pool`);
//! unpacked with `dpkg-source -x` and imported as one commit.

use super::*;
use crate::environment::DEBIAN_MIRROR;

/// The private apt configuration: deb-src entries for Debian's suites, with
/// its own lists and cache, so the host's apt setup is left as it was.
pub(super) struct PrivateApt {
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
    pub(super) fn at(dir: &Path, sources: &str) -> Result<PrivateApt> {
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

    pub(super) fn options(&self) -> Vec<String> {
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

    pub(super) fn update(&self) -> Result<()> {
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
pub(super) fn apt_answer(stderr: &str) -> String {
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("E:")).collect();
    if errors.is_empty() {
        stderr.lines().last().unwrap_or("(no output)").to_string()
    } else {
        errors.join("; ")
    }
}

/// The one error for a version that neither apt's lists nor the pool have.
pub(super) fn neither_error(
    package: &str,
    version: &str,
    apt: &str,
    url: &str,
    status: u16,
) -> String {
    format!(
        "source package {package}={version} is not to be had: apt (the private deb-src \
         configuration of bookworm, bullseye and trixie) answered `{apt}`, and the archive's \
         pool path {url} answered HTTP {status}. Either set {DEBIAN_MIRROR} to a snapshot archive \
         that has it (e.g. {DEBIAN_MIRROR}=http://snapshot.debian.org/archive/debian/<YYYYMMDD>T000000Z) \
         or name the release as a git: tree (e.g. git:https://github.com/MariaDB/server#mariadb-<version>)"
    )
}

/// Downloads and imports a Debian source package; returns its repository.
/// apt first (a signed index vouches for the files); for a version no list
/// names, the archive's pool path (the .dsc's signature vouches).
pub(super) fn debian_tree(package: &str, version: &str, cache: &Path) -> Result<PathBuf> {
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
pub(super) fn from_pool(
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
pub(super) fn apt_provenance(
    package: &str,
    version: &str,
    dsc: &Path,
) -> Result<debian_pool::Provenance> {
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

pub(super) fn find_dsc(dir: &Path) -> Option<PathBuf> {
    fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "dsc"))
}
