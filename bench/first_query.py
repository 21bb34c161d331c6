#!/usr/bin/env python3
"""First query: time to the first correct answer in a never-indexed repository, and
the next query after a one-file edit.

A. First query, per corpus (default django, gostd, rustc; linux with --linux, which is
   skipped with a reason while rq's registry knows no `.c`). K names (--names, default
   8) are chosen from one `ctags -R --output-format=u-ctags --fields=+nKl` listing:
   names ctags defines exactly once in the whole tree (any kind, any language, so the
   right answer is unambiguous), at least 6 characters, of a kind one jumps to
   (index_build.py's class/function/method/struct-like kinds per language), in a file
   rq would index (git's list, a plugin's extension, under 1 MiB, not minified). Files
   are taken at evenly spaced positions of rq's walk sorted by path (from each
   position, the nearest file with an eligible name not yet used, later ones first),
   and in it the first eligible definition by line: early, middle and late files all
   appear, and the choice is deterministic.
   For each run (--runs, default 3) and name, side by side:
     rq    brand-new empty RQ_HOME and RQ_CACHE, `rq -q NAME` with cwd = the corpus;
           stdout is read from a pipe as it comes, and the figure is the wall time from
           the start until a line `PATH:LINE  ...` with ctags' file and line appears
           (never = a miss, which counts as infinitely slow in the percentiles). The
           exit code and the whole-process time are kept too. Afterwards any process
           still carrying that RQ_HOME in /proc/*/environ (the detached
           `python -m rq_engine --warm ROOT`) is killed and the temp dirs are removed.
     peer  `ctags -R -f TMP .` then `readtags -t TMP NAME`, total wall time; correct
           when readtags lists the expected file. ctags parses every language it
           knows, rq only the ones it has plugins for.
   Printed per corpus: rq's p50/p90 time to the first correct answer, its exit p50,
   the peer's p50, rq/peer, how many answers were correct, the p50 of a full cold
   `rq --index .` (1-2 runs, fresh RQ_HOME) for context, and how many names that full
   index answers at ctags' line ("full ok": a miss there is a recall or
   line-convention gap, not a warming one). -v adds the per-name figures.

B. After an edit (--edit-corpus, default django): the corpus is copied once with
   `cp -a` into a temp dir (the real corpus is never written) and indexed with
   `rq --index .` into a fresh RQ_HOME. Then for each run and each name of A,
   interleaved so machine load hits both alike:
     plain  `rq -q NAME`, whole-process wall time (correct: the original line);
     edit   20 comment lines (`#` or `//` by language) inserted at the top of the file
            defining NAME, `rq -q NAME` once, whole-process wall time; correct when it
            prints that file at the old line + 20 ("stale" when at the old line).
            The original bytes are written back and `rq -q NAME` runs once untimed so
            the index settles; rq processes of that RQ_HOME still running after a
            timed query are waited for (up to 60 s, then killed) before the next step.
   Printed: both medians, edit/plain (the issue's target: <= 2x) and how many
   post-edit answers had the moved line. ctags is no meaningful peer here.

RQ_WARM_DETACH is passed through unchanged. PYTHONDONTWRITEBYTECODE is removed from
the environment of every timed process: users' machines write bytecode, and with it
set each rq start would recompile the engine (~+60 ms).

Usage: .venv/bin/python bench/first_query.py [corpus ...] [--runs N] [--names K]
         [--linux] [--edit-corpus NAME] [--skip-edit] [--skip-first] [-v]
Corpora live under $RQ_CORPORA (default ~/.cache/rq-corpora); a missing one is
skipped with the reason printed. Numbers from a shared machine are noisy: read the
ratios against figures measured in the same run.
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rq_engine.lang.registry import language_for_path  # noqa: E402 - stdlib-only module

CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
DEFAULT = ["django", "gostd", "rustc"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
MIN_NAME = 6
EDIT_LINES = 20
MAX_FILE_BYTES = 1 << 20  # rq skips larger files (parse.DEFAULT_MAX_FILE_BYTES)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# ctags kinds one jumps to, per ctags language (index_build.py's set, plus C for later).
KINDS = {
    "Python": {"class", "function", "member"},
    "Ruby": {"class", "module", "method", "singletonMethod"},
    "Go": {"func", "methodSpec", "struct", "interface", "type"},
    "Rust": {"struct", "enum", "union", "interface", "function", "method"},
    "TypeScript": {"class", "function", "method", "interface", "enum", "generator"},
    "C": {"function", "struct", "union", "enum", "typedef"},
}
KINDS["JavaScript"] = KINDS["TypeScript"]


class Tag(NamedTuple):
    name: str
    path: str
    line: int
    kind: str
    language: str


class Run(NamedTuple):
    first: float  # seconds to the expected PATH:LINE on stdout; inf when never
    exit: float  # seconds to the process' exit
    rc: int
    rank: int  # 1-based position of the expected line among the output lines; 0 = absent
    out: str


def rq_cmd() -> list[str]:
    for exe in (Path(sys.executable).parent / "rq", ROOT / ".venv" / "bin" / "rq"):
        if exe.exists():
            return [str(exe)]
    return [sys.executable, "-m", "rq_engine"]


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))] if xs else math.nan


def fmt_s(x: float) -> str:
    return "miss" if math.isinf(x) else "-" if math.isnan(x) else f"{x:.2f}"


# -- choosing the names ---------------------------------------------------------------


def list_tags(root: Path) -> list[Tag]:
    p = subprocess.run(
        ["ctags", "-R", "--output-format=u-ctags", "--fields=+nKl", "-f", "-"],
        cwd=root,
        capture_output=True,
        text=True,
        errors="replace",
    )
    tags = []
    for raw in p.stdout.splitlines():
        if raw.startswith("!_"):
            continue
        # name TAB path TAB pattern;" TAB fields: patterns keep literal tabs in
        # u-ctags output, extension fields never hold one.
        head, sep, ext = raw.rpartition(';"\t')
        parts = head.split("\t", 2)
        if not sep or len(parts) < 3:
            continue
        fields = ext.split("\t")
        info = dict(f.split(":", 1) for f in fields[1:] if ":" in f)
        if not info.get("line", "").isdigit():
            continue
        tags.append(Tag(parts[0], parts[1], int(info["line"]), fields[0], info.get("language", "")))
    return tags


def walk(root: Path) -> list[str]:
    """The files rq would index: git's list (the walker's command; read-only), a
    known extension, not oversized or minified."""
    p = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
    )
    out = []
    for rel in p.stdout.decode("utf-8", "replace").split("\0"):
        if not rel or language_for_path(rel) is None or ".min." in rel:
            continue
        try:
            size = (root / rel).stat().st_size
        except OSError:
            continue
        if size <= MAX_FILE_BYTES:
            out.append(rel)
    return sorted(out)


def eligible(t: Tag) -> bool:
    if len(t.name) < MIN_NAME or not IDENT.fullmatch(t.name):
        return False
    if t.kind not in KINDS.get(t.language, ()) or t.name.startswith("AnonymousFunction"):
        return False
    return True


def choose_names(root: Path, k: int) -> tuple[list[Tag], str]:
    tags = list_tags(root)
    count: dict[str, int] = {}
    for t in tags:
        count[t.name] = count.get(t.name, 0) + 1
    by_file: dict[str, list[Tag]] = {}
    for t in tags:
        if count[t.name] == 1 and eligible(t):
            by_file.setdefault(t.path, []).append(t)
    files = walk(root)
    n = len(files)
    picked: list[Tag] = []
    used: set[str] = set()
    for i in range(min(k, n)):
        start = (n - 1) * i // (k - 1) if k > 1 else n // 2
        # the nearest usable file, later ones first: no wrapping to the other end
        order = [start + j for j in range(n - start)] + [start - j for j in range(1, start + 1)]
        for pos in order:
            f = files[pos]
            if f in by_file and f not in used:
                used.add(f)
                picked.append(min(by_file[f], key=lambda t: t.line))
                break
    pool = sum(len(by_file.get(f, ())) for f in files)
    return picked, f"{len(tags)} ctags tags, {n} files rq walks, {pool} unique eligible names"


# -- running rq -----------------------------------------------------------------------


def fresh_env(tmp: Path) -> dict[str, str]:
    return dict(ENV, RQ_HOME=str(tmp / "home"), RQ_CACHE=str(tmp / "cache"))


def hit_rank(out: bytes, path: str, line: int) -> int:
    want = f"{path}:{line}".encode()
    for i, ln in enumerate(out.split(b"\n"), 1):
        if ln.startswith(want) and ln[len(want) : len(want) + 1] in (b"", b" ", b"\t"):
            return i
    return 0


def first_answer(cmd: list[str], cwd: Path, env: dict[str, str], want: Tag, timeout: float) -> Run:
    """Run `cmd`, reading stdout as it comes; the time when want's PATH:LINE appears."""
    ended: list[float] = []
    t0 = time.perf_counter()
    p = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )

    def wait() -> None:  # the exit time exactly, while the main thread reads
        p.wait()
        ended.append(time.perf_counter())

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    assert p.stdout is not None
    fd = p.stdout.fileno()
    buf, first = b"", math.inf
    while True:
        if time.perf_counter() - t0 > timeout:
            p.kill()
            break
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            chunk = os.read(fd, 1 << 16)
            now = time.perf_counter()
            if not chunk:
                break
            buf += chunk
            # a line counts once complete, or once rq has exited (no final newline)
            done = buf if ended else buf[: buf.rfind(b"\n") + 1]
            if math.isinf(first) and hit_rank(done, want.path, want.line):
                first = now - t0
        elif ended:
            break  # rq is gone; a detached child may still hold the pipe open
    p.stdout.close()
    waiter.join()
    rank = hit_rank(buf, want.path, want.line)
    if rank and math.isinf(first):
        first = ended[0] - t0  # the last line came without a newline
    return Run(first, ended[0] - t0, p.returncode, rank, buf.decode("utf-8", "replace"))


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    """Whole-process wall seconds, exit code, stdout (via a file: a detached child
    holding a pipe must not stretch the figure)."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        rc = subprocess.call(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.DEVNULL
        )
        secs = time.perf_counter() - t0
        out.seek(0)
        return secs, rc, out.read().decode("utf-8", "replace")


def holders(home: str) -> list[int]:
    """Processes whose environment carries RQ_HOME=home (rq and its warm children)."""
    key = f"RQ_HOME={home}".encode()
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            if key not in (d / "environ").read_bytes().split(b"\0"):
                continue
            stat = (d / "stat").read_text()
        except OSError:
            continue
        if stat.rpartition(")")[2].split()[0] != "Z":  # a zombie is already gone
            pids.append(int(d.name))
    return pids


class Leftovers:
    """What became of rq processes still carrying a bench RQ_HOME after a query."""

    def __init__(self) -> None:
        self.looked = self.ended = self.killed = 0
        self.waits: list[float] = []  # seconds waited for the ones that ended on their own

    def reap(self, home: str, grace: float) -> None:
        """Wait up to `grace` seconds for the processes of `home` to end, then kill them."""
        self.looked += 1
        if not holders(home):
            return
        t0 = time.monotonic()
        while holders(home) and time.monotonic() - t0 < grace:
            time.sleep(0.05)
        if not holders(home):
            self.ended += 1
            self.waits.append(time.monotonic() - t0)
            return
        self.killed += 1
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in holders(home):
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
            end = time.monotonic() + 2
            while holders(home) and time.monotonic() < end:
                time.sleep(0.02)

    def note(self) -> str:
        if not (self.ended or self.killed):
            return ""
        waited = f" after {fmt_s(statistics.median(self.waits))} s (p50)" if self.waits else ""
        return (
            f"rq processes outlived {self.ended + self.killed} of {self.looked} queries:"
            f" {self.ended} ended on their own{waited}, {self.killed} killed"
        )


def cold_index(root: Path, runs: int, names: list[Tag], left: Leftovers) -> tuple[list[float], int]:
    """Full `rq --index .` from scratch; then how many names that index answers right."""
    secs: list[float] = []
    ok = 0
    for i in range(runs):
        tmp = Path(tempfile.mkdtemp(prefix="rq-first-cold-"))
        env = fresh_env(tmp)
        try:
            s, rc, _ = timed([*rq_cmd(), "--index", "."], root, env)
            secs.append(s if rc == 0 else math.inf)
            if i == runs - 1:
                for t in names:
                    _, _, out = timed([*rq_cmd(), "-q", t.name], root, env)
                    ok += hit_rank(out.encode(), t.path, t.line) > 0
        finally:
            left.reap(env["RQ_HOME"], 0)
            shutil.rmtree(tmp, ignore_errors=True)
    return secs, ok


# -- A: first query -------------------------------------------------------------------


def peer(root: Path, t: Tag, tags_file: Path) -> tuple[float, bool]:
    t0 = time.perf_counter()
    subprocess.run(
        ["ctags", "-R", "-f", str(tags_file), "."], cwd=root, env=ENV, capture_output=True
    )
    p = subprocess.run(
        ["readtags", "-t", str(tags_file), t.name],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        errors="replace",
    )
    secs = time.perf_counter() - t0
    files = {
        ln.split("\t")[1].removeprefix("./") for ln in p.stdout.splitlines() if ln.count("\t") >= 2
    }
    return secs, t.path in files


def part_a(corpus: str, a: argparse.Namespace) -> None:
    root = CORPORA / corpus
    if not (root / ".git").exists():
        print(f"{corpus:8} skipped: no git repository at {root}")
        return
    if corpus == "linux" and language_for_path("x.c") is None:
        print(f"{corpus:8} skipped: rq has no C plugin yet (registry knows no .c)")
        return
    names, how = choose_names(root, a.names)
    if not names:
        print(f"{corpus:8} skipped: no eligible names ({how})")
        return
    if a.verbose:
        print(f"# {corpus}: {how}; names:")
        for t in names:
            print(f"#   {t.name:32} {t.path}:{t.line}  {t.language}:{t.kind}")
    cold, full_ok = cold_index(root, 2 if a.runs >= 2 else 1, names, Leftovers())
    per: dict[str, list[Run]] = {t.name: [] for t in names}
    peer_s: dict[str, list[float]] = {t.name: [] for t in names}
    peer_ok = 0
    left = Leftovers()
    scratch = Path(tempfile.mkdtemp(prefix="rq-first-tags-"))
    try:
        for _ in range(a.runs):
            for t in names:
                tmp = Path(tempfile.mkdtemp(prefix="rq-first-"))
                env = fresh_env(tmp)
                try:
                    per[t.name].append(
                        first_answer([*rq_cmd(), "-q", t.name], root, env, t, a.timeout)
                    )
                finally:
                    left.reap(env["RQ_HOME"], 0)
                    shutil.rmtree(tmp, ignore_errors=True)
                s, ok = peer(root, t, scratch / "tags")
                peer_s[t.name].append(s)
                peer_ok += ok
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    runs = [r for rs in per.values() for r in rs]
    firsts = [r.first for r in runs]
    peers = [s for ss in peer_s.values() for s in ss]
    p50, p90, pp = statistics.median(firsts), pct(firsts, 0.9), statistics.median(peers)
    ratio = f"{p50 / pp:7.1f}x" if not math.isinf(p50) else "      -"
    rcs = ",".join(f"{rc}:{n}" for rc, n in sorted(collections.Counter(r.rc for r in runs).items()))
    print(
        f"{corpus:8} {len(names):5d} {len(runs):4d} {fmt_s(p50):>9} {fmt_s(p90):>9}"
        f" {fmt_s(statistics.median(r.exit for r in runs)):>8} {fmt_s(pp):>8} {ratio}"
        f" {sum(r.rank > 0 for r in runs):4d}/{len(runs):<3d} {peer_ok:4d}/{len(peers):<3d}"
        f" {full_ok:3d}/{len(names):<3d} {fmt_s(statistics.median(cold)):>8}  {rcs}"
        + (f"  (killed leftovers after {left.killed} runs)" if left.killed else "")
    )
    if a.verbose:
        for t in names:
            rs = per[t.name]
            firsts_t = " ".join(fmt_s(r.first) for r in rs)
            exits_t = " ".join(fmt_s(r.exit) for r in rs)
            peers_t = " ".join(fmt_s(s) for s in peer_s[t.name])
            print(
                f"#   {t.name:32} first {firsts_t:16} exit {exits_t:16} rc {','.join(str(r.rc) for r in rs):6}"
                f" rank {','.join(str(r.rank) for r in rs):6} peer {peers_t}"
            )
            bad = next((r for r in rs if not r.rank), None)
            if bad is not None:
                top = bad.out.splitlines()[:1] or ["(no output)"]
                print(f"#     wanted {t.path}:{t.line}; a miss printed first: {top[0]}")


# -- B: the query after an edit -------------------------------------------------------


def moved_line(out: str, path: str) -> int:
    for ln in out.splitlines():
        loc = ln.split("  ", 1)[0]
        if loc.rpartition(":")[0] == path and loc.rpartition(":")[2].isdigit():
            return int(loc.rpartition(":")[2])
    return 0


def part_b(corpus: str, a: argparse.Namespace) -> None:
    src = CORPORA / corpus
    if not (src / ".git").exists():
        print(f"edit: skipped, no git repository at {src}")
        return
    work = Path(tempfile.mkdtemp(prefix="rq-first-edit-"))
    copy = work / corpus
    env = fresh_env(work)
    try:
        # a copy (cp -a keeps uncommitted files and mtimes): the real corpus is never written
        subprocess.run(["cp", "-a", str(src), str(copy)], check=True)
        names, how = choose_names(copy, a.names)
        if not names:
            print(f"edit: skipped, no eligible names in {corpus} ({how})")
            return
        s, rc, _ = timed([*rq_cmd(), "--index", "."], copy, env)
        Leftovers().reap(env["RQ_HOME"], 60)
        print(
            f"edit corpus {corpus}: copy indexed in {s:.2f} s (rc {rc}); {len(names)} names x {a.runs} runs"
        )
        plain: list[float] = []
        edit: list[float] = []
        plain_ok = 0
        verdicts = {"moved": 0, "stale": 0, "other": 0, "absent": 0}
        left = Leftovers()
        for _ in range(a.runs):
            for t in names:
                p_s, p_rc, p_out = timed([*rq_cmd(), "-q", t.name], copy, env)
                left.reap(env["RQ_HOME"], 60)
                plain.append(p_s)
                plain_ok += hit_rank(p_out.encode(), t.path, t.line) > 0
                f = copy / t.path
                original = f.read_bytes()
                mark = "#" if language_for_path(t.path) in ("python", "ruby") else "//"
                lines = "".join(f"{mark} rq bench: edit line {i + 1}\n" for i in range(EDIT_LINES))
                f.write_bytes(lines.encode() + original)
                try:
                    e_s, e_rc, e_out = timed([*rq_cmd(), "-q", t.name], copy, env)
                    left.reap(env["RQ_HOME"], 60)
                finally:
                    f.write_bytes(original)
                edit.append(e_s)
                got = moved_line(e_out, t.path)
                if hit_rank(e_out.encode(), t.path, t.line + EDIT_LINES):
                    v = "moved"
                elif hit_rank(e_out.encode(), t.path, t.line):
                    v = "stale"
                else:
                    v = "other" if got else "absent"
                verdicts[v] += 1
                timed([*rq_cmd(), "-q", t.name], copy, env)  # settle after the restore
                left.reap(env["RQ_HOME"], 60)
                if a.verbose:
                    print(
                        f"#   {t.name:32} plain {p_s * 1000:7.1f} ms rc {p_rc}  edit {e_s * 1000:7.1f} ms"
                        f" rc {e_rc}  {v:6} (want {t.path}:{t.line + EDIT_LINES}, got line {got or '-'})"
                    )
        mp, me = statistics.median(plain), statistics.median(edit)
        print(f"{'':8} {'n':>4} {'p50 ms':>8} {'p90 ms':>8}  correct")
        print(
            f"{'plain':8} {len(plain):4d} {mp * 1000:8.1f} {pct(plain, 0.9) * 1000:8.1f}  {plain_ok}/{len(plain)} at the line"
        )
        print(
            f"{'edit':8} {len(edit):4d} {me * 1000:8.1f} {pct(edit, 0.9) * 1000:8.1f}  {verdicts['moved']}/{len(edit)} at the moved line"
            f" (stale {verdicts['stale']}, other line {verdicts['other']}, file absent {verdicts['absent']})"
        )
        print(f"edit/plain p50: {me / mp:.2f}x (target <= 2x)")
        if left.note():
            print(f"note: {left.note()} (waited for up to 60 s before each next step)")
    finally:
        Leftovers().reap(env["RQ_HOME"], 0)
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="*", default=None, help=f"default {' '.join(DEFAULT)}")
    ap.add_argument("--runs", type=int, default=3, help="runs per name (default 3)")
    ap.add_argument("--names", type=int, default=8, help="names per corpus (default 8)")
    ap.add_argument("--linux", action="store_true", help="add linux (skipped without a C plugin)")
    ap.add_argument("--edit-corpus", default="django", help="corpus for part B (default django)")
    ap.add_argument("--skip-edit", action="store_true", help="skip part B")
    ap.add_argument("--skip-first", action="store_true", help="skip part A")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per rq run (default 600)")
    ap.add_argument("-v", "--verbose", action="store_true", help="per-name figures")
    a = ap.parse_args()
    corpora = list(a.corpora or DEFAULT)
    if a.linux and "linux" not in corpora:
        corpora.append("linux")
    for tool in ("ctags", "readtags"):
        if not shutil.which(tool):
            print(f"bench/first_query.py: universal-ctags (`{tool}`) is needed", file=sys.stderr)
            return 2
    timed([*rq_cmd(), "--version"], ROOT, ENV)  # bytecode written before anything is timed
    print(
        f"rq={' '.join(rq_cmd())}  runs={a.runs}  names={a.names}"
        f"  RQ_WARM_DETACH={os.environ.get('RQ_WARM_DETACH', '(unset: detached)')}"
        f"  load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    if not a.skip_first:
        print(
            "\nA. first query in a never-indexed repository (seconds; peer = ctags -R + readtags)"
        )
        print(
            f"{'corpus':8} {'names':>5} {'runs':>4} {'first p50':>9} {'first p90':>9} {'exit p50':>8}"
            f" {'peer p50':>8} {'rq/peer':>7} {'rq ok':>8} {'peer ok':>8} {'full ok':>7}"
            f" {'cold idx':>8}  rc:count"
        )
        for c in corpora:
            part_a(c, a)
    if not a.skip_edit:
        print(f"\nB. the query after a one-file edit ({EDIT_LINES} comment lines on top)")
        part_b(a.edit_corpus, a)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
