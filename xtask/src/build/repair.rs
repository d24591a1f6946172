//! Repairs of a tree's own sources that one build type needs before it
//! compiles at all. Debian's 11.8 packaging carries a patch that only a
//! release build can compile, because only a debug build expands the
//! macro it misuses; without a repair such a tree has no Debug build and
//! mtr's debug-only tests cannot run on it.
//!
//! A repair is keyed by the exact text it replaces: a tree without that
//! text (an upstream git tree, a later Debian release that fixed it) is
//! left alone. The repairs that apply to a build type enter its build key,
//! and the ones applied are recorded with the build.

use crate::record::BuildType;
use anyhow::{Context, Result};
use std::fs;
use std::path::Path;

/// One repair: in `file`, the text `broken` becomes `repaired`.
#[derive(Debug, Clone, Copy)]
pub struct Repair {
    pub name: &'static str,
    pub build_type: BuildType,
    pub file: &'static str,
    pub broken: &'static str,
    pub repaired: &'static str,
    pub why: &'static str,
}

/// Every repair the tool knows.
pub const REPAIRS: &[Repair] = &[
    Repair {
        name: "debian-dbug-print-args",
        build_type: BuildType::Debug,
        file: "mysys/my_init.c",
        broken: r#"DBUG_PRINT("deprecation warning", "skipped");"#,
        repaired: r#"DBUG_PRINT("deprecation warning", ("skipped"));"#,
        why: "Debian's hide-mysql-command-deprecation-warnings.patch (11.8.6) passes DBUG_PRINT a \
              bare string where the macro takes a parenthesised argument list; a release build \
              expands DBUG_PRINT to nothing, a Debug build to a syntax error",
    },
    Repair {
        name: "debian-startup-message-else",
        build_type: BuildType::Debug,
        file: "sql/mysqld.cc",
        broken: "  if (!opt_help)\n    if (SOURCE_REVISION) {",
        repaired: "  if (opt_help) {}\n    else if (SOURCE_REVISION) {",
        why: "Debian's startup-message.patch (11.8.6) nests an if-else under a bare if; a Debug \
              build compiles in MariaDB's maintainer mode, where -Werror=dangling-else refuses it \
              (the same branches, with the outer test inverted)",
    },
    Repair {
        name: "debian-sysvar-comment-dot",
        build_type: BuildType::Debug,
        file: "storage/innobase/handler/ha_innodb.cc",
        broken: "\"Encrypt the temporary table data.\",",
        repaired: "\"Encrypt the temporary table data\",",
        why: "Debian's Fix-misc-spelling patch (11.8.6) ends innodb_encrypt_temporary_tables' \
              comment with a period; a Debug server asserts in sys_var's constructor that no \
              comment does, and aborts before it can print its version (mtr: \"Could not find \
              version of MariaDB\")",
    },
];

/// The names of the repairs a build of `build_type` may apply (part of
/// its key: empty for every build type that has none, so those keys stay
/// as they were before repairs existed).
pub fn names_for(build_type: BuildType) -> Vec<String> {
    REPAIRS
        .iter()
        .filter(|r| r.build_type == build_type)
        .map(|r| r.name.to_string())
        .collect()
}

/// Applies to the checkout at `src` every repair of `build_type` whose
/// broken text it has; returns the names of those applied.
pub fn apply(src: &Path, build_type: BuildType) -> Result<Vec<String>> {
    let mut applied = Vec::new();
    for r in REPAIRS.iter().filter(|r| r.build_type == build_type) {
        let path = src.join(r.file);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        if !text.contains(r.broken) {
            continue;
        }
        fs::write(&path, text.replace(r.broken, r.repaired))
            .with_context(|| format!("repair {}: writing {}", r.name, path.display()))?;
        eprintln!(
            "    repaired {} for a {build_type} build: {}",
            r.file, r.why
        );
        applied.push(r.name.to_string());
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repair_changes_only_the_broken_text_and_only_for_its_build_type() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mysys/my_init.c");
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        let before = format!("int a;\n      {}\n}}\n", REPAIRS[0].broken);
        fs::write(&file, &before).unwrap();

        assert!(apply(dir.path(), BuildType::RelWithDebInfo)
            .unwrap()
            .is_empty());
        assert_eq!(fs::read_to_string(&file).unwrap(), before);

        assert_eq!(
            apply(dir.path(), BuildType::Debug).unwrap(),
            vec!["debian-dbug-print-args".to_string()]
        );
        let after = fs::read_to_string(&file).unwrap();
        assert_eq!(
            after,
            format!("int a;\n      {}\n}}\n", REPAIRS[0].repaired)
        );
        // a tree without the broken text (or repaired already) is left alone
        assert!(apply(dir.path(), BuildType::Debug).unwrap().is_empty());
        assert_eq!(fs::read_to_string(&file).unwrap(), after);

        assert!(names_for(BuildType::RelWithDebInfo).is_empty());
        assert_eq!(
            names_for(BuildType::Debug),
            vec![
                "debian-dbug-print-args",
                "debian-startup-message-else",
                "debian-sysvar-comment-dot"
            ]
        );
    }
}
