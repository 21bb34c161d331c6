"""The named features: each turns one fact about a candidate (its kind, visibility,
path, parent chain, the query's scope and case, a stored fact) into parts of the
breakdown. Pure functions of their arguments; the weights are in weights.py, the
context boosts in boosts.py. Stdlib only.
"""

from __future__ import annotations

from functools import lru_cache

from rq_engine.core.columns import ADDED, added_names
from rq_engine.core.paths import TS_DECLARATION_SUFFIXES, is_test_path
from rq_engine.core.query import Query, fold, split_scope
from rq_engine.core.record import Record
from rq_engine.core.scoring.matching import JOINER_SET, NameMatch, fold_positions
from rq_engine.core.scoring.typos import edit_distance, kept_pairs
from rq_engine.core.scoring.weights import (
    KIND_WEIGHTS,
    MAX_EDITS,
    MIN_TYPO_LEN,
    REFERENCED_MIN_FILES,
    WEIGHTS,
)

TYPE_CHECKING = False  # (typing and collections stay off the `rq -q` path)
if TYPE_CHECKING:
    from collections.abc import Callable


class Candidate(Record):
    """What the scorer may look at: one stored definition."""

    # (and the facts core/columns.py declares since m001, which a feature reads by name)
    __slots__ = (
        "name",
        "kind",
        "visibility",
        "parent",
        "path",
        "language",
        "project",
        *added_names(),
    )
    name: str
    kind: str
    visibility: str
    parent: str | None
    path: str
    language: str
    project: str  # the repository's short name (`effect` for github.com/Effect-TS/effect)

    def __init__(
        self,
        name: str,
        kind: str = "function",
        visibility: str = "unknown",
        parent: str | None = None,
        path: str = "",
        language: str = "",
        project: str = "",
        **added: object,
    ) -> None:
        self.name = name
        self.kind = kind
        self.visibility = visibility
        self.parent = parent
        self.path = path
        self.language = language
        self.project = project
        if ADDED or added:
            for c in ADDED:
                setattr(self, c.name, added.pop(c.name, c.default))
            if added:
                raise TypeError(f"Candidate has no stored fact {next(iter(added))!r}")


# --------------------------------------------------------------------------- features


def case_feature(query: Query, name: str, match: NameMatch) -> list[tuple[str, float]]:
    """A query with any uppercase rewards the candidate spelled the same way (an
    uppercase letter in the scope only a name spelled out, exact, prefix or near
    miss: `Map.entry`; an abbreviation's letters are lower case whatever they stand for)."""
    if not query.has_upper and not (query.scope_upper and match.kind in _SPELLED_OUT):
        return []
    q = [ch for ch in query.leaf if ch not in JOINER_SET]
    if match.kind == "typo":
        return [("case", WEIGHTS["case"])] if _typo_case(q, name) else []
    # letters only on both sides: a literal match's positions cover the name's `_`
    # too, which left every UPPER_SNAKE query without its case (`PAGE_SIZE` tied
    # with `page_size`, `LIST_HEAD` lost to `struct list_head`)
    got = [name[i] for i in match.positions if name[i] not in JOINER_SET]
    if len(got) == len(q) and all(a == b for a, b in zip(q, got, strict=True)):
        return [("case", WEIGHTS["case"])]
    return []


_SPELLED_OUT = frozenset(("exact", "prefix", "typo"))


def _typo_case(typed: list[str], name: str) -> bool:
    """Whether a near miss keeps the query's case: every letter it keeps (a longest
    common subsequence) is spelled alike, so `Conecrn` is the module `Concern`'s,
    not the method `concern`'s. With the first two letters swapped, Shift went
    with the first key typed: `Ocntext` reads as `Context`."""
    low, idx = fold_positions(name)
    if not low or len(typed) < 2 or len("".join(typed).lower()) != len(typed):
        return False
    if low[0] != typed[0].lower():
        a, b = typed[0], typed[1]
        first = b.upper() if a.isupper() else b.lower()
        typed = [first, a.upper() if b.isupper() else a.lower(), *typed[2:]]
    pairs = kept_pairs("".join(typed).lower(), low)
    return bool(pairs) and all(typed[i] == name[idx[j]] for i, j in pairs)


