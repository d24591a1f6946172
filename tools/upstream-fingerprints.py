#!/usr/bin/env python3
"""Write patches/upstream-fingerprints.txt: sha256 fingerprints of the
4-line windows of upstream post-fix files, so that a test can tell when a
patch of ours carries upstream's text, without upstream's text being in
this repository.

    tools/upstream-fingerprints.py [--pre-fix PATH]... [--note TEXT]...
        [--relative-to DIR] [-o OUT] POST_FIX_FILE...

A window is four consecutive non-trivial lines of a file, each stripped,
with runs of whitespace collapsed to one space, joined by newlines. A line
is trivial when it is empty after that, holds no letter or digit (`{`, `};`
...), or is shorter than 20 characters: such lines are skipped, not window
boundaries. A window that also occurs in a --pre-fix file (or in any
source file under a --pre-fix directory) is left out: text that was
MariaDB's own before the fix is not copied from the fix. The output is
sorted and deduplicated, one hex digest a line, after a `#` header.

xtask/tests/own_words.rs applies the same rules to our patches; the two
must change together.
"""

import argparse
import hashlib
import os
import re
import sys

WINDOW = 4
MIN_LEN = 20
SOURCE_SUFFIXES = (".h", ".hpp", ".cc", ".c", ".cpp", ".inl", ".ic",
                   ".test", ".result", ".inc", ".opt")


def normalise(line):
    return re.sub(r"\s+", " ", line.strip())


def is_trivial(norm):
    return len(norm) < MIN_LEN or not any(c.isalnum() for c in norm)


def significant_lines(text):
    return [n for n in (normalise(l) for l in text.splitlines())
            if not is_trivial(n)]


def window_digests(text):
    lines = significant_lines(text)
    return {
        hashlib.sha256("\n".join(lines[i:i + WINDOW]).encode()).hexdigest()
        for i in range(len(lines) - WINDOW + 1)
    }


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def expand(paths):
    """Files as given, and the source files under directories."""
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(SOURCE_SUFFIXES):
                        yield os.path.join(root, name)
        else:
            yield p


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("post_fix", nargs="+", metavar="POST_FIX_FILE",
                    help="upstream files after the fix")
    ap.add_argument("--pre-fix", action="append", default=[], metavar="PATH",
                    help="a file or directory of the tree before the fix;"
                    " its windows are left out (repeatable)")
    ap.add_argument("--note", action="append", default=[], metavar="TEXT",
                    help="a header line, e.g. which commit the files are"
                    " from (repeatable)")
    ap.add_argument("--relative-to", metavar="DIR",
                    help="name the files in the header relative to DIR")
    ap.add_argument("-o", "--output", default="patches/upstream-fingerprints.txt")
    args = ap.parse_args(argv)

    def shown(path):
        return os.path.relpath(path, args.relative_to) if args.relative_to else path

    post = {}
    header = ["# sha256 of normalised 4-line windows of non-trivial lines of"
              " upstream post-fix files,",
              "# made by tools/upstream-fingerprints.py; see its docstring"
              " and README.md.",
              "# Checked by xtask/tests/own_words.rs."]
    header += ["# " + n for n in args.note]
    for path in args.post_fix:
        digests = window_digests(read(path))
        header.append("# post-fix: %s (%d windows)" % (shown(path), len(digests)))
        for d in digests:
            post.setdefault(d, path)

    pre = set()
    pre_files = list(expand(args.pre_fix))
    for path in pre_files:
        pre |= window_digests(read(path))
    kept = sorted(d for d in post if d not in pre)
    if args.pre_fix:
        home = os.path.expanduser("~")
        header.append("# pre-fix, windows left out: %s (%d files)"
                      % (", ".join(p.replace(home, "~", 1) for p in args.pre_fix),
                         len(pre_files)))
    header.append("# %d windows, %d of them also in the pre-fix files,"
                  " %d kept" % (len(post), len(post) - len(kept), len(kept)))

    with open(args.output, "w", encoding="utf-8") as out:
        out.write("\n".join(header) + "\n")
        out.write("".join(d + "\n" for d in kept))
    print("%s: %d fingerprints (%d left out as pre-fix)"
          % (args.output, len(kept), len(post) - len(kept)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
