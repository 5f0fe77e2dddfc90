#!/usr/bin/env python3
"""Generate porter/rules/data/api_map.json: the CUDA→HIP name table.

Sources, all authoritative and all read here, none copied by hand:
- torch's `torch/utils/hipify/cuda_to_hip_mappings.py` (the names hipify_python renames);
- the HIP headers' `nvidia_detail` layer, which implements each HIP name on top of a CUDA name;
- the HIP headers themselves, in three versions (Debian trixie 5.7, sid 6.4, experimental 7.2),
  to check that each HIP name exists and to mark the version that added it;
- the CUDA 12.9 headers through libclang, to classify each CUDA name (function, type,
  constant, macro) and to list runtime/driver APIs that have no HIP equivalent at all;
- the cuBLAS(Lt), cuSPARSE, cuSOLVER and cuRAND headers of NVIDIA's library wheels (CUDA 13.0), the
  same way, to list those libraries' names that no HIP release mirrors.

Usage:
    python scripts/gen_api_tables.py            # rewrite the table
    python scripts/gen_api_tables.py --check    # exit 1 if the committed table is stale
Needs torch installed (`pip install torch==2.13.0`) and network access to Debian and PyPI.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from porter.targets import provision, toolchains  # noqa: E402

OUTPUT = REPO / "porter" / "rules" / "data" / "api_map.json"
IDENT = re.compile(r"^[A-Za-z_]\w*$")
TOKEN = re.compile(rb"\b[A-Za-z_]\w*\b")

HEADER_PACKAGES = (
    "libamdhip64-dev",
    "libhipblas-dev",
    "libhipsparse-dev",
    "libhiprand-dev",
    "libhipfft-dev",
    "libhipsolver-dev",
    "libhipcub-dev",
    "librccl-dev",
    "librocthrust-dev",
    "librocprim-dev",
    "librocrand-dev",
)
# (version label, Debian suite, extra packages); hipBLASLt is versioned with ROCm from 6.x on.
# sid carries a 7.1 hipBLASLt beside HIP 6.4, and porter's HIP 6.4 root builds with it (torch's
# CUDAContextLight.h needs it), so its names count from 6.4: what porter's 6.4 build compiles.
HIP_VERSIONS = (
    ("5.7", "trixie", ()),
    ("6.4", "sid", ("libhipblaslt-dev",)),
    ("7.2", "experimental", ("libhipblaslt-dev",)),
)

# Families by CUDA name prefix, longest first; the category follows the family.
FAMILY_PREFIXES = (
    ("cublasLt", "cublasLt"), ("CUBLASLT", "cublasLt"),
    ("cublas", "cublas"), ("CUBLAS", "cublas"),
    ("curand", "curand"), ("CURAND", "curand"),
    ("cusparseLt", "cusparseLt"), ("CUSPARSELT", "cusparseLt"),
    ("cusparse", "cusparse"), ("CUSPARSE", "cusparse"),
    ("cufft", "cufft"), ("CUFFT", "cufft"),
    ("cusolver", "cusolver"), ("CUSOLVER", "cusolver"),
    ("nccl", "nccl"), ("NCCL", "nccl"),
    ("cudnn", "cudnn"), ("CUDNN", "cudnn"),
    ("nvrtc", "nvrtc"), ("NVRTC", "nvrtc"),
    ("nvtx", "nvtx"), ("NVTX", "nvtx"),
    ("nvml", "nvml"), ("NVML", "nvml"),
)  # fmt: skip
LIBRARY_FAMILIES = {
    "cublasLt",
    "cublas",
    "curand",
    "cusparseLt",
    "cusparse",
    "cufft",
    "cusolver",
    "nccl",
    "cudnn",
    "nvtx",
    "nvml",
    "cub",
    "thrust",
}
# Version macros compare against CUDA's numbering; renaming them would change what the
# comparison means, so they are left to the arch-guard rules, never renamed.
NOT_RENAMED = frozenset({"CUDA_VERSION", "CUDART_VERSION", "__CUDA_API_VERSION", "__CUDART_API_VERSION"})
# Enumerators of libraryPropertyType whose bare names any project may use for itself, and a
# PyTorch build macro: matching them would flag code that has nothing to do with CUDA.
TOO_GENERIC = frozenset({"MAJOR_VERSION", "MINOR_VERSION", "PATCH_LEVEL", "AT_CUSPARSELT_ENABLED"})
# The prefix rename that many HIP names follow, tried for CUDA names no other source maps.
PATTERN_RENAMES = (("cuda", "hip"), ("CUDA_", "HIP_"), ("cu", "hip"), ("CU_", "HIP_"), ("make_cu", "make_hip"))
# Library names that torch does not list are found the other way round too: from each hip*
# library name in the HIP headers, back to the CUDA name it mirrors (and for cuFFT, whose
# headers porter does not read, only so).
LIBRARY_INVERSE_PREFIXES = (
    ("hipblasLt", "cublasLt"), ("HIPBLASLT_", "CUBLASLT_"),
    ("hipblas", "cublas"), ("HIPBLAS_", "CUBLAS_"),
    ("hipsparse", "cusparse"), ("HIPSPARSE_", "CUSPARSE_"),
    ("hipfft", "cufft"), ("HIPFFT_", "CUFFT_"),
    ("hiprand", "curand"), ("HIPRAND_", "CURAND_"),
    ("hipsolver", "cusolver"), ("HIPSOLVER_", "CUSOLVER_"),
)  # fmt: skip

CUDA_CLASSIFY_SOURCE = """
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <curand.h>
#include <curand_kernel.h>
#include <cuComplex.h>
#include <cuda_profiler_api.h>
"""

# cuBLAS(Lt), cuSPARSE, cuSOLVER and cuRAND ship in NVIDIA's library wheels, which porter's setup unpacks
# apart from the toolkit's headers (cuda-libraries): read on their own, their names that no HIP
# release mirrors, by torch's table or by the hip* prefix, have no equivalent (LIB012).
CUDA_LIBRARY_CLASSIFY_SOURCE = """
#include <cublas_v2.h>
#include <cublasLt.h>
#include <cusparse.h>
#include <cusolverDn.h>
#include <curand.h>
#include <curand_kernel.h>
"""


def load_torch_tables() -> dict[str, dict[str, str]]:
    import importlib.metadata
    import importlib.util

    dist = importlib.metadata.distribution("torch")
    path = Path(str(dist.locate_file("torch/utils/hipify/cuda_to_hip_mappings.py")))
    spec = importlib.util.spec_from_file_location("torch_hipify_mappings", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names = ("CUDA_TYPE_NAME_MAP", "CUDA_INCLUDE_MAP", "CUDA_IDENTIFIER_MAP", "CUDA_SPECIAL_MAP")
    return {"version": dist.version, **{n: dict(getattr(module, n)) for n in names}}


def provision_hip_headers() -> dict[str, Path]:
    sets = {}
    for label, suite, extra in HIP_VERSIONS:
        final = toolchains.cache_dir() / f"hip-headers-{label}"
        packages = HEADER_PACKAGES + extra
        sets[label] = provision.provision_header_set(suite, packages, final) / "usr" / "include"
        print(f"  HIP {label} headers: {sets[label]}", file=sys.stderr)
    return sets


def debian_packages(include_dir: Path) -> list[str]:
    """The exact .deb files a header set was unpacked from: the table's provenance."""
    listing = include_dir.parent.parent / "packages.txt"
    return listing.read_text().split() if listing.is_file() else []


