#!/usr/bin/env bash
# The test suite: set up, then pytest. GPU tests are marked and skip where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/python -m pytest -q -ra --durations=30 "$@"
