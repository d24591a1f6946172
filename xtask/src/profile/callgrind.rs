//! Instructions counted by Valgrind's callgrind, for hosts without a PMU:
//! a reader of the dumps a server under callgrind writes, one file per
//! thread (`server::Callgrind` starts it and switches it): each thread's
//! instructions, the client commands it dispatched and each function's
//! self cost, and the threads summed apart by whether they dispatched.

use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::path::Path;

/// The function called once per client command (a statement, a prepared
/// statement's execution, a ping): the queries of the window are its calls.
const DISPATCH: &str = "dispatch_command(";

/// What a dump says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    /// instructions (`Ir`) of every thread
    pub instructions: u64,
    /// calls of `dispatch_command`
    pub dispatched: u64,
    /// self cost per function name, summed over its entries
    pub self_cost: HashMap<String, u64>,
}

impl Counts {
    /// The `n` functions with the most self cost, most first (ties by
    /// name, so that the order is the same on every reading).
    pub fn top(&self, n: usize) -> Vec<(String, u64)> {
        let mut all: Vec<(String, u64)> = self
            .self_cost
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(n);
        all
    }
}

/// A dump line the reader cannot take, with its line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpLineError {
    pub line: usize,
    pub why: String,
}

impl std::fmt::Display for DumpLineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.why)
    }
}

impl std::error::Error for DumpLineError {}

/// Reads a callgrind dump of one event (`events: Ir`, callgrind's default
/// without cache simulation), file `path` for the error messages.
///
/// The format (Valgrind's "Callgrind Format Specification"): `fn=` opens
/// a function's cost lines; a name may be given once as `(id) name` and
/// later as `(id)`; a cost line is a position then the event counts; a
/// `calls=` line says how often the `cfn=` named before it was called and
/// is followed by one cost line that is the call's inclusive cost, which
/// belongs to the callee's own lines and is not the caller's self cost.
pub fn parse(text: &str, path: &Path) -> Result<Counts> {
    let mut names: HashMap<u64, String> = HashMap::new();
    let mut self_cost: HashMap<String, u64> = HashMap::new();
    let mut current: Option<String> = None;
    let mut callee: Option<String> = None;
    let mut inclusive_next = false;
    let mut dispatched = 0u64;
    let mut totals: Option<u64> = None;
    let mut events_seen = false;
    let err = |line: usize, why: String| {
        anyhow::Error::new(DumpLineError { line, why })
            .context(format!("callgrind dump {}", path.display()))
    };
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if let Some(rest) = line.strip_prefix("events:") {
            let events: Vec<&str> = rest.split_whitespace().collect();
            if events != ["Ir"] {
                return Err(err(
                    n,
                    format!("events `{}`: this reader takes `Ir` alone", rest.trim()),
                ));
            }
            events_seen = true;
        } else if let Some(rest) = line.strip_prefix("fn=") {
            current = Some(name_of(rest, &mut names).map_err(|why| err(n, why))?);
            inclusive_next = false;
        } else if let Some(rest) = line.strip_prefix("cfn=") {
            callee = Some(name_of(rest, &mut names).map_err(|why| err(n, why))?);
        } else if let Some(rest) = line.strip_prefix("calls=") {
            let count = rest
                .split_whitespace()
                .next()
                .and_then(|c| c.parse::<u64>().ok())
                .ok_or_else(|| err(n, format!("`calls={rest}` has no count")))?;
            if callee.as_deref().is_some_and(|c| c.starts_with(DISPATCH)) {
                dispatched += count;
            }
            inclusive_next = true;
        } else if let Some(rest) = line.strip_prefix("totals:") {
            totals = Some(
                rest.trim()
                    .parse()
                    .map_err(|_| err(n, format!("totals `{}` is not a count", rest.trim())))?,
            );
        } else if line.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '*')) {
            let mut fields = line.split_whitespace();
            let _position = fields.next();
            let cost = match fields.next() {
                // a position without a count: no instruction there
                None => 0,
                Some(c) => c
                    .parse::<u64>()
                    .map_err(|_| err(n, format!("cost `{c}` is not a count")))?,
            };
            if inclusive_next {
                inclusive_next = false;
            } else {
                let Some(f) = &current else {
                    return Err(err(n, "a cost line before any `fn=`".into()));
                };
                *self_cost.entry(f.clone()).or_default() += cost;
            }
        }
    }
    if !events_seen {
        bail!(
            "callgrind dump {}: no `events:` line (not a callgrind dump?)",
            path.display()
        );
    }
    let summed: u64 = self_cost.values().sum();
    let instructions = totals.unwrap_or(summed);
    if summed != instructions {
        bail!(
            "callgrind dump {}: the functions' self costs add up to {summed}, its totals line says {instructions}",
            path.display()
        );
    }
    Ok(Counts {
        instructions,
        dispatched,
        self_cost,
    })
}

/// `(id) name` (defines the id), `(id)` (uses it) or a bare name.
fn name_of(spec: &str, names: &mut HashMap<u64, String>) -> std::result::Result<String, String> {
    let spec = spec.trim();
    let Some(rest) = spec.strip_prefix('(') else {
        return Ok(spec.to_string());
    };
    let (id, name) = rest
        .split_once(')')
        .ok_or_else(|| format!("`{spec}`: an id without its closing parenthesis"))?;
    let id: u64 = id
        .parse()
        .map_err(|_| format!("`{spec}`: the id is not a number"))?;
    let name = name.trim();
    if name.is_empty() {
        names
            .get(&id)
            .cloned()
            .ok_or_else(|| format!("`{spec}`: id {id} was never given a name"))
    } else {
        names.insert(id, name.to_string());
        Ok(name.to_string())
    }
}

