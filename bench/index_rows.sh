#!/bin/bash
# The index, row by row, before and after a change that must not alter it.
#
#   bench/index_rows.sh BASE_RQ corpus...
#
# Indexes each corpus ($RQ_CORPORA or ~/.cache/rq-corpora) from scratch with
# BASE_RQ (e.g. a wrapper running an older tree) and with this tree's rq, each
# in an empty RQ_HOME, then compares in order: symbols (path, name, name_lower,
# kind, visibility, language, line, end_line, parent), files (path, language,
# content hash), names (name, fold, skeleton, initials), coverage, and the FTS
# row count. Ids are left out: they follow the order files were written in.
set -u
base=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
corpora=${RQ_CORPORA:-$HOME/.cache/rq-corpora}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for c in "$@"; do
  for side in old new; do
    h=$work/$side-$c; mkdir -p "$h"
    bin=$here/.venv/bin/rq; [ "$side" = old ] && bin=$base
    RQ_HOME=$h "$bin" --index "$corpora/$c" >/dev/null 2>"$h/err" || echo "$side $c: index failed: $(tail -1 "$h/err")"
    sqlite3 "$h/index.db" "
      SELECT f.path, s.name, s.name_lower, s.kind, s.visibility, s.language, s.line, s.end_line, s.parent
        FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY 1, 7, 2, 4, 9;
      SELECT path, language, content_hash FROM files ORDER BY 1;
      SELECT name, fold, skel, ini FROM names ORDER BY 1;
      SELECT status, files_seen, files_indexed, files_skipped, files_failed, files_unread FROM coverage;
      SELECT count(*) FROM symbols_fts;" > "$h/rows.txt" 2>&1
  done
  if cmp -s "$work/old-$c/rows.txt" "$work/new-$c/rows.txt"; then
    echo "$c: identical ($(wc -l < "$work/new-$c/rows.txt") rows)"
  else
    echo "$c: DIFFER"; diff "$work/old-$c/rows.txt" "$work/new-$c/rows.txt" | head -5; status=1
  fi
done
exit $status
