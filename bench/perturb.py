#!/usr/bin/env python3
"""Perturbation benchmark: the judged answers, asked for the way people mistype them.

For every judged query of the public sets that has an answer, the expected
definition's stored name (read from the bench index: the symbol at the answer's
path and line) is turned into new queries, deterministically (seeded per corpus,
name and style):

  prefix_short   the name less 3 or 4 letters            HttpRequ
  prefix_half    the first half, lower-cased              httpre
  prefix_word    first word + 2-3 letters of the second   HttpRe
  typo_swap      neighbours swapped (not the first letter) HttpReqeust
  typo_delete    a letter left out                        HttpRquest
  typo_insert    a neighbouring key typed too             HttpRequwest
  typo_subst     a neighbouring key instead               HttpRrquest
  typo_double    two of those, queries of 10+ letters
  typo_prefix    prefix_short with one of those inside      HttpReuq
  typo_first_swap / typo_first_subst   the same at the first letter (reported apart)
  abbr_initials  initial of each word, 3+ words           hwia
  abbr_heads     first 2-4 letters of each word           htreq
  abbr_lead      first word whole + 3 letters of the rest  jsondec
  abbr_skeleton  first letter + consonants                 httprqst
  abbr_word_skel each word's first letter + its consonants  httprqst (for ListenAndServe: lstnandsrv)
  lower_concat   the name lower-cased, joiners dropped     httprequest
  sep_snake / sep_camel / sep_kebab / sep_space            http_request, httpRequest, …

Each runs as a whole `rq -q --limit 10 --json` process with cwd = the corpus
(as shared/bench/relevance.py runs it), against RQ_HOME's index; a result is
right when it names an expected path within ±1 line.

Exclusions (reported in their own columns, never in S@1):

- control-miss: the target's exact name is asked first; when its own top result
  is not the answer (a bare `__init__` or `new`, the leaf of a scoped answer),
  the target's variants are left out. This one follows rq's answer to the name
  itself, so compare runs whose control column agrees.
- ambiguous, decided from the index's list of names only (not from rq), so two
  runs judge the same variants. Another name (of a different folded spelling)
  explains the variant at least as well when: it *is* the variant (folded); the
  variant is a literal prefix of it but not of the target; for a prefix variant,
  it starts with the variant and is no longer than the target; for a typo, it
  is as few edits away (sharing the first letter, but for typo_first_*), or the
  variant spells it as word prefixes in order (the seed's D14: a near miss
  yields to a clean abbreviation); for initials/heads/lead, the variant spells
  every word of it as word prefixes too; for a skeleton, it has the same one.
  Also ambiguous: a name of the target's folded spelling that is spelled as the
  variant (`async_write` the module for AsyncWrite's snake form: the literal
  match outranks the joiner-dropped one, D19), or as a lower-case variant's
  letters (`concern` and `Concern`: a lower-case query favours no spelling).

Usage:
  RQ_HOME=/root/.cache/rq-bench/home bench/perturb.py [--jobs 2] [--json OUT]
      [--compare OLD.json] [--show-misses 60] [--explain 12] [--only-style typo_swap,...]
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RQ_SHARED", ROOT.parent / "shared"))
if not (SHARED / "bench").is_dir():
    SHARED = Path("/work/shared")
CORPORA = Path(os.environ.get("RQ_CORPORA", Path.home() / ".cache" / "rq-corpora"))
RQ = os.environ.get("RQ_BIN") or str(ROOT / ".venv" / "bin" / "rq")
QUERY_FILES = [
    SHARED / "bench" / "queries-public.jsonl",
    SHARED / "bench" / "queries-public-c-cpp-java-php.jsonl",
]
#: a target, a variant's outcome or a report section: plain JSON-able records
Rec = dict[str, Any]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

STYLES = [
    "control",
    "prefix_short",
    "prefix_half",
    "prefix_word",
    "typo_swap",
    "typo_delete",
    "typo_insert",
    "typo_subst",
    "typo_double",
    "typo_prefix",
    "typo_first_swap",
    "typo_first_subst",
    "abbr_initials",
    "abbr_heads",
    "abbr_lead",
    "abbr_skeleton",
    "abbr_word_skel",
    "lower_concat",
    "sep_snake",
    "sep_camel",
    "sep_kebab",
    "sep_space",
]
#: styles rq does not claim to answer (a first letter mistyped: D14's first-letter
#: rule): measured, but kept out of ALL. Words typed with spaces joined the
#: claimed separator styles with D44.
APART = ("typo_first_swap", "typo_first_subst")
GROUPS = {
    "prefix": ("prefix_short", "prefix_half", "prefix_word"),
    "typo": ("typo_swap", "typo_delete", "typo_insert", "typo_subst", "typo_double", "typo_prefix"),
    "abbrev": (*(s for s in STYLES if s.startswith("abbr_")), "lower_concat"),
    "separator": ("sep_snake", "sep_camel", "sep_kebab", "sep_space"),
}

_QWERTY = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]


def _neighbours() -> dict[str, str]:
    pos = {ch: (r, c) for r, row in enumerate(_QWERTY) for c, ch in enumerate(row)}
    out: dict[str, str] = {}
    for ch, (r, c) in pos.items():
        near = [
            o
            for o, (r2, c2) in pos.items()
            if o != ch and abs(r2 - r) <= 1 and abs((c2 + 0.5 * r2) - (c + 0.5 * r)) <= 1
        ]
        out[ch] = "".join(sorted(near))
    return out


NEAR = _neighbours()
JOINERS = "_-."


def fold(s: str) -> str:
    return s.lower().translate(str.maketrans("", "", JOINERS))


def words(name: str) -> list[str]:
    """The words of a name as typed: camel humps, `_`/`-`, digit runs (`HTTPServer` →
    HTTP, Server). The bench's own tokenizer, not rq's."""
    out = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+", name)
    return [w for w in out if w]


def skeleton(s: str) -> str:
    f = fold(s)
    return f[:1] + re.sub(r"[aeiouy]", "", f[1:])


def osa(a: str, b: str, cap: int) -> int:
    """Optimal-string-alignment distance, capped at cap + 1. (The engine's is
    core/scoring/typos.edit_distance: this bench decides what is ambiguous without
    importing the engine it judges, so a change there cannot move its own yardstick.)"""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        lo = i
        for j in range(1, len(b) + 1):
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
            lo = min(lo, v)
        if lo > cap:
            return cap + 1
        prev2, prev = prev, cur
    return prev[-1]


# --------------------------------------------------------------------------- variants


def _near_key(ch: str, rng: random.Random) -> str:
    low = ch.lower()
    cands = NEAR.get(low, "")
    if not cands:
        return ch
    k = rng.choice(cands)
    return k.upper() if ch.isupper() else k


def _typo(name: str, kind: str, rng: random.Random, first: bool = False) -> str | None:
    letters = [i for i, ch in enumerate(name) if ch.isalpha()]
    if first:
        inner = [0]
    else:
        # interior letters: an edit at the end is a prefix (deletion) or a longer name
        inner = [i for i in letters if 0 < i < len(name) - 1]
    if not inner:
        return None
    for _ in range(12):
        i = rng.choice(inner)
        if kind == "swap":
            if i + 1 >= len(name) or name[i].lower() == name[i + 1].lower():
                continue
            if not name[i + 1].isalpha():
                continue
            a, b = name[i], name[i + 1]
            if first:  # keep the name's case pattern: `tHtp` reads as a typo of `Http`
                a, b = (a.lower(), b.upper()) if a.isupper() else (a, b)
            return name[:i] + b + a + name[i + 2 :]
        if kind == "delete":
            return name[:i] + name[i + 1 :]
        if kind == "insert":
            return name[:i] + _near_key(name[i], rng).lower() + name[i:]
        if kind == "subst":
            k = _near_key(name[i], rng)
            if k.lower() == name[i].lower():
                continue
            return name[:i] + k + name[i + 1 :]
    return None


def variants(name: str, seed: int, corpus: str) -> dict[str, tuple[str, int]]:
    """style -> (query, edits) for one target name (edits: typo styles only)."""

    def rng(style: str) -> random.Random:
        return random.Random(f"{seed}:{corpus}:{name}:{style}")

    out: dict[str, tuple[str, int]] = {"control": (name, 0)}
    f = fold(name)
    ws = words(name)
    n = len(name)
    if n >= 7:
        cut = n - rng("prefix_short").choice((3, 4))
        if cut >= 4:
            out["prefix_short"] = (name[:cut], 0)
    if len(f) >= 6:
        out["prefix_half"] = (name[: (n + 1) // 2].lower(), 0)
    if len(ws) >= 2 and len(ws[1]) >= 4:
        k = rng("prefix_word").choice((2, 3))
        i = name.find(ws[1], len(ws[0]))
        if i > 0:
            out["prefix_word"] = (name[: i + k], 0)
    if len(f) >= 4:
        for kind in ("swap", "delete", "insert", "subst"):
            v = _typo(name, kind, rng(f"typo_{kind}"))
            if v and fold(v) != f and len(fold(v)) >= 4:
                out[f"typo_{kind}"] = (v, 1)
        for kind in ("swap", "subst"):
            v = _typo(name, kind, rng(f"typo_first_{kind}"), first=True)
            if v and fold(v) != f and len(fold(v)) >= 4:
                out[f"typo_first_{kind}"] = (v, 1)
    if "prefix_short" in out:
        # a slip while typing, before the name is finished (the picker asks at every key)
        p = out["prefix_short"][0]
        r = rng("typo_prefix")
        v = _typo(p, r.choice(("swap", "delete", "insert", "subst")), r)
        if v and fold(v) != fold(p) and len(fold(v)) >= 5:
            out["typo_prefix"] = (v, 1)
    if len(f) >= 10:
        r = rng("typo_double")
        kinds = r.sample(["swap", "delete", "insert", "subst"], 2)
        v = _typo(name, kinds[0], r)
        v2 = _typo(v, kinds[1], r) if v else None
        if v2 and osa(fold(v2), f, 2) == 2 and len(fold(v2)) >= 10:
            out["typo_double"] = (v2, 2)
    if len(ws) >= 3:
        out["abbr_initials"] = (abbr_initials(ws), 0)
    if len(ws) >= 2:
        ks = [rng("abbr_heads").choice((2, 3, 4)) for _ in ws]
        v = "".join(w[:k] for w, k in zip(ws, ks, strict=True)).lower()
        if v != f and len(v) >= 4:
            out["abbr_heads"] = (v, 0)
        v = abbr_lead(ws)
        if v != f and len(v) >= 4:
            out["abbr_lead"] = (v, 0)
    sk = skeleton(name)
    if len(f) >= 6 and sk != f and len(sk) >= 4:
        out["abbr_skeleton"] = (sk, 0)
    if len(ws) >= 2:
        v = word_skeletons(ws)
        if v not in (f, sk) and len(v) >= 4:
            out["abbr_word_skel"] = (v, 0)
    if f != name:
        out["lower_concat"] = (f, 0)
    if len(ws) >= 2:
        low = [w.lower() for w in ws]
        forms = {
            "sep_snake": "_".join(low),
            "sep_camel": low[0] + "".join(w.capitalize() for w in low[1:]),
            "sep_kebab": "-".join(low),
            "sep_space": " ".join(low),
        }
        for style, v in forms.items():
            if v != name:
                out[style] = (v, 0)
    return out


def word_skeletons(ws: list[str]) -> str:
    """Each word by its first letter and its consonants (y kept), as people shorten
    each word of a name: `lst` + `add`, `rspns` + `wrtr`."""
    return "".join(w[:1] + re.sub("[aeiou]", "", w[1:]) for w in (w.lower() for w in ws))


def abbr_initials(ws: list[str]) -> str:
    return "".join(w[0] for w in ws).lower()


def abbr_lead(ws: list[str]) -> str:
    return (ws[0] + "".join(w[:3] for w in ws[1:])).lower()


# --------------------------------------------------------------------------- ambiguity

_COUNTED = "abcdefghijklmnopqrstuvwxyz0123456789"


def _counts(f: str) -> tuple[int, ...]:
    """Letter counts of a folded name, others lumped: an edit moves them by at most 2."""
    return (*(f.count(c) for c in _COUNTED), sum(1 for c in f if c not in _COUNTED))


def _one_edit(q: str, start: int) -> set[str]:
    """q one edit off (a letter inserted, deleted or replaced, two neighbours
    swapped), the edits at position `start` or after."""
    alphabet = set("abcdefghijklmnopqrstuvwxyz0123456789") | set(q)
    cands: set[str] = set()
    for i in range(start, len(q) + 1):
        head, tail = q[:i], q[i:]
        cands.update(head + c + tail for c in alphabet)
        if tail:
            cands.add(head + tail[1:])
            cands.update(head + c + tail[1:] for c in alphabet)
        if len(tail) >= 2:
            cands.add(head + tail[1] + tail[0] + tail[2:])
    return cands


class Names:
    """A corpus's distinct names (from the index's `names` table), with the lookups the
    ambiguity rules need, built lazily."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = sorted(set(names))
        self.by_fold: dict[str, set[str]] = defaultdict(set)
        for n in self.names:
            self.by_fold[fold(n)].add(n)
        self.folds = sorted(self.by_fold)
        self.by_len: dict[int, list[str]] = defaultdict(list)
        for f in self.folds:
            self.by_len[len(f)].append(f)
        self._style: dict[str, dict[str, set[str]]] = {}
        self._counts: dict[str, tuple[int, ...]] = {}
        self._text: str | None = None
        self._starts: list[int] = []

    def near(self, q: str, target: str, edits: int, first: str = "") -> str:
        """A folded name other than `target` within `edits` edits of q ("" if none):
        one edit by generating q's neighbours, two by a letter-count filter and OSA."""
        if edits == 1:
            cands = _one_edit(q, 0)
            hits = sorted(
                f for f in cands if f != target and f in self.by_fold and f.startswith(first)
            )
            return hits[0] if hits else ""
        want = _counts(q)
        for n in range(len(q) - edits, len(q) + edits + 1):
            for f in self.by_len.get(n, ()):
                if f == target or not f.startswith(first):
                    continue
                c = self._counts.get(f)
                if c is None:
                    c = self._counts[f] = _counts(f)
                if sum(abs(x - y) for x, y in zip(want, c, strict=True)) > 2 * edits:
                    continue
                if osa(q, f, edits) <= edits:
                    return f
        return ""

    def near_start(self, q: str, target: str) -> str:
        """A folded name other than `target`, no longer than it, whose start is one
        edit from q with q's first letter ("" if none): it explains a typo'd prefix
        as well as the target does."""
        for c in sorted(_one_edit(q, 1)):
            for f in self.with_prefix(c):
                if f != target and len(f) <= len(target):
                    return f
        return ""

    def with_prefix(self, p: str) -> list[str]:
        i = bisect.bisect_left(self.folds, p)
        out = []
        while i < len(self.folds) and self.folds[i].startswith(p):
            out.append(self.folds[i])
            i += 1
            if len(out) > 5000:
                break
        return out

    def style_index(self, style: str) -> dict[str, set[str]]:
        """variant text -> folds of the names that give it (the skeleton styles)."""
        if style not in self._style:
            idx: dict[str, set[str]] = defaultdict(set)
            spell = skeleton if style == "abbr_skeleton" else (lambda n: word_skeletons(words(n)))
            for n in self.names:
                idx[spell(n)].add(fold(n))
            self._style[style] = idx
        return self._style[style]

    def word_matches(self, q: str, full: bool) -> set[str]:
        """Folds of the names `q` spells as word prefixes, in order: each letter either
        continues the previous one in its word or starts the next word. `full`: from
        the first word to the last (every word used); else any run of neighbouring
        words (what the seed calls an abbreviation: no word skipped)."""
        if self._text is None:
            lines = [" ".join(w.lower() for w in words(n)) for n in self.names]
            self._text = "\n".join(lines)
            self._starts = []
            pos = 0
            for line in lines:
                self._starts.append(pos)
                pos += len(line) + 1
        body = "(?:|[^ \n]* )".join(re.escape(c) for c in q)
        pat = f"^{body}[^ \n]*$" if full else f"(?:^| ){body}"
        out: set[str] = set()
        for m in re.finditer(pat, self._text, re.M):
            i = bisect.bisect_right(self._starts, m.start()) - 1
            out.add(fold(self.names[i]))
        return out

    def ambiguous(self, style: str, query: str, target: str, edits: int) -> str:
        """Why another name explains `query` at least as well as `target` ("" if none)."""
        q, t = fold(query), fold(target)
        if style == "control":
            return ""
        others = self.by_fold.get(q, set())
        if q != t and others:
            return f"is {sorted(others)[0]}"
        # spelled as typed: a literal exact match outranks the target's joiner-dropped
        # one (D19), an exact spelling wins `case`, and a lower-case query favours
        # no spelling over another
        for n in sorted(self.by_fold.get(t, ())):
            if n == target or n.lower() != query.lower():
                continue
            if n == query and target != query:
                return f"spelled {n}"
            if target.lower() != query.lower() or query.islower():
                return f"spelled {n} (case aside)"
        if t.startswith(q) and not target.lower().startswith(query.lower()):
            # the target needs its joiners dropped; a literal prefix comes first (D19)
            for f in self.with_prefix(q):
                lit = [n for n in self.by_fold[f] if n.lower().startswith(query.lower())]
                if lit and lit[0] != target:
                    return f"literal prefix of {lit[0]}"
        if style.startswith(("prefix", "typo", "abbr")):
            longer = [f for f in self.with_prefix(q) if f != t]
            if not t.startswith(q) and longer:
                return f"prefix of {sorted(self.by_fold[longer[0]])[0]}"
        if style.startswith("prefix"):
            rivals = [f for f in self.with_prefix(q) if f != t and len(f) <= len(t)]
            if rivals:
                f = min(rivals, key=lambda x: (len(x), x))
                return f"shorter completion {sorted(self.by_fold[f])[0]}"
        if style.startswith("typo"):
            # a typo after the first letter leaves the first letter as typed: a rival
            # must share it (`Conext` is Context's, not noNext's)
            first = "" if style.startswith("typo_first") else q[:1]
            rival = self.near(q, t, edits, first)
            if rival:
                return f"{edits} edit(s) from {sorted(self.by_fold[rival])[0]}"
            if style == "typo_prefix":
                rival = self.near_start(q, t)
                if rival:
                    return f"starts one edit away too: {sorted(self.by_fold[rival])[0]}"
            # the seed's D14: a near miss yields to a clean in-order abbreviation
            spelled = self.word_matches(q, full=False) - {t}
            if spelled:
                return f"abbreviates {sorted(self.by_fold[min(spelled)])[0]}"
        if style in ("abbr_initials", "abbr_heads", "abbr_lead"):
            spelled = self.word_matches(q, full=True) - {t}
            if spelled:
                return f"abbreviates {sorted(self.by_fold[min(spelled)])[0]} too"
        if style in ("abbr_skeleton", "abbr_word_skel"):
            same_skel = self.style_index(style).get(query, set()) - {t}
            if same_skel:
                return f"same skeleton as {sorted(self.by_fold[min(same_skel)])[0]}"
        return ""


