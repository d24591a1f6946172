//! Which tree a build script is to build against: `INNODB_SRC` (the source
//! root) and `INNODB_BUILD` (a configured build directory), set by the
//! xtask command that checks a tree.

use std::path::PathBuf;

/// The tree named by `INNODB_SRC` and `INNODB_BUILD` (told to cargo as
/// inputs of the build script), `None` when neither is set; an error naming
/// `command` (the xtask command that sets them) when only one is.
pub fn tree_from_env(command: &str) -> Result<Option<(PathBuf, PathBuf)>, String> {
    println!("cargo::rerun-if-env-changed=INNODB_SRC");
    println!("cargo::rerun-if-env-changed=INNODB_BUILD");
    let var = |name| {
        std::env::var_os(name)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    };
    match (var("INNODB_SRC"), var("INNODB_BUILD")) {
        (None, None) => Ok(None),
        (Some(src), Some(build)) => Ok(Some((src, build))),
        _ => Err(format!(
            "set both INNODB_SRC (source root) and INNODB_BUILD (configured build dir), or \
             neither; `{command}` sets them"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::tree_from_env;

    #[test]
    fn both_or_neither() {
        // the only test of this crate that touches the environment
        std::env::remove_var("INNODB_SRC");
        std::env::remove_var("INNODB_BUILD");
        assert_eq!(tree_from_env("x check"), Ok(None));
        std::env::set_var("INNODB_SRC", "/s");
        let err = tree_from_env("x check").unwrap_err();
        assert!(
            err.contains("INNODB_BUILD") && err.contains("`x check`"),
            "{err}"
        );
        std::env::set_var("INNODB_BUILD", "/b");
        assert_eq!(
            tree_from_env("x check"),
            Ok(Some(("/s".into(), "/b".into())))
        );
        std::env::remove_var("INNODB_SRC");
        std::env::remove_var("INNODB_BUILD");
    }
}
