//! A server's engine (MariaDB or MySQL) and release series (`10.5`,
//! `10.11`, `11.8`, MySQL's `9.7`, ...) and what a tree's own files say
//! about them. This is the one owner of both concepts: the tool's tree
//! stage, its patch table, its my.cnf families and plans, and the ffi
//! crate's build script all read a tree's series through it. It lives in
//! this crate because it is the only one both of them link.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which server a tree builds: MariaDB, or MySQL, the sibling InnoDB whose
/// `freed_page_clock` ticks in `buf_LRU_block_remove_hashed()` as
/// MariaDB's does (9.7.2's buf0lru.cc:2104), for an eviction and for the
/// other ways a block leaves the pool (matrix/mechanism-mysql-9.7.toml
/// measures what that does to an in-memory workload).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// MariaDB: a tree with `VERSION`, a server named `mariadbd`.
    MariaDb,
    /// MySQL (8.0 on): a tree with `MYSQL_VERSION`, a server named `mysqld`.
    MySql,
}

impl Engine {
    /// Every engine, in the order a tree's version files are looked for.
    pub const ALL: [Engine; 2] = [Engine::MariaDb, Engine::MySql];

    /// The file at the top of a source tree that holds its version: MySQL
    /// renamed `VERSION` to `MYSQL_VERSION` in 8.0, MariaDB kept it.
    pub fn version_file(self) -> &'static str {
        match self {
            Engine::MariaDb => "VERSION",
            Engine::MySql => "MYSQL_VERSION",
        }
    }

    /// Whether it is MariaDB (serde's test for leaving the engine out of
    /// records, which named none before MySQL).
    pub fn is_mariadb(&self) -> bool {
        *self == Engine::MariaDb
    }

    /// The server binary's name.
    pub fn server_binary(self) -> &'static str {
        match self {
            Engine::MariaDb => "mariadbd",
            Engine::MySql => "mysqld",
        }
    }

    /// The engine of a packaged server from its `--version` line
    /// (MariaDB's says `-MariaDB` after the version; MySQL's says nothing
    /// of the kind).
    pub fn of_version_line(line: &str) -> Engine {
        if line.contains("MariaDB") {
            Engine::MariaDb
        } else {
            Engine::MySql
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Engine::MariaDb => "MariaDB",
            Engine::MySql => "MySQL",
        })
    }
}

/// An engine's major.minor release. Written as `10.11` for MariaDB and
/// `mysql-9.7` for MySQL wherever it is stored (result files, patch
/// table), so the text form is the schema and MariaDB's is unchanged.
/// Series of two engines do not compare: `mysql-9.7 < 10.5` is neither
/// true nor false, so every rule that orders series is MariaDB's only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Series {
    /// whose release it is
    pub engine: Engine,
    /// e.g. 10
    pub major: u16,
    /// e.g. 11
    pub minor: u16,
}

impl PartialOrd for Series {
    fn partial_cmp(&self, other: &Series) -> Option<std::cmp::Ordering> {
        (self.engine == other.engine)
            .then(|| (self.major, self.minor).cmp(&(other.major, other.minor)))
    }
}

/// Which of Mark Callaghan's my.cnf families a series takes
/// (shared/research/mark-setup.md): each family is a list of settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CnfFamily {
    /// 10.4 and before: no `innodb_lru_flush_size`, the old flushing options.
    Classic,
    /// 10.5 to 10.11: the page cleaner rewrite; the change buffer still exists.
    PageCleaner,
    /// 11.0 and after: no change buffer, the log and data file buffering
    /// options (11.8 adds `innodb_snapshot_isolation`).
    Eleven,
    /// MySQL 8.0 and after: no query cache, the redo log sized by
    /// `innodb_redo_log_capacity`.
    MySql,
}

impl Series {
    /// MariaDB 10.4, the last series before the regression.
    pub const V10_4: Series = Series::new(10, 4);
    /// MariaDB 10.5, where the regression starts.
    pub const V10_5: Series = Series::new(10, 5);
    /// MariaDB 10.11, the LTS of Debian 12.
    pub const V10_11: Series = Series::new(10, 11);
    /// MariaDB 11.8, the LTS of Debian 13 (the fix ships in 11.8.10).
    pub const V11_8: Series = Series::new(11, 8);

    /// MySQL 9.7, the LTS after 8.4 (Debian's `mysql-9.7`).
    pub const MYSQL_9_7: Series = Series::of(Engine::MySql, 9, 7);

    /// A MariaDB series from its two numbers.
    pub const fn new(major: u16, minor: u16) -> Series {
        Series::of(Engine::MariaDb, major, minor)
    }