# --------------------------------------------------------------------------- running


def load_targets(conn: sqlite3.Connection) -> list[Rec]:
    """One target per distinct expected definition of the public sets."""
    repos = {
        os.path.basename(str(root)): int(rid)
        for rid, root in conn.execute("SELECT repository_id, root_path FROM checkouts")
    }
    seen: set[tuple[str, str, str, int]] = set()
    out: list[Rec] = []
    for qf in QUERY_FILES:
        for line in qf.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            q = json.loads(line)
            if not q.get("expect"):
                continue
            rid = repos.get(q["corpus"])
            if rid is None:
                continue
            e0 = q["expect"][0]
            rows = conn.execute(
                "SELECT s.name, s.line FROM symbols s JOIN files f ON f.id = s.file_id"
                " WHERE s.repository_id = ? AND f.path = ? AND s.line BETWEEN ? AND ?",
                (rid, e0["path"], int(e0["line"]) - 1, int(e0["line"]) + 1),
            ).fetchall()
            if not rows:
                continue
            want = e0.get("name")
            rows.sort(key=lambda r: (r[0] != want, abs(r[1] - int(e0["line"])), r[0]))
            name = rows[0][0]
            key = (q["corpus"], name, e0["path"], int(e0["line"]))
            if key in seen:
                continue
            seen.add(key)
            out.append(
                dict(
                    id=q["id"],
                    corpus=q["corpus"],
                    lang=q.get("lang", "?"),
                    name=name,
                    rid=rid,
                    expect=[(e["path"], int(e["line"])) for e in q["expect"]],
                )
            )
    return out


