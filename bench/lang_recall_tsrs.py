#!/usr/bin/env python3
"""Recall of the Rust / TypeScript / JavaScript plugins against universal-ctags, plus throughput.

For each corpus, ctags' definition kinds that a developer would jump to (below) are
compared by (file, name) with what rq's plugins extract from the same files: recall is
the share of ctags' (file, name) pairs that rq also emits. The same run times rq's
single-process parse+extract over every file and `ctags -R` over the tree, so the
ratio is measured on the same (shared, noisy) machine at the same moment.

ctags' own guesses are dropped first (they are not definitions): `AnonymousFunction…`
names, JavaScript "class" tags not on a `class X`/`function X` line, and TypeScript
"alias" tags that are type-only imports. Exit status 1 when any corpus is under 95%.
Timings share the machine with whatever else runs: compare the ratio, not the seconds.

Usage: .venv/bin/python bench/lang_recall_tsrs.py [corpus ...] [--missing N]
Corpora default to tokio rxjs zod effect under $RQ_CORPORA (~/.cache/rq-corpora).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from rq_engine.lang.registry import language_for_path, plugin

CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))

# ctags kinds that are definitions a developer jumps to. Rust's `implementation`
# (an impl block) is a scope, not a definition; fields/enumerators/variables are out.
RUST_KINDS = {
    "struct",
    "enum",
    "interface",
    "function",
    "method",
    "module",
    "macro",
    "union",
    "typedef",
}
TSJS_KINDS = {
    "class",
    "function",
    "method",
    "interface",
    "enum",
    "namespace",
    "alias",
    "typealias",
    "generator",
    "getter",
    "setter",
}
JS_EXTS = (".js", ".jsx", ".mjs", ".cjs")
CORPUS_LANGS = {
    "tokio": ("Rust", RUST_KINDS),
    "rxjs": ("TypeScript,JavaScript", TSJS_KINDS),
    "zod": ("TypeScript,JavaScript", TSJS_KINDS),
    "effect": ("TypeScript,JavaScript", TSJS_KINDS),
}


def ctags_defs(
    root: Path, languages: str, kinds: set[str]
) -> tuple[dict[str, dict[str, str]], float]:
    """path -> {name: kind} for ctags' definitions of the wanted kinds; and ctags' seconds."""
    t0 = time.perf_counter()
    out = subprocess.run(
        ["ctags", "-R", "--fields=+K", f"--languages={languages}", "-f", "-", "."],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    secs = time.perf_counter() - t0
    defs: dict[str, dict[str, str]] = collections.defaultdict(dict)
    for raw in out.splitlines():
        parts = raw.decode("utf-8", "replace").split("\t")
        if len(parts) < 4:
            continue
        name, path, pattern = parts[0], parts[1], parts[2]
        kind = next((p for p in parts[3:] if p and ":" not in p), "")
        # ctags names anonymous functions `AnonymousFunction<hash>`: nothing to type
        if kind not in kinds or name.startswith("AnonymousFunction"):
            continue
        # ctags' JavaScript parser guesses "class" from usage (`e = { error }` in a catch,
        # `_super.prototype.x.call(…)`): only a `class X` / `function X` line declares one.
        if (
            kind == "class"
            and path.endswith(JS_EXTS)
            and not re.search(rf"\b(class|function)\s+{re.escape(name)}\b", pattern)
        ):
            continue
        # ...and its "alias" kind includes type-only imports (`import { type X }`)
        if kind == "alias" and (
            pattern.startswith("/^import")
            or not re.search(rf"\btype\s+{re.escape(name)}\b(?!\s*[,}}])", pattern)
        ):
            continue
        defs[path.removeprefix("./")].setdefault(name, kind)
    return defs, secs


def rq_defs(root: Path, want_langs: set[str]) -> tuple[dict[str, set[str]], float, int, int]:
    """path -> names rq extracts; seconds of read+parse+extract; files; symbols."""
    names: dict[str, set[str]] = {}
    secs = 0.0
    files = symbols = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for fn in filenames:
            path = os.path.join(dirpath, fn)
            lang = language_for_path(path)
            if lang not in want_langs:
                continue
            p = plugin(lang)
            t0 = time.perf_counter()
            with open(path, "rb") as f:
                syms = p.extract(f.read())
            secs += time.perf_counter() - t0
            files += 1
            symbols += len(syms)
            names[os.path.relpath(path, root)] = {s.name for s in syms}
    return names, secs, files, symbols


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="*", default=list(CORPUS_LANGS))
    ap.add_argument("--missing", type=int, default=15, help="top missing names to print")
    ns = ap.parse_args()
    ok = True
    for corpus in ns.corpora:
        root = CORPORA / corpus
        if not root.is_dir():
            print(f"{corpus}: absent under {CORPORA}, skipped")
            continue
        langs, kinds = CORPUS_LANGS[corpus]
        want = {"rust"} if langs == "Rust" else {"typescript", "tsx", "javascript"}
        # warm the grammar + query caches so the timing is parsing, not loading
        for lang in want:
            plugin(lang).extract(b"")
        ours, rq_secs, files, nsyms = rq_defs(root, want)
        theirs, ctags_secs = ctags_defs(root, langs, kinds)
        total = found = src_total = src_found = 0
        missing: collections.Counter[tuple[str, str]] = collections.Counter()
        example: dict[tuple[str, str], str] = {}
        by_kind: collections.Counter[str] = collections.Counter()
        miss_by_kind: collections.Counter[str] = collections.Counter()
        for path, defs in theirs.items():
            have = ours.get(path, set())
            for name, kind in defs.items():
                total += 1
                by_kind[kind] += 1
                is_src = "/dist/" not in f"/{path}"
                src_total += is_src
                if name in have:
                    found += 1
                    src_found += is_src
                else:
                    missing[(name, kind)] += 1
                    example.setdefault((name, kind), path)
                    miss_by_kind[kind] += 1
        recall = found / total if total else 1.0
        ok &= recall >= 0.95
        print(
            f"{corpus}: recall {recall:.3f} ({found}/{total} ctags (file,name) pairs); "
            f"rq {files} files, {nsyms} symbols, {rq_secs:.2f}s parse+extract "
            f"({files / rq_secs if rq_secs else 0:.0f} files/s); ctags -R {ctags_secs:.2f}s "
            f"(rq/ctags {rq_secs / ctags_secs if ctags_secs else 0:.2f}x)"
        )
        if src_total != total:
            print(f"  outside dist/: recall {src_found / src_total:.3f} ({src_found}/{src_total})")
        print(
            "  missed by kind: "
            + ", ".join(f"{k} {miss_by_kind[k]}/{by_kind[k]}" for k in sorted(by_kind))
        )
        for (name, kind), n in missing.most_common(ns.missing):
            print(f"    {n:5d}  {kind:10s} {name:30s} e.g. {example[(name, kind)]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
