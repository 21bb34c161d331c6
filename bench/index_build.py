#!/usr/bin/env python3
"""Index build on the real corpora: rq cold / no-change re-index vs `ctags -R`, and name recall.

For each corpus present under $RQ_CORPORA (default ~/.cache/rq-corpora):

- files, symbols: what rq's index holds after `rq --index` (files = files a
  plugin knows, as git lists them; binary/oversized excluded).
- cold: median wall seconds of `--runs` whole `rq --index CORPUS` processes,
  each into a fresh RQ_HOME (walk, parse on forked workers, write, FTS fill,
  derived tables); its CPU column is the median user+sys of the process tree.
- no-change: median wall seconds of `--runs` further `rq --index` processes
  (nothing changed on disk: the mtime short-circuit).
- ctags: median wall seconds of 2 x `--runs` `ctags -R -f TMP .` on the same tree,
  measured interleaved with rq so both see the same machine load; the ratio is
  cold / ctags. ctags parses every language it knows in the tree (C in CPython,
  Makefiles, …) and rq only the languages it has plugins for; both skip `.git`.
- recall: of universal-ctags' class/function/method/struct-like definitions in
  the files rq indexed (`ctags -L -`, same files), the share of (file, name)
  pairs rq also has a symbol for. Kinds counted, per ctags language:
    Python class function member · Ruby class module method singletonMethod ·
    Go func methodSpec struct interface type · Rust struct enum union interface
    function method · TypeScript/JavaScript class function method interface
    enum generator getter setter · Java class interface enum annotation method ·
    PHP class interface trait function (ctags 5.9 files PHP methods as functions) ·
    C function struct union enum typedef macro · C++ the same and class namespace
    (ctags files every `.h` as C++, the kernel's too).
  Excluded: variables, constants, fields/properties, enumerators, imports and
  aliases, Rust modules/macros/impl blocks, TS namespaces, Java packages and
  PHP namespaces (not class/function/method/struct-like); ctags' `AnonymousFunction…` placeholders and Go's blank
  identifier `_` (`func _()`, `type _ …`: no name anyone can type or call —
  1,240 of gostd's ctags tags); and JavaScript "class" tags on a line that declares no `class X` /
  `function X` (ctags guesses those from usage, e.g. `_super.prototype.x`); C/C++
  include guards (`#ifndef X_H` / `#define X_H`) and ctags' `__anon…` names for
  unnamed types. C++ operators are compared as `operator==` (ctags writes
  `operator ==`). ctags' C++ "function" is a function with a body: in-class
  declarations (its "prototype", off by default) are not counted.

Prints a markdown table (the one recorded in docs/benchmarks.md, "Index build")
and, with --missing N, the top missing (name, kind) pairs per corpus.

`--against DIR` also runs the cold passes of another source tree (e.g. `git
archive REV | tar -x -C DIR`, the code before a change), alternating with this
tree's on every run; both then start as `python -P -m rq_engine` with their tree
on PYTHONPATH, so start-up is alike. It prints a second table: each tree's
median wall and CPU, and the median of the paired differences — on a loaded
machine the figure that still shows a change of a few percent.

Usage: .venv/bin/python bench/index_build.py [corpus ...] [--runs 3] [--missing 10]
           [--against DIR]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rq_engine.store.db import connect  # noqa: E402

CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
DEFAULT = ["django", "cpython", "rails", "gostd", "tokio", "rxjs", "zod", "effect"]
DEFAULT += ["jdk", "laravel"]
DEFAULT += ["llvm", "kernel"]
KINDS = {
    "Python": {"class", "function", "member"},
    "Ruby": {"class", "module", "method", "singletonMethod"},
    "Go": {"func", "methodSpec", "struct", "interface", "type"},
    "Rust": {"struct", "enum", "union", "interface", "function", "method"},
    "TypeScript": {
        "class",
        "function",
        "method",
        "interface",
        "enum",
        "generator",
        "getter",
        "setter",
    },
}
KINDS["JavaScript"] = KINDS["TypeScript"]
KINDS["Java"] = {"class", "interface", "enum", "annotation", "method"}
KINDS["PHP"] = {"class", "interface", "trait", "function"}
# ctags files every `.h` as C++ (the kernel's headers too), `.c` as C
KINDS["C"] = {"function", "struct", "union", "enum", "typedef", "macro"}
KINDS["C++"] = KINDS["C"] | {"class", "namespace"}


AGAINST: list[Path] = []  # --against: the other tree


def rq_cmd() -> list[str]:
    if AGAINST:  # both trees alike: `-P` keeps the cwd (a corpus) off sys.path
        return [sys.executable, "-P", "-m", "rq_engine"]
    exe = Path(sys.executable).parent / "rq"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "rq_engine"]


def tree_env(env: dict[str, str], tree: Path) -> dict[str, str]:
    return dict(env, PYTHONPATH=str(tree))


CPU: dict[str, float] = {}  # the last timed() call's CPU seconds (user+sys, children)


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Wall seconds of one process; its CPU seconds (pool workers included) go to CPU['last']."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU["last"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return secs


def index_contents(db: Path) -> tuple[int, int, dict[str, set[str]]]:
    conn = connect(db, readonly=True)
    files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
    symbols = conn.execute("SELECT count(*) FROM symbols").fetchone()[0]
    names: dict[str, set[str]] = collections.defaultdict(set)
    for path, name in conn.execute(
        "SELECT f.path, s.name FROM symbols s JOIN files f ON f.id = s.file_id"
    ):
        names[path].add(name)
    for (path,) in conn.execute("SELECT path FROM files"):
        names.setdefault(path, set())
    conn.close()
    return files, symbols, names


def ctags_defs(root: Path, files: list[str]) -> list[tuple[str, str, str]]:
    """(path, name, kind) of ctags' wanted definitions in exactly these files."""
    p = subprocess.run(
        ["ctags", "--fields=+Kl", "--output-format=json", "-L", "-", "-f", "-"],
        cwd=root,
        input="\n".join(files),
        capture_output=True,
        text=True,
        errors="replace",
    )
    out = []
    for line in p.stdout.splitlines():
        try:
            tag = json.loads(line)
        except ValueError:
            continue
        if tag.get("_type") != "tag":
            continue
        lang, kind, name = tag.get("language", ""), tag.get("kind", ""), tag.get("name", "")
        if kind not in KINDS.get(lang, ()) or name == "_" or name.startswith("AnonymousFunction"):
            continue
        if lang in ("C", "C++"):
            name = c_family_name(root, tag)
            if name is None:
                continue
        if (
            lang == "JavaScript"
            and kind == "class"
            and not re.search(rf"\b(class|function)\s+{re.escape(name)}\b", tag.get("pattern", ""))
        ):
            continue
        out.append((tag["path"], name, f"{lang}:{kind}"))
    return out


