"""C plugin: golden symbol table, robustness, registry agreement, the macro and body repairs
(through what the plugin extracts: lines and end lines stay the file's own)."""

from __future__ import annotations

import pytest

from rq_engine.lang.c import CPlugin
from tests.conftest import corpus
from tests.lang.golden_tables import (
    FIXTURES,
    check_golden,
    check_never_raises,
    check_registry_agrees,
)


def names(src: bytes) -> list[tuple[str, str, int]]:
    return [(s.name, s.kind.value, s.line) for s in CPlugin().extract(src)]


def test_golden_sample() -> None:
    check_golden("c", "sample.c")


def test_never_raises_on_garbage() -> None:
    check_never_raises(CPlugin(), FIXTURES / "c" / "sample.c")


def test_registry_agrees() -> None:
    check_registry_agrees(CPlugin())
    assert CPlugin.constructor_name is None


def spans(src: bytes) -> list[tuple[str, str, int, int | None]]:
    return [(s.name, s.kind.value, s.line, s.end_line) for s in CPlugin().extract(src)]


def test_attribute_macros_before_a_definition_do_not_lose_it() -> None:
    # the grammar reads `__printf(2, 3)` as a declarator and loses the definition; the
    # macro is blanked in place, so every line and end line is still the file's own
    src = b"static inline __printf(2, 3)\nvoid log_it(const char *f, ...)\n{\n}\nint after(void)\n{\n}\n"
    assert spans(src) == [("log_it", "function", 2, 4), ("after", "function", 5, 7)]
    # a call followed by `;` is code, a name's own parameter list is not a macro
    keep = b"void __foo(int x) __acquires(x)\n{\n}\nint y = __bar(1);\n"
    assert spans(keep) == [("__foo", "function", 1, 3), ("y", "variable", 4, 4)]
    # nor the last line of a macro's body (a blank one would end the macro elsewhere)
    macro = b"#define remap(a) \\\n\t__remap((a), 1)\nstatic int __remap(int a,\n\tint b)\n{\n}\n"
    assert spans(macro) == [("remap", "macro", 1, 2), ("__remap", "function", 3, 6)]


def test_function_bodies_are_left_out_of_the_parse() -> None:
    # a macro the grammar takes for a loop head, inside a body: left out of the parse,
    # it cannot stretch `f` over what follows (a struct's body is not a function's)
    src = (
        b"int f(void)\n{\n\tfor_each_x(se)\n\t\tg(se)->skip = se;\n}\n"
        b"struct s\n{\n\tint a;\n};\nint later(void)\n{\n}\n"
    )
    assert spans(src) == [
        ("f", "function", 1, 5),
        ("s", "struct", 6, 9),
        ("a", "field", 8, 8),
        ("later", "function", 10, 12),
    ]
    # unbalanced braces inside (a `}` at column 0 closing an inner block) keep the body
    # in the parse: cut at that `}`, the rest of `f` would read as file-scope code
    unbalanced = (
        b"int f(int a)\n{\n\tif (a) {\n\t\ta++;\n}\n\tstruct s2 { int q; };\n\treturn a;\n}\n"
        b"int g(void)\n{\n\treturn 0;\n}\n"
    )
    assert spans(unbalanced) == [("f", "function", 1, 8), ("g", "function", 9, 12)]


def test_a_macro_loop_cannot_swallow_what_follows() -> None:
    # `for_each_x(se)` with a statement and no braces: the grammar cannot close the
    # body; every definition after it is still found (kernel/sched/fair.c)
    src = (
        b"static void f(struct se *se)\n{\n\tfor_each_x(se)\n\t\tg(se)->skip = se;\n}\n\n"
        b"static void h(void)\n{\n}\n\nint k(int a) { for_each_x(a) a++; return a; }\n"
        b"\nint later(void) { return 0; }\n"
    )
    got = [n for n, _, _ in names(src)]
    assert got[:2] == ["f", "h"] and "later" in got


def test_a_macro_defined_function_is_named_by_its_first_argument() -> None:
    src = b"SYSCALL_DEFINE3(open, const char __user *, filename, int, flags, umode_t, mode)\n{\n}\n"
    assert names(src) == [("open", "function", 1)]


def test_static_is_private_and_prototypes_are_not_definitions() -> None:
    src = b"extern int f(int);\nstatic int g(void) { return 0; }\nint f(int x) { return x; }\n"
    syms = CPlugin().extract(src)
    assert [(s.name, s.visibility.value) for s in syms] == [("g", "private"), ("f", "public")]


def test_a_table_whose_initializer_the_grammar_cannot_read_is_still_a_variable() -> None:
    # `#ifdef` inside the braces: the grammar turns the rest of the file into an
    # ERROR node; the table is still found, its span ends at its `};`, and what
    # follows it is found too (kernel/cgroup/cgroup.c's cgroup_psi_files)
    src = (
        b"static struct cftype psi_files[] = {\n#ifdef CONFIG_PSI\n\t{\n"
        b'\t\t.name = "io.pressure",\n\t},\n#endif\n\t{ }\n};\n\n'
        b"struct cgroup_subsys *subsys[] = {\n#include <linux/x.h>\n};\n\n"
        b"extern const int table[] = {\n#if X\n1,\n#endif\n};\n\n"
        b"static void later(void)\n{\n}\n"
    )
    syms = CPlugin().extract(src)
    got = [(s.name, s.kind.value, s.line, s.end_line, s.visibility.value) for s in syms]
    assert got == [
        ("psi_files", "variable", 1, 8, "private"),
        ("subsys", "variable", 10, 12, "public"),
        ("later", "function", 20, 22, "private"),
    ]


@pytest.mark.corpus
def test_kernel_definitions_the_benchmark_expects() -> None:
    root = corpus("kernel")
    want = {
        ("kernel/sched/core.c", "schedule", 6653),
        ("kernel/sched/core.c", "wake_up_process", 4371),
        ("mm/slab_common.c", "kmem_cache_create", 387),
        # after a body the grammar cannot close (a macro loop without braces)
        ("kernel/sched/fair.c", "check_preempt_wakeup", 7663),
        ("kernel/sched/fair.c", "task_tick_core", 11791),
        # an initializer the grammar cannot read (`#ifdef` inside its braces)
        ("kernel/cgroup/cgroup.c", "cgroup_psi_files", 5333),
        ("kernel/sysctl.c", "kern_table", 1639),
    }
    for rel, name, line in sorted(want):
        syms = CPlugin().extract((root / rel).read_bytes())
        assert any(s.name == name and s.line == line for s in syms), f"{rel}:{line} {name}"
