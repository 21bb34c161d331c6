"""The Ruby language plugin: modules, classes, methods, attributes, aliases, constants.

Imports tree-sitter only lazily (through _common/grammar), never at import time.

Rules (what a developer jumps to):
- `module` -> module, `class` -> class; `class A::B::C` is C with parent
  `<enclosing>::A::B`. Parents use `::` and follow lexical nesting only.
- `def` with an enclosing class/module -> method, without -> function; `def
  self.x` and defs inside `class << self` are methods of the enclosing class
  (singleton methods). Defs inside blocks (`included do`, `class_methods do`)
  belong to the enclosing class too.
- `attr_reader/attr_writer/attr_accessor :a, :b` -> one method per name, and
  so ActiveSupport's `mattr_*`, `cattr_*` and `class_attribute` (public);
  `alias_method :new, :old` / `alias new old` -> method `new`; `define_method :x` /
  `define_method("x")` with a literal name -> method `x`; `FOO = ...` -> constant.
  Nothing inside a method body counts except a nested `def` (Ruby defines it
  on the class when the outer method runs).
- Visibility: a bare `private`/`protected`/`public` switches the section of the
  body it stands in (class, module, `class << self` or block); `private def x`;
  `private :x, :y` after the defs; `private_class_method`, `private_constant`.
  `def self.x` ignores sections; an alias takes its original's visibility.
- RDoc's directives name methods that metaprogramming makes: `# :method: before_action`
  (Rails defines it, and 20 more callbacks, in a loop of `define_method
  "#{callback}_action"`), `# :singleton-method: name`, `# :attr_accessor: name`
  -> a public method at the directive's line, in the class or module whose body
  holds it; none when that body already defines the name.
"""

from __future__ import annotations

import re

from rq_engine.core.langspec import LanguageSpec
from rq_engine.core.model import Kind, Symbol, Visibility
from rq_engine.lang import _common, _refs
from rq_engine.lang._common import Node
from rq_engine.lang.base import LanguagePlugin

SPEC = LanguageSpec(
    "ruby",
    (".rb", ".rake", ".gemspec"),
    filenames=("Rakefile", "Gemfile"),
    scope_separator="::",
    member_separator="#",  # instance methods read `Foo::Bar#baz`
    member_kinds=("method",),
    constructor_name="initialize",
    test_suffixes=("_test.rb", "_spec.rb"),
)

_TAGS = (
    "module",
    "class",
    "singleton_class",
    "method",
    "singleton_method",
    "block",
    "constant",
    "alias",
    "call",
    "section",
)
_SECTIONS = {
    "private": Visibility.PRIVATE,
    "protected": Visibility.PROTECTED,
    "public": Visibility.PUBLIC,
    # module functions are callable as `Mod.x` from anywhere: public for a jump.
    "module_function": Visibility.PUBLIC,
}
_ATTRS = frozenset(("attr_reader", "attr_writer", "attr_accessor", "attr"))
# ActiveSupport's attribute macros (Rails: ~180 of them, `mattr_accessor
# :schema_format`): their names are defined nowhere else. Public whatever the
# section: they define singleton and instance methods through class_eval.
_MACRO_ATTRS = frozenset(
    f"{pre}{verb}"
    for pre in ("mattr_", "cattr_", "thread_mattr_", "thread_cattr_")
    for verb in ("reader", "writer", "accessor")
) | {"class_attribute"}
# An RDoc directive naming a method on its own line (a bare `# :singleton-method:`
# documents the statement below it, whose name the plugin reads or cannot know).
_RDOC = re.compile(
    rb"^[ \t]*#[ \t]*:(?:method|singleton-method|attr|attr_reader|attr_writer|attr_accessor):"
    rb"[ \t]+([^\s(]+)",
    re.MULTILINE,
)
_INF = 1 << 62


class _Frame:
    """A body whose definitions share a visibility section and a parent."""

    __slots__ = ("end", "kind", "scope", "in_method", "section", "methods", "singletons", "consts")

    def __init__(self, end: int, kind: str, scope: str | None, in_method: bool) -> None:
        self.end = end
        self.kind = kind  # "scope" (class/module/program), "sclass", "block", "method"
        self.scope = scope  # qualified name of the nearest enclosing class/module
        self.in_method = in_method
        self.section = Visibility.PUBLIC
        self.methods: dict[str, list[Symbol]] = {}  # instance methods defined in this body
        self.singletons: dict[str, list[Symbol]] = {}  # `def self.x` and `class << self` defs
        self.consts: dict[str, list[Symbol]] = {}  # constants, classes, modules


