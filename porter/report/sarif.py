"""SARIF 2.1.0 from a scan: the rules and their help text in the tool driver, one result per finding."""

from __future__ import annotations

from porter import __version__
from porter.findings import Finding, Severity
from porter.rules import Rule, all_rules

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def rule_descriptor(rule: Rule) -> dict:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": " ".join(rule.what.split())},
        "help": {"text": rule.explain(), "markdown": rule.explain()},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"category": rule.category, "fix": str(rule.fix), "tags": [rule.category]},
    }


def _result(finding: Finding, index: dict[str, int]) -> dict:
    location = {
        "physicalLocation": {
            "artifactLocation": {"uri": finding.file, "uriBaseId": "SRCROOT"},
            "region": {
                "startLine": finding.span.line,
                "startColumn": finding.span.column,
                "endLine": finding.span.end_line,
                "endColumn": finding.span.end_column,
            },
        }
    }
    if finding.span.end_byte > finding.span.start_byte:
        region = location["physicalLocation"]["region"]
        region["byteOffset"] = finding.span.start_byte
        region["byteLength"] = finding.span.end_byte - finding.span.start_byte
    result = {
        "ruleId": finding.rule,
        "ruleIndex": index[finding.rule],
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [location],
        "properties": {"category": finding.category, "fix": str(finding.fix), "engine": str(finding.engine)},
    }
    if finding.edits:
        result["fixes"] = [
            {
                "description": {"text": f"porter {finding.rule} fix"},
                "artifactChanges": [
                    {
                        "artifactLocation": {"uri": finding.file, "uriBaseId": "SRCROOT"},
                        "replacements": [
                            {
                                "deletedRegion": {"byteOffset": e.start, "byteLength": e.end - e.start},
                                "insertedContent": {"text": e.replacement.decode("utf-8", "replace")},
                            }
                            for e in finding.edits
                        ],
                    }
                ],
            }
        ]
    return result


def to_sarif(findings: list[Finding], root_uri: str) -> dict:
    rules = list(all_rules().values())
    index = {rule.id: i for i, rule in enumerate(rules)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "porter",
                        "version": __version__,
                        "informationUri": "https://github.com/porter-rocm/porter",
                        "rules": [rule_descriptor(r) for r in rules],
                    }
                },
                "originalUriBaseIds": {"SRCROOT": {"uri": root_uri}},
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index) for f in findings],
            }
        ],
    }
