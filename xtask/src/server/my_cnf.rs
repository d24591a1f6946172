//! The my.cnf a server gets, as data: Mark Callaghan's settings for each
//! series, scaled to the host and to where the datadir is.

use super::binaries::ServerBinaries;
use super::run_dir::RunDir;
use super::user::ServerUser;
use crate::dims::{CnfBase, CnfFamily, Engine, Series};
use crate::host::Host;
use crate::record::{MyCnf, Scaled};

const GIB: u64 = 1 << 30;

/// Mark's settings every series gets as they are.
const MARK_COMMON: &[(&str, &str)] = &[
    ("sql_mode", "no_engine_substitution,no_unsigned_subtraction"),
    ("default_tmp_storage_engine", "MyISAM"),
    ("query_cache_size", "0"),
    ("query_cache_type", "0"),
    ("long_query_time", "5"),
    ("slow_query_log", "1"),
    ("max_binlog_size", "256M"),
    ("server_id", "77"),
    ("binlog_format", "ROW"),
    ("sync_binlog", "0"),
    ("innodb_file_per_table", "1"),
    ("innodb_data_file_path", "ibdata1:512M:autoextend"),
    ("performance_schema", "1"),
    ("ssl", "0"),
    ("character_set_server", "latin1"),
    ("collation_server", "latin1_swedish_ci"),
    ("eq_range_index_dive_limit", "10"),
    ("innodb_fast_shutdown", "1"),
    ("innodb_doublewrite", "1"),
    ("innodb_autoinc_lock_mode", "2"),
    ("innodb_flush_neighbors", "0"),
    ("innodb_buffer_pool_load_at_startup", "OFF"),
    ("innodb_buffer_pool_dump_at_shutdown", "OFF"),
    ("innodb_flush_log_at_trx_commit", "2"),
    ("innodb_max_dirty_pages_pct_lwm", "80"),
    ("innodb_max_dirty_pages_pct", "90"),
    ("innodb_io_capacity", "10000"),
    ("innodb_io_capacity_max", "20000"),
    ("innodb_adaptive_hash_index", "OFF"),
    ("innodb_undo_tablespaces", "32"),
    ("innodb_checksum_algorithm", "crc32"),
    ("innodb_max_purge_lag", "500000"),
    ("innodb_max_purge_lag_delay", "1000000"),
];

/// Mark's MariaDB settings that MySQL 8.0 and later do not have (the query
/// cache went in 8.0, `ssl` and `innodb_undo_tablespaces` soon after; undo
/// tablespaces are made by SQL there): an unknown option stops mysqld.
const NOT_IN_MYSQL: &[&str] = &[
    "query_cache_size",
    "query_cache_type",
    "ssl",
    "innodb_undo_tablespaces",
];

/// The setting that keeps a family's data files off O_DIRECT, which tmpfs
/// cannot do: its name, its value on tmpfs, and Mark's value (a disk's).
/// 11.x says it with `innodb_data_file_buffering`, the others with
/// `innodb_flush_method`.
fn no_o_direct(family: CnfFamily) -> (&'static str, &'static str, &'static str) {
    match family {
        CnfFamily::Eleven => ("innodb_data_file_buffering", "1", "0"),
        CnfFamily::Classic | CnfFamily::PageCleaner | CnfFamily::MySql => {
            ("innodb_flush_method", "fsync", "O_DIRECT_NO_FSYNC")
        }
    }
}

/// Mark's settings that 11.x removed: `loose_` there, so that the server
/// ignores them rather than refuses to start.
const REMOVED_IN_11: &[(&str, &str)] = &[
    ("innodb_change_buffering", "none"),
    ("innodb_log_write_ahead_size", "4096"),
];