def bench(corpus: str, runs: int, missing: int) -> dict[str, object] | None:
    root = CORPORA / corpus
    if not (root / ".git").exists():
        print(f"# {corpus}: absent under {CORPORA}, skipped", file=sys.stderr)
        return None
    home = Path(tempfile.mkdtemp(prefix=f"rq-bench-{corpus}-"))
    tags_dir = Path(tempfile.mkdtemp(prefix="rq-bench-tags-"))
    env = dict(os.environ, RQ_HOME=str(home / "data"), RQ_CACHE=str(home / "cache"))
    try:
        ctags = [ctags_time(root, tags_dir, env)]  # also warms the page cache for both
        ctags_cpu: list[float] = []
        cold: list[float] = []
        cold_cpu: list[float] = []
        other: list[float] = []
        other_cpu: list[float] = []
        mine = tree_env(env, ROOT) if AGAINST else env
        for i in range(runs):  # each into a fresh RQ_HOME, interleaved with ctags
            sides = [(mine, cold, cold_cpu)]
            if AGAINST:  # alternate which tree goes first, this one last in the last run:
                # the no-change passes and the row counts below read the index it leaves
                pair = (tree_env(env, AGAINST[0]), other, other_cpu)
                sides = [pair, *sides] if (runs - 1 - i) % 2 == 0 else [*sides, pair]
            for side_env, walls, cpus in sides:
                shutil.rmtree(home / "data", ignore_errors=True)
                walls.append(timed([*rq_cmd(), "--index", str(root)], root, side_env))
                cpus.append(CPU["last"])
            ctags.append(ctags_time(root, tags_dir, env))
            ctags_cpu.append(CPU["last"])
        again: list[float] = []
        for _ in range(runs):
            again.append(timed([*rq_cmd(), "--index", str(root)], root, mine))
            ctags.append(ctags_time(root, tags_dir, env))
            ctags_cpu.append(CPU["last"])
        files, symbols, names = index_contents(home / "data" / "index.db")
        defs = ctags_defs(root, sorted(names))
        found = sum(1 for path, name, _ in defs if name in names.get(path, ()))
        recall = found / len(defs) if defs else 1.0
        miss = collections.Counter(
            (name, kind) for path, name, kind in defs if name not in names.get(path, ())
        )
        example = {(n, k): p for p, n, k in defs if n not in names.get(p, ())}
        if missing:
            print(f"# {corpus}: recall {found}/{len(defs)}; top missing:", file=sys.stderr)
            for (n, k), c in miss.most_common(missing):
                print(f"#   {c:5d} {k:22s} {n:32s} e.g. {example[(n, k)]}", file=sys.stderr)
        ct = statistics.median(ctags[1:]) if len(ctags) > 1 else ctags[0]
        cold_s = statistics.median(cold)
        return {
            "corpus": corpus,
            "files": files,
            "symbols": symbols,
            "cold": cold_s,
            "nochange": statistics.median(again),
            "ctags": ct,
            "ratio": cold_s / ct if ct else 0.0,
            "cold_cpu": statistics.median(cold_cpu),
            "ctags_cpu": statistics.median(ctags_cpu),
            "recall": recall,
            "defs": len(defs),
            "against": statistics.median(other) if other else None,
            "against_cpu": statistics.median(other_cpu) if other else None,
            "paired": statistics.median([a - b for a, b in zip(cold, other, strict=True)])
            if other
            else None,
        }
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(tags_dir, ignore_errors=True)


