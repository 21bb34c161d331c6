#!/bin/sh
# Ranking quality of `rq --text`: both profiles beside the plain-BM25-over-ctags baseline,
# on the judged multi-word queries (shared/bench/text-queries-public.jsonl).
#
#   RQ_HOME=/root/.cache/rq-bench/home bench/text_relevance.sh [relevance.py options, e.g. --show-misses 20]
#
# RQ_HOME must hold an index of the corpora (rq --index in each of $RQ_CORPORA/*).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
SHARED=${SHARED:-$(cd "$ROOT/../shared/bench" 2>/dev/null && pwd || echo /work/shared/bench)}
QUERIES=${QUERIES:-$SHARED/text-queries-public.jsonl}
RQ=${RQ:-$ROOT/.venv/bin/rq}
[ -x "$RQ" ] || RQ=rq
for ranker in text-ranker/full-scan-v1 text-ranker/bm25-v1; do
  echo "== rq --text --ranker $ranker"
  python3 "$SHARED/relevance.py" "$QUERIES" --cmd "$RQ --text {query} --limit 10 --ranker $ranker" "$@"
done
echo "== baseline: bm25_ctags.py (plain BM25 over ctags definitions)"
python3 "$SHARED/relevance.py" "$QUERIES" --cmd "$SHARED/bm25_ctags.py {query} {corpus}" "$@"