def identifiers_in(include_dir: Path) -> set[str]:
    names: set[str] = set()
    for header in include_dir.rglob("*"):
        if header.is_file() and header.suffix in (".h", ".hpp", ".cuh", ".inl", ".hip", ""):
            names.update(t.decode() for t in TOKEN.findall(header.read_bytes()))
    return names


def nvidia_detail_pairs(include_dir: Path) -> dict[str, str]:
    """cuda name → hip name, from the HIP headers' implementation of HIP on NVIDIA."""
    pairs: dict[str, str] = {}
    for header in sorted((include_dir / "hip" / "nvidia_detail").glob("*.h")):
        text = header.read_text(errors="replace")
        for hip, cuda in re.findall(r"^#define\s+(hip\w+)\s+(cu\w+|CU\w+)\s*$", text, re.M):
            pairs.setdefault(cuda, hip)
        for cuda, hip in re.findall(r"typedef\s+(?:struct\s+|enum\s+)?(cu\w+|CU\w+)\s*\*?\s*(hip\w+)\s*;", text):
            pairs.setdefault(cuda, hip)
        for hip, body in re.findall(r"\b(hip[A-Z]\w*)\s*\([^;{]*\)\s*\{(.*?)\n\}", text, re.S):
            called = re.findall(r"\b(cuda[A-Z]\w*|cu[A-Z]\w*)\s*\(", body)
            if len(called) == 1:
                pairs.setdefault(called[0], hip)
    return pairs