_KINDS = ("class", "struct", "interface", "trait", "enum", "type", "function", "method")
_SKIP_DIRS = re.compile(
    r"(^|/)(tests?|testing|spec|specs|__tests__|testdata|dist|build|out|vendor|node_modules"
    r"|third_party|target)/"
)


def load_unique_targets(
    conn: sqlite3.Connection, corpora: list[str], per_corpus: int, seed: int
) -> list[Rec]:
    """`per_corpus` more targets a corpus whose answer needs no judge: definitions whose
    name is the only one of its folded spelling and defined once, outside tests and
    generated copies (6-30 letters), picked by a seeded hash of the name."""
    import hashlib

    repos = {
        os.path.basename(str(root)): int(rid)
        for rid, root in conn.execute("SELECT repository_id, root_path FROM checkouts")
    }
    out: list[Rec] = []
    for corpus in corpora:
        rid = repos.get(corpus)
        if rid is None or per_corpus <= 0:
            continue
        folds: dict[str, int] = defaultdict(int)
        for (f,) in conn.execute("SELECT fold FROM names WHERE repository_id = ?", (rid,)):
            folds[f] += 1
        marks = ",".join("?" * len(_KINDS))
        rows = conn.execute(
            "SELECT s.name, s.language, f.path, s.line FROM symbols s"
            " JOIN files f ON f.id = s.file_id WHERE s.repository_id = ?"
            f" AND s.kind IN ({marks}) AND s.name_lower IN (SELECT name_lower FROM symbols"
            " WHERE repository_id = ? GROUP BY name_lower HAVING count(*) = 1)",
            (rid, *_KINDS, rid),
        ).fetchall()
        picked = []
        for name, lang, path, line in rows:
            f = fold(name)
            if not (6 <= len(f) <= 30 and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name)):
                continue
            base = path.rsplit("/", 1)[-1].lower()
            if folds.get(f) != 1 or _SKIP_DIRS.search(path) or "test" in base:
                continue
            if base.endswith((".d.ts", ".min.js")):
                continue
            key = hashlib.sha1(f"{seed}:{corpus}:{name}".encode()).hexdigest()
            picked.append((key, name, lang, path, int(line)))
        picked.sort()
        for i, (_, name, lang, path, line) in enumerate(picked[:per_corpus]):
            out.append(
                dict(
                    id=f"u-{corpus}-{i}",
                    corpus=corpus,
                    lang=lang,
                    name=name,
                    rid=rid,
                    expect=[(path, line)],
                )
            )
    return out


