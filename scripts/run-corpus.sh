#!/usr/bin/env bash
# porter's main job on the bundled corpus: set up, check the toolchains, scan, write reports.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
.venv/bin/porter doctor || true
mkdir -p reports
.venv/bin/porter scan corpus --format json --output reports/corpus-scan.json
.venv/bin/porter scan corpus --format sarif --output reports/corpus-scan.sarif
.venv/bin/porter scan corpus | tee reports/corpus-scan.txt | tail -n 5
echo "reports written: reports/corpus-scan.{txt,json,sarif}"
