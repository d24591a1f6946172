//! Which binaries a server runs: a build's server and how its datadir is
//! bootstrapped, or a packaged server's.

use crate::dims::Engine;
use crate::record::Build;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How to bootstrap and start one server binary.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerBinaries {
    pub engine: Engine,
    /// `mariadbd` or `mysqld`
    pub server: PathBuf,
    pub bootstrap: Bootstrap,
    /// my.cnf lines that locate the binary's files (messages, charsets)
    pub location_settings: Vec<(String, String)>,
}

/// How an empty datadir becomes one a server starts on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Bootstrap {
    /// MariaDB: the tree's own `mariadb-install-db`, with `args` such as
    /// `--srcdir`/`--builddir` for a build tree.
    InstallScript { script: PathBuf, args: Vec<String> },
    /// MySQL: the server itself, `mysqld --initialize-insecure` (root
    /// without a password until the tool's init file sets one).
    Initialize,
}

impl ServerBinaries {
    pub fn from_build(build: &Build) -> Result<ServerBinaries> {
        Ok(match build.engine {
            Engine::MariaDb => ServerBinaries {
                engine: Engine::MariaDb,
                server: build.mariadbd.clone(),
                bootstrap: Bootstrap::InstallScript {
                    script: crate::build::install_db_script(&build.build)?,
                    args: vec![
                        format!("--srcdir={}", build.src.display()),
                        format!("--builddir={}", build.build.display()),
                    ],
                },
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
            },
            // the error messages as GenError writes them under the build's
            // share/, the character sets from the source's share/
            Engine::MySql => ServerBinaries {
                engine: Engine::MySql,
                server: build.mariadbd.clone(),
                bootstrap: Bootstrap::Initialize,
                location_settings: vec![
                    (
                        "lc_messages_dir".into(),
                        build.build.join("share").display().to_string(),
                    ),
                    (
                        "character_sets_dir".into(),
                        build.src.join("share/charsets").display().to_string(),
                    ),
                ],
            },
        })
    }

    /// A packaged MariaDB server: its own install script, its compiled-in
    /// paths (a packaged MySQL server is refused when its tree is read).
    pub fn from_package(mariadbd: &Path) -> Result<ServerBinaries> {
        let prefix = mariadbd
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("/usr"));
        let script = [
            "bin/mariadb-install-db",
            "bin/mysql_install_db",
            "scripts/mariadb-install-db",
        ]
        .iter()
        .map(|p| prefix.join(p))
        .find(|p| p.exists())
        .with_context(|| format!("no mariadb-install-db under {}/bin", prefix.display()))?;
        Ok(ServerBinaries {
            engine: Engine::MariaDb,
            server: mariadbd.to_path_buf(),
            bootstrap: Bootstrap::InstallScript {
                script,
                args: vec![format!("--basedir={}", prefix.display())],
            },
            location_settings: Vec::new(),
        })
    }
}
