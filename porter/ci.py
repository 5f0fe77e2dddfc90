"""`porter ci init`: CI configuration for a repository that ports CUDA to ROCm.

It writes only steps for commands this porter has: the GPU verification job appears once
`porter verify` exists, the build step once `porter build` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

WORKFLOW = Path(".github/workflows/porter-rocm.yml")
PRE_COMMIT = Path(".pre-commit-config.yaml")


@dataclass
class CiOptions:
    baseline: str = "porter-baseline.json"
    target: str = "gfx942"
    gpu_labels: tuple[str, ...] = ("self-hosted", "rocm")
    porter_spec: str = "porter"
    goldens: str = "porter-goldens"
    paths: tuple[str, ...] = (".",)


def workflow(options: CiOptions, commands: set[str]) -> str:
    paths = " ".join(options.paths)
    lines = [
        "# Written by `porter ci init`. Portability gate for ROCm: new findings fail the build,",
        "# the baseline absorbs the backlog (`porter baseline . --output " + options.baseline + "`).",
        "name: porter-rocm",
        "on:",
        "  push:",
        "  pull_request:",
        "permissions:",
        "  contents: read",
        "  security-events: write",
        "jobs:",
        "  porter-cpu:",
        "    runs-on: ubuntu-latest",
        "    container: debian:12",
        "    steps:",
        "      - name: Tools",
        "        run: apt-get update -qq && apt-get install -y -qq git python3 python3-pip python3-venv clang-19 lld-19 libclang1-19",
        "      - uses: actions/checkout@v4",
        "      - name: Install porter",
        f"        run: python3 -m venv /opt/porter && /opt/porter/bin/pip install '{options.porter_spec}' && echo /opt/porter/bin >> \"$GITHUB_PATH\"",
        "      - name: Toolchains (compile-only ROCm sysroot, CUDA headers for libclang)",
        "        run: porter setup all && porter doctor || true",
        "      - name: porter check",
        f"        run: porter check {paths} --baseline {options.baseline} --fail-on error --sarif porter.sarif",
    ]
    if "build" in commands:
        lines += ["      - name: porter build", f"        run: porter build {paths} --target {options.target}"]
    lines += [
        "      - name: Upload SARIF to code scanning",
        "        if: always()",
        "        uses: github/codeql-action/upload-sarif@v3",
        "        with:",
        "          sarif_file: porter.sarif",
    ]
    if "verify" in commands:
        labels = ", ".join(options.gpu_labels)
        lines += [
            "  porter-gpu:",
            f"    runs-on: [{labels}]",
            "    needs: porter-cpu",
            "    steps:",
            "      - uses: actions/checkout@v4",
            f"      - run: pip install '{options.porter_spec}'",
            "      # goldens: `porter verify . --target sm_90 --record " + options.goldens + "` on a CUDA machine",
            "      - name: Verify against the recorded CUDA goldens",
            f"        run: porter verify {options.paths[0]} --target {options.target} --compare {options.goldens}",
        ]
    return "\n".join(lines) + "\n"


def pre_commit(options: CiOptions) -> str:
    return "\n".join(
        [
            "# Written by `porter ci init`: the same gate before each commit.",
            "repos:",
            "  - repo: local",
            "    hooks:",
            "      - id: porter-check",
            "        name: porter check (new ROCm portability findings)",
            f"        entry: porter check {' '.join(options.paths)} --baseline {options.baseline}",
            "        language: system",
            "        pass_filenames: false",
            r"        files: '\.(cu|cuh|cpp|cc|cxx|h|hpp|inl|hip|cmake)$|CMakeLists\.txt$|setup\.py$'",
            "",
        ]
    )


def plan(root: Path, options: CiOptions, commands: set[str]) -> dict[Path, str]:
    """Files to write; an existing pre-commit config is left alone (the entry is printed instead)."""
    files = {root / WORKFLOW: workflow(options, commands)}
    files[root / PRE_COMMIT] = pre_commit(options)
    return files
