"""A name shared by more definitions than one read takes (the exact layer reads
2,000 rows of a name): Linux has 2,489 fields named `list` and one struct `list`.
One real git repository, indexed by the real `rq --index`, answered by the
QueryService every face calls."""

from __future__ import annotations

from rq_engine.search.rank import EXACT_ROWS
from tests.search.served import Ask, ask_fixture

# More structs with a `list` member than the exact layer reads, in a header that
# sorts (and is indexed) before the file that defines the struct `list` itself.
MEMBERS = EXACT_ROWS + 100
CORPUS = {
    "include/a_gen.h": "".join(f"struct s{i} {{\n  int list;\n}};\n" for i in range(MEMBERS)),
    "tools/list.h": "struct list {\n  int n;\n};\n\nint list_count(void);\n",
}

ask = ask_fixture("crowded", CORPUS, 10)


def test_a_type_is_not_crowded_out_by_more_same_named_fields_than_one_read_takes(
    ask: Ask,
) -> None:
    hits = ask("list")
    assert (hits[0].path, hits[0].name, hits[0].kind) == ("tools/list.h", "list", "struct")
    assert [h.kind for h in hits[1:]] == ["field"] * 9  # the fields follow, as many as asked
