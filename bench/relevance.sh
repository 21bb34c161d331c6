#!/usr/bin/env bash
# Symbol-search relevance: rq -q beside the ctags+fzf baseline, same queries, same run.
#
#   bench/relevance.sh [QUERIES.jsonl] [extra relevance.py options, e.g. --only-corpus django]
#
# RQ_HOME defaults to the shared bench index (/root/.cache/rq-bench/home); build it with
#   RQ_HOME=… rq --index ~/.cache/rq-corpora/<corpus>   (once per corpus)
# Prints Success@1, Recall@5 and MRR per category, language and overall for rq, then for
# the baseline (shared/bench/ctags_fzf.sh), then rq's misses.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${RQ_SHARED:-$(cd "$here/../../shared" 2>/dev/null && pwd || echo /work/shared)}
queries=${1:-$shared/bench/queries-public.jsonl}
shift || true
export RQ_HOME=${RQ_HOME:-/root/.cache/rq-bench/home}
rq=${RQ_BIN:-$here/../.venv/bin/rq}
[[ -x $rq ]] || rq=$(command -v rq)
out=${RQ_BENCH_OUT:-$(mktemp -d)}

echo "== rq ($rq, RQ_HOME=$RQ_HOME)"
python3 "$shared/bench/relevance.py" "$queries" --quiet --jobs 1 --json "$out/rq.json" \
  --cmd "$rq -q --limit 10 {query}" --show-misses 40 "$@"
echo
echo "== baseline: ctags -R + fzf --filter"
python3 "$shared/bench/relevance.py" "$queries" --quiet --jobs 2 --json "$out/fzf.json" \
  --cmd "$shared/bench/ctags_fzf.sh {query} {corpus}" "$@" | sed '/^misses:/,$d'
echo
python3 - "$out/rq.json" "$out/fzf.json" <<'PY'
import json, sys
rq, base = (json.load(open(p)) for p in sys.argv[1:3])
print("== rq beside the baseline (S@1 / R@5 / MRR; none: no-answer precision)")
print(f"{'':12} {'rq':>17}   {'ctags+fzf':>17}   {'S@1 diff':>8}")
rows = [("cat", k, v) for k, v in rq["by_category"].items()]
rows += [("lang", k, v) for k, v in rq["by_lang"].items()]
rows += [("all", "OVERALL", rq["overall"])]
for group, name, r in rows:
    b = {"cat": base["by_category"], "lang": base["by_lang"]}.get(group, {}).get(name)
    if group == "all":
        b = base["overall"]
    b = b or {}
    if r.get("s_at_1") is None:
        print(f"{name:12} {'NAP ' + format(r['no_answer_precision'], '.2f'):>17}   "
              f"{'NAP ' + format(b.get('no_answer_precision') or 0, '.2f'):>17}")
        continue
    fr = f"{r['s_at_1']:.2f} {r['recall_at_5']:.2f} {r['mrr_at_10']:.2f}"
    fb = f"{b['s_at_1']:.2f} {b['recall_at_5']:.2f} {b['mrr_at_10']:.2f}" if b.get("s_at_1") is not None else "-"
    d = r["s_at_1"] - (b.get("s_at_1") or 0)
    print(f"{name:12} {fr:>17}   {fb:>17}   {d:+8.2f}")
PY
