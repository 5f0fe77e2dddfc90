"""Reading a few members of a large remote wheel without downloading all of it.

cuBLAS's wheel is 580 MB; porter needs its 20 headers. A wheel is a zip, whose central directory
sits at the end, so HTTP range requests fetch the directory and then only the members asked for.
Each member is checked against the sha256 the wheel's own RECORD lists for it.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import urllib.error
import urllib.request
import zipfile

from porter.errors import PorterError

BLOCK = 1 << 20


class RemoteFileError(PorterError):
    """The remote file could not be read; the message names the URL and the cause."""


class RangeReader(io.RawIOBase):
    """A seekable, read-only view of a file served over HTTP(S) with range requests."""

    def __init__(self, url: str, timeout: float = 120.0) -> None:
        self.url, self.timeout = url, timeout
        self.position = 0
        self.blocks: dict[int, bytes] = {}
        self.size = self._size()

    def _open(self, request: urllib.request.Request):
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise RemoteFileError(f"{self.url}: {exc}") from exc

    def _size(self) -> int:
        with self._open(urllib.request.Request(self.url, method="HEAD")) as response:
            if response.headers.get("Accept-Ranges") != "bytes":
                raise RemoteFileError(f"{self.url}: the server does not serve byte ranges")
            return int(response.headers["Content-Length"])

    def _block(self, index: int) -> bytes:
        if index not in self.blocks:
            start = index * BLOCK
            end = min(start + BLOCK, self.size) - 1
            request = urllib.request.Request(self.url, headers={"Range": f"bytes={start}-{end}"})
            with self._open(request) as response:
                data = response.read()
            if len(data) != end - start + 1:
                raise RemoteFileError(f"{self.url}: asked for {end - start + 1} bytes at {start}, got {len(data)}")
            self.blocks[index] = data
        return self.blocks[index]

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def read(self, size: int = -1) -> bytes:
        end = self.size if size is None or size < 0 else min(self.size, self.position + size)
        chunks = []
        while self.position < end:
            block = self._block(self.position // BLOCK)
            offset = self.position % BLOCK
            piece = block[offset : offset + end - self.position]
            chunks.append(piece)
            self.position += len(piece)
        return b"".join(chunks)

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _record_hashes(archive: zipfile.ZipFile) -> dict[str, str]:
    record = next((n for n in archive.namelist() if n.endswith(".dist-info/RECORD")), None)
    if record is None:
        raise RemoteFileError("the wheel has no RECORD to check its members against")
    rows = csv.reader(io.StringIO(archive.read(record).decode()))
    return {row[0]: row[1] for row in rows if len(row) >= 2 and row[1].startswith("sha256=")}


def read_members(url: str, wanted) -> dict[str, bytes]:
    """The members of the wheel at `url` whose names `wanted(name)` accepts, each checked against RECORD."""
    with zipfile.ZipFile(RangeReader(url)) as archive:
        hashes = _record_hashes(archive)
        members = {}
        for info in archive.infolist():
            if info.is_dir() or not wanted(info.filename):
                continue
            data = archive.read(info)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            if hashes.get(info.filename) != f"sha256={digest}":
                raise RemoteFileError(f"{url}: {info.filename} does not match the wheel's RECORD")
            members[info.filename] = data
        return members