def classify_cuda_names(
    cuda_include: Path, source: str = CUDA_CLASSIFY_SOURCE, extra_args: tuple[str, ...] = ()
) -> dict[str, dict[str, str]]:
    """name → {kind, header} for the public names the headers under `cuda_include` declare, as
    `source` includes them (the CUDA 12.9 toolkit's unless told)."""
    from porter import clang

    setup = clang.find_setup()
    if setup is None:
        raise SystemExit("libclang or the CUDA 12.9 headers are missing: run `porter setup`")
    cindex = clang._cindex(setup)
    scratch = toolchains.cache_dir() / "classify.cu"
    scratch.write_text(source)
    unit = cindex.Index.create().parse(
        str(scratch),
        args=[*setup.base_args(), *extra_args],
        options=cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD,
    )
    kinds = {
        "FUNCTION_DECL": "function",
        "TYPEDEF_DECL": "type",
        "STRUCT_DECL": "type",
        "ENUM_DECL": "type",
        "ENUM_CONSTANT_DECL": "constant",
        "MACRO_DEFINITION": "macro",
    }
    found: dict[str, dict[str, str]] = {}
    for cursor in unit.cursor.walk_preorder():
        kind = kinds.get(cursor.kind.name)
        if kind is None or cursor.location.file is None:
            continue
        file = Path(cursor.location.file.name)
        if cuda_include not in file.parents:
            continue
        name = cursor.spelling
        entry = {"kind": kind, "header": file.relative_to(cuda_include).as_posix()}
        if kind == "macro":
            entry["macro_body"] = _macro_body(cursor)
        found.setdefault(name, entry)
    for entry in found.values():
        if entry["kind"] == "macro":
            entry["kind"] = _macro_kind(entry.pop("macro_body"), found)
    return found


def _macro_body(cursor) -> list[str] | None:
    """The replacement tokens of an object-like macro; None for a function-like one."""
    tokens = list(cursor.get_tokens())
    if len(tokens) > 1 and tokens[1].spelling == "(" and tokens[1].extent.start.offset == tokens[0].extent.end.offset:
        return None
    return [t.spelling for t in tokens[1:]]


def _macro_kind(body: list[str] | None, found: dict) -> str:
    """Function-like macros and aliases of functions are functions; other object-like macros constants."""
    if body is None:
        return "function"
    if len(body) == 1 and body[0] in found and found[body[0]]["kind"] == "function":
        return "function"
    if len(body) == 1 and body[0] not in found and guess_kind(body[0]) == "function":
        return "function"  # `#define cublasCrotg_64 cublasCrotg_v2_64`, an entry point the headers no longer declare
    return "constant"


