"""LanguageSpec: what the engine knows about a language, as pure data.

Each plugin module declares its `SPEC` (rq_engine/lang/<language>.py). The
tables the hot path reads — which extension is which language, how a qualified
name is displayed, what a constructor is called, which file names are tests —
are built from the specs in `core/languages.py`, which `make languages`
generates from the plugin modules: importing a plugin costs 3-10 ms (`re`,
the grammar loader), more than a whole `rq -q` can spare, so the engine never
does it to read data. Stdlib only, on the `rq -q` hot path.
"""

from __future__ import annotations

from rq_engine.core.record import Record

#: a spec's `constructor_name` when a constructor is named after its class (Java,
#: C++): `Foo.new` then looks for a method `Foo` whose parent chain ends in `Foo`
CLASS_NAME = "<class name>"


class LanguageSpec(Record):
    """One language, as data.

    - `name`: the language id stored in files.language / symbols.language.
    - `plugin`: the LanguagePlugin class, as `module:Class` (filled in by the
      generator from where the spec is declared; empty in the plugin module).
    - `extensions`: lower-case, with the dot; `filenames`: whole file names
      (`Rakefile`) that mark the language.
    - `scope_separator`: what joins a parent chain and a member in the stored
      `parent` (and a query's scope): `.`, `::`, PHP's `\\`.
    - `member_separator` / `member_kinds`: how a qualified name is *displayed*
      when a kind of member is written differently from a nested scope (Ruby
      `Foo#bar` for a method, PHP `Kernel::handle`); None: `scope_separator`.
    - `constructor_name`: the name a constructor has (`Foo.new` finds it), the
      CLASS_NAME marker, or None when the language has none.
    - test-file conventions, all on the file's name without its directory:
      `test_suffixes` (compared lower-cased: `_test.go`), `test_names` (whole
      names, lower-cased: `tests.py`), `test_prefixes` ((prefix, extension)
      pairs, lower-cased: `test_` with `.py`), `test_class_suffixes` (as written,
      after a lower-case letter or digit: JUnit's `MapTest.java`).
    """

    __slots__ = (
        "name",
        "extensions",
        "plugin",
        "filenames",
        "scope_separator",
        "member_separator",
        "member_kinds",
        "constructor_name",
        "test_suffixes",
        "test_names",
        "test_prefixes",
        "test_class_suffixes",
    )

    def __init__(
        self,
        name: str,
        extensions: tuple[str, ...],
        *,
        plugin: str = "",
        filenames: tuple[str, ...] = (),
        scope_separator: str = ".",
        member_separator: str | None = None,
        member_kinds: tuple[str, ...] = (),
        constructor_name: str | None = None,
        test_suffixes: tuple[str, ...] = (),
        test_names: tuple[str, ...] = (),
        test_prefixes: tuple[tuple[str, str], ...] = (),
        test_class_suffixes: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.plugin = plugin
        self.extensions = extensions
        self.filenames = filenames
        self.scope_separator = scope_separator
        self.member_separator = member_separator
        self.member_kinds = member_kinds
        self.constructor_name = constructor_name
        self.test_suffixes = test_suffixes
        self.test_names = test_names
        self.test_prefixes = test_prefixes
        self.test_class_suffixes = test_class_suffixes

    def qualify(self, parent: str | None, name: str, kind: str) -> str:
        """The display form of a qualified name in this language's own notation."""
        if not parent:
            return name
        if self.member_separator is not None and kind in self.member_kinds:
            return f"{parent}{self.member_separator}{name}"
        return f"{parent}{self.scope_separator}{name}"

    def source(self) -> str:
        """This spec as the Python that builds it, one field a line, as an item of a
        tuple (what lang/generate.py writes; fields left at their default omitted)."""
        fields = [f"        {self.name!r},\n", f"        {self.extensions!r},\n"]
        defaults = LanguageSpec(self.name, self.extensions)
        for slot in self.__slots__[2:]:
            if getattr(self, slot) != getattr(defaults, slot):
                fields.append(f"        {slot}={getattr(self, slot)!r},\n")
        return "    LanguageSpec(\n" + "".join(fields) + "    ),\n"

    def located(self, plugin: str) -> LanguageSpec:
        """This spec with its plugin class's location (`module:Class`) filled in."""
        kw = {slot: getattr(self, slot) for slot in self.__slots__[2:]}
        kw["plugin"] = plugin
        return LanguageSpec(self.name, self.extensions, **kw)
