#!/usr/bin/env bash
# Instruction counts (valgrind's callgrind) of the default extractor and of
# lxml's bare parse over the same pages: a figure that does not move with
# the load of a shared machine, unlike wall-clock time. speed.py does the
# counting (its --instructions, module docstring); this runs it alone,
# without the timed comparison and without trafilatura:
#
#   bash benchmarks/instructions.sh [PAGES] [DATASET...]   # default 150 pages, two passes
#
# With DATASET names (wcxb-dev, cleaneval...), only their pages are sampled
# (as speed.py --dataset does); the default is an even sample over all.
set -euo pipefail
pages=${1:-150}
here=$(cd "$(dirname "$0")" && pwd)
datasets=()
for name in "${@:2}"; do datasets+=(--dataset "$name"); done
exec "${PYTHON:-python}" "$here/speed.py" --pages "$pages" "${datasets[@]}" --instructions --no-timing --no-trafilatura
