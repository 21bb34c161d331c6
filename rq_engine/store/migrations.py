"""Named schema migrations: the steps, in order (store/schema.py applies them).

A step is a (name, sql) pair; its name is recorded in `schema_migrations` when it
commits. Never edit a released step: add the next one (`m00N_what_it_does`). A
stored fact of a definition declared in core/columns.py brings its own step (the
end of this file). m001's schema is in store/m001.py; m002-m006, the retrieval
tables' first steps, are in store/m002_names.py.
"""

from __future__ import annotations

from collections.abc import Callable

from rq_engine.core.columns import ADDED, Column
from rq_engine.core.sqlite import sqlite3
from rq_engine.store.m001 import M001_INITIAL
from rq_engine.store.m002_names import NAMES_STEPS
from rq_engine.store.sqlscript import statements

Step = tuple[str, str | Callable[[sqlite3.Connection], None]]


STEPS: list[Step] = [
    ("m001_initial", M001_INITIAL),
    *NAMES_STEPS,
]


# --- re-extraction: a plugin that starts emitting something new -------------------
#
# The indexer skips a file twice over: a stored mtime and size equal to the stat
# mean it is never read, and a stored content hash equal to the file's means it
# is never parsed. A file untouched since the old plugin indexed it would keep
# the old plugin's rows forever, so a plugin change ships a step that clears
# both keys of its language's files:
#
#     STEPS.append(("m0NN_<lang>_<what>", reextract("<lang>")))
#
# mtime becomes NULL, which equals no stat, so the file is read. The hash becomes
# '' rather than NULL (the seed's rule): the writers store and read it as a str,
# NULL standing for "never hashed", and '' equals no content's hash (a hex
# digest), so the file is parsed and its rows rewritten. Coverage of the
# repositories holding such files goes from 'complete' to 'warming', so the
# next search or warm sweeps them: users get the new symbols on upgrade, with
# no `--drop`. Symbols are not deleted: the old rows answer searches until each
# file is rewritten. The step reads no source file: two scans of the files table
# (~0.3 s for 400k files, 100k of them the language's).


def reextract(*languages: str) -> Callable[[sqlite3.Connection], None]:
    """A step body making the next pass re-parse every file of `languages`."""
    if not languages:
        raise ValueError("reextract() needs at least one language")
    marks = ", ".join("?" * len(languages))

    def step(conn: sqlite3.Connection) -> None:
        conn.execute(
            f"UPDATE files SET mtime = NULL, content_hash = '' WHERE language IN ({marks})",
            languages,
        )
        # updated_at is left alone: `rq --status` shows it as when the repository
        # was last indexed, which demoting it does not change.
        conn.execute(
            "UPDATE coverage SET status = 'warming' WHERE status = 'complete' AND repository_id "
            f"IN (SELECT DISTINCT repository_id FROM files WHERE language IN ({marks}))",
            languages,
        )

    return step


# --- m007: files read as they are now read (hardening) ---------------------------
#
# The reader no longer follows symlinks (a link's target could be outside the
# repository, or /proc), decodes a non-UTF-8 byte as Windows-1252 instead of
# cutting the identifier at it, and caps qualified parents (index/reading.py,
# index/bounds.py). An index built before holds the old rows until each file is
# parsed again: the content of a symlink's target among them. Every language
# the reader knew then is re-read.
STEPS.append(
    (
        "m007_reread_hardened",
        reextract("python", "ruby", "go", "rust", "typescript", "tsx", "javascript"),
    )
)


# --- m008: languages rq reads now (C, C++, Java, PHP) -------------------------------
#
# A repository indexed completely before these plugins existed holds no row for
# its .c/.h/.cpp/.java/.php files, and a complete index is only rechecked for what
# git says moved: those files would never be read. Its coverage goes back to
# warming, so the next search or warm walks it (unchanged files cost a stat).
def m008_new_languages(conn: sqlite3.Connection) -> None:
    conn.execute("UPDATE coverage SET status = 'warming' WHERE status = 'complete'")


STEPS.append(("m008_new_languages", m008_new_languages))


