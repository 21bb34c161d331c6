"""Query parsing: case, word joiners, scope chains, and whether a query looks like a path.

Pure and stdlib-only (it runs on every keystroke of the picker and on the
`rq -q` hot path). Knows no language: `::`, `#`, `.` and `\\` (PHP's namespaces)
are all scope separators.
"""

from __future__ import annotations

from rq_engine.core.errors import UsageError
from rq_engine.core.langspec import CLASS_NAME
from rq_engine.core.languages import SPECS
from rq_engine.core.record import Record

TYPE_CHECKING = False  # (typing and re stay off the hot path)
if TYPE_CHECKING:
    import re

#: the longest query any face accepts, in characters (after the ends' whitespace):
#: names run to ~64, a pasted path to a few hundred. Retrieval is bounded for every
#: query shape; this bounds the rest of the work (a 100,000-letter query failed
#: deep in SQLite: "LIKE or GLOB pattern too complex").
MAX_QUERY_CHARS = 1024

#: the word joiners a query may leave out (or add) and still match exactly (D19)
JOINERS = "_-."
_JOINER_TABLE = str.maketrans("", "", JOINERS)
# The scope separators of every language rq reads, in a query and in a stored parent
# chain (core/scoring splits parents with split_scope): `::` is one separator, not
# two empty scopes, and a lone `:` none; `\` is PHP's (`Illuminate\Support\Collection`).
SCOPE_SEPARATORS = ("::", "#", ".", "\\")
_ONE_CHAR_SEPARATORS = "".join(s for s in SCOPE_SEPARATORS if len(s) == 1)
# File extensions that make a dotted query a file name, not `Scope.member`: every
# extension a plugin reads (each language's LanguageSpec) and a few common others.
PATH_EXTENSIONS = frozenset(ext for spec in SPECS for ext in spec.extensions) | frozenset(
    ".kt .swift .scm .md .toml .json .yaml .yml".split()
)
# What a scoped query's leaf says to mean its scope's constructor (`Foo.new`,
# `Foo::__init__`, `Foo.initialize`): `new`, and every constructor a language names
# (Java's and C++'s are named after the class: `Foo.new` reaches them).
CONSTRUCTOR_WORDS = frozenset(
    {"new"}
    | {s.constructor_name.lower() for s in SPECS if s.constructor_name not in (None, CLASS_NAME)}
)


def split_scope(text: str) -> tuple[list[str], list[str]]:
    """`text` cut at its scope separators, left to right: (the pieces, the separators
    between them). `a::b.c` → (["a", "b", "c"], ["::", "."]); `a:::b` → (["a", ":b"],
    ["::"]). Written out rather than a regular expression: `re` (with `enum`) costs
    `rq -q` ~3 ms to import, and most names have no separator at all."""
    if ":" not in text and not any(c in text for c in _ONE_CHAR_SEPARATORS):
        return [text], []
    parts: list[str] = []
    seps: list[str] = []
    start = i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in _ONE_CHAR_SEPARATORS:
            step = 1
        elif c == ":" and text.startswith("::", i):
            step = 2
        else:
            i += 1
            continue
        parts.append(text[start:i])
        seps.append(text[i : i + step])
        i += step
        start = i
    parts.append(text[start:])
    return parts, seps


def fold(text: str) -> str:
    """Lower-case and drop the joiners `_ - .`: the key a separator-free query matches."""
    return text.lower().translate(_JOINER_TABLE)


class Query(Record):
    """A parsed query. `leaf` is what the candidate's own name must match.

    `scope` is the chain before the leaf (`Foo::Bar#baz` → ("Foo", "Bar")), empty
    when unscoped. `raw` keeps the text as typed, for the `.`-as-wildcard retry
    and the path layer.
    """

    __slots__ = (
        "raw",
        "leaf",
        "scope",
        "dotted",
        "looks_like_path",
        "leaf_lower",
        "leaf_fold",
        "has_upper",
        "scope_upper",
        "has_joiners",
        "kind",
        "words",
    )
    raw: str
    leaf: str
    scope: tuple[str, ...]
    dotted: bool  # a `.` separated scope from the leaf (wildcard retry applies)
    looks_like_path: bool
    # derived once here: the scorer reads them for every candidate
    leaf_lower: str
    leaf_fold: str
    has_upper: bool  # any uppercase in the leaf makes the `case` feature apply
    scope_upper: bool  # …and any in the scope, to a leaf spelled out (exact, prefix, typo)
    has_joiners: bool
    kind: str  # the kind a leading keyword named (`struct file` -> "struct"), else ""
    # the leaf as typed when it was words apart (`get logger`: leaf `get_logger`), else ""
    words: str

    def __init__(
        self,
        raw: str,
        leaf: str,
        scope: tuple[str, ...] = (),
        dotted: bool = False,
        looks_like_path: bool = False,
    ) -> None:
        self.raw = raw
        self.leaf = leaf
        self.scope = scope
        self.dotted = dotted
        self.looks_like_path = looks_like_path
        self.leaf_lower = leaf.lower()
        self.leaf_fold = fold(leaf)
        self.has_upper = any(ch.isupper() for ch in leaf)
        # `Map.entry` is typed with care: its lower-case `entry` asks for the method,
        # not the interface Entry. (A spelled-out leaf's case only: an abbreviation's
        # letters are lower case whatever humps they stand for.)
        self.scope_upper = any(ch.isupper() for part in scope for ch in part)
        self.has_joiners = any(ch in JOINERS for ch in leaf)
        self.kind = ""
        self.words = ""

    def unscoped(self) -> Query:
        """The whole raw text as one leaf (the wildcard retry's view of `a.b`)."""
        return Query(raw=self.raw, leaf=self.raw, looks_like_path=self.looks_like_path)