def family_of(name: str, header: str | None) -> str:
    for prefix, family in FAMILY_PREFIXES:
        if name.startswith(prefix):
            return family
    if header == "cuda.h" or re.match(r"^(cu[A-Z]|CU[A-Z_]|CUDA_ERROR_)", name):
        return "driver"
    return "runtime"


def guess_kind(name: str) -> str:
    if name.endswith("_t") or re.fullmatch(r"(cu|CU)[a-z]*[A-Z]\w*_st", name):
        return "type"
    if re.fullmatch(r"_*[A-Z0-9_]+_*", name):
        return "constant"
    if re.fullmatch(r"(cuda|cu|nccl|cublas\w*|cusparse\w*|curand|cufft|cusolver\w*|nvrtc)[A-Z]\w*", name):
        return "function"
    return "type"


# Which library each HIP include directory holds: a family counts as checked in a release
# only if that release's header set had its directory.
FAMILY_DIRS = {
    "runtime": "hip", "driver": "hip", "nvrtc": "hip", "cublas": "hipblas", "cublasLt": "hipblaslt",
    "cusparse": "hipsparse", "cufft": "hipfft", "curand": "hiprand", "cusolver": "hipsolver",
    "nccl": "rccl", "cub": "hipcub",
}  # fmt: skip


def checked_from(header_sets: dict[str, Path]) -> dict[str, str]:
    """family → the first release whose header set holds the family's HIP library."""
    first: dict[str, str] = {}
    for label, _, _ in HIP_VERSIONS:
        for family, directory in FAMILY_DIRS.items():
            if (header_sets[label] / directory).is_dir():
                first.setdefault(family, label)
    return dict(sorted(first.items()))


def first_version(name: str, version_sets: dict[str, set[str]]) -> str | None:
    for label, _, _ in HIP_VERSIONS:
        if name in version_sets[label]:
            return label
    return None


def header_since(path: str, header_sets: dict[str, Path]) -> str | None:
    for label, _, _ in HIP_VERSIONS:
        if (header_sets[label] / path).is_file():
            return label
    return None


def classify_library_names() -> dict[str, dict[str, str]]:
    """name → {kind, header} for the cuBLAS(Lt), cuSPARSE, cuSOLVER and cuRAND names of NVIDIA's library wheels."""
    include = provision.provision_cuda_libraries() / "include"
    return classify_cuda_names(include, CUDA_LIBRARY_CLASSIFY_SOURCE, (f"-I{include}",))


def _without_equivalent(library_names, candidates, version_sets) -> dict[str, tuple[str, str]]:
    """The library headers' names that no other source maps, with what each becomes: the hip name
    of its `_v2`-less twin where that is mapped (`cublasSgemm_v2_64`, `cublasSgemm_64`), else ""."""
    found: dict[str, tuple[str, str]] = {}
    for cuda in sorted(library_names):
        if cuda in candidates or not any(cuda.startswith(prefix) for _, prefix in LIBRARY_INVERSE_PREFIXES):
            continue
        twin = cuda.replace("_v2", "")
        if twin != cuda and twin in candidates and first_version(candidates[twin][0], version_sets):
            found[cuda] = (candidates[twin][0], "library-headers+strip-v2")
        else:
            found[cuda] = ("", "library-headers")
    return found


