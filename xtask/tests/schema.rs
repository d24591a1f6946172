//! The result schema, held still: a result file with every field filled
//! (made from committed runs of reports/, merged, with a failure and the
//! few fields no run filled set by hand) is read by the tool and written
//! back; the field paths it writes must be the snapshot's. Adding,
//! removing or renaming a field of any record fails here and names it:
//! then move `SCHEMA_VERSION` (and teach `results::store::parse` to read
//! the old files) or, for a compatible addition, refresh the snapshot with
//! `UPDATE_SNAPSHOTS=1 cargo test -p xtask --test schema`.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use xtask::record::SCHEMA_VERSION;

fn paths(v: &Value, at: &str, into: &mut BTreeSet<String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                paths(x, &format!("{at}.{k}"), into);
            }
        }
        // every element has the same type: the first speaks for all
        Value::Array(items) => match items.first() {
            Some(first) => paths(first, &format!("{at}[]"), into),
            None => {
                into.insert(format!("{at}[] (empty)"));
            }
        },
        Value::Null => {
            into.insert(format!("{at}: null"));
        }
        Value::Bool(_) => {
            into.insert(format!("{at}: bool"));
        }
        Value::Number(_) => {
            into.insert(format!("{at}: number"));
        }
        Value::String(_) => {
            into.insert(format!("{at}: string"));
        }
    }
}

fn written_paths(fixture: &str) -> BTreeSet<String> {
    let r = xtask::results::store::parse(fixture).expect("the fixture is a result file");
    let mut out = BTreeSet::new();
    paths(&serde_json::to_value(&r).unwrap(), "", &mut out);
    out
}

#[test]
fn the_result_schema_is_the_snapshot() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let fixture = std::fs::read_to_string(dir.join("fixtures/run-result-v2.json")).unwrap();
    let snapshot_path = dir.join(format!("snapshots/run-result-v{SCHEMA_VERSION}.paths"));
    let now = written_paths(&fixture);
    let text: String = now.iter().map(|p| format!("{p}\n")).collect();
    let before: BTreeSet<String> = xtask::snapshot::expected(&text, &snapshot_path)
        .lines()
        .map(String::from)
        .collect();
    let diff: Vec<String> = before
        .difference(&now)
        .map(|p| format!("- {p}"))
        .chain(now.difference(&before).map(|p| format!("+ {p}")))
        .collect();
    assert!(
        diff.is_empty(),
        "the result schema changed against {} (- gone, + new):\n{}\n\
         move SCHEMA_VERSION with an upgrade of the old files, or refresh the snapshot \
         for a compatible addition (see this file's doc)",
        snapshot_path.display(),
        diff.join("\n")
    );
    // nothing of the fixture is left unwritten: every field is traced
    assert!(!now.iter().any(|p| p.ends_with(": null")), "{now:#?}");
}

#[test]
fn a_field_the_records_do_not_have_is_not_written_back() {
    // what a renamed or removed field looks like to the check: the reader
    // drops the unknown name, so the written paths lose it
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let fixture = std::fs::read_to_string(dir.join("fixtures/run-result-v2.json")).unwrap();
    let with_extra = fixture.replacen('{', "{\"no_such_field\": 1,", 1);
    let now = written_paths(&with_extra);
    assert!(now.contains(".wall_seconds: number"), "{now:#?}");
    assert!(!now.iter().any(|p| p.contains("no_such_field")), "{now:#?}");
}