def as_text(text: str) -> str:
    """Text SQLite and a terminal can take: a command-line argument's surrogate escapes
    (its bytes that were not UTF-8) as the Latin-1 letters those bytes are (`set\\xff`
    → `setÿ`, what a Latin-1 terminal typed), any other lone surrogate as U+FFFD.
    A query is otherwise left as it is (~free for ASCII)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        import re  # (rare: imported and compiled here)

        return re.sub("[\ud800-\udfff]", _surrogate_letter, text)


def _surrogate_letter(m: re.Match[str]) -> str:
    c = ord(m.group())
    return chr(c - 0xDC00) if 0xDC80 <= c <= 0xDCFF else "\ufffd"


def check_query(text: str) -> str:
    """A query a face was given, made text (as_text), or UsageError when it is blank,
    longer than MAX_QUERY_CHARS (the message names the limit) or names nothing."""
    text = as_text(text)
    n = len(text.strip())
    if not n:
        raise UsageError("a query is needed (rq -q QUERY)")
    if n > MAX_QUERY_CHARS:
        raise UsageError(f"the query is {n:,} characters long; the limit is {MAX_QUERY_CHARS:,}")
    if names_nothing(text):
        raise UsageError(
            f"the query {text.strip()!r} is only scope separators; give a name"
            " (Foo, Foo::bar, Foo.bar)"
        )
    return text


def names_nothing(text: str) -> bool:
    """Whether `text` is only scope separators (and whitespace): `::`, `.`, `#`, `\\`.
    Such a query has no name to match, so its miss would say nothing (a lone `:`
    is no separator, and a `/` makes a path)."""
    if "/" in text:
        return False
    parts, seps = split_scope(text)
    return bool(seps) and not any(p.strip() for p in parts)


# `struct file`, `enum pid_type`, `class Foo`: a definition asked for the way its
# language writes it. The keyword is no part of any name; it names the kind
# (scoring.kind_word_feature).
# (re imported and the pattern compiled on the first query with a space: most have none)
_KIND_WORD = r"(struct|union|enum|class|interface|trait)\s+(?=[A-Za-z_$\\])"


def looks_like_path(text: str) -> bool:
    """A `/`, or a trailing known file extension (`models.py`, `server.go`, `src\\a.php`).

    A `\\` alone is a PHP namespace chain (`Illuminate\\Support\\Collection`), not a path.
    """
    if "/" in text:
        return True
    dot = text.rfind(".")
    return dot > 0 and text[dot:] in PATH_EXTENSIONS  # `a.b.C` is a scope chain


def parse(text: str, *, kind_words: bool = True) -> Query:
    """Parse what the user typed. Never raises; an empty query has an empty leaf.

    Whitespace at the ends is dropped. Inside a name it is where one word ends
    (`get logger`: a name is often typed as the words it is made of): the leaf
    joins them with `_`, which any name of those words matches (get_logger,
    getLogger; D44), and `words` keeps them as typed (`operator bool`, a C++
    name with a space of its own). A path query keeps its spaces.
    With `kind_words` False a leading `struct`, `enum`, `class`… is a word like
    any other (`enum type` as the words of EnumType: the search's second reading).
    Past MAX_QUERY_CHARS the text is cut (faces refuse such a query first, with
    check_query; the cut keeps any other caller's search bounded), and lone
    surrogates are made text (as_text).
    """
    raw = as_text(text.strip()[:MAX_QUERY_CHARS].rstrip())
    if not raw:
        return Query(raw="", leaf="")
    word = None
    if kind_words and (" " in raw or "\t" in raw):
        import re

        word = re.match(_KIND_WORD, raw)
    if word is not None and " " not in raw[word.end() :]:
        q = parse(raw[word.end() :])
        q.kind = word.group(1)
        return q
    if looks_like_path(raw):
        return Query(raw=raw, leaf=raw, looks_like_path=True)
    parts, seps = split_scope(raw)
    # Leading separators (`.foo`, `::Foo` = root scope) and trailing ones (`Foo::`)
    # carry no scope: drop the empty pieces instead of matching empty names.
    pieces = [(p, seps[i - 1] if i else "") for i, p in enumerate(parts)]
    words = ""
    if any(map(str.isspace, raw)):  # words typed apart
        words = " ".join(pieces[-1][0].split())
        pieces = [("_".join(p.split()), s) for p, s in pieces]
    pieces = [(p, s) for p, s in pieces if p]
    if not pieces:
        return Query(raw=raw, leaf=raw)
    if len(pieces) == 1:
        q = Query(raw=raw, leaf=pieces[0][0])
    else:
        leaf, leaf_sep = pieces[-1]
        scope = tuple(p for p, _ in pieces[:-1])
        q = Query(raw=raw, leaf=leaf, scope=scope, dotted=leaf_sep == "." or "." in raw)
    if " " in words:
        q.words = words
    return q


def asks_constructor(q: Query) -> bool:
    """`Foo.new` and its kin: a scoped query for the scope's constructor."""
    return bool(q.scope) and q.leaf.lower() in CONSTRUCTOR_WORDS