_GUARDS: dict[str, set[str]] = {}


def c_family_name(root: Path, tag: dict[str, str]) -> str | None:
    """A C/C++ tag's name as rq spells it, or None for a tag that is not counted:
    ctags' `__anon…` placeholders for unnamed types, and include guards (`#ifndef
    X_H` / `#define X_H`, no value). Operators lose ctags' space (`operator ==` ->
    `operator==`, how C++ writes `Foo::operator==`)."""
    name = tag.get("name", "")
    if name.startswith("__anon"):
        return None
    if name.startswith("operator ") and not name[9:10].isalpha():
        return "operator" + name[9:]
    if tag.get("kind") == "macro" and re.fullmatch(
        rf"/\^\s*#\s*define\s+{re.escape(name)}\s*(1\s*)?\$/", tag.get("pattern", "")
    ):
        path = tag["path"]
        if path not in _GUARDS:
            text = (root / path).read_bytes().decode("utf-8", "replace")
            _GUARDS[path] = set(re.findall(r"^\s*#\s*ifndef\s+(\w+)", text, re.M))
        if name in _GUARDS[path]:
            return None
    return name


def ctags_time(root: Path, tags_dir: Path, env: dict[str, str]) -> float:
    return timed(["ctags", "-R", "-f", str(tags_dir / "tags"), "."], root, env)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="*", default=DEFAULT)
    ap.add_argument(
        "--runs", type=int, default=3, help="cold and no-change runs for the medians (default 3)"
    )
    ap.add_argument("--missing", type=int, default=0, help="print the top N missing names")
    ap.add_argument("--against", type=Path, help="also run this source tree's cold passes, paired")
    ns = ap.parse_args()
    if ns.against is not None:
        if not (ns.against / "rq_engine").is_dir():
            print(f"bench/index_build.py: no rq_engine/ under {ns.against}", file=sys.stderr)
            return 2
        AGAINST.append(ns.against.resolve())
    if not shutil.which("ctags"):
        print("bench/index_build.py: universal-ctags (`ctags`) is needed", file=sys.stderr)
        return 2
    rows = [r for r in (bench(c, ns.runs, ns.missing) for c in ns.corpora) if r]
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print(
        "| corpus | files | symbols | rq cold s | rq no-change s | ctags -R s | cold / ctags "
        "| CPU s rq / ctags | recall vs ctags |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        cpu_rq, cpu_ct = float(str(r["cold_cpu"])), float(str(r["ctags_cpu"]))
        print(
            f"| {r['corpus']} | {r['files']} | {r['symbols']} | {r['cold']:.2f} | "
            f"{r['nochange']:.2f} | {r['ctags']:.2f} | {r['ratio']:.1f}x | "
            f"{cpu_rq:.1f} / {cpu_ct:.1f} | "
            f"{100 * float(str(r['recall'])):.1f}% of {r['defs']} |"
        )
    if AGAINST:
        print(f"\nagainst {AGAINST[0]} (cold passes alternating, {ns.runs} each):\n")
        print("| corpus | cold s this / against | CPU s this / against | paired diff s |")
        print("|---|---:|---:|---:|")
        for r in rows:
            print(
                f"| {r['corpus']} | {r['cold']:.2f} / {r['against']:.2f} | "
                f"{r['cold_cpu']:.2f} / {r['against_cpu']:.2f} | {r['paired']:+.3f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
