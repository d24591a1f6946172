//! Checks of a variant's my.cnf settings, before anything is fetched or
//! built: names that are option names, values that are one line, and none
//! of the options the tool owns (where the server's files live, who it
//! runs as, that it listens on its unix socket only, how the tool logs
//! in). A setting goes into my.cnf after the tool's own lines, so without
//! this check it would override them.

use anyhow::{bail, Result};

/// The options the tool sets itself (as normalised by `normalise`). A
/// variant may not set them, nor any prefix of them that mariadbd would
/// take as an abbreviation.
pub const TOOL_OWNED: &[&str] = &[
    "socket",
    "datadir",
    "basedir",
    "tmpdir",
    "port",
    "extra_port",
    "networking",
    "bind_address",
    "named_pipe",
    "shared_memory",
    "user",
    "plugin_dir",
    "plugin_load",
    "plugin_load_add",
    "pid_file",
    "log_error",
    "log_bin",
    "log_bin_index",
    "general_log_file",
    "slow_query_log_file",
    "innodb_data_home_dir",
    "innodb_log_group_home_dir",
    "lc_messages_dir",
    "character_sets_dir",
    "secure_file_priv",
    "init_file",
    "grant_tables",
    "defaults_file",
    "defaults_extra_file",
    "defaults_group_suffix",
    // MySQL's: its administrative TCP listener, the X plugin's port and
    // socket (the tool switches the plugin off), and what runs before
    // the tool's own settings are read
    "admin_address",
    "admin_port",
    "create_admin_listener_thread",
    "mysqlx",
    "mysqlx_port",
    "mysqlx_bind_address",
    "mysqlx_socket",
    "daemonize",
    "early_plugin_load",
];

/// Option names that are real options although they are prefixes of a
/// tool-owned one (mariadbd prefers an exact match).
const EXACT_PREFIXES: &[&str] = &["lc_messages", "general_log", "slow_query_log"];

/// The option an option-file name stands for: lower case, `-` as `_`, and
/// without the `loose_`, `skip_`, `enable_`, `disable_` or `maximum_`
/// prefixes mariadbd accepts in front of it.
pub fn normalise(name: &str) -> String {
    let mut n = name.to_ascii_lowercase().replace('-', "_");
    if let Some(rest) = n.strip_prefix("loose_") {
        n = rest.to_string();
    }
    for prefix in ["skip_", "enable_", "disable_", "maximum_"] {
        if let Some(rest) = n.strip_prefix(prefix) {
            n = rest.to_string();
            break;
        }
    }
    n
}

/// Checks one setting; the error says what is wrong with it (the caller
/// adds the file, line and variant).
pub fn check(name: &str, value: &toml::Value) -> Result<()> {
    let syntax_ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !syntax_ok {
        bail!("`{name}` is not an option name (letters, digits, `_` and `-` only)");
    }
    let n = normalise(name);
    if TOOL_OWNED.contains(&n.as_str()) {
        bail!(
            "`{name}` is an option the tool sets itself (run paths, user, unix socket \
             only, no TCP listener, login); a variant may not override it"
        );
    }
    if let Some(owned) = TOOL_OWNED
        .iter()
        .find(|o| o.starts_with(n.as_str()) && !EXACT_PREFIXES.contains(&n.as_str()))
    {
        bail!(
            "`{name}` is an abbreviation mariadbd would take for `{owned}`, an option the \
             tool sets itself; a variant may not override it"
        );
    }
    let text = match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => {
            value.to_string()
        }
        _ => bail!("`{name}`: a value must be a string, a number or a boolean"),
    };
    if text.contains(['\n', '\r', '\0']) {
        bail!("`{name}`: the value holds a line break or a NUL; my.cnf values are one line");
    }
    Ok(())
}

/// What an option's value is, as `mariadbd --help --verbose` writes it
/// after the name: nothing (a switch), `=#` (a number or a size), or
/// `=name` / `[=name]` (a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    Switch,
    Number,
    Text,
}

