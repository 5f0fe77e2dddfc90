"""The generated compat header (porter_compat.h) and the CMake module (porter_gpu.cmake)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import jinja2

from porter import __version__
from porter.findings import Finding
from porter.rewrite import applicable, edits_for_mode
from porter.rules.api import COMPILER_MACRO
from porter.rules.base import CMAKE_MODULE, COMPAT_HEADER
from porter.rules.numeric_format import compat_intrinsics, compat_name
from porter.targets import known as known_targets

_DEFINE = re.compile(
    r"^#define ((?:cuda|cu|CU|CUDA|cublas|CUBLAS|curand|CURAND|cusparse|CUSPARSE|cufft|CUFFT|cusolver|CUSOLVER|nvrtc|NVRTC|make_cu|__nv|__CUDA)\w*) (\w+)$",
    re.M,
)
_ALIAS = re.compile(r"^namespace (cub) = (hipcub);$", re.M)


@cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("porter.convert", "templates"),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def host_warp_size(target_ids) -> int:
    return max((t.wavefront for t in known_targets(target_ids)), default=64)


def name_map(findings: list[Finding], data_by_file: dict[str, bytes], unsafe_fixes: bool = False) -> dict[str, str]:
    """CUDA name → HIP name for every rename the applicable findings propose (headers excluded): a
    suggested rename is not made through the header either, unless unsafe fixes were asked for."""
    names: dict[str, str] = {}
    for finding in findings:
        if finding.category not in ("api", "library") or not applicable(finding, unsafe_fixes):
            continue
        for edit in edits_for_mode(finding, "hip"):
            original = data_by_file[finding.file][edit.start : edit.end].decode("utf-8", "replace")
            replacement = edit.replacement.decode("utf-8", "replace")
            if re.fullmatch(r"[A-Za-z_]\w*", original) and re.fullmatch(r"[A-Za-z_]\w*", replacement):
                if not COMPILER_MACRO.fullmatch(replacement):  # tested, never defined (see rules.api)
                    names.setdefault(original, replacement)
    return names


def existing_names(header: Path) -> dict[str, str]:
    """The name maps of a compat header from an earlier conversion (so that a second run keeps them)."""
    if not header.is_file():
        return {}
    text = header.read_text(errors="replace")
    return dict(_DEFINE.findall(text) + _ALIAS.findall(text))


def existing_packages(module: Path) -> list[str]:
    """The ROCm packages an earlier porter_gpu.cmake looked for."""
    if not module.is_file():
        return []
    return [p for p in re.findall(r"find_package\((\w+) REQUIRED\)", module.read_text(errors="replace")) if p != "hip"]


def render_header(names: dict[str, str], target_ids) -> str:
    return (
        _templates()
        .get_template(COMPAT_HEADER + ".j2")
        .render(
            version=__version__,
            targets=", ".join(target_ids),
            host_warp_size=host_warp_size(target_ids),
            names=sorted(names.items()),
            intrinsics=[
                (compat_name(name), entry["parameters"], entry["hip"], name)
                for name, entry in sorted(compat_intrinsics().items())
            ],
        )
    )


def render_cmake(target_ids, packages: list[str]) -> str:
    return (
        _templates()
        .get_template(CMAKE_MODULE + ".j2")
        .render(version=__version__, architectures=";".join(t for t in target_ids), packages=sorted(set(packages)))
    )
