//! The tree's version, as its own file gives it.

use std::path::Path;

use lru_model::series::{Engine, TreeVersion};

/// `10.11.18` from a MariaDB tree's `VERSION` file (`9.7.2` from MySQL's
/// `MYSQL_VERSION`), read as the tool reads it (`lru_model::series`); an
/// unreadable file is named in the text instead.
pub fn read_version(src: &Path, engine: Engine) -> String {
    let path = src.join(engine.version_file());
    match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| TreeVersion::parse(engine, &text))
    {
        Ok(v) => v.version,
        Err(e) => format!("unknown ({}: {e})", path.display()),
    }
}
