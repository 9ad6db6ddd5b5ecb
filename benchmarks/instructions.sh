#!/usr/bin/env bash
# Instruction counts (valgrind's callgrind) of the default extractor and of
# lxml's bare parse over the same pages: a figure that does not move with
# the load of a shared machine, unlike wall-clock time. Each side is run
# twice, with and without the timed loop, and the difference is divided by
# the number of pages extracted.
#
#   bash benchmarks/instructions.sh [PAGES] [DATASET...]   # default 150 pages, two passes
#
# With DATASET names (wcxb-dev, cleaneval...), only their pages are sampled
# (as speed.py --dataset does); the default is an even sample over all.
set -euo pipefail
pages=${1:-150}
datasets="${*:2}"
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/../../shared/data" ]; then echo "no pages at ../shared/data; nothing to count"; exit 0; fi
command -v valgrind >/dev/null || { echo "valgrind is not installed (Debian: apt-get install valgrind)"; exit 1; }
python=${PYTHON:-python}
out=$(mktemp -d)
count() {  # $1: extract|parse  $2: setup|run
    valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$python" - "$1" "$2" "$pages" "$here" $datasets 2>&1 <<'PY' | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
import sys
what, mode, count, here, datasets = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
sys.path.insert(0, here)
from pathlib import Path
import lxml.html
import webclean_scrapy
from speed import sample_pages
pages = sample_pages(Path(here).parent.parent / "shared" / "data", count, datasets or None)
function = webclean_scrapy.extract if what == "extract" else lxml.html.fromstring
function(pages[0])
if mode == "run":
    for _ in range(2):
        for page in pages:
            function(page)
PY
}
e=$(( $(count extract run) - $(count extract setup) ))
p=$(( $(count parse run) - $(count parse setup) ))
n=$(( 2 * pages ))
echo "pages: $pages x 2 passes${datasets:+ ($datasets)}"
echo "webclean_scrapy.extract: $(( e / n )) instructions/page"
echo "lxml.html.fromstring:    $(( p / n )) instructions/page"
python3 -c "print(f'ratio: {$e / $p:.2f}x')"
rm -rf "$out"
