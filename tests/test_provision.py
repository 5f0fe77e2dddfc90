"""Provisioning: wheel members read by HTTP range requests and checked against RECORD; optional parts."""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import threading
import zipfile

import pytest
from typer.testing import CliRunner

from porter.cli import app
from porter.targets import provision
from porter.targets.remote_wheel import RemoteFileError, read_members


@pytest.fixture(autouse=True)
def no_proxy_for_the_local_server(monkeypatch):
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def wheel_bytes(headers: dict[str, bytes], record_override: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        record = []
        for name, data in headers.items():
            archive.writestr(name, data)
            signed = (record_override or {}).get(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(signed).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
        archive.writestr("nvidia_x-1.0.dist-info/RECORD", "\n".join(record) + "\n")
        archive.writestr("nvidia/x/lib/libbig.so", b"\0" * 4096)
    return buffer.getvalue()


def serve(payload: bytes, ranges: bool = True):
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _head(self, status, length, extra=()):
            self.send_response(status)
            self.send_header("Content-Length", str(length))
            if ranges:
                self.send_header("Accept-Ranges", "bytes")
            for key, value in extra:
                self.send_header(key, value)
            self.end_headers()

        def do_HEAD(self):
            self._head(200, len(payload))

        def do_GET(self):
            wanted = self.headers.get("Range")
            if not (ranges and wanted):
                self._head(200, len(payload))
                self.wfile.write(payload)
                return
            start, end = (int(v) for v in wanted.split("=")[1].split("-"))
            body = payload[start : end + 1]
            self._head(206, len(body), [("Content-Range", f"bytes {start}-{end}/{len(payload)}")])
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/nvidia_x-1.0-py3-none-any.whl"


def test_only_the_wanted_members_are_read_and_each_is_checked_against_record():
    server, url = serve(wheel_bytes({"nvidia/x/include/x.h": b"#define X 1\n", "nvidia/x/include/y.h": b"int y;\n"}))
    try:
        members = read_members(url, lambda name: "/include/" in name)
    finally:
        server.shutdown()
    assert members == {"nvidia/x/include/x.h": b"#define X 1\n", "nvidia/x/include/y.h": b"int y;\n"}


def test_a_member_that_does_not_match_record_is_refused():
    tampered = wheel_bytes({"nvidia/x/include/x.h": b"#define X 2\n"}, {"nvidia/x/include/x.h": b"#define X 1\n"})
    server, url = serve(tampered)
    try:
        with pytest.raises(RemoteFileError, match="does not match the wheel's RECORD"):
            read_members(url, lambda name: "/include/" in name)
    finally:
        server.shutdown()


def test_a_server_without_byte_ranges_is_named():
    server, url = serve(wheel_bytes({"nvidia/x/include/x.h": b""}), ranges=False)
    try:
        with pytest.raises(RemoteFileError, match="does not serve byte ranges"):
            read_members(url, lambda name: True)
    finally:
        server.shutdown()


def test_setup_all_goes_on_without_the_optional_library_headers(monkeypatch, tmp_path):
    def unavailable(force=False):
        raise provision.ProvisionError("no network")

    monkeypatch.setattr(provision, "provision_sysroot", lambda force=False: tmp_path / "sysroot")
    monkeypatch.setattr(provision, "provision_cuda_headers", lambda force=False: tmp_path / "headers")
    monkeypatch.setattr(provision, "provision_cuda_libraries", unavailable)
    runner = CliRunner()
    everything = runner.invoke(app, ["setup", "all"])
    assert everything.exit_code == 0 and "warning" in everything.output and "no network" in everything.output
    alone = runner.invoke(app, ["setup", "cuda-libraries"])
    assert alone.exit_code == 1 and "no network" in alone.output