    /// A series of `engine` from its two numbers.
    pub const fn of(engine: Engine, major: u16, minor: u16) -> Series {
        Series {
            engine,
            major,
            minor,
        }
    }

    /// The series of `engine`'s version such as `10.11.18` or
    /// `11.8.10-MariaDB`.
    pub fn of_version(engine: Engine, version: &str) -> Option<Series> {
        let mut parts = version.split(['.', '-']);
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some(Series::of(engine, major, minor))
    }

    /// The my.cnf family of this series.
    pub fn cnf_family(self) -> CnfFamily {
        if self.engine == Engine::MySql {
            CnfFamily::MySql
        } else if self < Series::V10_5 {
            CnfFamily::Classic
        } else if self.major < 11 {
            CnfFamily::PageCleaner
        } else {
            CnfFamily::Eleven
        }
    }

    /// Whether the series has the freed_page_clock regression by default
    /// (MariaDB 10.5 on, where releasing a freed page ticks the clock; MySQL
    /// is modelled by the classic rule, its clock ticking as a block leaves
    /// the pool);
    /// its fixed releases are told apart by their headers, not by the
    /// series ([`carries_upstream_fix`]).
    pub fn has_eager_promotion(self) -> bool {
        self.engine == Engine::MariaDb && self >= Series::V10_5
    }
}

/// The prefix of a MySQL series' text form.
const MYSQL_PREFIX: &str = "mysql-";

impl fmt::Display for Series {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.engine {
            Engine::MariaDb => "",
            Engine::MySql => MYSQL_PREFIX,
        };
        write!(f, "{prefix}{}.{}", self.major, self.minor)
    }
}

/// A series that is not `<major>.<minor>` or `mysql-<major>.<minor>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSeries(pub String);

impl fmt::Display for BadSeries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a series (expected e.g. 10.11 for MariaDB or mysql-9.7 for MySQL)",
            self.0
        )
    }
}

impl std::error::Error for BadSeries {}

impl FromStr for Series {
    type Err = BadSeries;
    fn from_str(s: &str) -> Result<Series, BadSeries> {
        let bad = || BadSeries(s.to_string());
        let (engine, numbers) = match s.strip_prefix(MYSQL_PREFIX) {
            Some(rest) => (Engine::MySql, rest),
            None => (Engine::MariaDb, s),
        };
        let (major, minor) = numbers.split_once('.').ok_or_else(bad)?;
        Ok(Series::of(
            engine,
            major.parse().map_err(|_| bad())?,
            minor.parse().map_err(|_| bad())?,
        ))
    }
}

impl TryFrom<String> for Series {
    type Error = BadSeries;
    fn try_from(s: String) -> Result<Series, BadSeries> {
        s.parse()
    }
}

impl From<Series> for String {
    fn from(s: Series) -> String {
        s.to_string()
    }
}

/// What a tree's version file (`VERSION`, or MySQL's `MYSQL_VERSION`)
/// says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeVersion {
    /// `10.11.18`: major.minor.patch, without MYSQL_VERSION_EXTRA.
    pub version: String,
    /// `10.11`
    pub series: Series,
}

impl TreeVersion {
    /// Parses the `MYSQL_VERSION_MAJOR=` / `_MINOR=` / `_PATCH=` lines of
    /// `engine`'s version file (both engines write the same lines); the
    /// error names the missing or bad line.
    pub fn parse(engine: Engine, version_file: &str) -> Result<TreeVersion, String> {
        let field = |name: &str| -> Result<u16, String> {
            let value = version_file
                .lines()
                .find_map(|l| l.trim().strip_prefix(name)?.trim_start().strip_prefix('='))
                .ok_or_else(|| format!("no {name}= line"))?;
            value
                .trim()
                .parse()
                .map_err(|_| format!("{name}={} is not a number", value.trim()))
        };
        let major = field("MYSQL_VERSION_MAJOR")?;
        let minor = field("MYSQL_VERSION_MINOR")?;
        let patch = field("MYSQL_VERSION_PATCH")?;
        Ok(TreeVersion {
            version: format!("{major}.{minor}.{patch}"),
            series: Series::of(engine, major, minor),
        })
    }
}

