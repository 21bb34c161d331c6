"""Per-plugin recall against universal-ctags, and extraction throughput, on real corpora.

Usage: .venv/bin/python bench/lang_recall.py [corpus ...] [--top N]
       (corpora: django cpython rails sinatra gostd jdk laravel rxjs-cjs rxjs-esm5;
       default all present)

For each corpus: the files our registry maps to the language are given to
`ctags --language-force=<L> -L -`; its definitions of the class/function/
method/struct-like kinds are compared with our extracted names, both as a set
of unique names and per (file, name). The top missing names are printed with
their ctags kinds so deliberate differences can be explained. Throughput is
single-process CPU time of parse+extract over the same files (noisy on a
shared machine; parse-only is measured in the same run as the peer).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rq_engine.lang import grammar, registry  # noqa: E402

CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
_JS_KINDS = {"class", "function", "method", "getter", "setter", "generator"}
# corpus -> (our language id, ctags language, ctags kinds that must be found)
TARGETS = {
    "django": ("python", "Python", {"class", "function", "member"}),
    "cpython": ("python", "Python", {"class", "function", "member"}),
    "rails": ("ruby", "Ruby", {"class", "module", "method", "singletonMethod"}),
    "sinatra": ("ruby", "Ruby", {"class", "module", "method", "singletonMethod"}),
    "gostd": ("go", "Go", {"func", "methodSpec", "struct", "interface", "type"}),
    "jdk": ("java", "Java", {"class", "interface", "enum", "annotation", "method"}),
    "laravel": ("php", "PHP", {"class", "interface", "trait", "function"}),
    # rxjs's compiled CommonJS and ES5 builds: prototype methods, IIFEs, namespace objects
    "rxjs-cjs": ("javascript", "JavaScript", _JS_KINDS),
    "rxjs-esm5": ("javascript", "JavaScript", _JS_KINDS),
}
# corpus -> its directory under CORPORA, when it is not the corpus's own name
ROOTS = {"rxjs-cjs": "rxjs/package/dist/cjs", "rxjs-esm5": "rxjs/package/dist/esm5"}


def files_of(root: Path, language: str) -> list[str]:
    out = []
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != ".git")
        for n in sorted(names):
            rel = os.path.relpath(os.path.join(d, n), root)
            if registry.language_for_path(rel) == language:
                out.append(rel)
    return out


def ctags_defs(
    root: Path, files: list[str], ctags_lang: str, kinds: set[str]
) -> list[tuple[str, str, str]]:
    """(path, name, kind) for every ctags definition of the wanted kinds."""
    proc = subprocess.run(
        [
            "ctags",
            f"--language-force={ctags_lang}",
            "--fields=+Kn",
            "--extras=-{anonymous}",  # `AnonymousFunction0a1b…` is no name to search for
            "--output-format=json",
            "-L",
            "-",
            "-f",
            "-",
        ],
        cwd=root,
        input="\n".join(files),
        capture_output=True,
        text=True,
        errors="replace",
        check=True,
    )
    out = []
    for line in proc.stdout.splitlines():
        tag = json.loads(line)
        if tag.get("_type") == "tag" and tag.get("kind") in kinds:
            out.append((tag["path"], tag["name"], tag["kind"]))
    return out


def run(corpus: str, top: int) -> None:
    language, ctags_lang, kinds = TARGETS[corpus]
    root = CORPORA / ROOTS.get(corpus, corpus)
    files = files_of(root, language)
    sources = [(rel, (root / rel).read_bytes()) for rel in files]
    plugin = registry.plugin(language)
    plugin.extract(b"")  # load grammar and query outside the timing

    t0 = time.process_time()
    ours: set[tuple[str, str]] = set()
    for rel, src in sources:
        for sym in plugin.extract(src):
            ours.add((rel, sym.name))
    extract_s = time.process_time() - t0
    t0 = time.process_time()
    parser = grammar.parser(language)
    for _, src in sources:
        parser.parse(src)
    parse_s = time.process_time() - t0
    t0 = time.perf_counter()
    theirs = ctags_defs(root, files, ctags_lang, kinds)
    ctags_s = time.perf_counter() - t0

    our_names = {name for _, name in ours}
    their_names = {name for _, name, _ in theirs}
    pairs = {(p, n) for p, n, _ in theirs}
    name_recall = len(their_names & our_names) / max(1, len(their_names))
    pair_recall = len(pairs & ours) / max(1, len(pairs))
    mb = sum(len(s) for _, s in sources) / 1e6
    print(f"== {corpus} ({language}): {len(files)} files, {mb:.1f} MB")
    print(
        f"   recall by name {name_recall:.2%} ({len(their_names & our_names)}/{len(their_names)}), "
        f"by file+name {pair_recall:.2%} ({len(pairs & ours)}/{len(pairs)})"
    )
    print(
        f"   parse+extract {extract_s:.2f} s CPU ({len(files) / extract_s:.0f} files/s, "
        f"{mb / extract_s:.1f} MB/s); parse alone {parse_s:.2f} s; ctags (wall, 1 process) {ctags_s:.2f} s"
    )
    missing = Counter()
    kinds_of: dict[str, Counter[str]] = {}
    example: dict[str, str] = {}
    for p, n, k in theirs:
        if (p, n) not in ours:
            missing[n] += 1
            kinds_of.setdefault(n, Counter())[k] += 1
            example.setdefault(n, p)
    if missing:
        print(f"   top missing (file+name), {sum(missing.values())} in all:")
        for n, c in missing.most_common(top):
            ks = ",".join(k for k, _ in kinds_of[n].most_common())
            print(f"     {c:6d}  {n!r:40} {ks:24} e.g. {example[n]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="*", default=list(TARGETS))
    ap.add_argument("--top", type=int, default=15)
    ns = ap.parse_args()
    for corpus in ns.corpora:
        if not (CORPORA / ROOTS.get(corpus, corpus)).is_dir():
            print(f"== {corpus}: absent under {CORPORA}, skipped")
            continue
        run(corpus, ns.top)


if __name__ == "__main__":
    main()