/// Options whose value is a string that names no file, directory,
/// library, plugin, provider, peer or host: enumerations, sets and
/// formats the server validates (reviewed by hand from 10.11.18's and
/// 11.8.6's `--help --verbose`). Every other string option is refused in a
/// variant's settings: `innodb_undo_directory`, `ssl_ca`, `log_basename`,
/// `init_connect`, `feedback_url`, `innodb_buffer_pool_filename` and the
/// like can write or read outside the run, or reach a peer.
pub const SAFE_TEXT_OPTIONS: &[&str] = &[
    "alter_algorithm",
    "aria_group_commit",
    "aria_log_purge_type",
    "aria_recover_options",
    "aria_stats_method",
    "binlog_checksum",
    "binlog_format",
    "binlog_row_image",
    "binlog_row_metadata",
    "character_set_server",
    "collation_server",
    "completion_type",
    "concurrent_insert",
    "default_regex_flags",
    "default_storage_engine",
    "default_time_zone",
    "default_tmp_storage_engine",
    "delay_key_write",
    "histogram_type",
    "innodb_change_buffering",
    "innodb_checksum_algorithm",
    "innodb_compression_algorithm",
    "innodb_deadlock_report",
    "innodb_default_row_format",
    "innodb_flush_method",
    "innodb_instant_alter_column_allowed",
    "innodb_linux_aio",
    "innodb_monitor_disable",
    "innodb_monitor_enable",
    "innodb_monitor_reset",
    "innodb_monitor_reset_all",
    "innodb_stats_method",
    "lc_time_names",
    "log_disabled_statements",
    "log_slow_disabled_statements",
    "log_slow_filter",
    "log_slow_verbosity",
    "myisam_recover_options",
    "myisam_stats_method",
    "note_verbosity",
    "old_mode",
    "optimizer_adjust_secondary_key_costs",
    "optimizer_switch",
    "optimizer_trace",
    "performance_schema_instrument",
    "query_cache_type",
    "session_track_system_variables",
    "session_track_transaction_info",
    "sql_mode",
    "thread_handling",
    "thread_pool_priority",
    "transaction_isolation",
    "use_stat_tables",
];

/// The options a server binary knows (`mariadbd --help --verbose`),
/// normalised, with the kind of value each takes. Options of plugins that
/// are not loaded are missing: a setting for one must be written
/// `loose_<name>`.
pub fn known_options(
    mariadbd: &std::path::Path,
) -> Result<std::collections::BTreeMap<String, ArgKind>> {
    let help = crate::util::Command::new(mariadbd.display().to_string())
        .args(["--no-defaults", "--help", "--verbose"])
        .deadline(std::time::Duration::from_secs(60))
        .read()?;
    Ok(parse_help(&help))
}

