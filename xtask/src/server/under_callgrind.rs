//! A server under Valgrind's callgrind: the argument vector that starts it
//! with instrumentation off, and the switch (vgdb's monitor commands) that
//! turns instrumentation on for a window and dumps the counts, which
//! `profile::callgrind` reads.
//!
//! vgdb talks to Valgrind through FIFOs and a shared-memory file that
//! Valgrind creates with its owner's uid, mode 0600: it must run as the
//! server's user, and the server must be that user from its first
//! instruction (a server that starts as root and drops to its user cannot
//! open them any more, and vgdb cannot trace it).

use crate::util::Command;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a monitor command may take: vgdb interrupts a server blocked
/// in system calls by tracing it, which here answers in well under a
/// second. A vgdb stopped half-way can abort Valgrind, which the pass then
/// reports as the server lost.
const MONITOR_DEADLINE: Duration = Duration::from_secs(120);

/// One server under callgrind: where its FIFOs and dumps are, its pid and
/// the user vgdb runs as.
#[derive(Debug, Clone)]
pub struct Callgrind {
    /// the directory of the FIFOs and the dumps (in the run directory,
    /// owned by the server's user)
    pub dir: PathBuf,
    pub pid: u32,
    pub user: Option<(u32, u32)>,
}

impl Callgrind {
    fn prefix(dir: &Path) -> PathBuf {
        dir.join("vgdb")
    }

    /// Valgrind's options before the server's own argument vector:
    /// callgrind without instrumentation until switched on (the server
    /// runs about 5 times slower than natively instead of about 40),
    /// a dump file per thread (so that the connections' work can be told
    /// from the page cleaner's and purge's), vgdb reachable through files
    /// in `dir`, dumps there too.
    pub fn wrapper_args(dir: &Path) -> Vec<String> {
        vec![
            "--tool=callgrind".into(),
            "--instr-atstart=no".into(),
            "--separate-threads=yes".into(),
            "--vgdb=yes".into(),
            format!("--vgdb-prefix={}", Self::prefix(dir).display()),
            format!(
                "--callgrind-out-file={}",
                dir.join("callgrind.out.%p").display()
            ),
        ]
    }

    fn monitor(&self, words: &[&str]) -> Result<String> {
        let mut cmd = Command::new("vgdb")
            .arg(format!(
                "--vgdb-prefix={}",
                Self::prefix(&self.dir).display()
            ))
            .arg(format!("--pid={}", self.pid))
            .args(words.iter().copied())
            .deadline(MONITOR_DEADLINE);
        if let Some((uid, gid)) = self.user {
            cmd = cmd.as_user(uid, gid);
        }
        let out = cmd.read()?;
        Ok(out)
    }

    /// Turns instrumentation on or off (callgrind keeps no count while it
    /// is off; switching discards its translations, a second or two).
    pub fn instrument(&self, on: bool) -> Result<()> {
        self.monitor(&["instrumentation", if on { "on" } else { "off" }])
            .map(|_| ())
    }

    /// Sets every count to zero.
    pub fn zero(&self) -> Result<()> {
        self.monitor(&["zero"]).map(|_| ())
    }

    /// Writes the counts since the last zero or dump, one file per thread
    /// (`callgrind.out.<pid>.<n>-<thread>`), and returns the paths of the
    /// files this dump wrote, in name order.
    pub fn dump(&self) -> Result<Vec<PathBuf>> {
        let before = self.dumps()?;
        self.monitor(&["dump"])?;
        let mut written: Vec<PathBuf> = self
            .dumps()?
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect();
        if written.is_empty() {
            bail!(
                "callgrind wrote no dump into {} when asked",
                self.dir.display()
            );
        }
        written.sort();
        Ok(written)
    }

    fn dumps(&self) -> Result<Vec<PathBuf>> {
        let stem = format!("callgrind.out.{}.", self.pid);
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&self.dir)
            .with_context(|| format!("cannot read {}", self.dir.display()))?
        {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with(&stem) {
                found.push(path);
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valgrind_starts_without_instrumentation_and_with_its_files_in_the_run_directory() {
        let args = Callgrind::wrapper_args(Path::new("/run/x/callgrind"));
        assert!(args.contains(&"--instr-atstart=no".to_string()));
        assert!(args.contains(&"--separate-threads=yes".to_string()));
        assert!(args.contains(&"--vgdb-prefix=/run/x/callgrind/vgdb".to_string()));
        assert!(
            args.contains(&"--callgrind-out-file=/run/x/callgrind/callgrind.out.%p".to_string())
        );
    }
}