impl MyCnf {
    /// Mark Callaghan's z12a/z12b settings (shared/research/mark-setup.md,
    /// section 1) for `series`, scaled to `host`. `tmpfs_datadir` is true
    /// for the usual /dev/shm datadir, which cannot do O_DIRECT.
    pub fn for_series(series: Series, host: &Host, tmpfs_datadir: bool) -> MyCnf {
        let family = series.cnf_family();
        let family_old = family == CnfFamily::Classic;
        let family_11 = family == CnfFamily::Eleven;
        let mut cnf = MyCnf {
            settings: Vec::new(),
            scaled: Vec::new(),
            datadir_on_tmpfs: Some(tmpfs_datadir),
            base: CnfBase::Mark,
        };
        if family == CnfFamily::MySql {
            return cnf.mysql(host, tmpfs_datadir);
        }
        for (k, v) in MARK_COMMON {
            cnf.set(k, v);
        }
        for (k, v) in REMOVED_IN_11 {
            cnf.set(
                &if family_11 {
                    format!("loose_{k}")
                } else {
                    k.to_string()
                },
                v,
            );
        }

        cnf.scale_to_host(host);
        let log_gib = Self::redo_log_gib(host);
        if family_old {
            cnf.set("innodb_buffer_pool_instances", "8");
            cnf.set("innodb_page_cleaners", "8");
            cnf.set("innodb_concurrency_tickets", "1000000");
            cnf.set("innodb_log_files_in_group", "2");
            cnf.scale(
                "innodb_log_file_size",
                "10G",
                &format!("{}M", log_gib * 512),
                "redo lives on /dev/shm: 1/16 of RAM in all, split over 2 files (Mark: 10 x 10G)",
            );
        } else {
            cnf.scale(
                "innodb_log_file_size",
                "100G",
                &format!("{log_gib}G"),
                "redo lives on /dev/shm (RAM): 1/16 of RAM",
            );
            cnf.set("innodb_lru_scan_depth", "5000");
        }
        if family_11 {
            cnf.set("innodb_log_file_buffering", "1");
            cnf.set("innodb_log_file_write_through", "0");
            cnf.no_o_direct_on_tmpfs(family, tmpfs_datadir);
            cnf.set("innodb_data_file_write_through", "0");
            if series >= Series::V11_8 {
                cnf.set("innodb_snapshot_isolation", "0");
            }
        } else {
            cnf.no_o_direct_on_tmpfs(family, tmpfs_datadir);
        }
        cnf
    }

    /// The server's own defaults, as seed 001 ran MySQL: no setting but
    /// what a datadir on tmpfs needs (no O_DIRECT there); the variant's
    /// settings and the tool's own lines come on top.
    pub fn server_defaults(series: Series, tmpfs_datadir: bool) -> MyCnf {
        let mut cnf = MyCnf {
            settings: Vec::new(),
            scaled: Vec::new(),
            datadir_on_tmpfs: Some(tmpfs_datadir),
            base: CnfBase::Defaults,
        };
        if tmpfs_datadir {
            let (name, on_tmpfs, _) = no_o_direct(series.cnf_family());
            cnf.set(name, on_tmpfs);
        }
        cnf
    }

    /// The family's file I/O setting, scaled off O_DIRECT on tmpfs.
    fn no_o_direct_on_tmpfs(&mut self, family: CnfFamily, tmpfs_datadir: bool) {
        let (name, on_tmpfs, marks) = no_o_direct(family);
        self.scale(
            name,
            marks,
            if tmpfs_datadir { on_tmpfs } else { marks },
            "tmpfs has no O_DIRECT",
        );
    }

    /// The MySQL family: Mark's settings that MySQL has, the buffer pool
    /// split into 8 instances with 8 page cleaners as his files for
    /// MariaDB 10.2-10.4 (which still had instances) split it (MySQL takes
    /// 1 instance below a 1 GiB pool by itself), the redo log sized by
    /// `innodb_redo_log_capacity` as the other families size theirs (the X
    /// plugin is switched off with the tool's own lines, `render`).
    fn mysql(mut self, host: &Host, tmpfs_datadir: bool) -> MyCnf {
        for (k, v) in MARK_COMMON
            .iter()
            .chain(REMOVED_IN_11)
            .filter(|(k, _)| !NOT_IN_MYSQL.contains(k))
        {
            self.set(k, v);
        }
        self.scale_to_host(host);
        self.set("innodb_buffer_pool_instances", "8");
        self.set("innodb_page_cleaners", "8");
        self.set("innodb_lru_scan_depth", "5000");
        let log_gib = Self::redo_log_gib(host);
        self.scale(
            "innodb_redo_log_capacity",
            "100G",
            &format!("{log_gib}G"),
            "redo lives on /dev/shm (RAM): 1/16 of RAM",
        );
        self.no_o_direct_on_tmpfs(CnfFamily::MySql, tmpfs_datadir);
        self
    }

    /// The redo log every family gets, in GiB: it lives on /dev/shm with the
    /// datadir, so 1/16 of `host`'s RAM (Mark's is 100G), at least 1.
    pub fn redo_log_gib(host: &Host) -> u64 {
        (host.memory_bytes / GIB / 16).clamp(1, 100)
    }

    /// Mark's thread counts and buffer pool, scaled to `host`'s cores and
    /// memory.
    fn scale_to_host(&mut self, host: &Host) {
        let half_cores = (host.cores / 2).clamp(1, 8);
        let threads = half_cores.to_string();
        for name in [
            "innodb_purge_threads",
            "innodb_read_io_threads",
            "innodb_write_io_threads",
        ] {
            self.scale(
                name,
                "8",
                &threads,
                "Mark uses 8 on 48 cores and 4 on 8 cores: half the cores, at most 8",
            );
        }
        let pool_gib = (host.memory_bytes / GIB / 4).clamp(1, 100);
        self.scale(
            "innodb_buffer_pool_size",
            "100G",
            &format!("{pool_gib}G"),
            "Mark's 100G is for 128G of RAM; here a quarter of RAM, as the datadir on /dev/shm also takes RAM",
        );
    }

