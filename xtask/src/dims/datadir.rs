//! Where a matrix's servers keep their datadir: on tmpfs (the default,
//! /dev/shm: a miss is a memory copy) or on a disk (a miss waits for a
//! read, as on the hosts the seed articles measured).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Datadir {
    #[default]
    Tmpfs,
    Disk,
}

impl Datadir {
    /// The environment variable that moves its run root.
    pub fn root_env(self) -> &'static str {
        match self {
            Datadir::Tmpfs => crate::environment::SHM_ROOT,
            Datadir::Disk => crate::environment::DISK_ROOT,
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Datadir::Tmpfs => "tmpfs",
            Datadir::Disk => "disk",
        }
    }
}
