"""The one root of every error a user can cause: bad input, a missing file, a refused request.

The CLI turns a `PorterError` into one line, `porter: error: …`, and exit status 2. Anything else
that escapes is a bug in porter, and the CLI says so.
"""

from __future__ import annotations


class PorterError(Exception):
    """A problem with what porter was given or asked to do; the message names it."""
