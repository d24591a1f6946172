//! A Debian source package fetched by its pool path, for a version that no
//! source list names any more (Debian drops superseded versions from its
//! indexes but often keeps the files; a snapshot archive keeps them all).
//!
//! No signed index vouches for such files, so the chain is the one `dget`
//! and `dscverify` use: the `.dsc` is signed by a Debian uploader, and the
//! `.dsc` carries the sha256 of every other file. The signature is checked
//! against the host's `debian-keyring`; when that keyring's copy of the
//! signing key had already expired when the signature was made (bookworm's
//! keyring is from 2022 and uploaders extend their keys' expiry since),
//! the keyring of trixie's `debian-keyring` package is used instead, the
//! package itself fetched by apt through trixie's signed Release and
//! Packages indexes.

use crate::util::{sha256_hex, write_json, Command};
use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The upload keyrings: a signature by a key of `debian-nonupload` does
/// not make an upload, and the user's own `~/.gnupg/trustedkeys.gpg`
/// (which dscverify reads by default) is not Debian's word.
const UPLOAD_KEYRINGS: [&str; 2] = ["debian-keyring.gpg", "debian-maintainers.gpg"];
const HOST_KEYRINGS: &str = "/usr/share/keyrings";

pub fn mirror() -> String {
    crate::environment::current().debian_mirror.clone()
}

/// `pool/main/<m or libm>/<source>/`: Debian splits lib* sources by their
/// fourth letter, since a quarter of all sources start with "lib".
/// (Only `main`: the sources this tool builds are all there.)
pub fn pool_dir(source: &str) -> String {
    // chars, not bytes: a mistyped non-ASCII name must give a 404, not a panic
    let first = |s: &str| s.chars().next().map(String::from).unwrap_or_default();
    let prefix = match source.strip_prefix("lib") {
        Some(rest) if !rest.is_empty() => format!("lib{}", first(rest)),
        _ => first(source),
    };
    format!("pool/main/{prefix}/{source}/")
}

/// File names carry the version without its epoch (`1:`).
pub fn dsc_name(source: &str, version: &str) -> String {
    let bare = version.split_once(':').map_or(version, |(_, v)| v);
    format!("{source}_{bare}.dsc")
}

/// A file the .dsc names, with its size and sha256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DscFile {
    pub name: String,
    pub size: u64,
    pub sha256: String,
}

/// The files of a .dsc's `Checksums-Sha256` field. Every file of its
/// `Files` field must be there too: a file with only an md5 is not checked.
pub fn parse_dsc(text: &str, dsc: &str) -> Result<Vec<DscFile>> {
    let mut files = Vec::new();
    let mut md5_names = Vec::new();
    let mut field = "";
    for line in text.lines() {
        if line.starts_with("-----BEGIN PGP SIGNATURE") {
            break;
        }
        if let Some(rest) = line.strip_prefix(' ') {
            let words: Vec<&str> = rest.split_whitespace().collect();
            match field {
                "Checksums-Sha256" => {
                    let [sha, size, name] = words[..] else {
                        bail!("{dsc}: bad Checksums-Sha256 line `{rest}`");
                    };
                    let size: u64 = size
                        .parse()
                        .map_err(|_| anyhow!("{dsc}: bad size in `{rest}`"))?;
                    if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                        bail!("{dsc}: bad sha256 in `{rest}`");
                    }
                    // the name becomes a path under the download directory
                    if name.contains('/') || name.starts_with('.') {
                        bail!("{dsc}: file name `{name}` is not a plain name");
                    }
                    files.push(DscFile {
                        name: name.into(),
                        size,
                        sha256: sha.to_ascii_lowercase(),
                    });
                }
                "Files" => md5_names.extend(words.get(2).map(|n| n.to_string())),
                _ => {}
            }
        } else if let Some((name, _)) = line.split_once(':') {
            field = if name.contains(' ') { "" } else { name };
        }
    }
    if files.is_empty() {
        bail!("{dsc}: no Checksums-Sha256 field");
    }
    if let Some(n) = md5_names
        .iter()
        .find(|n| !files.iter().any(|f| &f.name == *n))
    {
        bail!("{dsc}: `{n}` is in Files but has no sha256");
    }
    Ok(files)
}

/// Checks `path` against the .dsc's size and sha256; returns the sha256.
pub fn check_file(path: &Path, want: &DscFile, dsc: &str) -> Result<String> {
    let bytes = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let got = sha256_hex(&bytes);
    if got != want.sha256 || bytes.len() as u64 != want.size {
        bail!(
            "{}: sha256 {got} ({} bytes), but {dsc} says {} ({} bytes): refused",
            want.name,
            bytes.len(),
            want.sha256,
            want.size
        );
    }
    Ok(got)
}