/// Reads the dump at `path`.
pub fn read(path: &Path) -> Result<Counts> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse(&text, path)
}

/// One dump of a server run with `--separate-threads=yes`, its threads
/// split in two: those that dispatched a client command in the window (the
/// connections' threads, whose work is the queries') and the others (the
/// page cleaner, purge, the master and timer threads, an idle connection),
/// whose work goes on at their own pace whatever the queries do.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadCounts {
    /// the dispatching threads' counts, summed (self costs merged by name)
    pub query: Counts,
    pub query_threads: usize,
    /// the other threads' instructions
    pub other_instructions: u64,
    pub other_threads: usize,
}

impl ThreadCounts {
    /// Sums per-thread dumps.
    pub fn of(per_thread: impl IntoIterator<Item = Counts>) -> ThreadCounts {
        let mut t = ThreadCounts::default();
        for c in per_thread {
            if c.dispatched == 0 {
                t.other_instructions += c.instructions;
                t.other_threads += 1;
                continue;
            }
            t.query_threads += 1;
            t.query.instructions += c.instructions;
            t.query.dispatched += c.dispatched;
            for (f, cost) in c.self_cost {
                *t.query.self_cost.entry(f).or_default() += cost;
            }
        }
        t
    }
}

/// Reads the per-thread files of one dump.
pub fn read_threads(paths: &[std::path::PathBuf]) -> Result<ThreadCounts> {
    let per_thread = paths.iter().map(|p| read(p)).collect::<Result<Vec<_>>>()?;
    Ok(ThreadCounts::of(per_thread))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dump in callgrind's layout, written for this test: two threads'
    /// worth of work folded into one file as callgrind writes it, a name
    /// given once and used by id afterwards, a call's inclusive cost line.
    const DUMP: &str = "\
# callgrind format
version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
summary: 1000

ob=(1) /srv/mariadbd
fl=(1) sql_parse.cc
fn=(10) do_command(THD*, bool)
100 20
cfn=(11) dispatch_command(enum_server_command, THD*, char*, unsigned int, bool)
calls=3 200
+1 700
+2 5

fn=(11)
200 600
cfn=(12) row_search_mvcc(unsigned char*)
calls=4 300
* 100

fn=(12)
300 100
+3 275
totals: 1000
";

    #[test]
    fn a_dump_gives_its_instructions_the_commands_dispatched_and_self_costs() {
        let c = parse(DUMP, Path::new("t.out")).unwrap();
        assert_eq!(c.instructions, 1000);
        assert_eq!(c.dispatched, 3);
        // do_command's self cost leaves out the 700 of its call
        assert_eq!(c.self_cost["do_command(THD*, bool)"], 25);
        assert_eq!(
            c.self_cost["dispatch_command(enum_server_command, THD*, char*, unsigned int, bool)"],
            600
        );
        assert_eq!(c.self_cost["row_search_mvcc(unsigned char*)"], 375);
        let top = c.top(2);
        assert_eq!(top[0].1, 600);
        assert_eq!(top[1], ("row_search_mvcc(unsigned char*)".to_string(), 375));
    }

    #[test]
    fn threads_that_dispatched_a_command_are_the_queries_and_the_others_are_apart() {
        let path = Path::new("callgrind.out.7.1-01");
        let connection = parse(DUMP, path).unwrap();
        let mut cleaner = connection.clone();
        cleaner.dispatched = 0;
        cleaner.instructions = 250;
        let t = ThreadCounts::of([connection.clone(), cleaner, connection.clone()]);
        assert_eq!((t.query_threads, t.other_threads), (2, 1));
        assert_eq!(t.query.instructions, 2 * connection.instructions);
        assert_eq!(t.query.dispatched, 2 * connection.dispatched);
        assert_eq!(t.other_instructions, 250);
        for (f, cost) in &connection.self_cost {
            assert_eq!(t.query.self_cost[f], 2 * cost, "{f}");
        }
    }

    #[test]
    fn a_dump_that_does_not_add_up_or_is_not_one_is_refused_with_its_line() {
        let wrong = DUMP.replace("totals: 1000", "totals: 999");
        let e = format!("{:#}", parse(&wrong, Path::new("t.out")).unwrap_err());
        assert!(e.contains("add up to 1000") && e.contains("999"), "{e}");

        let unnamed = DUMP.replace("fn=(11)\n", "fn=(13)\n");
        let e = format!("{:#}", parse(&unnamed, Path::new("t.out")).unwrap_err());
        assert!(
            e.contains("t.out") && e.contains("line 17") && e.contains("id 13"),
            "{e}"
        );

        let cache = DUMP.replace("events: Ir", "events: Ir Dr Dw");
        let e = format!("{:#}", parse(&cache, Path::new("t.out")).unwrap_err());
        assert!(e.contains("line 5") && e.contains("Ir Dr Dw"), "{e}");

        let e = format!("{:#}", parse("hello\n", Path::new("x")).unwrap_err());
        assert!(e.contains("not a callgrind dump"), "{e}");
    }
}
