from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from porter import clang  # noqa: E402
from porter.config import Config  # noqa: E402
from porter.scan import scan  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def corpus_scan():
    """One scan of the whole corpus, shared by the tests that read it."""
    return scan([REPO / "corpus"], Config(), jobs=1)


@pytest.fixture(scope="session")
def libclang_available() -> bool:
    return clang.find_setup() is not None


@pytest.fixture(autouse=True)
def _toolchain_lookups_forget_patched_environments():
    """A test that points PORTER_CACHE at an empty directory must not leave libclang 'missing' for the rest."""
    yield
    clang.find_setup.cache_clear()
