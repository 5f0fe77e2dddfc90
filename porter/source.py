"""One input file as bytes, with byte offset → line/column mapping.

Everything downstream works on bytes so that non-UTF-8 text, CRLF line endings and BOMs
survive untouched; text is decoded only for messages, with surrogateescape.

UTF-16 and UTF-32 sources (recognised by their byte-order mark) are the exception: no parser
reads them, so they are analysed as UTF-8 and `encode_back` restores their encoding on output.
"""

from __future__ import annotations

import bisect
import codecs
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from itertools import accumulate
from pathlib import Path, PurePath

from porter.findings import Span


class FileKind(StrEnum):
    CUDA = "cuda"  # .cu, .cuh
    CPP = "cpp"  # .cpp, .cc, .cxx
    HEADER = "header"  # .h, .hpp, .inl
    HIP = "hip"  # .hip
    SETUP_PY = "setup.py"
    PYTHON = "python"  # other .py files, and Cython's: scanned for CUDA in their strings (porter.embedded)
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

PYTHON_SUFFIXES = (".py", ".pyx", ".pxi")


def is_python(path: str | PurePath) -> bool:
    """A Python or Cython file by its name (setup.py too): CUDA in it is held in strings."""
    return PurePath(path).suffix in PYTHON_SUFFIXES


def encoded_length(text: str) -> int:
    """Bytes that a str taken from SourceFile.text() occupies in the file (surrogates included)."""
    return len(text.encode("utf-8", "surrogateescape"))


def kind_of(path: Path) -> FileKind | None:
    if path.name == "setup.py":
        return FileKind.SETUP_PY
    if path.name == "CMakeLists.txt":
        return FileKind.CMAKE
    if is_python(path):
        return FileKind.PYTHON
    return SUFFIX_KINDS.get(path.suffix.lower())


# Longest-first: UTF-32-LE's mark begins with UTF-16-LE's.
WIDE_ENCODINGS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# the bytes of a C identifier (and `$`, which GCC and clang accept in one): a name that the byte
# before a match continues is not a match of its own
IDENTIFIER_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
WORD_BYTES = IDENTIFIER_BYTES - {ord("$")}  # a regex's `\w`, in ASCII
_PLUS_ONE = (1).__add__
SNIPPET_BYTES = 4096  # a finding's snippet is one line, cut: a 10 MB line must not be decoded per finding


class UndecodableSource(ValueError):
    """A file that announces a wide encoding (by its byte-order mark) but is not valid in it."""


def decode_wide(data: bytes) -> tuple[bytes, str | None]:
    """(UTF-8 bytes, the wide encoding they came from) for UTF-16/32 with a BOM; else (data, None)."""
    for bom, encoding in WIDE_ENCODINGS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding).encode("utf-8", "surrogatepass"), encoding
            except UnicodeError as exc:
                raise UndecodableSource(
                    f"starts with a {encoding} byte-order mark but is not {encoding}: {exc.reason}"
                ) from None
    return data, None


@dataclass
class SourceFile:
    path: Path
    rel: str  # POSIX path relative to the scanned root
    data: bytes
    kind: FileKind
    wide_encoding: str | None = None  # "utf-16-le" etc.: `data` is the file transcoded to UTF-8
    # the file's own kind where `data` is a view of the code it embeds (porter.embedded): a Python
    # file's CUDA strings, read as CUDA at the file's offsets
    embedded_in: FileKind | None = None
    _line_starts: list[int] = field(default_factory=list, repr=False)
    _ascii_lines: bool | dict[int, bool] | None = field(default=None, repr=False)  # see _ascii_line

    @classmethod
    def read(cls, path: Path, rel: str, kind: FileKind) -> SourceFile:
        data, encoding = decode_wide(path.read_bytes())
        return cls(path=path, rel=rel, data=data, kind=kind, wide_encoding=encoding)

    def encode_back(self, data: bytes) -> bytes:
        """Converted bytes in the file's own encoding (UTF-16/32 with its BOM); UTF-8 and others unchanged."""
        if self.wide_encoding is None:
            return data
        bom = next(b for b, e in WIDE_ENCODINGS if e == self.wide_encoding)
        return bom + data.decode("utf-8", "surrogatepass").encode(self.wide_encoding, "surrogatepass")

    @property
    def line_starts(self) -> list[int]:
        if not self._line_starts:
            # each line's length plus its newline, summed from 0 (the last sum, past the end, dropped): in C
            self._line_starts = list(accumulate(map(_PLUS_ONE, map(len, self.data.split(b"\n"))), initial=0))[:-1]
        return self._line_starts

    @cached_property
    def newline(self) -> str:
        """The file's line ending, for text porter inserts (asked at each of its includes: kept)."""
        return "\r\n" if b"\r\n" in self.data else "\n"

    @property
    def line_count(self) -> int:
        return len(self.line_starts) - (1 if self.data.endswith(b"\n") else 0)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a byte offset; columns count characters."""
        starts = self.line_starts
        index = bisect.bisect_right(starts, offset) - 1
        line_start = starts[index]
        if self._ascii_line(index):  # one byte per character: no decoding (linear time on long lines)
            return index + 1, offset - line_start + 1
        return index + 1, len(self.data[line_start:offset].decode("utf-8", "replace")) + 1

    def _ascii_line(self, index: int) -> bool:
        """Whether the 0-based line holds only ASCII bytes: the whole file checked once (most
        sources are ASCII), else each line asked about, once."""
        if self._ascii_lines is None:
            self._ascii_lines = True if self.data.isascii() else {}
        if self._ascii_lines is True:
            return True
        if index not in self._ascii_lines:
            end = self.line_starts[index + 1] if index + 1 < len(self.line_starts) else len(self.data)
            self._ascii_lines[index] = self.data[self.line_starts[index] : end].isascii()
        return self._ascii_lines[index]

    def span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Span(start, end, line, column, end_line, end_column)

    def offset_of_line(self, line: int) -> int:
        return self.line_starts[line - 1]

    def line_text(self, line: int, limit: int | None = None) -> str:
        """The line's text; with `limit`, at most that many bytes of it after its indentation."""
        starts = self.line_starts
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.data)
        if limit is not None:
            while start < end and self.data[start] in b" \t":
                start += 1
            end = min(end, start + limit)
        return self.data[start:end].rstrip(b"\r").decode("utf-8", "replace")

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "surrogateescape")


def identifier_start(data: bytes, index: int) -> int:
    """Where the identifier bytes (`[A-Za-z0-9_]`, a regex's `\\w`) that run up to `index` begin:
    `index` itself when the byte before it is none of them."""
    while index > 0 and (data[index - 1 : index].isalnum() or data[index - 1] == ord("_")):
        index -= 1
    return index
