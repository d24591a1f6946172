//! The names a matrix gives (itself, its trees, variants and workloads)
//! become directory and file names, socket paths and report labels. A
//! matrix file is someone else's input, so each name is held to one rule
//! before anything runs: a letter or digit, then letters, digits and
//! `._+-`, at most 48 characters. Such a name is never absolute, never
//! `..`, never has a separator or a space, and two distinct names map to
//! two distinct directories.

use super::Matrix;
use crate::dims;
use anyhow::{bail, Result};
use std::path::Path;

/// The longest name the rule allows.
pub const MAX_LEN: usize = 48;

/// Whether `name` is an identifier: `[A-Za-z0-9][A-Za-z0-9._+-]{0,47}`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    name.len() <= MAX_LEN
        && first.is_ascii_alphanumeric()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'))
}

/// Refuses the first name that breaks the rule, naming the file, its line
/// and what the name is.
pub fn check(matrix: &Matrix, path: &Path) -> Result<()> {
    let mut named: Vec<(&str, String)> = vec![("matrix name", matrix.name.clone())];
    for t in &matrix.trees {
        if let Some(n) = &t.name {
            named.push(("[[tree]] name", n.clone()));
        }
        for v in &t.variants {
            named.push(("variant", v.clone()));
        }
    }
    for v in matrix.variants.keys() {
        named.push(("[variant.X] table", v.clone()));
    }
    for w in &matrix.workloads {
        named.push(("[[workload]] name", w.name.clone()));
    }
    for (what, name) in &named {
        if !is_identifier(name) {
            let at = match matrix.positions.name(name) {
                Some(line) => format!("{}:{line}", path.display()),
                None => path.display().to_string(),
            };
            bail!(
                "{at}: {what} `{}` is not a name the tool can use: it becomes a directory, a file \
                 and a socket path, so it must start with a letter or digit and hold only letters, \
                 digits and `._+-`, at most {MAX_LEN} characters",
                name.escape_debug()
            );
        }
    }
    // distinct names, distinct directories: a directory name keeps only
    // letters, digits, `.` and `_` (util::slug)
    for (i, (what, name)) in named.iter().enumerate() {
        if let Some((other_what, other)) = named[..i].iter().find(|(w, n)| {
            n != name && w == what && crate::util::slug(n) == crate::util::slug(name)
        }) {
            bail!(
                "{}: {what} `{name}` and {other_what} `{other}` would share the directory `{}`: \
                 rename one",
                path.display(),
                crate::util::slug(name)
            );
        }
    }
    check_socket_paths(matrix, path)
}

