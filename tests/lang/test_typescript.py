"""Golden extraction tests for the TypeScript plugin (fixtures/typescript), robustness, registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from rq_engine.core.model import Kind, Symbol
from rq_engine.lang.grammar import parse
from rq_engine.lang.typescript import TypeScriptPlugin
from tests.conftest import corpus
from tests.lang.golden_tables import (
    check_never_raises,
    check_registry_agrees,
    expected_lines,
    line_table,
)

FIXTURES = Path(__file__).parent / "fixtures" / "typescript"


@pytest.mark.parametrize("fixture", ["sample.ts", "ambient.d.ts"])
def test_golden(fixture: str) -> None:
    syms = TypeScriptPlugin().extract((FIXTURES / fixture).read_bytes())
    assert line_table(syms) == expected_lines(FIXTURES / f"{fixture}.expected")
    assert {s.language for s in syms} == {"typescript"}


def test_overloads_are_one_symbol_from_first_signature_to_implementation_end() -> None:
    src = b"export function f(a: string): void;\n\nexport function f(a: any) {\n  return a;\n}\nfunction g() {}\n"
    got = [(s.name, s.line, s.end_line) for s in TypeScriptPlugin().extract(src)]
    assert got == [("f", 1, 5), ("g", 6, 6)]


def test_same_name_in_another_scope_is_not_an_overload() -> None:
    src = b"declare function f(): void;\nnamespace N { export function f() {} }\n"
    got = [(s.parent, s.name, s.line) for s in TypeScriptPlugin().extract(src)]
    assert got == [(None, "f", 1), (None, "N", 2), ("N", "f", 2)]


def test_never_raises_on_garbage_or_truncated_input() -> None:
    check_never_raises(TypeScriptPlugin(), FIXTURES / "sample.ts")


def test_plugin_agrees_with_registry_data() -> None:
    check_registry_agrees(TypeScriptPlugin())


def _find(syms: list[Symbol], name: str, line: int) -> Symbol:
    hits = [s for s in syms if s.name == name and s.line == line]
    assert hits, f"{name} at {line} not extracted"
    return hits[0]


@pytest.mark.corpus
def test_rxjs_definitions_the_benchmark_expects() -> None:
    src = corpus("rxjs") / "package" / "src" / "internal"
    p = TypeScriptPlugin()
    assert (
        _find(p.extract((src / "BehaviorSubject.ts").read_bytes()), "BehaviorSubject", 9).kind
        is Kind.CLASS
    )
    assert _find(p.extract((src / "Subject.ts").read_bytes()), "next", 59).parent == "Subject"
    assert (
        _find(p.extract((src / "Observable.ts").read_bytes()), "constructor", 32).parent
        == "Observable"
    )
    # overloads + doc comment + implementation at 139: one symbol from 6 through the implementation
    dist = _find(
        p.extract((src / "operators/distinctUntilChanged.ts").read_bytes()),
        "distinctUntilChanged",
        6,
    )
    assert dist.end_line > 139
    syms = p.extract((src / "operators/mergeMap.ts").read_bytes())
    assert [s.line for s in syms if s.name == "mergeMap"] == [9]


@pytest.mark.corpus
def test_zod_and_effect_definitions_the_benchmark_expects() -> None:
    p = TypeScriptPlugin()
    zod = p.extract((corpus("zod") / "package/src/v4/classic/schemas.ts").read_bytes())
    assert _find(zod, "ZodObject", 1578).kind is Kind.INTERFACE
    assert _find(zod, "ZodObject", 1674).kind is Kind.CONSTANT
    assert _find(zod, "extend", 1602).parent == "ZodObject"
    assert _find(zod, "string", 617).end_line == 621
    effect = corpus("effect") / "package/src"
    fn = p.extract((effect / "Function.ts").read_bytes())
    pipe = _find(fn, "pipe", 808)
    assert pipe.end_line >= 1256 and [s.line for s in fn if s.name == "pipe"] == [808]
    eff = p.extract((effect / "Effect.ts").read_bytes())
    for name, line in [
        ("gen", 2187),
        ("succeed", 1650),
        ("acquireRelease", 13606),
        ("runPromise", 18764),
        ("catchTag", 4702),
        ("acquireUseRelease", 13740),
    ]:
        _find(eff, name, line)


def test_generic_call_signatures_on_their_own_lines_do_not_swallow_the_file() -> None:
    # Effect's `dual` shape: Tree-sitter reads `A\n<B>(…)` as `A<B>` and loses what
    # follows; the source is repaired in place, so every line is still the file's own
    src = (
        b"export const dual: {\n"
        b"  <A>(self: A): A\n"
        b"  /**\n   * docs\n   */\n"
        b"  <B>(that: B): (self: B) => B\n"
        b"  // comment\n\n"
        b"  <\n    C\n  >(c: C): C\n"
        b"} = impl\n"
        b"export function after() {}\n"
        b"const curried = (a: number) =>\n  <B>(b: B) => b\n"
    )
    assert parse("typescript", src).root_node.has_error  # what the grammar makes of it
    got = [(s.name, s.kind, s.line, s.end_line) for s in TypeScriptPlugin().extract(src)]
    assert got == [
        ("dual", Kind.CONSTANT, 1, 12),
        ("after", Kind.FUNCTION, 13, 13),
        ("curried", Kind.FUNCTION, 14, 15),  # after `=>` a `<` line is the body: no repair
    ]
    # the same signatures in an interface: the members after them are kept, and the
    # interface ends where it does (unrepaired: at line 6, without `method`)
    iface = (
        b"export interface Dual {\n"
        b"  <A>(self: A): A\n"
        b"  /**\n   * docs\n   */\n"
        b"  <B>(that: B): (self: B) => B\n"
        b"  // comment\n\n"
        b"  <\n    C\n  >(c: C): C\n"
        b"  method(): void\n"
        b"}\n"
        b"export function after() {}\n"
    )
    got = [
        (s.parent, s.name, s.kind, s.line, s.end_line) for s in TypeScriptPlugin().extract(iface)
    ]
    assert got == [
        (None, "Dual", Kind.INTERFACE, 1, 13),
        ("Dual", "method", Kind.METHOD, 12, 12),
        (None, "after", Kind.FUNCTION, 14, 14),
    ]


def test_class_fields_holding_a_wrapped_function_are_methods() -> None:
    src = (
        b"class R {\n"
        b"  static make = Effect.fnUntraced(function* (a: number) {\n  })\n"
        b"  other = compute(1)\n"
        b"  private cb = wrap((x: number) => x, 1)\n"
        b"}\n"
    )
    got = [
        (s.name, s.kind, s.line, s.end_line, s.visibility.value)
        for s in TypeScriptPlugin().extract(src)
    ]
    assert got == [
        ("R", Kind.CLASS, 1, 6, "unknown"),
        ("make", Kind.METHOD, 2, 3, "public"),
        ("other", Kind.FIELD, 4, 4, "public"),  # a call's value: a field
        ("cb", Kind.METHOD, 5, 5, "private"),
    ]


def test_top_level_visibility_follows_es_module_exports() -> None:
    script = b"function a() {}\nclass B {}\n"
    module = (
        b"import x from 'y';\nfunction a() {}\nexport class B {}\nconst c = 1;\nexport { c };\n"
    )
    vis = lambda src: [(s.name, s.visibility.value) for s in TypeScriptPlugin().extract(src)]  # noqa: E731
    assert vis(script) == [("a", "unknown"), ("B", "unknown")]
    assert vis(module) == [("a", "private"), ("B", "public"), ("c", "public")]


def test_methods_handed_to_the_factory_of_a_named_value_belong_to_it() -> None:
    # Zod v4: `export const ZodObject = core.$constructor("ZodObject", init, { extend() {…} })`
    src = (
        b"export const Comp = /*@__PURE__*/ factory(\n"
        b"  'Comp',\n"
        b"  (inst) => {},\n"
        b"  {\n    extend(x) {\n      return x\n    },\n    name: 'c',\n    run: () => 1,\n  }\n)\n"
        b"function f() {\n  const local = make({ m() {} })\n}\n"
    )
    got = [(s.parent, s.name, s.kind, s.line, s.end_line) for s in TypeScriptPlugin().extract(src)]
    assert got == [
        (None, "Comp", Kind.CONSTANT, 1, 11),
        ("Comp", "extend", Kind.METHOD, 5, 7),
        ("Comp", "run", Kind.METHOD, 9, 9),
        (None, "f", Kind.FUNCTION, 12, 14),  # locals inside f, and their objects, are not API
    ]


def test_a_decorators_words_are_not_the_members_visibility() -> None:
    # `private` inside a decorator's arguments is a string, not the member's modifier
    src = (
        b"class A {\n  @Input('protected') d: string;\n  @Dec() private b: B;\n"
        b"  constructor(@Inject('private') public c: C) {}\n}\n"
    )
    got = [(s.name, s.visibility.value) for s in TypeScriptPlugin().extract(src)]
    assert ("d", "public") in got and ("b", "private") in got and ("c", "public") in got