    /// Sets (or replaces) a setting as Mark has it.
    pub fn set(&mut self, name: &str, value: &str) {
        match self.settings.iter_mut().find(|(k, _)| k == name) {
            Some(entry) => entry.1 = value.to_string(),
            None => self.settings.push((name.to_string(), value.to_string())),
        }
    }

    fn scale(&mut self, name: &str, mark: &str, here: &str, why: &str) {
        self.set(name, here);
        if mark != here {
            self.scaled.push(Scaled {
                name: name.into(),
                mark: mark.into(),
                here: here.into(),
                why: why.into(),
            });
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.settings
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The whole file for a run whose files live in `dir`, for a server
    /// that runs as `user` (None: as the tool's own user).
    pub fn render(
        &self,
        dir: &RunDir,
        binaries: &ServerBinaries,
        user: Option<&ServerUser>,
    ) -> String {
        let mut out = String::from(match self.base {
            CnfBase::Mark => {
                "# written by innodb-lab: Mark Callaghan's settings scaled to this host\n"
            }
            CnfBase::Defaults => {
                "# written by innodb-lab: the server's own defaults, the variant's settings\n"
            }
        });
        // MySQL's server reads [mysqld]; MariaDB's client and server groups
        // keep the tool's client off TLS as well
        out.push_str(match binaries.engine {
            Engine::MariaDb => "[client-server]\nssl=0\n\n[mariadbd]\n",
            Engine::MySql => "[mysqld]\n",
        });
        // Mark's settings and the variant's first: the tool's own lines
        // come last, and in an option file the last line wins (variant
        // settings cannot name them anyway: crate::settings)
        for (k, v) in &self.settings {
            out.push_str(&format!("{k}={v}\n"));
        }
        let paths = [
            ("datadir", dir.data.display().to_string()),
            ("innodb_data_home_dir", dir.data.display().to_string()),
            ("innodb_log_group_home_dir", dir.data.display().to_string()),
            ("tmpdir", dir.tmp.display().to_string()),
            ("socket", dir.socket.display().to_string()),
            (
                "pid_file",
                dir.root
                    .join(format!("{}.pid", binaries.engine.server_binary()))
                    .display()
                    .to_string(),
            ),
            ("log_error", dir.error_log.display().to_string()),
            ("log_bin", dir.root.join("binlogs/bl").display().to_string()),
            // LOAD DATA / SELECT INTO OUTFILE only inside the run directory
            ("secure_file_priv", dir.files().display().to_string()),
            // unix socket only: nothing listens on the network
            ("skip_networking", "1".to_string()),
        ];
        // MySQL's X plugin listens on port 33060 and a socket of its own
        // whatever skip_networking says (`loose_`: a build without the
        // plugin knows no such option)
        let engine_lines: &[(&str, &str)] = match binaries.engine {
            Engine::MariaDb => &[],
            Engine::MySql => &[("loose_mysqlx", "OFF")],
        };
        for (k, v) in paths
            .iter()
            .map(|(k, v)| (*k, v.as_str()))
            .chain(engine_lines.iter().copied())
            .chain(
                binaries
                    .location_settings
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str())),
            )
        {
            out.push_str(&format!("{k}={v}\n"));
        }
        if let Some(user) = user {
            out.push_str(&format!("user={}\n", user.name));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(cores: usize, gib: u64) -> Host {
        Host {
            hostname: "h".into(),
            cores,
            memory_bytes: gib * GIB,
            kernel: "6".into(),
            cpu_model: "x".into(),
        }
    }

    #[test]
    fn scales_marks_settings_to_a_small_host() {
        let cnf = MyCnf::for_series(Series::V10_11, &host(2, 24), true);
        assert_eq!(cnf.get("innodb_buffer_pool_size"), Some("6G"));
        assert_eq!(cnf.get("innodb_purge_threads"), Some("1"));
        assert_eq!(cnf.get("innodb_log_file_size"), Some("1G"));
        assert_eq!(cnf.get("innodb_flush_method"), Some("fsync"));
        assert_eq!(cnf.get("innodb_lru_scan_depth"), Some("5000"));
        assert_eq!(
            cnf.get("innodb_buffer_pool_instances"),
            None,
            "removed in 10.5"
        );
        let names: Vec<&str> = cnf.scaled.iter().map(|s| s.name.as_str()).collect();
        assert!(
            names.contains(&"innodb_buffer_pool_size") && names.contains(&"innodb_flush_method")
        );
    }

    #[test]
    fn a_big_host_gets_marks_values() {
        let cnf = MyCnf::for_series(Series::V10_11, &host(48, 400), false);
        assert_eq!(cnf.get("innodb_purge_threads"), Some("8"));
        assert_eq!(cnf.get("innodb_flush_method"), Some("O_DIRECT_NO_FSYNC"));
        assert!(!cnf.scaled.iter().any(|s| s.name == "innodb_purge_threads"));
    }

    #[test]
    fn series_families() {
        let old = MyCnf::for_series(Series::V10_4, &host(8, 32), true);
        assert_eq!(old.get("innodb_buffer_pool_instances"), Some("8"));
        let new = MyCnf::for_series(Series::V11_8, &host(8, 32), true);
        assert_eq!(new.get("innodb_snapshot_isolation"), Some("0"));
        assert_eq!(new.get("loose_innodb_change_buffering"), Some("none"));
        assert_eq!(new.get("innodb_flush_method"), None);
    }

    #[test]
    fn mysql_gets_only_the_options_it_has() {
        let cnf = MyCnf::for_series(Series::MYSQL_9_7, &host(2, 24), true);
        for gone in NOT_IN_MYSQL.iter().chain(&["innodb_log_file_size"]) {
            assert_eq!(cnf.get(gone), None, "{gone}");
        }
        assert_eq!(cnf.get("innodb_redo_log_capacity"), Some("1G"));
        assert_eq!(cnf.get("innodb_change_buffering"), Some("none"));
        assert_eq!(cnf.get("innodb_flush_method"), Some("fsync"));
        assert_eq!(cnf.get("innodb_buffer_pool_size"), Some("6G"));
        let bin = ServerBinaries {
            engine: Engine::MySql,
            ..binaries()
        };
        let text = cnf.render(&run_dir(), &bin, None);
        assert!(text.contains("\n[mysqld]\n") && !text.contains("[mariadbd]"));
        assert!(text.contains("\nskip_networking=1\n"), "{text}");
        assert!(text.contains("\nloose_mysqlx=OFF\n"), "{text}");
        assert!(text.contains("\npid_file=/r/mysqld.pid\n"), "{text}");
        let maria = cnf.render(&run_dir(), &binaries(), None);
        assert!(!maria.contains("mysqlx"), "{maria}");
    }

    #[test]
    fn the_servers_defaults_keep_only_what_tmpfs_needs() {
        let on_tmpfs = MyCnf::server_defaults(Series::MYSQL_9_7, true);
        assert_eq!(
            on_tmpfs.settings,
            [("innodb_flush_method".to_string(), "fsync".to_string())]
        );
        let eleven = MyCnf::server_defaults(Series::V11_8, true);
        assert_eq!(eleven.get("innodb_data_file_buffering"), Some("1"));
        assert!(MyCnf::server_defaults(Series::V10_11, false)
            .settings
            .is_empty());
        let text = on_tmpfs.render(&run_dir(), &binaries(), None);
        assert!(text.starts_with("# written by innodb-lab: the server's own defaults"));
        assert!(text.contains("\nskip_networking=1\n"), "{text}");
        // Mark's families give the same line its scaled value on tmpfs
        let mark = MyCnf::for_series(Series::V11_8, &host(2, 24), true);
        assert_eq!(mark.get("innodb_data_file_buffering"), Some("1"));
    }

    fn run_dir() -> RunDir {
        RunDir {
            root: "/r".into(),
            data: "/r/data".into(),
            tmp: "/r/tmp".into(),
            socket: "/r/s.sock".into(),
            error_log: "/r/e.log".into(),
            cnf: "/r/my.cnf".into(),
        }
    }

    fn binaries() -> ServerBinaries {
        ServerBinaries {
            engine: Engine::MariaDb,
            server: "/b/mariadbd".into(),
            bootstrap: super::super::binaries::Bootstrap::InstallScript {
                script: "/b/install".into(),
                args: vec![],
            },
            location_settings: vec![("lc_messages_dir".into(), "/b/share".into())],
        }
    }

    #[test]
    fn rendered_file_is_socket_only() {
        let cnf = MyCnf::for_series(Series::V10_11, &host(2, 24), true);
        let (dir, bin) = (run_dir(), binaries());
        let text = cnf.render(&dir, &bin, None);
        assert!(text.contains("\nskip_networking=1\n") && text.contains("\nsocket=/r/s.sock\n"));
        assert!(text.contains("\nlc_messages_dir=/b/share\n"));
        assert!(!text.contains("bind_address") && !text.contains("port="));
        assert!(!text.contains("user="));
        let user = ServerUser {
            name: "innodb-lab".into(),
            uid: 998,
            gid: 998,
        };
        let text = cnf.render(&dir, &bin, Some(&user));
        assert!(text.ends_with("\nuser=innodb-lab\n"), "{text}");
    }
}