/// Downloads `url` to `dest` with curl; returns the HTTP status (the file
/// is kept only for 200). A transfer that fails outright is an error.
pub fn download(url: &str, dest: &Path, deadline: Duration) -> Result<u16> {
    let part = dest.with_extension("part");
    let out = Command::new("curl")
        .args(["-sS", "-L", "--retry", "2", "-w", "%{http_code}", "-o"])
        .arg(part.display().to_string())
        .args(["--max-time", &deadline.as_secs().to_string()])
        .arg(url)
        // curl's own --max-time is the deadline; this one catches a hang
        .deadline(deadline + Duration::from_secs(30))
        .read()
        .with_context(|| format!("cannot download {url}"))?;
    let status: u16 = out
        .trim()
        .parse()
        .map_err(|_| anyhow!("{url}: curl printed no HTTP status (`{}`)", out.trim()))?;
    if status == 200 {
        fs::rename(&part, dest)?;
    } else {
        let _ = fs::remove_file(&part);
    }
    Ok(status)
}

/// What vouched for a tree's files, written as `provenance.json`.
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    pub source: String,
    pub version: String,
    /// the URL of the .dsc, or "apt-get source" for the apt path
    pub from: String,
    pub dsc: DscFile,
    pub files: Vec<DscFile>,
    /// one line: which check vouched
    pub vouched_by: String,
    pub signer: Option<String>,
    pub keyring: Option<String>,
}

/// How the pool path failed, for the one error that also gives apt's answer.
pub enum PoolFailure {
    /// the .dsc's URL answered this HTTP status
    NotServed {
        url: String,
        status: u16,
    },
    Other(anyhow::Error),
}

/// Fetches, checks and signature-verifies `source`=`version` into
/// `downloads`. The .dsc waits as `<name>.dsc.unverified` until its files
/// match, and `provenance.json`, written last, marks the set as checked.
pub fn fetch(
    source: &str,
    version: &str,
    downloads: &Path,
    cache: &Path,
) -> std::result::Result<Provenance, PoolFailure> {
    let base = format!("{}/{}", mirror(), pool_dir(source));
    let dsc_name = dsc_name(source, version);
    let url = format!("{base}{dsc_name}");
    let staged = downloads.join(format!("{dsc_name}.unverified"));
    let status = download(&url, &staged, Duration::from_secs(60)).map_err(PoolFailure::Other)?;
    if status != 200 {
        return Err(PoolFailure::NotServed { url, status });
    }
    fetch_rest(source, version, &url, &base, &staged, downloads, cache).map_err(PoolFailure::Other)
}

fn fetch_rest(
    source: &str,
    version: &str,
    url: &str,
    base: &str,
    staged: &Path,
    downloads: &Path,
    cache: &Path,
) -> Result<Provenance> {
    let dsc_name = dsc_name(source, version);
    let bytes = fs::read(staged)?;
    let text = String::from_utf8_lossy(&bytes);
    let files = parse_dsc(&text, url)?;
    for f in &files {
        let path = downloads.join(&f.name);
        if path.exists() && check_file(&path, f, &dsc_name).is_ok() {
            continue;
        }
        let file_url = format!("{base}{}", f.name);
        let status = download(&file_url, &path, Duration::from_secs(900))?;
        if status != 200 {
            bail!("{file_url} answered HTTP {status}, though {url} names it");
        }
        check_file(&path, f, &dsc_name)
            .with_context(|| format!("{file_url} does not match {url}"))?;
    }
    // the signature is checked with the .dsc under its own name, beside its files
    let dsc_path = downloads.join(&dsc_name);
    fs::rename(staged, &dsc_path)?;
    let vouch = match verify_signature(&dsc_path, cache)
        .with_context(|| format!("{url}: its signature does not vouch for it"))
    {
        Ok(v) => v,
        Err(e) => {
            // an unverified .dsc must not be found by the next run
            let _ = fs::rename(&dsc_path, staged);
            return Err(e);
        }
    };
    let provenance = Provenance {
        source: source.into(),
        version: version.into(),
        from: url.into(),
        dsc: DscFile {
            name: dsc_name,
            size: bytes.len() as u64,
            sha256: sha256_hex(&bytes),
        },
        files,
        vouched_by: vouch.summary(),
        signer: Some(format!("{} ({})", vouch.fingerprint, vouch.uid)),
        keyring: Some(vouch.keyring.clone()),
    };
    write_json(&downloads.join("provenance.json"), &provenance)?;
    Ok(provenance)
}

