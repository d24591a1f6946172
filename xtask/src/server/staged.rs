//! A server's files copied into its run directory, for a server that runs
//! as its user from its first instruction (under Valgrind): the build's
//! binary and the directories its my.cnf points at live under the tool's
//! cache, which that user may not be able to pass through (root's home is
//! 0700). A server that starts as root reads them before it drops to its
//! user and needs no copy.

use super::{RunDir, ServerBinaries};
use crate::util::Command;
use anyhow::{Context, Result};
use std::path::Path;

/// The binaries of `binaries` copied under `dir`'s `bin/`: the server,
/// and each directory a location setting names, the setting pointed at
/// its copy. The bootstrap runs from where it is (it runs as root).
pub(super) fn stage(binaries: &ServerBinaries, dir: &RunDir) -> Result<ServerBinaries> {
    let bin = dir.root.join("bin");
    std::fs::create_dir_all(&bin).with_context(|| format!("cannot create {}", bin.display()))?;
    let server = bin.join(binaries.engine.server_binary());
    std::fs::copy(&binaries.server, &server).with_context(|| {
        format!(
            "cannot copy {} to {}",
            binaries.server.display(),
            server.display()
        )
    })?;
    let mut location_settings = Vec::new();
    for (key, from) in &binaries.location_settings {
        let to = bin.join(key);
        copy_dir(Path::new(from), &to)?;
        location_settings.push((key.clone(), to.display().to_string()));
    }
    Ok(ServerBinaries {
        server,
        location_settings,
        ..binaries.clone()
    })
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    Command::new("cp")
        .args(["-R", "-T"])
        .arg(from.display().to_string())
        .arg(to.display().to_string())
        .read()
        .map(|_| ())
}