def _literal_name(source: bytes, node: Node) -> str | None:
    """`:foo`, `"foo"`, `'foo'` or a bare identifier -> foo; anything dynamic -> None."""
    if node.type not in ("simple_symbol", "string", "delimited_symbol", "identifier", "constant"):
        return None
    if node.type in ("string", "delimited_symbol") and node.named_child_count != 1:
        return None  # interpolated or empty
    name = _common.text(source, node).lstrip(":").strip("\"'")
    return name or None


class RubyPlugin(LanguagePlugin):
    spec = SPEC

    def references(self, source: bytes) -> set[tuple[str, str]]:
        return _refs.ruby(source)

    def extract(self, source: bytes) -> list[Symbol]:
        caps, source = _common.captures("ruby", "ruby.scm", source)
        walk = _Walk(source)
        walk.run(caps)
        if b":method:" in source or b"-method:" in source or b"# :attr" in source:
            named = _rdoc_methods(source, walk.recs)
            if named:  # in source order, as every plugin reports (a stable sort)
                return sorted(walk.recs + named, key=lambda r: r.line)
        return walk.recs


def _rdoc_methods(source: bytes, recs: list[Symbol]) -> list[Symbol]:
    """The methods RDoc directives name, each in the innermost class or module whose
    lines hold it (a comment is not in the tree the walk reads: found by its text)."""
    scopes = [r for r in recs if r.kind in (Kind.CLASS, Kind.MODULE)]
    defined = {(r.parent, r.name) for r in recs if r.kind in (Kind.METHOD, Kind.FUNCTION)}
    out: list[Symbol] = []
    line, at = 1, 0
    for m in _RDOC.finditer(source):
        line += source.count(b"\n", at, m.start())
        at = m.start()
        name = m.group(1).decode("utf-8", "replace")
        holder = max(
            (r for r in scopes if r.line <= line <= r.end_line), key=lambda r: r.line, default=None
        )
        parent = None
        if holder is not None:
            parent = f"{holder.parent}::{holder.name}" if holder.parent else holder.name
        if (parent, name) in defined:
            continue
        defined.add((parent, name))
        kind = Kind.METHOD if parent else Kind.FUNCTION
        out.append(Symbol(name, kind, line, line, parent, Visibility.PUBLIC, "ruby"))
    return out


