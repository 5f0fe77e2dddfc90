"""`python -m porter` and the `porter` console script.

A warm scan that porter.memo recorded is replayed before the command line interface loads:
most of a warm run's time would otherwise go to importing it.
"""

import sys


def main() -> None:
    from porter import memo

    try:
        replayed = memo.replay(sys.argv[1:])
    except OSError:
        replayed = False  # the full run reports whatever went wrong, in its own words
    if not replayed:
        from porter.cli import run

        run()


if __name__ == "__main__":
    main()