def kind_feature(kind: str) -> list[tuple[str, float]]:
    w = KIND_WEIGHTS.get(kind, 0.0)
    return [("kind", w)] if w else []


def kind_word_feature(query: Query, kind: str) -> list[tuple[str, float]]:
    """`struct file`: the struct over a function or variable of the same name."""
    if query.kind and query.kind == kind:
        return [("kind_word", WEIGHTS["kind_word"])]
    return []


def nesting_feature(levels: int) -> list[tuple[str, float]]:
    """Definitions nested deep inside others (a class local to a function, a test's
    helper class) are rarely where a bare name should land; a method is one level."""
    if levels <= 1:
        return []
    return [("nesting", max(WEIGHTS["nesting"] * (levels - 1), WEIGHTS["nesting_cap"]))]


def visibility_feature(visibility: str, name: str = "") -> list[tuple[str, float]]:
    """Private/protected: a small penalty, never a filter; unknown carries no signal.

    A name with a leading underscore is internal by the convention most languages
    share (C's `__kmalloc` beside `kmalloc`, TS's exported `_superRefine` beside
    `superRefine`, Python's `_foo`), whatever its plugin reports: the same
    penalty, once. Dunders (`__init__`) are no internals.
    """
    if visibility in ("private", "protected") or _underscored(name):
        return [("visibility", WEIGHTS["private"])]
    return []


#: the features on facts core/columns.py declares since m001: each a function of the
#: query and the candidate (`cand.<fact>`) returning its parts, like the ones above;
#: score() adds every one. A feature on a new stored fact is appended here.
COLUMN_FEATURES: list[Callable[[Query, Candidate], list[tuple[str, float]]]] = []


def _underscored(name: str) -> bool:
    """A leading `_` on a name that is more than underscores, dunders excepted."""
    if name[:1] != "_" or not name.strip("_"):
        return False
    return not (name.startswith("__") and name.endswith("__"))


_GENERATED_DIRS = frozenset(
    {"dist", "build", "out", "vendor", "node_modules", "third_party", "_build", "target"}
)
_SOURCE_ROOTS = frozenset({"", "src", "lib", "package", "packages"})
_ENTRY_FILES = frozenset(
    {"__init__.py", "mod.rs", "lib.rs", "index.ts", "index.js", "index.tsx", "index.mjs"}
)


@lru_cache(maxsize=8192)
def path_features(
    path: str, name: str, project: str = "", parent_last: str = ""
) -> tuple[tuple[str, float], ...]:
    """Canonical definitions over copies: tests, generated/declaration files, depth, naming."""
    parts = path.split("/")
    dirs, base = parts[:-1], parts[-1]
    out: list[tuple[str, float]] = []
    lower_dirs = [d.lower() for d in dirs]
    if (
        any(d in _GENERATED_DIRS for d in lower_dirs)
        or base.endswith((*TS_DECLARATION_SUFFIXES, ".min.js"))
        or ".bundle." in base
    ):
        out.append(("path_generated", WEIGHTS["path_generated"]))
    elif is_test_path(path):
        out.append(("path_test", WEIGHTS["path_test"]))
    stem = fold(base.split(".", 1)[0])
    nf = fold(name)
    if nf and (stem == nf or (dirs and fold(dirs[-1]) == nf)):
        out.append(("path_name", WEIGHTS["path_name"]))
    if parent_last and stem == fold(parent_last):
        out.append(("path_parent", WEIGHTS["path_parent"]))
    # the project's front door sits at a source root (package/src/Effect.ts), not
    # deep inside (django/template/backends/django.py)
    if project and stem == fold(project) and fold(dirs[-1] if dirs else "") in _SOURCE_ROOTS:
        out.append(("path_project", WEIGHTS["path_project"]))
    if "internal" in lower_dirs:
        out.append(("path_internal", WEIGHTS["path_internal"]))
    # a module or package named private (`_pydecimal.py`, `pip/_internal/`) holds
    # implementation, as an underscore-named definition does (dunders excepted)
    if any(p.startswith("_") and not p.startswith("__") for p in (*dirs, base)):
        out.append(("path_private", WEIGHTS["path_private"]))
    # a package's entry file speaks for the directory itself (collections.namedtuple)
    depth = len(dirs) - (1 if base in _ENTRY_FILES and dirs else 0)
    if depth:
        out.append(("path_depth", max(WEIGHTS["path_depth"] * depth, WEIGHTS["path_depth_cap"])))
    return tuple(out)