/// The socket of the longest server name the plan makes must fit a unix
/// socket's path, or its server dies at start: refused before anything is
/// fetched, with the path.
fn check_socket_paths(matrix: &Matrix, path: &Path) -> Result<()> {
    use crate::server::{RunDir, SOCKET_PATH_MAX};
    let rep = matrix.repetitions.max(super::MAX_REPETITIONS);
    let suffix = crate::dims::CONTROL_SUFFIX;
    let runs = crate::server::RunRoot::of(matrix.datadir);
    let env = matrix.datadir.root_env();
    let mut servers: Vec<(String, String)> = Vec::new();
    for t in &matrix.trees {
        // an unnamed path: tree is labelled by its version once fetched,
        // which is not known yet: its socket is checked when it runs
        if t.name.is_none() && t.spec.version_named().is_none() {
            continue;
        }
        let tree = super::plan::tree_label(t);
        for v in &t.variants {
            let name = super::plan::server_name(&tree, v, 1, None);
            if let Some((other, _)) = servers.iter().find(|(_, n)| *n == name) {
                bail!(
                    "{}: tree `{tree}` variant `{v}` and {other} would run servers of one name \
                     (`{name}`): rename one",
                    path.display()
                );
            }
            servers.push((format!("tree `{tree}` variant `{v}`"), name));
            // `base` runs as `fixed` on a tree that carries the fix
            let longest = if v == dims::BASE && dims::FIXED.len() > v.len() {
                dims::FIXED
            } else {
                v.as_str()
            };
            let label = format!("{longest}{suffix}");
            // with a server per workload, its name carries the longest one
            let workload = matrix
                .fresh_server
                .then(|| matrix.workloads.iter().map(|w| w.name.as_str()))
                .and_then(|names| names.max_by_key(|n| n.len()));
            let socket = RunDir::longest_socket_path(
                &runs,
                &super::plan::server_name(&tree, &label, rep, workload),
            );
            let len = socket.as_os_str().len();
            if len > SOCKET_PATH_MAX {
                bail!(
                    "{}: tree `{tree}` variant `{v}`: its server's socket would be {} ({len} \
                     bytes), longer than a unix socket path can be ({SOCKET_PATH_MAX}): shorten \
                     the names, or set {env} to a shorter directory",
                    path.display(),
                    socket.display()
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_identifiers_pass() {
        for good in [
            "smoke-10.11.18",
            "base",
            "fixed+d128",
            "rp_1000",
            "11.8.6",
            "a",
        ] {
            assert!(is_identifier(good), "{good}");
        }
        let long = "x".repeat(MAX_LEN + 1);
        for bad in [
            "",
            "..",
            "../up",
            "/abs",
            "a/b",
            "a b",
            "-lead",
            ".hidden",
            "tab\t",
            "nul\0",
            "é",
            long.as_str(),
        ] {
            assert!(!is_identifier(bad), "{bad:?}");
        }
        assert!(is_identifier(&"x".repeat(MAX_LEN)));
    }

    #[test]
    fn a_bad_name_is_refused_with_its_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            (
                "name = \"/tmp/elsewhere\"",
                "matrix name `/tmp/elsewhere`",
                1,
            ),
            ("name = \"../up\"", "matrix name `../up`", 1),
        ];
        for (first, want, line) in cases {
            let p = dir.path().join("m.toml");
            std::fs::write(
                &p,
                format!(
                    "{first}\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n[[workload]]\nname = \"points-covered-pk\"\n"
                ),
            )
            .unwrap();
            let err = format!("{:#}", super::super::load(&p).unwrap_err());
            assert!(
                err.contains(&format!("{}:{line}:", p.display())) && err.contains(want),
                "{err}"
            );
        }
        let p = dir.path().join("v.toml");
        std::fs::write(
            &p,
            "name = \"m\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\", \"my variant\"]\n[[workload]]\nname = \"points-covered-pk\"\n[variant.\"my variant\"]\nsettings = { innodb_old_blocks_time = 0 }\n",
        )
        .unwrap();
        let err = format!("{:#}", super::super::load(&p).unwrap_err());
        assert!(
            err.contains(&format!("{}:4:", p.display())) && err.contains("variant `my variant`"),
            "{err}"
        );
        let p = dir.path().join("w.toml");
        let long = "w".repeat(300);
        std::fs::write(
            &p,
            format!("name = \"m\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n[[workload]]\nname = \"{long}\"\nkind = \"points-covered-pk\"\n"),
        )
        .unwrap();
        let err = format!("{:#}", super::super::load(&p).unwrap_err());
        assert!(
            err.contains(&format!("{}:6:", p.display())) && err.contains("[[workload]] name"),
            "{err}"
        );
    }

    #[test]
    fn names_that_share_a_directory_or_overflow_the_socket_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let load = |name: &str, variants: &str| {
            let p = dir.path().join(format!("{name}.toml"));
            std::fs::write(
                &p,
                format!("name = \"m\"\n[[tree]]\nspec = \"path:/x\"\nname = \"10.11.18-debian\"\nvariants = [{variants}]\n[[workload]]\nname = \"points-covered-pk\"\n"),
            )
            .unwrap();
            super::super::load(&p)
                .map(|_| ())
                .map_err(|e| format!("{e:#}"))
        };
        let err = load("same", "\"base\", \"fixed+d128\", \"fixed-d128\"").unwrap_err();
        assert!(
            err.contains(
                "`fixed-d128` and variant `fixed+d128` would share the directory `fixed-d128`"
            ),
            "{err}"
        );
        let long = "v".repeat(MAX_LEN);
        let err = load("long", &format!("\"base\", \"{long}\"")).unwrap_err();
        assert!(
            err.contains(&format!("variant `{long}`"))
                && err.contains("longer than a unix socket path can be (107)"),
            "{err}"
        );
        load("fine", "\"base\", \"fixed\"").unwrap();
        // tree `a` variant `b-c` and tree `a-b` variant `c`: one server name
        let p = dir.path().join("two.toml");
        std::fs::write(
            &p,
            "name = \"m\"\n[[tree]]\nspec = \"path:/x\"\nname = \"a\"\nvariants = [\"b-c\"]\n\
             [[tree]]\nspec = \"path:/y\"\nname = \"a-b\"\nvariants = [\"c\"]\n\
             [[workload]]\nname = \"points-covered-pk\"\n",
        )
        .unwrap();
        let err = format!("{:#}", super::super::load(&p).unwrap_err());
        assert!(
            err.contains("would run servers of one name (`a-b-c-rep1`)"),
            "{err}"
        );
    }
}
