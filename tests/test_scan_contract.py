"""The output contract of `porter scan`: JSON fields, SARIF 2.1.0 structure, the text listing."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from corpus_cases import CORPUS
from typer.testing import CliRunner

from porter.cli import app
from porter.rules import all_rules, categories

runner = CliRunner()
FINDING_FIELDS = {
    "file": str,
    "line": int,
    "column": int,
    "end_line": int,
    "end_column": int,
    "rule": str,
    "category": str,
    "severity": str,
    "message": str,
    "fix": str,
    "engine": str,
}


@pytest.fixture(scope="module")
def scan_json():
    result = runner.invoke(app, ["scan", str(CORPUS), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_top_level_shape(scan_json):
    assert set(scan_json) >= {"porter_version", "findings", "summary"}
    assert isinstance(scan_json["porter_version"], str)
    assert isinstance(scan_json["summary"], dict)
    assert scan_json["summary"]["findings"] == len(scan_json["findings"])


def test_every_finding_meets_the_contract(scan_json):
    rules = all_rules()
    assert scan_json["findings"], "the corpus must produce findings"
    for finding in scan_json["findings"]:
        for name, kind in FINDING_FIELDS.items():
            assert isinstance(finding[name], kind), (name, finding)
        assert not finding["file"].startswith("/") and (CORPUS / finding["file"]).is_file()
        assert finding["line"] >= 1 and finding["column"] >= 1
        assert (finding["end_line"], finding["end_column"]) >= (finding["line"], finding["column"])
        assert finding["category"] in categories()
        assert finding["severity"] in ("error", "warning", "info")
        assert finding["fix"] in ("auto", "suggested", "manual")
        assert finding["engine"] in ("tree-sitter", "libclang")
        assert rules[finding["rule"]].category == finding["category"]


def test_positions_point_at_the_reported_text(scan_json):
    """line/column (1-based, in characters) locate the name the message quotes."""
    checked = 0
    for finding in scan_json["findings"]:
        quoted = re.match(r"`([A-Za-z_]\w*)`", finding["message"])
        if not quoted or finding["engine"] != "tree-sitter" or finding["category"] not in ("api", "library"):
            continue
        text = (CORPUS / finding["file"]).read_bytes().decode("utf-8", "replace").split("\n")[finding["line"] - 1]
        assert text[finding["column"] - 1 :].startswith(quoted.group(1)), finding
        checked += 1
    assert checked > 50


def test_sarif_is_structurally_valid_2_1_0():
    result = runner.invoke(app, ["scan", str(CORPUS), "--format", "sarif"])
    assert result.exit_code == 0, result.output
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    assert len(sarif["runs"]) == 1
    run = sarif["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "porter" and driver["version"]
    ids = [r["id"] for r in driver["rules"]]
    assert len(ids) == len(set(ids)) == len(all_rules())
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert "## Why is this bad on AMD?" in rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"].startswith("file://")
    assert run["results"]
    for res in run["results"]:
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note", "none")
        assert res["message"]["text"]
        (location,) = res["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uriBaseId"] == "SRCROOT"
        assert not physical["artifactLocation"]["uri"].startswith("/")
        region = physical["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert region["endLine"] >= region["startLine"]
        for fix in res.get("fixes", []):
            for change in fix["artifactChanges"]:
                for replacement in change["replacements"]:
                    assert replacement["deletedRegion"]["byteLength"] >= 0
                    assert "text" in replacement["insertedContent"]


def test_text_listing_groups_by_file():
    result = runner.invoke(app, ["scan", str(CORPUS)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "api/runtime_memory.cu" in lines
    assert any(
        re.match(r"\s+\d+:\d+\s+API001\s+info\s+auto\s+`cudaMalloc` is `hipMalloc` in HIP", line) for line in lines
    )
    assert re.search(r"^\d+ finding\(s\) in \d+ file\(s\)", result.stdout, re.M)


def test_output_file_is_written(tmp_path):
    out = tmp_path / "sub" / "scan.json"
    result = runner.invoke(app, ["scan", str(CORPUS / "api"), "--format", "json", "--output", str(out)])
    assert result.exit_code == 0
    assert json.loads(out.read_text())["findings"]
    assert [p.name for p in out.parent.iterdir()] == ["scan.json"]


def test_a_pool_scan_reports_what_one_process_does(corpus_scan, monkeypatch):
    """Every finding comes back from a pool worker as it was made (findings, spans and edits
    pickle as calls of their constructors): a scan of the corpus in a pool of two workers has the
    same findings, edits included, as the one-process scan. The corpus is too small to be worth a
    pool by itself: the threshold is lowered so that one runs."""
    import pickle

    from porter import scan as scan_module
    from porter.config import Config

    pooled_runs = []
    in_pool = scan_module._analyze_in_pool
    monkeypatch.setattr(scan_module, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(scan_module, "_analyze_in_pool", lambda *a: pooled_runs.append(1) or in_pool(*a))
    pooled = scan_module.scan([CORPUS], Config(), jobs=2)
    assert pooled_runs, "the scan ran without a pool"
    assert pooled.findings == corpus_scan.findings
    with_edits = next(f for f in corpus_scan.findings if f.edits)
    assert pickle.loads(pickle.dumps(with_edits)) == with_edits


def test_findings_of_one_text_share_it_however_they_arrive(corpus_scan):
    """A finding's texts are held once however many findings repeat them (a large tree's half a
    million findings repeat a few thousand messages): two findings of one message, each sent over
    from a worker or read back from the cache as its own copy, hold the same string object."""
    import pickle

    from porter.findings import Finding

    repeated = Counter(f.message for f in corpus_scan.findings).most_common(1)[0][0]
    first, second = [f for f in corpus_scan.findings if f.message == repeated][:2]
    sent = [pickle.loads(pickle.dumps(finding)) for finding in (first, second)]
    cached = [Finding.from_row(json.loads(json.dumps(finding.to_row()))) for finding in (first, second)]
    for one, other in (sent, cached):
        assert one.message == repeated and one.message is other.message