def build_identifiers(torch_tables, detail_pairs, classified, version_sets, library_names=None) -> dict[str, dict]:
    candidates: dict[str, tuple[str, str]] = {}
    for table in ("CUDA_TYPE_NAME_MAP", "CUDA_IDENTIFIER_MAP", "CUDA_SPECIAL_MAP"):
        for cuda, hip in torch_tables[table].items():
            if IDENT.match(cuda) and IDENT.match(hip) and cuda != hip:
                candidates.setdefault(cuda, (hip, "torch"))
    for cuda, hip in detail_pairs.items():
        if cuda in candidates and candidates[cuda][0] == hip:
            candidates[cuda] = (hip, "torch+hip-headers")
        elif cuda not in candidates or first_version(candidates[cuda][0], version_sets) is None:
            candidates[cuda] = (hip, "hip-headers")
    for cuda, info in classified.items():
        if cuda in candidates or not re.match(r"^(cuda[A-Z]|cu[A-Z]|CU[A-Za-z_]|CUDA_|cuuint|make_cu[A-Z])", cuda):
            continue
        for old, new in PATTERN_RENAMES:
            if cuda.startswith(old) and first_version(new + cuda[len(old) :], version_sets):
                candidates[cuda] = (new + cuda[len(old) :], "name-pattern")
                break
        else:
            if info["header"] in ("cuda_runtime_api.h", "driver_types.h", "cuda.h"):
                candidates[cuda] = ("", "cuda-headers")
    for label, _, _ in HIP_VERSIONS:
        for hip in sorted(version_sets[label]):
            for hip_prefix, cuda_prefix in LIBRARY_INVERSE_PREFIXES:
                if not hip.startswith(hip_prefix):
                    continue
                rest = hip[len(hip_prefix) :]
                if rest[:1].isupper() or (rest[:1] == "_" and not hip_prefix.endswith("_")):
                    candidates.setdefault(cuda_prefix + rest, (hip, "inverse-name-pattern"))
                break
    candidates.update(_without_equivalent(library_names or {}, candidates, version_sets))
    classified = {**(library_names or {}), **classified}
    entries: dict[str, dict] = {}
    for cuda, (hip, source) in sorted(candidates.items()):
        if cuda in NOT_RENAMED or cuda in TOO_GENERIC:
            continue
        info = classified.get(cuda, {})
        family = family_of(cuda, info.get("header"))
        since = first_version(hip, version_sets) if hip else None
        if hip and not since and hip.endswith("_v2") and first_version(hip[:-3], version_sets):
            # cuBLAS's `_v2` entry points are what its unsuffixed macros expand to; hipBLAS
            # has only the unsuffixed names.
            hip, source = hip[:-3], source + "+strip-v2"
            since = first_version(hip, version_sets)
        entry = {
            "hip": hip if since else None,
            "kind": info.get("kind") or guess_kind(cuda),
            "family": family,
            "category": "library" if family in LIBRARY_FAMILIES else "api",
            "since": since,
            "source": source,
        }
        if hip and not since:
            entry["unverified_hip"] = hip  # a name torch renames to, which no HIP header declares
        entries[cuda] = entry
    return entries


# Headers whose stem does not name their library; PyTorch's own headers are left to torch rules.
INCLUDE_FAMILIES = {"nvToolsExt.h": "nvtx", "nvtx3/nvtx3.hpp": "nvtx", "nvml.h": "nvml"}
SKIPPED_INCLUDES = ("tensorpipe/",)


def build_includes(torch_tables, header_sets) -> dict[str, dict]:
    includes: dict[str, dict] = {}
    for cuda, hip in torch_tables["CUDA_INCLUDE_MAP"].items():
        cuda_path = re.sub(r'^(include\s*)?[<"]?', "", cuda).rstrip('>"')
        hip_path = re.sub(r'^(include\s*)?[<"]?', "", hip).rstrip('>"')
        if not cuda_path.endswith((".h", ".hpp", ".cuh")):
            continue
        if cuda_path.startswith(SKIPPED_INCLUDES):
            continue
        family = INCLUDE_FAMILIES.get(cuda_path) or family_of(Path(cuda_path).stem, None)
        if cuda_path.startswith("cub/"):
            family = "cub"
        since = header_since(hip_path, header_sets)
        includes[cuda_path] = {
            "hip": hip_path if since else None,
            "family": family,
            "category": "library" if family in LIBRARY_FAMILIES else "api",
            "since": since,
            "source": "torch",
        }
        if not since:
            includes[cuda_path]["unverified_hip"] = hip_path
    return dict(sorted(includes.items()))


