//! Where things are written in a matrix file, read from toml's own spans:
//! the line of a variant's setting, of a workload's field, of
//! `repetitions` and of each name, so that an error about a value can name
//! `file:line` after the file has been turned into typed values. The
//! positions are read once with the file and kept with the matrix, so a
//! check after the builds does not read the file again.

use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// The parts of a matrix file that errors point at, with their spans.
/// Every field is optional and unknown keys are ignored: the typed parse
/// (`Matrix`) is the one that refuses a bad file.
#[derive(Debug, Clone, Default, Deserialize)]
struct Raw {
    #[serde(default)]
    name: Option<Spanned<toml::Value>>,
    #[serde(default)]
    repetitions: Option<Spanned<toml::Value>>,
    #[serde(default, rename = "tree")]
    trees: Vec<RawTree>,
    #[serde(default, rename = "workload")]
    workloads: Vec<BTreeMap<String, Spanned<toml::Value>>>,
    #[serde(default, rename = "variant")]
    variants: BTreeMap<Spanned<String>, RawVariant>,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct RawTree {
    #[serde(default)]
    name: Option<Spanned<toml::Value>>,
    #[serde(default)]
    variants: Vec<Spanned<toml::Value>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
struct RawVariant {
    #[serde(default)]
    settings: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
}

/// The lines of a matrix file's parts (1-based).
#[derive(Debug, Clone, Default)]
pub struct Positions {
    raw: Raw,
    /// the byte offset at which each line starts
    line_starts: Vec<usize>,
}

impl Positions {
    /// The positions in `text`; none at all when toml cannot read it (the
    /// typed parse then says why, with toml's own line and column).
    pub fn read(text: &str) -> Positions {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Positions {
            raw: toml::from_str(text).unwrap_or_default(),
            line_starts,
        }
    }

    /// The 1-based line of a byte offset.
    fn line<T>(&self, s: &Spanned<T>) -> usize {
        self.line_starts
            .partition_point(|&start| start <= s.span().start)
    }

    /// The line of `key` in `[variant.<variant>]`'s settings, inline or as
    /// a table of its own.
    pub fn setting(&self, variant: &str, key: &str) -> Option<usize> {
        let (_, def) = self
            .raw
            .variants
            .iter()
            .find(|(k, _)| k.get_ref() == variant)?;
        def.settings
            .iter()
            .find(|(k, _)| k.get_ref() == key)
            .map(|(k, _)| self.line(k))
    }

    /// The line of `field` in the `[[workload]]` named `workload`, or of its
    /// name when the field is not written (it took its default).
    pub fn workload_field(&self, workload: &str, field: &str) -> Option<usize> {
        let entry = self.raw.workloads.iter().find(|w| {
            w.get("name")
                .is_some_and(|n| n.get_ref().as_str() == Some(workload))
        })?;
        entry
            .get(field)
            .or_else(|| entry.get("name"))
            .map(|v| self.line(v))
    }

    /// The line of `repetitions`.
    pub fn repetitions(&self) -> Option<usize> {
        self.raw.repetitions.as_ref().map(|r| self.line(r))
    }

    /// The first line on which `name` is written as a name: the matrix's,
    /// a tree's, one of a tree's variants, a `[variant.X]` table or a
    /// workload's.
    pub fn name(&self, name: &str) -> Option<usize> {
        let is = |v: &&Spanned<toml::Value>| v.get_ref().as_str() == Some(name);
        let values = self
            .raw
            .name
            .iter()
            .chain(
                self.raw
                    .trees
                    .iter()
                    .flat_map(|t| t.name.iter().chain(&t.variants)),
            )
            .chain(self.raw.workloads.iter().filter_map(|w| w.get("name")))
            .filter(is)
            .map(|v| self.line(v));
        let tables = self
            .raw
            .variants
            .keys()
            .filter(|k| k.get_ref() == name)
            .map(|k| self.line(k));
        values.chain(tables).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "name = \"x\"\nrepetitions = 2\n\n[[tree]]\nspec = \"debian:a=1\"\n\
        variants = [\"base\",\n  \"b\"]\n\n[[workload]]\nname = \"w\"\nthreads = 4\n\n\
        [variant.a]\nsettings = { port = 1 }\n\n[variant.b]\ndescription = \"port\"\n\
        [variant.b.settings]\nsocket = \"/tmp/s\"\nport = 3\n";

    #[test]
    fn each_part_is_found_on_its_own_line() {
        let p = Positions::read(TEXT);
        assert_eq!(p.repetitions(), Some(2));
        assert_eq!(p.setting("a", "port"), Some(14));
        assert_eq!(p.setting("b", "socket"), Some(19));
        assert_eq!(p.setting("b", "port"), Some(20));
        assert_eq!(p.setting("b", "description"), None);
        assert_eq!(p.setting("c", "port"), None);
        assert_eq!(p.workload_field("w", "threads"), Some(11));
        // a field left to its default points at the workload's name
        assert_eq!(p.workload_field("w", "rate"), Some(10));
        assert_eq!(p.workload_field("v", "threads"), None);
        assert_eq!(p.name("x"), Some(1));
        assert_eq!(p.name("b"), Some(7), "the tree's list comes first");
        assert_eq!(p.name("a"), Some(13), "the table's key");
        assert_eq!(p.name("w"), Some(10));
        assert_eq!(p.name("nowhere"), None);
    }

    #[test]
    fn a_file_toml_cannot_read_has_no_positions() {
        let p = Positions::read("name = \n[[tree]");
        assert_eq!((p.repetitions(), p.name("name")), (None, None));
    }
}