/// A good signature by a key of a keyring, valid when it was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vouch {
    pub fingerprint: String,
    pub uid: String,
    pub signed_at: u64,
    pub keyring: String,
}

impl Vouch {
    fn summary(&self) -> String {
        format!(
            "the .dsc's OpenPGP signature of {} by key {} ({}), checked by dscverify against {}",
            utc_date(self.signed_at),
            self.fingerprint,
            self.uid,
            self.keyring
        )
    }
}

/// A Unix time as a UTC date, YYYY-MM-DD (days to civil date, after
/// Howard Hinnant's algorithm: no date crate for one word of a message).
pub fn utc_date(ts: u64) -> String {
    let z = (ts / 86400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// What gpgv's status lines say about one signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureVerdict {
    Good {
        fingerprint: String,
        uid: String,
        signed_at: u64,
    },
    /// the keyring's copy of the key expired before the signature was made
    ExpiredAtSigning {
        fingerprint: String,
        signed_at: u64,
        expired: u64,
    },
    NoKey,
    Bad(String),
}

/// Reads gpgv's `--status-fd` lines. A key that has expired since the
/// signature is fine (every old upload's key expires some day); one that
/// had expired before it, or was revoked, is not.
pub fn parse_gpg_status(status: &str) -> SignatureVerdict {
    let mut expired = None;
    let mut valid = None;
    let mut uid = String::new();
    for line in status.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.get(1..) {
            Some(["KEYEXPIRED", ts, ..]) => expired = ts.parse::<u64>().ok(),
            Some(["GOODSIG" | "EXPKEYSIG", _, name @ ..]) => uid = name.join(" "),
            Some(["VALIDSIG", _, _, ts, rest @ ..]) => {
                // the last word is the primary key's fingerprint
                let fpr = rest.last().copied().unwrap_or_default().to_string();
                valid = ts.parse::<u64>().ok().map(|t| (fpr, t));
            }
            Some(["BADSIG", ..]) => return SignatureVerdict::Bad("a bad signature".into()),
            Some(["REVKEYSIG", ..]) => {
                return SignatureVerdict::Bad("signed by a revoked key".into())
            }
            Some(["NO_PUBKEY", ..]) => return SignatureVerdict::NoKey,
            _ => {}
        }
    }
    match (valid, expired) {
        (Some((fingerprint, signed_at)), Some(expired)) if expired <= signed_at => {
            SignatureVerdict::ExpiredAtSigning {
                fingerprint,
                signed_at,
                expired,
            }
        }
        (Some((fingerprint, signed_at)), _) => SignatureVerdict::Good {
            fingerprint,
            uid,
            signed_at,
        },
        (None, _) => SignatureVerdict::Bad("no valid signature".into()),
    }
}

/// The keyrings of `dir` that exist, as paths.
fn keyrings_in(dir: &Path) -> Vec<PathBuf> {
    UPLOAD_KEYRINGS
        .iter()
        .map(|k| dir.join(k))
        .filter(|p| p.exists())
        .collect()
}

/// dscverify (signature, sizes and checksums of every file) with the
/// upload keyrings of `dir`, then gpgv's status for who signed and
/// whether the key was valid then (dscverify accepts a signature made by
/// an expired key).
fn verify_with(dsc: &Path, dir: &Path) -> Result<SignatureVerdict> {
    let keyrings = keyrings_in(dir);
    if keyrings.is_empty() {
        bail!(
            "no Debian keyring in {} (install debian-keyring: tools/install-deps.sh)",
            dir.display()
        );
    }
    let kr_args: Vec<String> = keyrings
        .iter()
        .flat_map(|k| ["--keyring".to_string(), k.display().to_string()])
        .collect();
    let status = Command::new("gpgv")
        .args(["--status-fd", "1"])
        .args(kr_args.iter().cloned())
        .arg(dsc.display().to_string())
        .env("LC_ALL", "C")
        .deadline(Duration::from_secs(60))
        .output()?;
    let verdict = parse_gpg_status(&String::from_utf8_lossy(&status.stdout));
    if let SignatureVerdict::Good { .. } = verdict {
        Command::new("dscverify")
            .args(["--no-conf", "--no-default-keyrings"])
            .args(kr_args)
            .arg(dsc.display().to_string())
            .env("LC_ALL", "C")
            .deadline(Duration::from_secs(120))
            .read()
            .map_err(|e| anyhow!("dscverify refused {}: {e:#}", dsc.display()))?;
    }
    Ok(verdict)
}

