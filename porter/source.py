"""One input file as bytes, with byte offset → line/column mapping.

Everything downstream works on bytes so that non-UTF-8 text, CRLF line endings and BOMs
survive untouched; text is decoded only for messages, with surrogateescape.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from porter.findings import Span


class FileKind(StrEnum):
    CUDA = "cuda"  # .cu, .cuh
    CPP = "cpp"  # .cpp, .cc, .cxx
    HEADER = "header"  # .h, .hpp, .inl
    HIP = "hip"  # .hip
    SETUP_PY = "setup.py"
    CMAKE = "cmake"

    @property
    def is_c_family(self) -> bool:
        return self in (FileKind.CUDA, FileKind.CPP, FileKind.HEADER, FileKind.HIP)


SUFFIX_KINDS = {
    ".cu": FileKind.CUDA,
    ".cuh": FileKind.CUDA,
    ".cpp": FileKind.CPP,
    ".cc": FileKind.CPP,
    ".cxx": FileKind.CPP,
    ".h": FileKind.HEADER,
    ".hpp": FileKind.HEADER,
    ".inl": FileKind.HEADER,
    ".hip": FileKind.HIP,
    ".cmake": FileKind.CMAKE,
}


def encoded_length(text: str) -> int:
    """Bytes that a str taken from SourceFile.text() occupies in the file (surrogates included)."""
    return len(text.encode("utf-8", "surrogateescape"))


def kind_of(path: Path) -> FileKind | None:
    if path.name == "setup.py":
        return FileKind.SETUP_PY
    if path.name == "CMakeLists.txt":
        return FileKind.CMAKE
    return SUFFIX_KINDS.get(path.suffix.lower())


@dataclass
class SourceFile:
    path: Path
    rel: str  # POSIX path relative to the scanned root
    data: bytes
    kind: FileKind
    _line_starts: list[int] = field(default_factory=list, repr=False)

    @classmethod
    def read(cls, path: Path, rel: str, kind: FileKind) -> SourceFile:
        return cls(path=path, rel=rel, data=path.read_bytes(), kind=kind)

    @property
    def line_starts(self) -> list[int]:
        if not self._line_starts:
            starts = [0]
            find = self.data.find
            pos = find(b"\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = find(b"\n", pos + 1)
            self._line_starts = starts
        return self._line_starts

    @property
    def newline(self) -> str:
        """The file's line ending, for text porter inserts."""
        return "\r\n" if b"\r\n" in self.data else "\n"

    @property
    def line_count(self) -> int:
        return len(self.line_starts) - (1 if self.data.endswith(b"\n") else 0)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a byte offset; columns count characters."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        line_start = self.line_starts[index]
        prefix = self.data[line_start:offset].decode("utf-8", "replace")
        return index + 1, len(prefix) + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Span(start, end, line, column, end_line, end_column)

    def offset_of_line(self, line: int) -> int:
        return self.line_starts[line - 1]

    def line_text(self, line: int) -> str:
        start = self.line_starts[line - 1]
        end = self.data.find(b"\n", start)
        raw = self.data[start : end if end != -1 else len(self.data)]
        return raw.rstrip(b"\r").decode("utf-8", "replace")

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "surrogateescape")