/// The `--name` of every option line (`  --name=#`, `  -P, --port=#`) and
/// the kind of value it takes.
fn parse_help(help: &str) -> std::collections::BTreeMap<String, ArgKind> {
    let mut kinds = std::collections::BTreeMap::new();
    let entries = help
        .lines()
        .filter(|l| l.starts_with("  -"))
        .filter_map(|l| {
            let rest = &l[l.find("--")? + 2..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(rest.len());
            let after = &rest[end..];
            let kind = if after.starts_with("=#") || after.starts_with("[=#]") {
                ArgKind::Number
            } else if after.starts_with('=') || after.starts_with("[=") {
                ArgKind::Text
            } else {
                ArgKind::Switch
            };
            Some((normalise(&rest[..end]), kind))
        });
    // `--skip-x` and `--x=name` normalise alike: the string's kind wins,
    // so that a string option is never taken for a switch
    for (name, kind) in entries {
        let slot = kinds.entry(name).or_insert(kind);
        if kind == ArgKind::Text {
            *slot = ArgKind::Text;
        }
    }
    kinds
}

/// Why the server's own description of `name` refuses it in a variant's
/// settings, if it does: a string option outside the reviewed ones.
pub fn refused_kind(
    name: &str,
    known: &std::collections::BTreeMap<String, ArgKind>,
) -> Option<String> {
    let n = normalise(name);
    (known.get(&n) == Some(&ArgKind::Text) && !SAFE_TEXT_OPTIONS.contains(&n.as_str())).then(|| {
        format!(
            "`{name}` takes a string (`--{}=name` in `mariadbd --help --verbose`), which may name a \
             file, a directory, a library, a plugin or a peer outside the run; a variant may set \
             numbers, sizes and switches, and of the string options only the enumerations the \
             tool has reviewed (settings::SAFE_TEXT_OPTIONS: sql_mode, optimizer_switch, \
             innodb_flush_method, transaction_isolation, ...)",
            n.replace('_', "-")
        )
    })
}

/// The settings whose name the server does not know (`loose_` ones are
/// the server's to ignore).
pub fn unknown<'a>(
    settings: impl IntoIterator<Item = &'a String>,
    known: &std::collections::BTreeMap<String, ArgKind>,
) -> Vec<String> {
    settings
        .into_iter()
        .filter(|k| {
            !k.to_ascii_lowercase()
                .replace('-', "_")
                .starts_with("loose_")
        })
        .filter(|k| !known.contains_key(&normalise(k)))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> toml::Value {
        toml::Value::String(s.into())
    }

    #[test]
    fn tool_owned_options_are_refused_in_every_spelling() {
        for name in [
            "socket",
            "skip_networking",
            "skip-networking",
            "port",
            "bind-address",
            "loose_datadir",
            "DATADIR",
            "datad",
            "user",
            "skip_grant_tables",
            "plugin_dir",
            "secure_file_priv",
        ] {
            assert!(check(name, &v("x")).is_err(), "{name} was accepted");
        }
        for name in [
            "innodb_old_blocks_time",
            "lc_messages",
            "slow_query_log",
            "performance_schema",
            "innodb_buffer_pool_size",
        ] {
            check(name, &v("1")).unwrap();
        }
    }

    #[test]
    fn values_are_one_line_and_names_are_names() {
        let err = check("innodb_old_blocks_time", &v("1\nskip_networking=0"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("line break"), "{err}");
        assert!(check("a=b", &v("1")).is_err());
        assert!(check("x", &toml::Value::Array(vec![])).is_err());
    }

    #[test]
    fn option_names_come_from_the_help_text() {
        let help = "Variables:\n  --general-log       Log connections\n  -P, --port=#        Port\n  --skip-networking   Don't\n  --innodb-old-blocks-time=# \n                      more text --not-an-option\n";
        let known = parse_help(help);
        let names: Vec<&str> = known.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "general_log",
                "innodb_old_blocks_time",
                "networking",
                "port"
            ]
        );
        let settings: Vec<String> = [
            "innodb_old_blocks_time",
            "innodb_no_such_option",
            "loose_innodb_x",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(unknown(&settings, &known), ["innodb_no_such_option"]);
    }

    #[test]
    fn string_options_are_refused_unless_reviewed() {
        let help = "  --innodb-old-blocks-time=# \n  --innodb-adaptive-hash-index\n  --innodb-undo-directory=name \n  --log-error[=name] \n  --sql-mode=name \n  --innodb-flush-method=name \n";
        let known = parse_help(help);
        assert_eq!(known["innodb_old_blocks_time"], ArgKind::Number);
        assert_eq!(known["innodb_adaptive_hash_index"], ArgKind::Switch);
        assert_eq!(known["log_error"], ArgKind::Text);
        for ok in [
            "innodb_old_blocks_time",
            "innodb-adaptive-hash-index",
            "skip_innodb_adaptive_hash_index",
            "sql_mode",
            "loose-innodb-flush-method",
        ] {
            assert_eq!(refused_kind(ok, &known), None, "{ok}");
        }
        for bad in [
            "innodb_undo_directory",
            "loose-innodb-undo-directory",
            "INNODB_UNDO_DIRECTORY",
        ] {
            let why = refused_kind(bad, &known).unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(why.contains("--innodb-undo-directory=name"), "{why}");
        }
        // a switch and a string that normalise alike: the string's kind
        let both = parse_help("  --skip-foo-dir  \n  --foo-dir=name \n  --skip-bar \n");
        assert_eq!(both["foo_dir"], ArgKind::Text);
        let both = parse_help("  --foo-dir=name \n  --skip-foo-dir  \n");
        assert_eq!(both["foo_dir"], ArgKind::Text);
        assert_eq!(both.len(), 1);
        // every reviewed name is written as `normalise` writes it
        for n in SAFE_TEXT_OPTIONS {
            assert_eq!(normalise(n), *n);
        }
    }
}