/// Checks the .dsc's signature: the host's keyring first, trixie's
/// keyring package when the host's cannot vouch.
pub fn verify_signature(dsc: &Path, cache: &Path) -> Result<Vouch> {
    let name = dsc.display();
    let host = Path::new(HOST_KEYRINGS);
    let first = verify_with(dsc, host)?;
    let why_not_host = match first {
        SignatureVerdict::Good {
            fingerprint,
            uid,
            signed_at,
        } => {
            return Ok(Vouch {
                fingerprint,
                uid,
                signed_at,
                keyring: format!("the host's keyrings in {}", host.display()),
            })
        }
        SignatureVerdict::Bad(why) => bail!("{name}: {why}: refused"),
        SignatureVerdict::NoKey => "has no key that made the signature".to_string(),
        SignatureVerdict::ExpiredAtSigning {
            fingerprint,
            signed_at,
            expired,
        } => format!(
            "holds key {fingerprint}, but its copy expired on {}, before the signature \
             was made on {} (the key's expiry was extended since)",
            utc_date(expired),
            utc_date(signed_at)
        ),
    };
    eprintln!("    the host's debian-keyring {why_not_host}; trying trixie's debian-keyring");
    let (dir, package) = trixie_keyring(cache)
        .with_context(|| format!("{name}: the host's debian-keyring {why_not_host}"))?;
    match verify_with(dsc, &dir)? {
        SignatureVerdict::Good {
            fingerprint,
            uid,
            signed_at,
        } => Ok(Vouch {
            fingerprint,
            uid,
            signed_at,
            keyring: format!(
                "trixie's {package}, fetched by apt through trixie's signed Release and Packages"
            ),
        }),
        other => bail!(
            "{name}: the host's debian-keyring {why_not_host}, and {package} does not vouch \
             either ({other:?}): refused; a git: tree of the same release is the other way"
        ),
    }
}

