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
    /// The environment variable that moves its run root, and the root
    /// used without it.
    pub fn root_env_and_default(self) -> (&'static str, &'static str) {
        match self {
            Datadir::Tmpfs => ("INNODB_LAB_SHM", "/dev/shm/innodb-lab"),
            // /var/tmp is on the root filesystem on Debian, never a tmpfs
            Datadir::Disk => ("INNODB_LAB_DISK", "/var/tmp/innodb-lab"),
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Datadir::Tmpfs => "tmpfs",
            Datadir::Disk => "disk",
        }
    }
}
