"""Project configuration: `[tool.porter]` in pyproject.toml, or a porter.toml.

[tool.porter]
include = ["third_party/mykernels/**"]   # force-include, even inside vendored trees
exclude = ["tests/fixtures/**"]          # more paths to skip
vendored = true                          # skip third_party/, cutlass/, ... (default)
targets = ["gfx942"]
rocm-version = "6.4"
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from porter.errors import PorterError
from porter.targets import DEFAULT_ROCM_VERSION, RocmVersion, Vendor, parse_targets

DEFAULT_TARGETS = ("gfx942",)


class ConfigError(PorterError):
    """A configuration file or option is wrong; the message names the file and key."""


@dataclass
class Config:
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    skip_vendored: bool = True
    targets: tuple[str, ...] = DEFAULT_TARGETS  # the AMD targets the port is for, validated
    rocm_version: RocmVersion = DEFAULT_ROCM_VERSION
    source: Path | None = None
    raw: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.rocm_version, RocmVersion):  # Config(rocm_version="6.4") in code and tests
            self.rocm_version = RocmVersion.parse(self.rocm_version, "rocm_version")

    def with_overrides(self, targets: list[str] | None, rocm_version: str | None) -> Config:
        if targets:
            self.targets = validate_targets(targets, "--target")
        if rocm_version:
            self.rocm_version = validate_rocm_version(rocm_version, "--rocm-version")
        return self


def validate_targets(values: list[str], where: str) -> tuple[str, ...]:
    """The AMD targets named (repeated or comma-separated), checked against porter's one table."""
    return tuple(t.id for t in parse_targets(values, where, Vendor.AMD))


def validate_rocm_version(value, where: str) -> RocmVersion:
    return RocmVersion.parse(value, where)


def _string_list(table: dict, key: str, where: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return value


def _from_table(table: dict, where: str, source: Path) -> Config:
    known = {"include", "exclude", "vendored", "targets", "rocm-version", "verify"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    config = Config(source=source, raw=table)
    config.include = _string_list(table, "include", where)
    config.exclude = _string_list(table, "exclude", where)
    vendored = table.get("vendored", True)
    if not isinstance(vendored, bool):
        raise ConfigError(f"{where}: `vendored` must be true or false")
    config.skip_vendored = vendored
    if "targets" in table:
        config.targets = validate_targets(_string_list(table, "targets", where), f"{where}: targets")
    if "rocm-version" in table:
        config.rocm_version = validate_rocm_version(table["rocm-version"], f"{where}: rocm-version")
    return config


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc


def load_config(root: Path) -> Config:
    """porter.toml wins over pyproject.toml; neither present gives the defaults."""
    root = root if root.is_dir() else root.parent
    porter_toml = root / "porter.toml"
    if porter_toml.is_file():
        data = _read_toml(porter_toml)
        table = _tool_porter(data, porter_toml)
        return _from_table(data if table is None else table, str(porter_toml), porter_toml)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        table = _tool_porter(_read_toml(pyproject), pyproject)
        if table is not None:
            return _from_table(table, f"{pyproject} [tool.porter]", pyproject)
    return Config()


def _tool_porter(data: dict, path: Path) -> dict | None:
    """The `[tool.porter]` table, None where there is none; a `tool` or `porter` that is no table is an error."""
    tool = data.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table, got {type(tool).__name__} {tool!r}"[:300])
    table = tool.get("porter")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: `[tool.porter]` must be a table, got {type(table).__name__} {table!r}"[:300])
    return table