/// trixie's debian-keyring package, downloaded by apt (which checks the
/// Release signature against debian-archive-keyring, the Packages index
/// against Release and the .deb against Packages) and unpacked; returns
/// its keyrings directory and "debian-keyring <version>, sha256 <hash>".
fn trixie_keyring(cache: &Path) -> Result<(PathBuf, String)> {
    let dir = cache.join("debian-keyring-trixie");
    let sources = format!(
        "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] {} trixie main\n",
        crate::environment::DEFAULT_DEBIAN_MIRROR
    );
    let apt = super::PrivateApt::at(&dir.join("apt"), &sources)?;
    apt.update()
        .context("apt-get update for trixie's debian-keyring failed")?;
    // fetched afresh each time (a few seconds, once per tree): a keyring
    // kept from an earlier run would miss the keys added since
    let debs = dir.join("deb");
    if debs.exists() {
        fs::remove_dir_all(&debs)?;
    }
    fs::create_dir_all(&debs)?;
    Command::new("apt-get")
        .args(apt.options())
        .args(["-q", "download", "debian-keyring/trixie"])
        .dir(&debs)
        .deadline(Duration::from_secs(600))
        .read()
        .context("apt-get download debian-keyring/trixie failed")?;
    let deb = fs::read_dir(&debs)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "deb"))
        .ok_or_else(|| anyhow!("no .deb in {}", debs.display()))?;
    let unpacked = dir.join("unpacked");
    if unpacked.exists() {
        fs::remove_dir_all(&unpacked)?;
    }
    Command::new("dpkg-deb")
        .arg("-x")
        .arg(deb.display().to_string())
        .arg(unpacked.display().to_string())
        .read()?;
    let sha = sha256_hex(&fs::read(&deb)?);
    let file = deb.file_name().unwrap_or_default().to_string_lossy();
    Ok((
        unpacked.join("usr/share/keyrings"),
        format!("{file} (sha256 {sha})"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DSC: &str = "\
-----BEGIN PGP SIGNED MESSAGE-----
Hash: SHA512

Format: 3.0 (quilt)
Source: mariadb
Version: 1:11.8.6-0+deb13u1
Checksums-Sha1:
 67708c3a39324d1013e58c965c8ebad10b7e5663 120887651 mariadb_11.8.6.orig.tar.gz
Checksums-Sha256:
 b126581a8ca89376d2a3ce63fee97c114c3e15315345e769b9d00c51e1b7d619 120887651 mariadb_11.8.6.orig.tar.gz
 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824 5 x.debian.tar.xz
Files:
 85044cd1ec59cbdbcc4d27a9646d6261 120887651 mariadb_11.8.6.orig.tar.gz
 8f8f7952843b7108e86a1bb98fb728ac 5 x.debian.tar.xz

-----BEGIN PGP SIGNATURE-----
 not a file line
-----END PGP SIGNATURE-----
";

    #[test]
    fn pool_paths() {
        assert_eq!(pool_dir("mariadb"), "pool/main/m/mariadb/");
        assert_eq!(pool_dir("mariadb-10.5"), "pool/main/m/mariadb-10.5/");
        assert_eq!(pool_dir("libaio"), "pool/main/liba/libaio/");
        // "lib" alone is not a lib* package
        assert_eq!(pool_dir("lib"), "pool/main/l/lib/");
        assert_eq!(pool_dir("äpfel"), "pool/main/ä/äpfel/");
        assert_eq!(
            dsc_name("mariadb", "1:11.8.6-0+deb13u1"),
            "mariadb_11.8.6-0+deb13u1.dsc"
        );
        assert_eq!(dsc_name("libaio", "0.3.113-4"), "libaio_0.3.113-4.dsc");
    }

    #[test]
    fn dsc_files_and_their_sha256() {
        let files = parse_dsc(DSC, "m.dsc").unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[0].name, "mariadb_11.8.6.orig.tar.gz");
        assert_eq!(files[0].size, 120887651);
        assert!(files[0].sha256.starts_with("b126581a"));
        assert_eq!(files[1].name, "x.debian.tar.xz");

        let md5_only = DSC.replace(
            " 8f8f7952843b7108e86a1bb98fb728ac 5 x.debian.tar.xz",
            " 8f8f7952843b7108e86a1bb98fb728ac 5 x.debian.tar.xz\n 00 1 extra.tar.xz",
        );
        let err = parse_dsc(&md5_only, "m.dsc").unwrap_err().to_string();
        assert!(
            err.contains("`extra.tar.xz` is in Files but has no sha256"),
            "{err}"
        );
        let no_sha = DSC.replace("Checksums-Sha256:", "Checksums-Other:");
        let err = parse_dsc(&no_sha, "m.dsc").unwrap_err().to_string();
        assert!(err.contains("m.dsc: no Checksums-Sha256"), "{err}");
        let escape = DSC.replace(" 5 x.debian.tar.xz", " 5 ../x.debian.tar.xz");
        assert!(parse_dsc(&escape, "m.dsc").is_err());
    }

    #[test]
    fn a_bad_checksum_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let files = parse_dsc(DSC, "m.dsc").unwrap();
        let path = dir.path().join("x.debian.tar.xz");
        fs::write(&path, "hello").unwrap();
        // sha256("hello") is what the test .dsc says
        check_file(&path, &files[1], "m.dsc").unwrap();
        fs::write(&path, "hellO").unwrap();
        let err = check_file(&path, &files[1], "m.dsc")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("x.debian.tar.xz: sha256 ") && err.contains("but m.dsc says 2cf24dba"),
            "{err}"
        );
    }

    #[test]
    fn gpg_status_expired_before_or_after_signing() {
        let status = |expired: u64| {
            format!(
                "[GNUPG:] NEWSIG\n[GNUPG:] KEYEXPIRED {expired}\n\
                 [GNUPG:] EXPKEYSIG BED8449FCEE8DA88 Otto\n\
                 [GNUPG:] VALIDSIG 99B4 2026-03-07 1772896847 0 4 0 1 10 01 99B452B1\n"
            )
        };
        // bookworm's keyring: expired 2025-05-25, signed 2026-03-07
        assert_eq!(
            parse_gpg_status(&status(1748199608)),
            SignatureVerdict::ExpiredAtSigning {
                fingerprint: "99B452B1".into(),
                signed_at: 1772896847,
                expired: 1748199608
            }
        );
        // trixie's: expires 2026-06-26, after the signature
        assert_eq!(
            parse_gpg_status(&status(1782500400)),
            SignatureVerdict::Good {
                fingerprint: "99B452B1".into(),
                uid: "Otto".into(),
                signed_at: 1772896847
            }
        );
        assert_eq!(utc_date(1748199608), "2025-05-25");
        assert_eq!(utc_date(1772896847), "2026-03-07");
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(951_782_400), "2000-02-29");
        assert_eq!(
            parse_gpg_status("[GNUPG:] ERRSIG 1 2\n[GNUPG:] NO_PUBKEY BED8449FCEE8DA88\n"),
            SignatureVerdict::NoKey
        );
        assert!(matches!(
            parse_gpg_status("[GNUPG:] BADSIG BED8449FCEE8DA88 Otto\n"),
            SignatureVerdict::Bad(_)
        ));
    }
}
