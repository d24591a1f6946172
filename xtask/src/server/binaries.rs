//! Which binaries a server runs: a build's `mariadbd` and the script that
//! bootstraps its datadir, or a packaged server's.

use crate::record::Build;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How to bootstrap and start one server binary.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerBinaries {
    pub mariadbd: PathBuf,
    pub install_db: PathBuf,
    /// e.g. `--srcdir`/`--builddir` for a build tree
    pub install_db_args: Vec<String>,
    /// my.cnf lines that locate the binary's files (messages, charsets)
    pub location_settings: Vec<(String, String)>,
}

impl ServerBinaries {
    pub fn from_build(build: &Build) -> Result<ServerBinaries> {
        Ok(ServerBinaries {
            mariadbd: build.mariadbd.clone(),
            install_db: crate::build::install_db_script(&build.build)?,
            install_db_args: vec![
                format!("--srcdir={}", build.src.display()),
                format!("--builddir={}", build.build.display()),
            ],
            location_settings: vec![
                (
                    "lc_messages_dir".into(),
                    build.build.join("sql/share").display().to_string(),
                ),
                (
                    "character_sets_dir".into(),
                    build.src.join("sql/share/charsets").display().to_string(),
                ),
            ],
        })
    }

    /// A packaged server: its own install script, its compiled-in paths.
    pub fn from_package(mariadbd: &Path) -> Result<ServerBinaries> {
        let prefix = mariadbd
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("/usr"));
        let install_db = [
            "bin/mariadb-install-db",
            "bin/mysql_install_db",
            "scripts/mariadb-install-db",
        ]
        .iter()
        .map(|p| prefix.join(p))
        .find(|p| p.exists())
        .with_context(|| format!("no mariadb-install-db under {}/bin", prefix.display()))?;
        Ok(ServerBinaries {
            mariadbd: mariadbd.to_path_buf(),
            install_db,
            install_db_args: vec![format!("--basedir={}", prefix.display())],
            location_settings: Vec::new(),
        })
    }
}
