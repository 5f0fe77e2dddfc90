"""`python -m porter`: the same as the `porter` console script."""

from porter.cli import run

run()
