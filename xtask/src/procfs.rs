//! What the tool reads of /proc, in one place: a process's stat line,
//! parsed once into the fields it uses (numbered as proc_pid_stat(5)
//! numbers them), its command line, environment, name, threads and
//! executable, its network sockets, the processes there are, the flock
//! table and the host's own files. Callers get values, never paths to
//! parse.

use std::fs;
use std::io;
use std::path::PathBuf;

/// The fields of `/proc/<pid>/stat` the tool uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// field 3: `R`, `S`, `Z`, …
    pub state: char,
    /// field 5
    pub process_group: i32,
    /// fields 14-17, in clock ticks: user and system time of the process
    /// (all its threads), then of the children it reaped
    pub user_ticks: u64,
    pub system_ticks: u64,
    pub reaped_children_user_ticks: u64,
    pub reaped_children_system_ticks: u64,
    /// field 22: clock ticks after boot
    pub start_time: u64,
}

impl ProcStat {
    /// Parses a stat line. Fields are counted after the command name's
    /// closing parenthesis, since the name may hold spaces and
    /// parentheses.
    pub fn parse(stat: &str) -> Option<ProcStat> {
        let rest = &stat[stat.rfind(')')? + 1..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // fields[0] is field 3
        let field = |n: usize| fields.get(n - 3).copied();
        let number = |n: usize| field(n)?.parse::<u64>().ok();
        Some(ProcStat {
            state: field(3)?.chars().next()?,
            process_group: field(5)?.parse().ok()?,
            user_ticks: number(14)?,
            system_ticks: number(15)?,
            reaped_children_user_ticks: number(16)?,
            reaped_children_system_ticks: number(17)?,
            start_time: number(22)?,
        })
    }

    /// The stat of process `pid`; `None` when it is gone or unreadable.
    pub fn of(pid: i32) -> Option<ProcStat> {
        ProcStat::parse(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
    }

    pub fn is_zombie(&self) -> bool {
        self.state == 'Z'
    }

    /// User and system time of the process itself.
    pub fn own_ticks(&self) -> u64 {
        self.user_ticks + self.system_ticks
    }

    /// `own_ticks` and the time of the children it reaped: what wait4
    /// reports for it.
    pub fn ticks_with_reaped_children(&self) -> u64 {
        self.own_ticks() + self.reaped_children_user_ticks + self.reaped_children_system_ticks
    }
}

/// The clock ticks a second of the stat fields.
pub fn clock_ticks_per_second() -> f64 {
    match rustix::param::clock_ticks_per_second() {
        0 => 100.0,
        t => t as f64,
    }
}

/// The pids of every process there is; `None` when /proc cannot be
/// listed (a sandbox without it).
pub fn pids() -> Option<Vec<i32>> {
    let entries = fs::read_dir("/proc").ok()?;
    Some(
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .collect(),
    )
}

/// The NUL-separated arguments of process `pid`.
pub fn cmdline(pid: i32) -> io::Result<Vec<u8>> {
    fs::read(format!("/proc/{pid}/cmdline"))
}

/// The NUL-separated environment of process `pid` (readable for the
/// user's own processes only).
pub fn environ(pid: i32) -> io::Result<Vec<u8>> {
    fs::read(format!("/proc/{pid}/environ"))
}

/// The short name of process `pid`, or "" when it is gone.
pub fn comm(pid: i32) -> String {
    fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The executable of process `pid`, as a path its profilers can open.
pub fn exe(pid: u32) -> PathBuf {
    PathBuf::from(format!("/proc/{pid}/exe"))
}

/// The `status` text of each thread of process `pid` (a thread that exits
/// between the listing and the reading is left out).
pub fn thread_statuses(pid: u32) -> io::Result<Vec<String>> {
    Ok(fs::read_dir(format!("/proc/{pid}/task"))?
        .flatten()
        .filter_map(|task| fs::read_to_string(task.path().join("status")).ok())
        .collect())
}

/// A TCP socket in the LISTEN state, or a bound UDP socket: something a
/// peer on the network could reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetListener {
    /// `tcp`, `tcp6`, `udp` or `udp6`, as /proc/net names its table
    pub table: &'static str,
    pub port: u16,
}

/// The network listeners process `pid` holds: its open sockets (the
/// `socket:[inode]` links under `/proc/<pid>/fd`) found in its network
/// namespace's TCP tables in the LISTEN state, or in its UDP tables at
/// all. Unix sockets are not in these tables.
pub fn net_listeners(pid: u32) -> io::Result<Vec<NetListener>> {
    let inodes: Vec<u64> = fs::read_dir(format!("/proc/{pid}/fd"))?
        .flatten()
        .filter_map(|fd| fs::read_link(fd.path()).ok())
        .filter_map(|link| socket_inode(&link.to_string_lossy()))
        .collect();
    let mut found = Vec::new();
    for table in ["tcp", "tcp6", "udp", "udp6"] {
        // a kernel without IPv6 has no tcp6 table
        let Ok(text) = fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        found.extend(listeners_in(table, &text, &inodes));
    }
    Ok(found)
}

/// `12345` of a descriptor's link `socket:[12345]`.
fn socket_inode(link: &str) -> Option<u64> {
    link.strip_prefix("socket:[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// The entries of one /proc/net table (`tcp`: state 0A is LISTEN; `udp`:
/// any entry is a bound socket) whose inode is one of `inodes`.
fn listeners_in(table: &'static str, text: &str, inodes: &[u64]) -> Vec<NetListener> {
    const TCP_LISTEN: &str = "0A";
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (local, state, inode) = (f.get(1)?, f.get(3)?, f.get(9)?.parse::<u64>().ok()?);
            let listening = table.starts_with("udp") || *state == TCP_LISTEN;
            let port = u16::from_str_radix(local.rsplit_once(':')?.1, 16).ok()?;
            (listening && inodes.contains(&inode)).then_some(NetListener { table, port })
        })
        .collect()
}

/// The kernel's table of file locks.
pub fn locks() -> Option<String> {
    fs::read_to_string("/proc/locks").ok()
}

/// A host-wide file of /proc (`stat`, `meminfo`, `cpuinfo`,
/// `sys/kernel/hostname`, …), or "" when it cannot be read.
pub fn host_file(name: &str) -> String {
    fs::read_to_string(format!("/proc/{name}")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_by_field_number_after_the_name() {
        // a name with a space and a parenthesis, as a thread may have
        let line = "4242 (my (prog) x) S 1 4240 4240 0 -1 4194560 100 0 0 0 \
                    17 5 3 2 20 0 1 0 123456 1000 10";
        let st = ProcStat::parse(line).unwrap();
        assert_eq!(st.state, 'S');
        assert_eq!(st.process_group, 4240);
        assert_eq!((st.user_ticks, st.system_ticks), (17, 5));
        assert_eq!(st.own_ticks(), 22);
        assert_eq!(st.ticks_with_reaped_children(), 27);
        assert_eq!(st.start_time, 123456);
        assert!(!st.is_zombie());
        assert_eq!(ProcStat::parse("4242 (cut short) S 1"), None);
    }

    #[test]
    fn listeners_are_the_process_own_listening_or_bound_sockets() {
        // /proc/net/tcp as Linux 6.1 writes it: a listener on 127.0.0.1:3306
        // (inode 111), one on port 33060 (222) that belongs to another
        // process, and an established connection (333, state 01)
        let tcp = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000   998        0 111 1 0000000000000000 100 0 0 10 0\n   1: 00000000:8124 00000000:0000 0A 00000000:00000000 00:00000000 00000000   998        0 222 1 0000000000000000 100 0 0 10 0\n   2: 0100007F:0CEA 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000   998        0 333 1 0000000000000000 20 4 30 10 -1\n";
        assert_eq!(
            listeners_in("tcp", tcp, &[111, 333]),
            [NetListener {
                table: "tcp",
                port: 3306
            }]
        );
        assert!(listeners_in("tcp", tcp, &[333]).is_empty());
        // a bound UDP socket counts whatever its state
        let udp = "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n  7: 00000000:0044 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 444 2 0000000000000000 0\n";
        assert_eq!(listeners_in("udp", udp, &[444])[0].port, 68);
        assert_eq!(socket_inode("socket:[4242]"), Some(4242));
        assert_eq!(socket_inode("pipe:[4242]"), None);
    }

    #[test]
    fn this_process_reads_as_itself() {
        let me = std::process::id();
        let st = ProcStat::of(me as i32).expect("our own stat");
        // the main thread may wait for the test's thread: not always R
        assert!(!st.is_zombie() && st.start_time > 0, "{st:?}");
        assert!(pids().unwrap().contains(&(me as i32)));
        assert!(!cmdline(me as i32).unwrap().is_empty());
        assert!(!thread_statuses(me).unwrap().is_empty());
    }
}
