//! Locks: one per cache, held by every command that builds or runs
//! (matrix, build, ffi check, patch check, test), and one per results
//! directory. A second command is refused, not queued: the error names
//! the holder's pid and command line, so that the user can wait for it or
//! stop it. Under the cache's lock, one lock per piece of cached work (a
//! tree fetch, a build, a configured tree) is waited for instead: the test
//! command runs suites side by side, and two of them asking for the same
//! build must get one build, made once. The locks are `flock`s: the kernel
//! releases them when their holder dies, however it dies.

use anyhow::{bail, Context, Result};
use std::fs::{self, File};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A held lock; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct Lock {
    _file: Option<File>,
    pub path: PathBuf,
}

/// The lock of the tool's cache (`<cache>/lock`).
pub fn cache(what: &str) -> Result<Lock> {
    let root = crate::util::cache_root();
    fs::create_dir_all(&root).with_context(|| format!("cannot create {}", root.display()))?;
    acquire(&root.join("lock"), what)
}

/// The lock of a results directory (`<dir>/.lock`).
pub fn results(dir: &Path) -> Result<Lock> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    acquire(&dir.join(".lock"), "this results directory")
}

/// A lock file, made if missing and never truncated (its holder may be
/// another process).
fn open_lock_file(path: &Path) -> Result<File> {
    fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .with_context(|| format!("cannot open the lock file {}", path.display()))
}

/// Takes `path`'s lock without waiting, or says who holds it.
pub fn acquire(path: &Path, what: &str) -> Result<Lock> {
    acquire_with(
        path,
        what,
        crate::environment::current().lock_parent,
        holder,
    )
}

/// `acquire`, with the lock's holder read by `holder_of`, and taken as ours
/// when it is `parent`.
fn acquire_with(
    path: &Path,
    what: &str,
    parent: Option<i32>,
    mut holder_of: impl FnMut(&Path) -> Option<i32>,
) -> Result<Lock> {
    let file = open_lock_file(path)?;
    // The kernel writes /proc/locks afresh for each page read, so a lock
    // taken or dropped between two pages can shift the lines and hide
    // another's: a run of the test command lost its own cache lock's line
    // so, among servers and cargo taking and dropping locks beside it. A
    // holder not found (or not our parent) is looked for again before the
    // command is refused.
    let mut holder_seen = None;
    for attempt in 0..HOLDER_LOOKS {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {
                return Ok(Lock {
                    _file: Some(file),
                    path: path.to_path_buf(),
                })
            }
            // held: by whom is looked up below
            Err(rustix::io::Errno::WOULDBLOCK) => {}
            Err(err) => {
                return Err(std::io::Error::from(err))
                    .with_context(|| format!("cannot lock {}", path.display()))
            }
        }
        holder_seen = holder_of(path);
        if holder_seen.is_some() && holder_seen == parent {
            // our parent holds it and waits for us
            return Ok(Lock {
                _file: None,
                path: path.to_path_buf(),
            });
        }
    }
    let who = match holder_seen {
        Some(pid) => format!("pid {pid}: {}", command_line(pid)),
        None => "a process this tool cannot see".to_string(),
    };
    bail!(
        "another innodb-lab command is using {what} (lock {} held by {who}); \
         a second one is refused rather than run beside it: wait for it to finish or stop it",
        path.display()
    )
}

/// How many times a held lock's holder is looked up before a command is
/// refused (50 ms apart).
const HOLDER_LOOKS: usize = 5;

/// The lock of one piece of cached work (`path`, made if missing), waited
/// for while another command or thread of the same cache holds it; the
/// wait is said once, with the holder's pid.
pub fn work(path: &Path, what: &str) -> Result<Lock> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let file = open_lock_file(path)?;
    use rustix::fs::FlockOperation::{LockExclusive, NonBlockingLockExclusive};
    if rustix::fs::flock(&file, NonBlockingLockExclusive).is_err() {
        let who = holder(path).map_or_else(|| "another process".into(), |p| format!("pid {p}"));
        eprintln!("    waiting for {what}: {who} is making it");
        rustix::fs::flock(&file, LockExclusive)
            .map_err(std::io::Error::from)
            .with_context(|| format!("cannot lock {}", path.display()))?;
    }
    Ok(Lock {
        _file: Some(file),
        path: path.to_path_buf(),
    })
}

/// The pid holding a flock on `path`, from /proc/locks.
pub fn holder(path: &Path) -> Option<i32> {
    let meta = fs::metadata(path).ok()?;
    let locks = crate::procfs::locks()?;
    holder_in(&locks, meta.ino(), meta.dev())
}

