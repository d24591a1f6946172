//! The machine a run happened on: recorded in every result and used to
//! scale Mark Callaghan's my.cnf to this host.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Host {
    pub hostname: String,
    pub cores: usize,
    pub memory_bytes: u64,
    pub kernel: String,
    pub cpu_model: String,
}

impl Host {
    pub fn detect() -> Host {
        let read = crate::procfs::host_file;
        let cpuinfo = read("cpuinfo");
        let meminfo = read("meminfo");
        Host {
            hostname: read("sys/kernel/hostname").trim().to_string(),
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            memory_bytes: meminfo_kib(&meminfo, "MemTotal").unwrap_or(0) * 1024,
            kernel: read("sys/kernel/osrelease").trim().to_string(),
            cpu_model: cpuinfo
                .lines()
                .find_map(|l| {
                    l.strip_prefix("model name")?
                        .split_once(':')
                        .map(|(_, v)| v.trim().to_string())
                })
                .unwrap_or_else(|| "unknown".into()),
        }
    }

    /// One line for report headers.
    pub fn label(&self) -> String {
        format!(
            "{} cores, {:.1} GiB, {}, Linux {}",
            self.cores,
            self.memory_bytes as f64 / (1u64 << 30) as f64,
            self.cpu_model,
            self.kernel
        )
    }
}

fn meminfo_kib(meminfo: &str, key: &str) -> Option<u64> {
    meminfo.lines().find_map(|l| {
        l.strip_prefix(key)?
            .strip_prefix(':')?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_machine() {
        let h = Host::detect();
        assert!(h.cores >= 1);
        assert!(h.memory_bytes > 0, "MemTotal was not read");
        assert!(!h.kernel.is_empty());
    }

    #[test]
    fn meminfo_parsing() {
        assert_eq!(
            meminfo_kib("MemTotal:       24598100 kB\nMemFree: 1 kB\n", "MemTotal"),
            Some(24598100)
        );
        assert_eq!(meminfo_kib("MemFree: 1 kB\n", "MemTotal"), None);
    }
}
