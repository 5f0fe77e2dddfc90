#!/usr/bin/env bash
# porter's main job on the bundled corpus: set up, check the toolchains, scan, convert, build, verify, report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
.venv/bin/porter doctor || true
mkdir -p reports/corpus
.venv/bin/porter scan corpus --format json --output reports/corpus/scan.json
.venv/bin/porter convert corpus --output reports/corpus/portable --format json > reports/corpus/convert.json
# the corpus holds deliberate failures (planted bugs, unsupported features): the build reports them, it is no gate here
.venv/bin/porter build corpus --target sm_90 --target gfx942 --hip-nvidia --fail-on never --format json --output reports/corpus/build.json
.venv/bin/porter verify corpus/verify --target sm_90 --target gfx942 --format json --output reports/corpus/verify.json \
  || echo "porter verify: some cases failed; see reports/corpus/verify.json"
.venv/bin/porter verify corpus/emulate --target gfx942 --target gfx1100 --format json --output reports/corpus/emulate.json \
  || echo "porter verify: some emulated cases did not give their expected verdict; see reports/corpus/emulate.json"
.venv/bin/porter verify corpus/wmma --target gfx942 --format json --output reports/corpus/wmma.json \
  || echo "porter verify: a WMMA case did not pass; see reports/corpus/wmma.json"
.venv/bin/porter report reports/corpus/scan.json reports/corpus/convert.json \
  reports/corpus/build.json reports/corpus/verify.json \
  --output reports/corpus/report.html --output reports/corpus/report.md \
  --output reports/corpus/report.json --output reports/corpus/report.sarif
.venv/bin/porter scan corpus | tail -n 3
cat reports/corpus/report.md
echo "reports written: reports/corpus/ (report.html, report.md, report.json, report.sarif, the portable tree)"