def scope_chain(parent: str | None) -> list[str]:
    """A stored parent (`Foo::Bar`, `a.b.C`, `Foo#bar`) as its components."""
    return list(_chain(parent)) if parent else []


@lru_cache(maxsize=8192)
def _chain(parent: str) -> tuple[str, ...]:
    return tuple(p for p in split_scope(parent)[0] if p)


@lru_cache(maxsize=8192)
def _path_segments(path: str) -> list[str]:
    """Folded directory names and file stem of a path (cached; never mutated)."""
    return [fold(s.split(".", 1)[0]) for s in path.split("/")]


@lru_cache(maxsize=64)
def _lower_scope(scope: tuple[str, ...]) -> list[str]:
    """The query's scope chain lower-cased, once per query rather than per candidate
    (a pasted `a.a.a…` chain has hundreds of parts; callers never mutate it)."""
    return [s.lower() for s in scope]


def qualifier_feature(
    scope: tuple[str, ...], parent: str | None, path: str, *, typo: bool = True
) -> list[tuple[str, float]] | None:
    """How the candidate answers a scoped query; None when it does not (it drops out).

    Levels, strongest first: the parent chain ends with the scope chain; the
    parent's last name ends with the scope (`BaseManager` for `Manager`); the
    scope names the file's package or module (`strings.Split`); the scope is
    within two edits (`scope_typo`). `scope_file` is decided by the pipeline,
    which knows where the scope is defined.
    """
    if not scope:
        return []
    want = _lower_scope(scope)
    chain = [c.lower() for c in scope_chain(parent)]
    if chain and len(chain) >= len(want) and chain[-len(want) :] == want:
        return [("scope", WEIGHTS["scope"])]
    if chain and len(want) == 1 and chain[-1].endswith(want[0]) and len(want[0]) >= 3:
        # closer to the whole name is closer to the named scope: BaseManager over
        # GenericRelatedObjectManager for `Manager`
        share = len(want[0]) / len(chain[-1])
        return [("scope_suffix", round(WEIGHTS["scope_suffix"] * (0.5 + 0.5 * share), 1))]
    if path:
        segs = _path_segments(path)
        # `http.Client.Do`: the head of the chain names the package, the rest the parent
        head, rest = want[0], want[1:]
        if rest and chain[-len(rest) :] == rest and fold(head) in segs[-4:]:
            return [("scope", WEIGHTS["scope"])]
        if fold(want[-1]) in segs[-3:]:
            return [("scope_path", WEIGHTS["scope_path"])]
    if typo and chain:
        # the whole chain within two edits, or (`http.Clinet.Do`) a package head
        # that names the path and the rest of the chain within two edits
        forms = [want]
        if len(want) >= 2 and path and fold(want[0]) in _path_segments(path)[-4:]:
            forms.append(want[1:])
        for form in forms:
            tail = chain[-len(form) :]
            if len(tail) != len(form) or not all(len(w) >= MIN_TYPO_LEN for w in form):
                continue
            d = sum(edit_distance(a, b) for a, b in zip(form, tail, strict=True))
            if d <= MAX_EDITS:
                return [("scope_typo", WEIGHTS["scope_typo"])]
    return None