/// Parses /proc/locks lines such as
/// `1: FLOCK  ADVISORY  WRITE 4242 00:2a:1234 0 EOF` for the inode.
fn holder_in(locks: &str, ino: u64, dev: u64) -> Option<i32> {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // a blocked waiter's line starts with `->`: skip it
        if fields.get(1) != Some(&"FLOCK") {
            return None;
        }
        let pid: i32 = fields.get(4)?.parse().ok()?;
        let mut id = fields.get(5)?.split(':');
        let maj = u32::from_str_radix(id.next()?, 16).ok()?;
        let min = u32::from_str_radix(id.next()?, 16).ok()?;
        let inode: u64 = id.next()?.parse().ok()?;
        (inode == ino && maj == major && min == minor).then_some(pid)
    })
}

/// A process's command line, or a note that it is gone.
pub fn command_line(pid: i32) -> String {
    match crate::procfs::cmdline(pid) {
        Ok(bytes) if !bytes.is_empty() => String::from_utf8_lossy(&bytes)
            .trim_end_matches('\0')
            .replace('\0', " "),
        _ => "(command line not readable)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_with_the_first_ones_pid_and_command() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        // another process holds it: flock(1) keeps it while sleep runs
        // (-o: sleep does not inherit it); both in a group of their own
        let null = || std::fs::File::create("/dev/null").unwrap().into();
        let mut other = crate::util::Command::new("flock")
            .arg("-o")
            .arg(path.display().to_string())
            .args(["sleep", "300"])
            .start(null(), null())
            .unwrap();
        let mut held = None;
        for _ in 0..200 {
            held = holder(&path);
            if held.is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let held = held.expect("flock(1) took the lock");
        let err = acquire(&path, "the cache").unwrap_err().to_string();
        assert!(err.contains(&format!("pid {held}")), "{err}");
        assert!(err.contains("sleep 300"), "{err}");
        crate::children::kill_group(other.id() as i32);
        other.wait().unwrap();
        crate::children::unregister(other.id() as i32);
        // released by the kernel when its holder died
        let lock = acquire(&path, "the cache").unwrap();
        assert_eq!(holder(&path), Some(std::process::id() as i32));
        drop(lock);
    }

    #[test]
    fn a_holder_missing_from_one_reading_of_the_lock_table_is_looked_for_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        // the parent (this process) holds the lock
        let held = acquire_with(&path, "the cache", None, holder).unwrap();
        let me = std::process::id() as i32;
        // one reading lost the parent's line, the next one has it
        let mut readings = vec![Some(me), None];
        let child = acquire_with(&path, "the cache", Some(me), |_| readings.pop().flatten());
        assert!(child.is_ok(), "{child:?}");
        // a holder never seen is refused, after every look
        let mut looks = 0;
        let err = acquire_with(&path, "the cache", Some(me), |_| {
            looks += 1;
            None
        })
        .unwrap_err()
        .to_string();
        assert_eq!(looks, HOLDER_LOOKS);
        assert!(
            err.contains("cannot see") && err.contains("refused"),
            "{err}"
        );
        drop(held);
    }

    #[test]
    fn a_work_lock_is_waited_for_until_its_holder_lets_it_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("work.lock");
        let first = work(&path, "the build").unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || {
                let second = work(&path, "the build").unwrap();
                tx.send(()).unwrap();
                drop(second);
            })
        };
        // the second is blocked on it (the kernel lists it as a waiter,
        // `->`) and has not got it while the first holds it
        let ino = fs::metadata(&path).unwrap().ino();
        let blocked = (0..1500).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            crate::procfs::locks().is_some_and(|l| {
                l.lines()
                    .any(|line| line.contains("->") && line.contains(&format!(":{ino} ")))
            })
        });
        assert!(blocked, "the second never waited for the lock");
        assert!(rx.try_recv().is_err(), "the second took a held lock");
        drop(first);
        rx.recv_timeout(std::time::Duration::from_secs(30))
            .expect("the second got the lock once the first let it go");
        waiter.join().unwrap();
    }

    #[test]
    fn proc_locks_lines_are_matched_on_device_and_inode() {
        let dev = libc::makedev(0, 0x2a);
        let text = "1: POSIX  ADVISORY  WRITE 77 00:2a:1234 0 EOF\n\
                    2: FLOCK  ADVISORY  WRITE 4242 00:2a:1234 0 EOF\n\
                    2: -> FLOCK  ADVISORY  WRITE 99 00:2a:1234 0 EOF\n";
        assert_eq!(holder_in(text, 1234, dev), Some(4242));
        assert_eq!(holder_in(text, 1235, dev), None);
    }
}