def build_numeric_intrinsics(classified, version_sets) -> dict[str, str | None]:
    """half and bfloat16 intrinsics of CUDA 12.9 → the first checked HIP release that has them."""
    found = {}
    for name, info in classified.items():
        public = re.fullmatch(r"(__|h)[a-z0-9_]+", name) and not re.search(r"internal|simpl|___", name)
        if info["kind"] == "function" and re.match(r"cuda_(fp16|bf16)\.h", info["header"]) and public:
            found[name] = first_version(name, version_sets)
    return dict(sorted(found.items()))


# Cooperative-groups API names whose presence in HIP's headers is recorded per release.
CG_NAMES = (
    "reduce", "inclusive_scan", "exclusive_scan", "memcpy_async", "wait_prior", "invoke_one",
    "invoke_one_broadcast", "labeled_partition", "binary_partition", "block_tile_memory", "num_threads",
    "dim_threads", "num_blocks", "block_rank", "cluster_group", "this_cluster", "thread_block_tile",
    "tiled_partition", "coalesced_threads", "this_grid", "grid_group", "this_multi_grid", "multi_grid_group",
)  # fmt: skip


def build_cooperative_groups(header_sets: dict[str, Path]) -> dict[str, str | None]:
    first: dict[str, str | None] = dict.fromkeys(CG_NAMES)
    for label, _, _ in HIP_VERSIONS:
        include = header_sets[label] / "hip"
        text = " ".join(
            p.read_text(errors="replace")
            for p in (include / "hip_cooperative_groups.h", include / "amd_detail" / "amd_hip_cooperative_groups.h")
            if p.is_file()
        )
        present = set(re.findall(r"[A-Za-z_]\w*", text))
        for name in CG_NAMES:
            if first[name] is None and name in present:
                first[name] = label
    return first


def generate() -> dict:
    print("porter: generating the CUDA→HIP table", file=sys.stderr)
    provision.provision_cuda_headers()
    torch_tables = load_torch_tables()
    header_sets = provision_hip_headers()
    version_sets = {label: identifiers_in(path) for label, path in header_sets.items()}
    detail_pairs: dict[str, str] = {}
    for label, _, _ in HIP_VERSIONS:
        for cuda, hip in nvidia_detail_pairs(header_sets[label]).items():
            detail_pairs.setdefault(cuda, hip)
    classified = classify_cuda_names(toolchains.cuda_headers_path() / "include")
    identifiers = build_identifiers(torch_tables, detail_pairs, classified, version_sets, classify_library_names())
    return {
        "generated_by": "scripts/gen_api_tables.py",
        "sources": {
            "torch": torch_tables["version"],
            "hip_headers": {label: debian_packages(header_sets[label]) for label, _, _ in HIP_VERSIONS},
            "cuda_headers": toolchains.CUDA_HEADERS_VERSION,
            "cuda_library_headers": toolchains.CUDA_LIBRARIES_VERSION,
        },
        "checked_from": checked_from(header_sets),
        "identifiers": identifiers,
        "includes": build_includes(torch_tables, header_sets),
        "numeric_intrinsics": build_numeric_intrinsics(classified, version_sets),
        "cooperative_groups": build_cooperative_groups(header_sets),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if the committed table differs")
    args = parser.parse_args()
    text = json.dumps(generate(), indent=1, sort_keys=True) + "\n"
    if args.check:
        if OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(REPO)} is stale: run scripts/gen_api_tables.py", file=sys.stderr)
            return 1
        print("api_map.json is up to date", file=sys.stderr)
        return 0
    OUTPUT.write_text(text)
    counts = defaultdict(int)
    for entry in json.loads(text)["identifiers"].values():
        counts[(entry["category"], entry["hip"] is not None)] += 1
    print(f"wrote {OUTPUT.relative_to(REPO)}: {dict(counts)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