class _Walk:
    """One file's extraction: captured nodes in source order against a stack of bodies."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.recs: list[Symbol] = []
        self.stack = [_Frame(_INF, "scope", None, False)]
        self.pending: dict[int, Visibility] = {}  # start byte of a def -> `private def ...`

    def emit(
        self, name: str, kind: Kind, node: Node, parent: str | None, vis: Visibility
    ) -> Symbol:
        line, end = _common.first_line(node), _common.last_line(node)
        rec = Symbol(name, kind, line, end, parent, vis, "ruby")
        self.recs.append(rec)
        return rec

    def run(self, caps: dict[str, list[Node]]) -> None:
        source, stack, pending = self.source, self.stack, self.pending
        for start, _neg_end, tag, node in _common.in_order(caps, _TAGS):
            while stack[-1].end <= start:
                stack.pop()
            top = stack[-1]
            scope = top.scope
            if tag == "module" or tag == "class":
                self._scope(top, tag, node)
            elif tag == "singleton_class" or tag == "block":
                kind_name = "sclass" if tag == "singleton_class" else "block"
                stack.append(_Frame(node.end_byte, kind_name, scope, top.in_method))
            elif tag == "method" or tag == "singleton_method":
                name_node = node.child_by_field_name("name")
                if name_node is None:
                    continue
                name = _common.text(source, name_node)
                kind = Kind.METHOD if scope else Kind.FUNCTION
                if tag == "singleton_method":
                    # `def self.x` ignores the surrounding section.
                    vis = pending.pop(start, Visibility.PUBLIC)
                    rec = self.emit(name, kind, node, scope, vis)
                    top.singletons.setdefault(name, []).append(rec)
                else:
                    vis = pending.pop(start, Visibility.PUBLIC if top.in_method else top.section)
                    rec = self.emit(name, kind, node, scope, vis)
                    top.methods.setdefault(name, []).append(rec)
                    if top.kind == "sclass" and len(stack) > 1:
                        stack[-2].singletons.setdefault(name, []).append(rec)
                stack.append(_Frame(node.end_byte, "method", scope, True))
            elif top.in_method:
                continue  # attr_*/alias/constants/visibility inside a method run at call time
            elif tag == "constant":
                left = node.child_by_field_name("left")
                if left is None:
                    continue
                name = _common.text(source, left)
                rec = self.emit(name, Kind.CONSTANT, node, scope, Visibility.PUBLIC)
                top.consts.setdefault(name, []).append(rec)
            elif tag == "section":
                top.section = _SECTIONS[_common.text(source, node)]
            elif tag == "alias":
                new, old = node.child_by_field_name("name"), node.child_by_field_name("alias")
                if new is not None and old is not None:
                    self._alias(top, new, old, node)
            else:
                self._call(top, node)

    def _scope(self, top: _Frame, tag: str, node: Node) -> None:
        """`module X` / `class A::B::C`: emit it and open its body."""
        source, scope = self.source, top.scope
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        parent = scope
        if name_node.type == "scope_resolution":
            prefix = name_node.child_by_field_name("scope")
            leaf = name_node.child_by_field_name("name")
            if leaf is None:
                return
            if prefix is None:
                parent = None  # `class ::Foo` names a top-level class
            else:
                chain = _common.text(source, prefix)
                parent = f"{scope}::{chain}" if scope else chain
            name = _common.text(source, leaf)
        else:
            name = _common.text(source, name_node)
        kind = Kind.MODULE if tag == "module" else Kind.CLASS
        rec = self.emit(name, kind, node, parent, Visibility.PUBLIC)
        top.consts.setdefault(name, []).append(rec)
        qualified = f"{parent}::{name}" if parent else name
        self.stack.append(_Frame(node.end_byte, "scope", qualified, top.in_method))

    def _alias(self, top: _Frame, new: Node, old: Node, node: Node) -> Symbol | None:
        name, original = _literal_name(self.source, new), _literal_name(self.source, old)
        if name is None or original is None:
            return None  # `alias $new $old` (globals) and dynamic names
        known = top.methods.get(original)
        vis = Visibility(known[-1].visibility) if known else Visibility.PUBLIC
        kind = Kind.METHOD if top.scope else Kind.FUNCTION
        rec = self.emit(name, kind, node, top.scope, vis)
        top.methods.setdefault(name, []).append(rec)
        return rec

    def _call(self, top: _Frame, node: Node) -> None:
        """attr_*, alias_method and the visibility calls (receiver-less, per the query)."""
        source = self.source
        method = node.child_by_field_name("method")
        if method is None:
            return
        verb = _common.text(source, method)
        args_node = node.child_by_field_name("arguments")
        args = args_node.named_children if args_node is not None else []
        kind = Kind.METHOD if top.scope else Kind.FUNCTION
        if verb in _ATTRS or verb in _MACRO_ATTRS:
            vis = self.pending.pop(node.start_byte, top.section)
            if verb in _MACRO_ATTRS:
                vis = Visibility.PUBLIC
            for arg in args:
                name = _literal_name(source, arg)
                if name is not None and arg.type != "identifier":
                    rec = self.emit(name, kind, node, top.scope, vis)
                    top.methods.setdefault(name, []).append(rec)
        elif verb == "define_method":
            # `define_method :name do … end` / `define_method("name") { … }`: a method
            # in the current section; a dynamic name (`define_method(n)`) is none
            name = _literal_name(source, args[0]) if args else None
            if name is not None and args[0].type != "identifier":
                vis = self.pending.pop(node.start_byte, top.section)
                rec = self.emit(name, kind, node, top.scope, vis)
                top.methods.setdefault(name, []).append(rec)
        elif verb == "alias_method":
            if len(args) >= 2:
                alias = self._alias(top, args[0], args[1], node)
                prefix = self.pending.pop(node.start_byte, None)  # `protected alias_method ...`
                if alias is not None and prefix is not None:
                    alias.visibility = prefix
        elif verb in _SECTIONS:
            vis = _SECTIONS[verb]
            if not args:
                top.section = vis  # `private()`
            for arg in args:
                if arg.type in ("method", "singleton_method", "call"):
                    self.pending[arg.start_byte] = vis  # `private def x`, `private attr_reader :x`
                else:
                    name = _literal_name(source, arg)
                    for rec in top.methods.get(name, ()) if name else ():
                        rec.visibility = vis
        else:  # private_class_method / public_class_method / private_constant / public_constant
            vis = Visibility.PRIVATE if verb.startswith("private") else Visibility.PUBLIC
            table = top.consts if verb.endswith("constant") else top.singletons
            for arg in args:
                if arg.type == "singleton_method":
                    self.pending[arg.start_byte] = vis
                    continue
                name = _literal_name(source, arg)
                for rec in table.get(name, ()) if name else ():
                    rec.visibility = vis
