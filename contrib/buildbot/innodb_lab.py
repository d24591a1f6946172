"""innodb-lab on Buildbot 4: a matrix too large for one host, run as shards.

`add_innodb_lab(c, ...)` adds to a master's configuration dictionary `c`:

* one shard builder per worker (`<name>-shard-<worker>`), holding an
  exclusive lock of the worker's host while it runs: one benchmark per host
  at a time, whatever the number of workers on it (a matrix run builds,
  then measures; both belong to the shard). It runs
  `<tool> matrix MATRIX --shard K/N --out <dir>`, packs the results
  directory and uploads it to the master under `<results>/<build>/`;
* a coordinator builder `<name>`, forced by the scheduler `<name>-force`:
  it triggers the N shard builds (shard K on worker (K-1) mod W), waits for
  them, downloads their results, joins them with `<tool> report merge`,
  uploads the merged results and report to `<results>/<build>/merged`, and
  takes its result from `<tool> validate BASELINE CANDIDATE` on them:
  exit 0 success, 1 failure (a regression), 2 warnings (undecided),
  anything else failure.

How to add it to an existing master (master.cfg):

    import sys
    sys.path.insert(0, "/path/to/innodb-lab/contrib/buildbot")
    from innodb_lab import add_innodb_lab

    add_innodb_lab(
        c,
        matrix="matrix/mdev-37992.toml",
        shards=4,
        workers={"bench1": "bench1.example", "bench2": "bench2.example"},
        checkout="https://github.com/<you>/innodb-lab.git",
        results="/srv/innodb-lab",
        validate=("base", "fixed"),
        ccache_remote="redis://ccache.example:6379",
    )

`c` must already have 'builders' and 'schedulers' lists and the workers.
`checkout` is a git URL (cloned into each build's directory) or an absolute
path of a checkout every worker can use as it is. `ccache_remote`, when
given, becomes INNODB_LAB_CCACHE_REMOTE: ccache's remote storage, so that a
host that builds a variant another host built gets cache hits (the merged
report gives each host's hit rate).
"""

from buildbot.plugins import schedulers, steps, util
from buildbot.process.results import FAILURE, SUCCESS, WARNINGS


class ShardTrigger(steps.Trigger):
    """Triggers shard K of N on the scheduler of worker (K-1) mod W."""

    def __init__(self, shard_schedulers, shards, **kwargs):
        self.shard_schedulers = shard_schedulers
        self.shards = shards
        super().__init__(schedulerNames=list(shard_schedulers), waitForFinish=True, **kwargs)

    def getSchedulersAndProperties(self):
        coordinator = self.build.getProperty("buildnumber")
        return [
            {
                "sched_name": self.shard_schedulers[(k - 1) % len(self.shard_schedulers)],
                "props_to_set": {
                    "shard": f"{k}/{self.shards}",
                    "shard_k": str(k),
                    "coordinator": str(coordinator),
                },
                "unimportant": False,
            }
            for k in range(1, self.shards + 1)
        ]


def _checkout_steps(checkout):
    """A clone for a git URL; nothing for a local checkout."""
    if checkout.startswith("/"):
        return []
    return [steps.Git(repourl=checkout, mode="full", method="clobber")]


def _workdir(checkout):
    return checkout if checkout.startswith("/") else "build"


