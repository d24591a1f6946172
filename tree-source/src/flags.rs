//! The server's own compile flags for one of its files.

use std::path::{Path, PathBuf};

/// The flags that decide what the server's own compile of `file` (a path
/// under the source root, such as `storage/innobase/buf/buf0lru.cc`) sees:
/// defines, include directories, forced includes and the language standard,
/// from the `compile_commands.json` of the configured `build` directory.
pub fn server_flags(build: &Path, file: &str) -> Result<Vec<String>, String> {
    let path = build.join("compile_commands.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "cannot read {}: {e}; configure the tree with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
            path.display()
        )
    })?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("cannot parse {}: {e}", path.display()))?;
    let entries = json
        .as_array()
        .ok_or_else(|| format!("{} is not an array", path.display()))?;
    let mut candidates = Vec::new();
    for e in entries {
        let path_of = e["file"].as_str().unwrap_or_default();
        if !path_of.ends_with(file) {
            continue;
        }
        let args: Vec<String> = match (e["arguments"].as_array(), e["command"].as_str()) {
            (Some(a), _) => a
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
            (None, Some(c)) => {
                shlex::split(c).ok_or_else(|| format!("cannot split the command of {path_of}"))?
            }
            _ => continue,
        };
        let dir = PathBuf::from(e["directory"].as_str().unwrap_or("."));
        candidates.push((args, dir));
    }
    // The storage engine itself (innobase.dir), not innochecksum, which
    // compiles buf0buf.cc again with -DUNIV_INNOCHECKSUM.
    let (args, dir) = candidates
        .iter()
        .find(|(a, _)| a.iter().any(|x| x.contains("innobase.dir")))
        .or_else(|| {
            candidates
                .iter()
                .find(|(a, _)| !a.iter().any(|x| x == "-DUNIV_INNOCHECKSUM"))
        })
        .ok_or_else(|| format!("no entry for {file} in {}", path.display()))?;
    let abs = |p: &str| {
        let p = Path::new(p);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            dir.join(p)
        }
        .display()
        .to_string()
    };
    let mut flags = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        if a.starts_with("-D") || a.starts_with("-U") || a.starts_with("-std=") {
            flags.push(a.clone());
        } else if let Some(p) = a.strip_prefix("-I").filter(|p| !p.is_empty()) {
            flags.push(format!("-I{}", abs(p)));
        } else if matches!(a.as_str(), "-I" | "-isystem" | "-iquote" | "-include") {
            if let Some(p) = it.next() {
                flags.push(a.clone());
                flags.push(if a == "-include" { p.clone() } else { abs(p) });
            }
        }
    }
    Ok(flags)
}

#[cfg(test)]
mod tests {
    use super::server_flags;

    #[test]
    fn takes_the_engines_entry_and_keeps_what_decides_the_code() {
        let dir = std::env::temp_dir().join(format!("tree-source-flags-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let json = r#"[
 {"directory": "/b/extra/innochecksum", "file": "/s/storage/innobase/buf/buf0buf.cc",
  "command": "/usr/bin/c++ -DUNIV_INNOCHECKSUM -I/s/include -o x.o -c /s/storage/innobase/buf/buf0buf.cc"},
 {"directory": "/b/storage/innobase", "file": "/s/storage/innobase/buf/buf0buf.cc",
  "command": "/usr/bin/c++ -DHAVE_CONFIG_H -Iinclude -I /s/sql -O2 -Wall -std=gnu++11 -o CMakeFiles/innobase.dir/buf/buf0buf.cc.o -c /s/storage/innobase/buf/buf0buf.cc"},
 {"directory": "/b/storage/innobase", "file": "/s/storage/innobase/buf/buf0lru.cc",
  "arguments": ["/usr/bin/c++", "-DX=1", "-include", "pre.h", "-c", "buf0lru.cc"]}
]"#;
        std::fs::write(dir.join("compile_commands.json"), json).unwrap();
        assert_eq!(
            server_flags(&dir, "storage/innobase/buf/buf0buf.cc").unwrap(),
            [
                "-DHAVE_CONFIG_H",
                "-I/b/storage/innobase/include",
                "-I",
                "/s/sql",
                "-std=gnu++11"
            ]
        );
        assert_eq!(
            server_flags(&dir, "storage/innobase/buf/buf0lru.cc").unwrap(),
            ["-DX=1", "-include", "pre.h"]
        );
        let err = server_flags(&dir, "storage/innobase/buf/buf0flu.cc").unwrap_err();
        assert!(
            err.contains("no entry for storage/innobase/buf/buf0flu.cc"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