ERRORS: list[str] = []


def run_rq(query: str, corpus: str, limit: int = 10, explain: bool = False) -> list[Rec]:
    """rq's ranked results for one query ([] for a miss). A run that fails (exit 2 or
    more, a timeout, output that is not the JSON array: a loaded machine, a writer
    holding the index) is tried again twice, then counted in ERRORS."""
    cmd = [RQ, "-q", "--limit", str(limit), "--json"]
    if explain:
        cmd.append("--explain")
    cmd.append(query)
    why = ""
    for _ in range(3):
        try:
            p = subprocess.run(
                cmd, cwd=CORPORA / corpus, env=ENV, capture_output=True, text=True, timeout=30
            )
        except subprocess.TimeoutExpired:
            why = "timeout"
            continue
        if p.returncode == 1:
            return []
        if p.returncode == 0:
            try:
                return list(json.loads(p.stdout).get("results", []))
            except json.JSONDecodeError:
                why = f"bad output {p.stdout[:60]!r}"
                continue
        why = f"exit {p.returncode}: {p.stderr.strip()[-120:]}"
    ERRORS.append(f"{corpus} {query!r}: {why}")
    return []


def rank_of(results: list[Rec], expect: list[tuple[str, int]]) -> int | None:
    for i, r in enumerate(results, 1):
        if any(r["path"] == p and abs(int(r["line"]) - ln) <= 1 for p, ln in expect):
            return i
    return None