/// Whether the text of a tree's `storage/innobase/include/buf0buf.h`
/// carries the MDEV-33966 design (an access clock and a lock-free touch
/// instead of freed_page_clock): upstream's fixed releases and a tree with
/// our port both do. Asked of fetched trees and of patched checkouts.
pub fn carries_upstream_fix(buf0buf_h: &str) -> bool {
    buf0buf_h.contains("touch_no_stamp") || buf0buf_h.contains("access_clock")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips_and_orders_numerically() {
        let s: Series = "10.11".parse().unwrap();
        assert_eq!(s, Series::V10_11);
        assert_eq!(s.to_string(), "10.11");
        // 10.11 is after 10.5, which a string comparison gets wrong
        assert!(Series::V10_5 < Series::V10_11);
        assert!(Series::V10_11 < Series::V11_8);
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"10.11\"");
        let back: Series = serde_json::from_str("\"11.8\"").unwrap();
        assert_eq!(back, Series::V11_8);
        assert!(serde_json::from_str::<Series>("\"11\"").is_err());
        assert!("x.8".parse::<Series>().is_err());
        assert!("mysql-9".parse::<Series>().is_err());
    }

    #[test]
    fn a_mysql_series_has_its_own_text_and_never_orders_against_mariadb() {
        let s: Series = "mysql-9.7".parse().unwrap();
        assert_eq!(s, Series::MYSQL_9_7);
        assert_eq!(s.engine, Engine::MySql);
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"mysql-9.7\"");
        assert_ne!(s, Series::new(9, 7));
        // series of two engines do not compare
        assert_eq!(s.partial_cmp(&Series::V10_5), None);
        assert!(Series::of(Engine::MySql, 8, 4) < s);
        assert_eq!(s.cnf_family(), CnfFamily::MySql);
        assert!(!s.has_eager_promotion());
    }

    #[test]
    fn series_of_versions() {
        let maria = Engine::MariaDb;
        assert_eq!(Series::of_version(maria, "10.11.18"), Some(Series::V10_11));
        assert_eq!(
            Series::of_version(maria, "11.8.10-MariaDB"),
            Some(Series::V11_8)
        );
        assert_eq!(Series::of_version(maria, "mariadb"), None);
        assert_eq!(
            Series::of_version(Engine::MySql, "9.7.2"),
            Some(Series::MYSQL_9_7)
        );
        assert_eq!(
            Engine::of_version_line(
                "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu"
            ),
            Engine::MariaDb
        );
        assert_eq!(
            Engine::of_version_line("/usr/sbin/mysqld  Ver 9.7.2 for Linux on x86_64"),
            Engine::MySql
        );
    }

    #[test]
    fn each_series_has_its_own_family() {
        assert_eq!(Series::V10_4.cnf_family(), CnfFamily::Classic);
        assert_eq!(Series::V10_5.cnf_family(), CnfFamily::PageCleaner);
        assert_eq!(Series::V10_11.cnf_family(), CnfFamily::PageCleaner);
        assert_eq!(Series::new(11, 4).cnf_family(), CnfFamily::Eleven);
        assert_eq!(Series::V11_8.cnf_family(), CnfFamily::Eleven);
        assert!(!Series::V10_4.has_eager_promotion());
        assert!(Series::V11_8.has_eager_promotion());
    }

    #[test]
    fn version_file_parses_and_names_what_is_missing() {
        let text = "MYSQL_VERSION_MAJOR=11\nMYSQL_VERSION_MINOR=8\nMYSQL_VERSION_PATCH=6\nMYSQL_VERSION_EXTRA=\n";
        let v = TreeVersion::parse(Engine::MariaDb, text).unwrap();
        assert_eq!(v.version, "11.8.6");
        assert_eq!(v.series, Series::V11_8);
        let err = TreeVersion::parse(Engine::MariaDb, "MYSQL_VERSION_MAJOR=11\n").unwrap_err();
        assert!(err.contains("MYSQL_VERSION_MINOR"), "{err}");
        let err = TreeVersion::parse(Engine::MariaDb, &text.replace("=8", "=eight")).unwrap_err();
        assert!(err.contains("not a number"), "{err}");
        // MySQL 9.7.2's MYSQL_VERSION, as Debian's mysql-9.7 ships it
        let mysql = "MYSQL_VERSION_MAJOR=9\nMYSQL_VERSION_MINOR=7\nMYSQL_VERSION_PATCH=2\nMYSQL_VERSION_EXTRA=\nMYSQL_VERSION_MATURITY=\"LTS\"\n";
        let v = TreeVersion::parse(Engine::MySql, mysql).unwrap();
        assert_eq!((v.version.as_str(), v.series), ("9.7.2", Series::MYSQL_9_7));
    }

    #[test]
    fn the_fix_is_recognised_by_its_names() {
        assert!(carries_upstream_fix("void touch_no_stamp() noexcept;"));
        assert!(carries_upstream_fix(
            "Atomic_relaxed<uint16_t> access_clock;"
        ));
        assert!(!carries_upstream_fix("uint32_t freed_page_clock:31;"));
    }
}