def add_innodb_lab(
    c,
    *,
    matrix,
    shards,
    workers,
    checkout,
    results,
    validate=("base", "fixed"),
    name="innodb-lab",
    tool=("cargo", "xtask"),
    ccache_remote=None,
    env=None,
    scratch="results",
):
    if shards < 1 or not workers:
        raise ValueError("innodb-lab: at least one shard and one worker")
    tool = list(tool)
    workdir = _workdir(checkout)
    environ = dict(env or {})
    if ccache_remote:
        environ["INNODB_LAB_CCACHE_REMOTE"] = ccache_remote
    # shard results and the merge live under `scratch` (relative to the
    # checkout unless absolute)
    out = util.Interpolate(f"{scratch}/{name}-shard-%(prop:shard_k)s")

    shard_schedulers = []
    # one lock object per host: Buildbot refuses two locks of one name
    host_locks = {h: util.MasterLock(f"{name}-host-{h}") for h in set(workers.values())}
    for worker, host in workers.items():
        host_lock = host_locks[host]
        f = util.BuildFactory()
        for s in _checkout_steps(checkout):
            f.addStep(s)
        f.addStep(
            steps.ShellCommand(
                name="matrix shard",
                command=tool + ["matrix", matrix, "--shard", util.Property("shard"), "--out", out],
                workdir=workdir,
                env=environ,
                haltOnFailure=True,
            )
        )
        f.addStep(
            steps.ShellCommand(
                name="pack",
                command=[
                    "tar",
                    "czf",
                    util.Interpolate(f"{scratch}/{name}-shard-%(prop:shard_k)s.tgz"),
                    "-C",
                    scratch,
                    util.Interpolate(f"{name}-shard-%(prop:shard_k)s"),
                ],
                workdir=workdir,
                haltOnFailure=True,
            )
        )
        f.addStep(
            steps.FileUpload(
                workersrc=util.Interpolate(f"{scratch}/{name}-shard-%(prop:shard_k)s.tgz"),
                masterdest=util.Interpolate(
                    f"{results}/%(prop:coordinator)s/shard-%(prop:shard_k)s.tgz"
                ),
                workdir=workdir,
            )
        )
        builder = f"{name}-shard-{worker}"
        c["builders"].append(
            util.BuilderConfig(
                name=builder,
                workernames=[worker],
                factory=f,
                locks=[host_lock.access("exclusive")],
            )
        )
        c["schedulers"].append(schedulers.Triggerable(name=builder, builderNames=[builder]))
        shard_schedulers.append(builder)

    f = util.BuildFactory()
    for s in _checkout_steps(checkout):
        f.addStep(s)
    f.addStep(ShardTrigger(shard_schedulers, shards, name="shards", haltOnFailure=True))
    here = f"{scratch}/shards-%(prop:buildnumber)s"
    for k in range(1, shards + 1):
        f.addStep(
            steps.FileDownload(
                name=f"fetch shard {k}",
                mastersrc=util.Interpolate(f"{results}/%(prop:buildnumber)s/shard-{k}.tgz"),
                workerdest=util.Interpolate(f"{here}/shard-{k}.tgz"),
                workdir=workdir,
            )
        )
        f.addStep(
            steps.ShellCommand(
                name=f"unpack shard {k}",
                command=["tar", "xzf", f"shard-{k}.tgz"],
                workdir=util.Interpolate(here if here.startswith("/") else f"{workdir}/{here}"),
                haltOnFailure=True,
            )
        )
    merged = util.Interpolate(f"{here}/merged")
    f.addStep(
        steps.ShellCommand(
            name="merge",
            command=tool
            + ["report", "merge", merged]
            + [util.Interpolate(f"{here}/{name}-shard-{k}") for k in range(1, shards + 1)],
            workdir=workdir,
            haltOnFailure=True,
        )
    )
    f.addStep(
        steps.DirectoryUpload(
            workersrc=merged,
            masterdest=util.Interpolate(f"{results}/%(prop:buildnumber)s/merged"),
            workdir=workdir,
        )
    )
    baseline, candidate = validate
    f.addStep(
        steps.ShellCommand(
            name="validate",
            command=tool
            + [
                "validate",
                util.Interpolate(f"{here}/merged:{baseline}"),
                util.Interpolate(f"{here}/merged:{candidate}"),
            ],
            workdir=workdir,
            decodeRC={0: SUCCESS, 1: FAILURE, 2: WARNINGS},
            # a step's warnings mark the build only when asked to
            warnOnWarnings=True,
            flunkOnFailure=True,
        )
    )
    coordinator_worker = next(iter(workers))
    c["builders"].append(util.BuilderConfig(name=name, workernames=[coordinator_worker], factory=f))
    c["schedulers"].append(schedulers.ForceScheduler(name=f"{name}-force", builderNames=[name]))