def fmt_hit(r: Rec) -> str:
    return f"{r['path']}:{r['line']} {r['kind']} {r['name']}"


def explain_text(r: Rec) -> str:
    return " ".join(f"{p['feature']}{p['value']:+g}" for p in r.get("explain", []))


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", dest="json_out", help="write every variant's outcome here")
    ap.add_argument("--compare", help="a previous --json report: print S@1 before/after")
    ap.add_argument("--show-misses", type=int, default=60)
    ap.add_argument("--explain", type=int, default=12, help="misses shown with --explain")
    ap.add_argument("--only-style", help="comma-separated styles (control always runs)")
    ap.add_argument("--only-corpus", help="comma-separated corpora")
    ap.add_argument(
        "--unique",
        type=int,
        default=25,
        help="more targets a corpus: names defined once (0: the judged answers only)",
    )
    a = ap.parse_args()

    home = Path(os.environ.get("RQ_HOME", Path.home() / ".local" / "share" / "rq"))
    conn = sqlite3.connect(f"file:{home / 'index.db'}?mode=ro", uri=True)
    targets = load_targets(conn)
    corpora = sorted({t["corpus"] for t in targets})
    targets += load_unique_targets(conn, corpora, a.unique, a.seed)
    if a.only_corpus:
        keep = set(a.only_corpus.split(","))
        targets = [t for t in targets if t["corpus"] in keep]
    styles = set(STYLES) if not a.only_style else {"control", *a.only_style.split(",")}

    names_of: dict[int, Names] = {}
    cases: list[Rec] = []
    for t in targets:
        if t["rid"] not in names_of:
            names_of[t["rid"]] = Names(
                r[0]
                for r in conn.execute("SELECT name FROM names WHERE repository_id = ?", (t["rid"],))
            )
        nm = names_of[t["rid"]]
        for style, (query, edits) in variants(t["name"], a.seed, t["corpus"]).items():
            if style not in styles:
                continue
            cases.append(
                dict(
                    target=t,
                    style=style,
                    query=query,
                    ambiguous=nm.ambiguous(style, query, t["name"], edits),
                )
            )
    conn.close()
    print(f"targets: {len(targets)}   variants: {len(cases)}   rq: {RQ}", file=sys.stderr)

    def work(c: Rec) -> Rec:
        res = run_rq(c["query"], c["target"]["corpus"])
        c["rank"] = rank_of(res, c["target"]["expect"])
        c["top"] = fmt_hit(res[0]) if res else "(nothing)"
        return c

    with ThreadPoolExecutor(a.jobs) as ex:
        done = list(ex.map(work, cases))

    control_ok = {
        (c["target"]["corpus"], c["target"]["name"], c["target"]["expect"][0])
        for c in done
        if c["style"] == "control" and c["rank"] == 1
    }
    for c in done:
        t = c["target"]
        c["control_ok"] = (t["corpus"], t["name"], t["expect"][0]) in control_ok
        if c["style"] == "control":
            c["bucket"] = "control"
        elif not c["control_ok"]:
            c["bucket"] = "control-miss"
        elif c["ambiguous"]:
            c["bucket"] = "ambiguous"
        else:
            c["bucket"] = "judged"

    report = summarize(done)
    print_tables(report)
    if ERRORS:
        print(f"\nerrors ({len(ERRORS)}, counted as misses):")
        for e in ERRORS[:20]:
            print(f"  {e}")
    if a.compare:
        compare(report, json.loads(Path(a.compare).read_text()))
    misses = [
        c for c in done if c["bucket"] == "judged" and c["rank"] != 1 and c["style"] not in APART
    ]
    apart = sum(1 for c in done if c["bucket"] == "judged" and c["rank"] != 1) - len(misses)
    misses.sort(key=lambda c: (STYLES.index(c["style"]), c["target"]["corpus"], c["query"]))
    if a.show_misses:
        print(f"\nmisses ({len(misses)}; {apart} more in {', '.join(APART)}):")
        for c in misses[: a.show_misses]:
            t = c["target"]
            print(
                f"  {c['style']:14} {t['corpus']:8} {c['query']!r:34} want {t['name']}"
                f" rank={c['rank']} top={c['top']}"
            )
    if a.explain and misses:
        print("\nexplained (a sample: every k-th miss):")
        step = max(1, len(misses) // a.explain)
        for c in misses[::step][: a.explain]:
            t = c["target"]
            res = run_rq(c["query"], t["corpus"], limit=50, explain=True)
            print(
                f"- {c['style']} {t['corpus']} {c['query']!r} (want {t['name']} {t['expect'][0]})"
            )
            if res:
                print(f"    top  {fmt_hit(res[0])}: {explain_text(res[0])}")
            r = rank_of(res, t["expect"])
            if r is not None:
                print(f"    want rank {r}: {explain_text(res[r - 1])}")
            else:
                print("    want: not in the first 50")
    if a.json_out:
        rows = [
            dict(
                id=c["target"]["id"],
                corpus=c["target"]["corpus"],
                lang=c["target"]["lang"],
                name=c["target"]["name"],
                style=c["style"],
                query=c["query"],
                bucket=c["bucket"],
                ambiguous=c["ambiguous"],
                rank=c["rank"],
                top=c["top"],
            )
            for c in done
        ]
        doc = dict(summary=report, errors=ERRORS, cases=rows)
        Path(a.json_out).write_text(json.dumps(doc, indent=1))
    return 0


def summarize(done: list[Rec]) -> Rec:
    def agg(cs: list[Rec]) -> Rec:
        n = len(cs)
        s1 = sum(1 for c in cs if c["rank"] == 1)
        r5 = sum(1 for c in cs if c["rank"] is not None and c["rank"] <= 5)
        return dict(n=n, s1=s1 / n if n else None, r5=r5 / n if n else None)

    judged = [c for c in done if c["bucket"] == "judged"]
    amb = [c for c in done if c["bucket"] == "ambiguous"]
    out: Rec = {"style": {}, "group": {}, "lang": {}, "ambiguous": {}}
    for style in STYLES:
        cs = [c for c in done if c["style"] == style]
        if style == "control":
            out["style"][style] = agg(cs)
            continue
        out["style"][style] = agg([c for c in judged if c["style"] == style])
        out["ambiguous"][style] = agg([c for c in amb if c["style"] == style])
        out["style"][style]["control_miss"] = sum(1 for c in cs if c["bucket"] == "control-miss")
    for g, members in GROUPS.items():
        out["group"][g] = agg([c for c in judged if c["style"] in members])
    for lang in sorted({c["target"]["lang"] for c in done}):
        out["lang"][lang] = agg(
            [c for c in judged if c["target"]["lang"] == lang and c["style"] not in APART]
        )
    out["all"] = agg([c for c in judged if c["style"] not in APART])
    out["source"] = {
        src: agg(
            [
                c
                for c in judged
                if c["style"] not in APART
                and c["target"]["id"].startswith("u-") == (src == "unique names")
            ]
        )
        for src in ("judged answers", "unique names")
    }
    return out


def _f(v: float | None) -> str:
    return "   -" if v is None else f"{v:.2f}"


def print_tables(rep: Rec) -> None:
    print(f"{'style':15} {'n':>4} {'S@1':>5} {'R@5':>5}   {'amb n':>5} {'amb S@1':>7}  ctl-miss")
    for style in STYLES:
        d = rep["style"][style]
        amb = rep["ambiguous"].get(style, {"n": 0, "s1": None})
        print(
            f"{style:15} {d['n']:4d} {_f(d['s1']):>5} {_f(d['r5']):>5}   {amb['n']:5d}"
            f" {_f(amb['s1']):>7}  {d.get('control_miss', '')}"
        )
    print()
    print(f"{'group':15} {'n':>4} {'S@1':>5} {'R@5':>5}")
    for g, d in rep["group"].items():
        print(f"{g:15} {d['n']:4d} {_f(d['s1']):>5} {_f(d['r5']):>5}")
    print()
    print(f"{'language':15} {'n':>4} {'S@1':>5} {'R@5':>5}")
    for g, d in rep["lang"].items():
        print(f"{g:15} {d['n']:4d} {_f(d['s1']):>5} {_f(d['r5']):>5}")
    print()
    for src, d in rep["source"].items():
        print(f"{src:15} {d['n']:4d} {_f(d['s1']):>5} {_f(d['r5']):>5}")
    d = rep["all"]
    print(
        f"\n{'ALL (judged)':15} {d['n']:4d} {_f(d['s1']):>5} {_f(d['r5']):>5}"
        f"   ({', '.join(APART)} apart)"
    )


def compare(new: Rec, old_doc: Rec) -> None:
    old = old_doc["summary"]
    print("\nbefore -> after (S@1 / R@5):")
    for sec in ("style", "group", "lang", "source"):
        for k, d in new[sec].items():
            o = old.get(sec, {}).get(k)
            if not o:
                continue
            print(
                f"  {sec:6} {k:15} n {o['n']:4d}->{d['n']:<4d}"
                f" S@1 {_f(o['s1'])} -> {_f(d['s1'])}   R@5 {_f(o['r5'])} -> {_f(d['r5'])}"
            )
    o, d = old["all"], new["all"]
    print(f"  ALL {_f(o['s1'])} -> {_f(d['s1'])}   R@5 {_f(o['r5'])} -> {_f(d['r5'])}")


if __name__ == "__main__":
    raise SystemExit(main())
