//! A MariaDB release series (`10.5`, `10.11`, `11.8`, ...) and what a
//! tree's own files say about it. This is the one owner of the concept:
//! the tool's tree stage, its patch table, its my.cnf families and plans,
//! and the ffi crate's build script all read a tree's series through it.
//! It lives in this crate because it is the only one both of them link.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Major.minor of a MariaDB release. Written as `10.11` wherever it is
/// stored (result files, patch table), so the text form is the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Series {
    /// e.g. 10
    pub major: u16,
    /// e.g. 11
    pub minor: u16,
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

    /// A series from its two numbers.
    pub const fn new(major: u16, minor: u16) -> Series {
        Series { major, minor }
    }

    /// The series of a version such as `10.11.18` or `11.8.10-MariaDB`.
    pub fn of_version(version: &str) -> Option<Series> {
        let mut parts = version.split(['.', '-']);
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some(Series::new(major, minor))
    }

    /// The my.cnf family of this series.
    pub fn cnf_family(self) -> CnfFamily {
        if self < Series::V10_5 {
            CnfFamily::Classic
        } else if self.major < 11 {
            CnfFamily::PageCleaner
        } else {
            CnfFamily::Eleven
        }
    }

    /// Whether the series has the freed_page_clock regression by default
    /// (10.5 on); its fixed releases are told apart by their headers,
    /// not by the series ([`carries_upstream_fix`]).
    pub fn has_eager_promotion(self) -> bool {
        self >= Series::V10_5
    }
}

impl fmt::Display for Series {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A series that is not `<major>.<minor>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSeries(pub String);

impl fmt::Display for BadSeries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a series (expected e.g. 10.11)", self.0)
    }
}

impl std::error::Error for BadSeries {}

impl FromStr for Series {
    type Err = BadSeries;
    fn from_str(s: &str) -> Result<Series, BadSeries> {
        let bad = || BadSeries(s.to_string());
        let (major, minor) = s.split_once('.').ok_or_else(bad)?;
        Ok(Series::new(
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

/// What a tree's `VERSION` file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeVersion {
    /// `10.11.18`: major.minor.patch, without MYSQL_VERSION_EXTRA.
    pub version: String,
    /// `10.11`
    pub series: Series,
}

impl TreeVersion {
    /// Parses the `MYSQL_VERSION_MAJOR=` / `_MINOR=` / `_PATCH=` lines of a
    /// tree's `VERSION` file; the error names the missing or bad line.
    pub fn parse(version_file: &str) -> Result<TreeVersion, String> {
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
            series: Series::new(major, minor),
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
    }

    #[test]
    fn series_of_versions() {
        assert_eq!(Series::of_version("10.11.18"), Some(Series::V10_11));
        assert_eq!(Series::of_version("11.8.10-MariaDB"), Some(Series::V11_8));
        assert_eq!(Series::of_version("mariadb"), None);
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
        let v = TreeVersion::parse(text).unwrap();
        assert_eq!(v.version, "11.8.6");
        assert_eq!(v.series, Series::V11_8);
        let err = TreeVersion::parse("MYSQL_VERSION_MAJOR=11\n").unwrap_err();
        assert!(err.contains("MYSQL_VERSION_MINOR"), "{err}");
        let err = TreeVersion::parse(&text.replace("=8", "=eight")).unwrap_err();
        assert!(err.contains("not a number"), "{err}");
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
