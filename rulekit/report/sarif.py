"""SARIF 2.1.0 for code-scanning tools (GitHub code scanning, the VS Code SARIF viewer): one result per
finding of error or warning severity, located in the spec, with its quotes located in the rulebook."""
from __future__ import annotations

import json
from pathlib import PurePosixPath

from ..findings import GameReport
from . import wording as w

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SPEC_ERROR = "rulekit/spec-error"


def to_sarif(reports: list[GameReport], version: str, errors: list[dict] = ()) -> str:
    """`errors`: those of the specs that could not be checked (see `rulekit.report.to_json`), each a result
    of level error at its place in the spec."""
    rules: dict[str, dict] = {}
    results = []
    for error in errors:
        rules.setdefault(SPEC_ERROR, {
            "id": SPEC_ERROR, "name": "specError", "shortDescription": {"text": "the spec does not compile"},
            "fullDescription": {"text": "a spec that does not compile is not checked: fix it where the error says"},
            "defaultConfiguration": {"level": "error"}, "properties": {"tags": ["spec"]}})
        hint = error.get("hint")
        result = {"ruleId": SPEC_ERROR, "ruleIndex": list(rules).index(SPEC_ERROR), "level": "error",
                  "message": {"text": _sentence(f"{error['code']} {error['message']}")
                              + (f" Hint: {_sentence(hint)}" if hint else "")},
                  "properties": {"code": error["code"]}}
        where = _location(f"{error['file']}:{error['line']}:{error['column']}" if error.get("line") else
                          error.get("file", ""))
        if where:
            result["locations"] = [where]
        results.append(result)
    for r in reports:
        for f in r.findings:
            if not w.is_problem(f):
                continue
            rule_id = f"rulekit/{f.kind}"
            rules.setdefault(rule_id, {
                "id": rule_id, "name": _camel(f.kind),
                "shortDescription": {"text": w.PROBLEM_TITLES[f.kind]},
                "fullDescription": {"text": w.HINTS.get(f.kind, w.PROBLEM_TITLES[f.kind])},
                "defaultConfiguration": {"level": LEVEL[f.severity]},
                "properties": {"tags": ["rulebook", f.kind]}})
            text = f.message + (f" [under {w.options_text(f.options)}]" if f.options and f.kind != "ambiguity" else "")
            hint = f.hint or w.HINTS.get(f.kind)
            result = {"ruleId": rule_id, "ruleIndex": list(rules).index(rule_id), "level": LEVEL[f.severity],
                      "message": {"text": _sentence(text) + (f" Hint: {_sentence(hint)}" if hint else "")},
                      "partialFingerprints": {"rulekitFindingId": f.id},
                      "properties": {"id": f.id, "game": f.game, "verdict": f.verdict, "method": f.method,
                                     "options": f.options, "bound": f.bound}}
            if f.acknowledged_by:
                result["suppressions"] = [{"kind": "inSource", "justification": f.acknowledged_by}]
            where = _location(f.location or r.spec)
            if where:
                result["locations"] = [where]
            related = []
            for i, at in enumerate(f.related):
                loc = _location(at)
                if loc:
                    loc["id"] = i
                    loc["message"] = {"text": f"rulebook: “{f.quotes[i]}”" if i < len(f.quotes) else "rulebook"}
                    related.append(loc)
            if related:
                result["relatedLocations"] = related
            results.append(result)
    run = {"tool": {"driver": {"name": "rulekit", "semanticVersion": version, "version": version,
                               "informationUri": "https://pypi.org/project/rulekit/",
                               "rules": list(rules.values())}},
           "columnKind": "unicodeCodePoints", "results": results}
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False)


def _location(where: str) -> dict | None:
    """A physical location: the file as a relative URI with forward slashes, a 1-based region."""
    parts = where.rsplit(":", 2)
    region = {}
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        where, region = parts[0], {"startLine": max(1, int(parts[1])), "startColumn": max(1, int(parts[2]))}
    if not where:
        return None
    path = PurePosixPath(where.replace("\\", "/"))
    if path.is_absolute():  # code scanning wants URIs relative to the repository; keep what we can
        uri = path.as_uri()
    else:
        uri = str(path)
    loc = {"physicalLocation": {"artifactLocation": {"uri": uri}}}
    if region:
        loc["physicalLocation"]["region"] = region
    return loc


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?", "”", "\"")) else text + "."


def _camel(kind: str) -> str:
    head, *rest = kind.split("-")
    return head + "".join(p.title() for p in rest)
