"""`python -m porter` and the `porter` console script.

A warm scan that porter.memo recorded is replayed before the command line interface loads:
most of a warm run's time would otherwise go to importing it.
"""

import gc
import sys


def main() -> None:
    from porter import memo

    try:
        replayed = memo.replay(sys.argv[1:])
    except OSError:
        replayed = False  # the full run reports whatever went wrong, in its own words
    if not replayed:
        from porter.cli import run

        try:
            run()
        finally:
            # the interpreter's exit collects cycles over every object still alive (a large tree's
            # findings and results: 35-50 ms after a flashinfer scan); frozen, they are left to be
            # freed as the interpreter ends, and the exit handlers run as ever
            gc.freeze()


if __name__ == "__main__":
    main()
