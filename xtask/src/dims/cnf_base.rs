//! What a server's my.cnf starts from before the variant's settings:
//! Mark Callaghan's settings (the default), or the server's own defaults,
//! as seed 001 ran MySQL ("a 256 MB pool, defaults otherwise").

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CnfBase {
    /// Mark's settings for the series' family, scaled to the host
    #[default]
    Mark,
    /// nothing but the tool's own lines (paths, socket, user) and what the
    /// datadir's filesystem needs (no O_DIRECT on tmpfs)
    Defaults,
}

impl CnfBase {
    /// Serde's test for leaving the default out of a record.
    pub fn is_mark(&self) -> bool {
        *self == CnfBase::Mark
    }
}