# ----------------------------------------------------------------- pool-level features
# Decided where the pool is ranked (search/rank.py, search/layers.py), because they
# need the index (a `.d.ts` beside a `.js`; the files declaring the scope) or the layer
# that found the row; their parts and weights are here like every other feature's.


def referenced_feature(files: int, best: int) -> list[tuple[str, float]]:
    """The canonical prior, among definitions of one name: `files` name this one by
    its qualifier, `best` the one named most (`strings.Reader` 11, `io.Reader` 202 in
    Go std). The less-named copy falls by the gap, WEIGHTS per doubling, capped; the
    most-named one keeps its score, so the prior reorders copies of a name and never
    lifts any candidate over another."""
    if best <= files or best < REFERENCED_MIN_FILES:
        return []
    from math import log2

    per, cap = WEIGHTS["referenced"], WEIGHTS["referenced_cap"]
    v = round(min(cap, per * log2(1 + files)) - min(cap, per * log2(1 + best)), 1)
    return [("referenced", v)] if v < 0 else []


def reopened_feature() -> list[tuple[str, float]]:
    """A module or namespace opened again: Ruby reopens `module ActionController` in 43
    of Rails' files, LLVM's headers `namespace llvm` in 1,587. One definition, not 43:
    the copy that ranks first keeps its place, every other falls below the distinct
    definitions of its match band (never out of it: 100 is under any band's gap)."""
    return [("reopened", WEIGHTS["reopened"])]


def compiled_copy_feature(compiled: bool) -> list[tuple[str, float]]:
    """JavaScript beside its own declaration file (`x.js` + `x.d.ts`): TypeScript's
    compiled output, a copy like a generated file."""
    return [("path_compiled", WEIGHTS["path_generated"])] if compiled else []


def scope_file_feature() -> list[tuple[str, float]]:
    """The query's scope is declared in the candidate's file (an inherited member of a
    base class beside it)."""
    return [("scope_file", WEIGHTS["scope_file"])]


def scope_unmatched_feature() -> list[tuple[str, float]]:
    """Nothing answered the scope: the leaf's matches, shown without it."""
    return [("scope_unmatched", WEIGHTS["scope_unmatched"])]


def wildcard_feature() -> list[tuple[str, float]]:
    """`a.b` matched with `.` as any one character (no scope answered it)."""
    return [("wildcard", WEIGHTS["wildcard"])]


def constructor_owner_feature() -> list[tuple[str, float]]:
    """`Foo.new` answered by Foo itself, where no constructor is declared."""
    return [("constructor_owner", WEIGHTS["constructor_owner"])]


def constructor_feature() -> list[tuple[str, float]]:
    """`Foo.new` answered by the constructor the language names (+0: shown, not scored)."""
    return [("constructor", WEIGHTS["constructor"])]


def via_package_feature(levels: int = 0) -> list[tuple[str, float]]:
    """The query's head named the package (`bufscanner` → bufio.Scanner): the file's own
    directory or the file, or a directory `levels` above the file's own."""
    return [("via_package", WEIGHTS["via_package"] + levels * WEIGHTS["via_package_level"])]


def path_query_features(path: str, text: str) -> list[tuple[str, float]]:
    """A file answering a query that is a path: how its path ends with or holds the
    query (`path`), and the share of the path the query spells (`length`)."""
    base = path.rsplit("/", 1)[-1]
    low = text.lower()
    if path.lower().endswith(low):
        whole = base.lower() == low or "/" in text
        v = WEIGHTS["path_query_file"] if whole else WEIGHTS["path_query_suffix"]
    else:
        v = WEIGHTS["path_query_within"]
    length = round(WEIGHTS["path_query_length"] * len(text) / max(len(path), 1), 1)
    return [("path", v), ("length", length)]