# --- m009: files no plugin reads, counted; legacy idioms ------------------------------
#
# Coverage keeps a tally of the source files rq walks past because no plugin reads
# their language (lang/unread.py), so `rq --index`, `rq --status` and a miss can
# say "12 Kotlin files not read". A complete index made before has no tally: it goes
# back to warming, and its next sweep (a stat per unchanged file) records one. The
# JavaScript (ES5 prototype and namespace definitions, nested functions), Python
# (`\r`-only line endings) and Ruby (`define_method`) plugins emit more: re-read.
def m009_files_unread(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE coverage ADD COLUMN files_unread TEXT")
    reextract("javascript", "python", "ruby")(conn)
    conn.execute("UPDATE coverage SET status = 'warming' WHERE status = 'complete'")


STEPS.append(("m009_files_unread", m009_files_unread))


# --- m010: the text cache's change log ---------------------------------------------
#
# A persisted text-ranker generation (rq_engine/text/cache) is bound to one state of
# a repository's rows. Every write of a file's symbols (and every file deletion)
# appends the path here and stamps the repository with the new sequence number in
# the same transaction, so `(store, repository, text_seq)` names that state exactly
# and the paths logged after a generation's number are exactly what its delta must
# re-read. AUTOINCREMENT: a number is never reused, even after a repository is
# dropped and indexed again. `store_uuid` tells two index files apart (a deleted and
# recreated $RQ_HOME never matches an old cache).
M010_TEXT_CHANGES = """
CREATE TABLE text_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    repository_id INTEGER NOT NULL,
    path TEXT NOT NULL
);
CREATE INDEX idx_text_changes_repo ON text_changes(repository_id, seq);
ALTER TABLE repositories ADD COLUMN text_seq INTEGER NOT NULL DEFAULT 0;
INSERT OR IGNORE INTO meta(key, value) VALUES ('store_uuid', lower(hex(randomblob(16))));
INSERT OR IGNORE INTO meta(key, value) VALUES ('text_changes_floor', '0');
"""

STEPS.append(("m010_text_changes", M010_TEXT_CHANGES))


# --- m011: what each file names by qualifier (the canonical prior) ------------------
#
# `io.Reader`, `ActiveRecord::Base`, `from x.models import Model`: the pairs a file
# names (lang/_refs.py), per file, and per repository how many files name each
# (store/refs.py, kept exact by the writer). The scorer's `referenced` feature reads
# the counts to tell the definition a codebase leans on among same-named ones.
# `file_refs` keeps a file's pairs in one row (`qualifier<TAB>name` lines): what a
# rewrite or deletion takes back out, at one row write per file. Files
# of the languages that report pairs are re-read so an existing index gets them.
M011_REFERENCES = """
CREATE TABLE file_refs (
    file_id INTEGER PRIMARY KEY,
    repository_id INTEGER NOT NULL,
    pairs TEXT NOT NULL
);
CREATE TABLE ref_counts (
    repository_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    qualifier TEXT NOT NULL,
    files INTEGER NOT NULL,
    PRIMARY KEY (repository_id, name, qualifier)
) WITHOUT ROWID;
"""


def m011_references(conn: sqlite3.Connection) -> None:
    for stmt in statements(M011_REFERENCES):
        conn.execute(stmt)
    reextract(
        "python", "ruby", "go", "rust", "typescript", "tsx", "javascript", "java", "php", "cpp"
    )(conn)


STEPS.append(("m011_references", m011_references))


# --- m012: one word-start rule for both rankers --------------------------------------
#
# core/scoring/words.word_starts became the text analyzer's rule too, and learnt its
# Unicode cases (a combining mark belongs to the letter before it; a caseless letter
# starts a word after a cased one and the other way round). ASCII names split as
# before; a stored name beyond ASCII may hold other initials now. Its `names` row is
# dropped and the name queued: migrate() derives it again with the code of now (the
# step itself runs no key function, as m003 explains).
M012_WORD_STARTS = """
INSERT OR IGNORE INTO names_pending(repository_id, name, gone)
    SELECT repository_id, name, 0 FROM names WHERE length(name) != length(CAST(name AS BLOB));
DELETE FROM names WHERE length(name) != length(CAST(name AS BLOB));
"""
STEPS.append(("m012_word_starts", M012_WORD_STARTS))


# --- m013: the initials read covers the fold --------------------------------------
#
# An abbreviation's read (search/retrieval.names_by_initials) seeks its initials
# keys and checks each name's fold against the query's subsequence GLOB. On
# (repository_id, ini) every key's rows were fetched from the table for their
# fold: 5.7-7.7 ms for a long near miss on Linux (`contaner_of`, 227 keys), the
# picker's slowest keystrokes. With the fold in the index the check reads the
# index alone and only the few matched rows are fetched: 0.9-1.2 ms. Linux's
# index grows 42 -> 87 MB (of 1.2 GB): ~17 bytes a name, ~0.5 MB for Django's 28k.
M013_NAMES_INI_FOLD = """
DROP INDEX IF EXISTS idx_names_ini;
CREATE INDEX IF NOT EXISTS idx_names_ini_fold ON names(repository_id, ini, fold);
"""
STEPS.append(("m013_names_ini_fold", M013_NAMES_INI_FOLD))


# --- m014: symbols lose the index no query reads --------------------------------------
#
# Every read of `symbols` by name names its repository first (search/retrieval.py,
# store/derived.py: `repository_id = ? AND name_lower ...`), which SQLite serves from
# idx_symbols_repo_name; m001's idx_symbols_name_lower (the name alone) was never
# chosen (EXPLAIN QUERY PLAN on each), yet every symbol written paid for it: 24 MB of
# the 13 bench corpora's 231 MB, and ~0.15 CPU-s of LLVM's ~1.2 s cold-pass writer.
M014_SYMBOLS_NAME_INDEX = """
DROP INDEX IF EXISTS idx_symbols_name_lower;
"""
STEPS.append(("m014_symbols_name_index", M014_SYMBOLS_NAME_INDEX))


# --- m015: C and C++ tables whose initializer the grammar cannot read ------------------
#
# `static struct cftype cgroup_psi_files[] = {` with `#ifdef` inside the braces was
# lost (an ERROR node from its head to the end of the file): lang/_crecover.initialized
# reads the head. 16 variables more in the kernel slice (kern_table, cpu_files, ...),
# none in LLVM's headers; every other row unchanged.
STEPS.append(("m015_c_initialized_tables", reextract("c", "cpp")))


# --- m016: the Ruby methods metaprogramming makes --------------------------------------
#
# `# :method: before_action` documents a method metaprogramming makes (Rails defines
# before_action and its 20 siblings in a loop of `define_method "#{callback}_action"`),
# and ActiveSupport's `mattr_accessor :schema_format`, `cattr_*`, `class_attribute`
# name methods defined nowhere else: rq answered "no match" for them. 146 directives
# and ~180 macros in the Rails corpus.
STEPS.append(("m016_ruby_made_methods", reextract("ruby")))


# --- m017: a Python module's own names bound by assignment ----------------------------
#
# Only UPPER_CASE names and lambdas were read: `reverse_lazy = lazy(reverse, str)`
# (Django), `SimpleNamespace = type(sys.implementation)` and `Lock = _allocate_lock`
# (CPython) answered "no match". A module's public names are variables now, as Go's
# package vars and TS/JS's top-level `let` already were.
STEPS.append(("m017_python_module_variables", reextract("python")))


# --- m018: a Python class's attributes ----------------------------------------------
#
# Class-level names other than UPPER_CASE constants were not read: Django's model
# fields (`action_time = models.DateTimeField(...)`), a ModelAdmin's `list_display`,
# a view's `template_name = None`, a dataclass's `x: int` answered "no match".
# Public names are fields now (the first language whose members rq reads; TS/JS class
# properties follow in m019, PHP properties in m020, Go, Java, C and C++ in m021, Rust in
# m022).
STEPS.append(("m018_python_class_attributes", reextract("python")))


# --- m019: TypeScript and JavaScript class properties ---------------------------------
#
# Only function-valued class properties were read (as methods): `ZodError.issues`,
# rxjs's `Subscriber.destination`, an Angular component's `@Input() name: string`
# answered "no match". Every other class property is a field now.
STEPS.append(("m019_ts_js_class_fields", reextract("typescript", "tsx", "javascript")))


# --- m020: PHP properties -------------------------------------------------------------
#
# `protected $fillable = [...]`, `$table`, `$casts` (what a Laravel model declares)
# were not read: `Model::fillable` answered the method fillable(), `$hidden` nothing.
STEPS.append(("m020_php_properties", reextract("php")))


# --- m021: struct fields and data members in Go, Java, C and C++ ----------------------
#
# The last languages whose members rq did not read: `Request.Method` (Go) answered
# the type methodType, `HashMap.table` (Java) the method tableSizeFor,
# `task_struct.pid` (C) and `SmallVectorBase.Size` (C++) "no match". Go's struct
# fields, Java's instance fields and record components, C's struct and union
# members (parent: the struct's tag) and C++'s data members are fields now.
STEPS.append(("m021_struct_fields", reextract("go", "java", "c", "cpp")))


# --- m022: Rust struct fields and enum variants -----------------------------------------
#
# The last language that read no members: `Runtime::handle`, `TryRecvError::Empty` (and
# every `ErrorKind::NotFound`-style variant) answered "no match". Named struct and union
# fields are fields, enum variants constants (as C's enumerators and Java's enum constants).
STEPS.append(("m022_rust_members", reextract("rust")))


# --- m023: TypeScript interface properties ---------------------------------------------
#
# m019 read class properties; an interface's were read only when function-typed (as
# methods): `ZodTypeDef.errorMap`, a React component's `ButtonProps.label`, Effect's
# `Span.attributes` answered "no match". Every other interface property is a field now.
STEPS.append(("m023_ts_interface_fields", reextract("typescript", "tsx")))


# --- m024: Python instance attributes ------------------------------------------------
#
# m018 read a class's own attributes; those set on `self` in its methods were not:
# `HttpRequest.META` answered the class Redirect.Meta, `Field.null` the class
# NullBooleanField. A public `self.name = ...` is a field of its class now, at its first
# assignment in `__init__` (else the first in another method): lang/_pyattrs.py.
STEPS.append(("m024_python_instance_attributes", reextract("python")))


# --- m025: TypeScript type literals' members --------------------------------------------
#
# m023 read an interface's properties; a type alias of a type literal holds the same
# (`export type Options = { readonly concurrency?: number }`, Zod's and Effect's option
# bags): `Options.concurrency` answered "no match". Its members are read as an
# interface's now: properties fields, function-typed ones and method signatures methods.
STEPS.append(("m025_ts_type_literal_members", reextract("typescript", "tsx")))


# --- m026: constructor parameters that declare properties (TypeScript, PHP) -------------
#
# `constructor(private readonly http: HttpClient)` (TypeScript) and PHP 8's
# `__construct(private Router $router)` declare a property of the class in the
# constructor's parameter list; m019 and m020 read only the class body's declarations,
# so `Client.http` and `Kernel::router` answered "no match". They are fields now.
STEPS.append(("m026_constructor_parameter_properties", reextract("typescript", "tsx", "php")))


# --- the facts declared in core/columns.py since m001 -------------------------------
#
# Each adds its column under the step its declaration names, and the files it
# names (every file, when it names none) are read again so old rows get the fact.
def added_fact(c: Column) -> Step:
    def step(conn: sqlite3.Connection) -> None:
        conn.execute(f"ALTER TABLE symbols ADD COLUMN {c.name} {c.sql}")
        if c.reread:
            reextract(*c.reread)(conn)
        else:
            langs = [r[0] for r in conn.execute("SELECT DISTINCT language FROM files")]
            if langs:
                reextract(*langs)(conn)

    return (c.since, step)


STEPS.extend(added_fact(c) for c in ADDED)
STEPS.sort(key=lambda s: s[0])  # a declared fact's step in its place among the numbered
