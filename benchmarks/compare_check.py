"""Compare two `rulekit check --format json` reports finding by finding: did any verdict get weaker?

    python benchmarks/compare_check.py BEFORE.json AFTER.json
    python benchmarks/compare_check.py --ref main            # check at a git revision against this tree

With `--ref REV`, both reports are made here: the revision is checked out into a temporary git
worktree and checked with its own code, then this tree is checked, with the same arguments (any
after `--`, e.g. `-- chucky --games 50`). A finding keeps its strength or gains it when its verdict
is at least as decisive: `proven` and `refuted` (decided) > `bounded` > `unknown`; a decided verdict
that flips (proven <-> refuted) is reported too. Findings that only the newer report has are listed
as new. The exit code is 1 when a verdict got weaker or a finding disappeared.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

STRENGTH = {"unknown": 0, "bounded": 1, "proven": 2, "refuted": 2}
ROOT = Path(__file__).resolve().parent.parent


def verdicts(report: dict) -> dict[str, str]:
    return {f["id"]: f["verdict"] for game in report["games"] for f in game["findings"]}


def compare(before: dict, after: dict) -> tuple[list[str], list[str], list[str]]:
    """(weaker or flipped, gone, new) finding ids, each with what happened."""
    weaker, gone, added, _ = changes(before, after)
    return weaker, gone, added


def changes(before: dict, after: dict) -> tuple[list[str], list[str], list[str], list[str]]:
    """(weaker or flipped, gone, new, stronger) finding ids, each with what happened."""
    old, new = verdicts(before), verdicts(after)
    weaker, gone, stronger = [], [], []
    for fid, verdict in sorted(old.items()):
        if fid not in new:
            gone.append(f"{fid}: {verdict} -> (no finding)")
        elif STRENGTH[new[fid]] < STRENGTH[verdict] or (STRENGTH[verdict] == 2 and new[fid] != verdict):
            weaker.append(f"{fid}: {verdict} -> {new[fid]}")
        elif STRENGTH[new[fid]] > STRENGTH[verdict]:
            stronger.append(f"{fid}: {verdict} -> {new[fid]}")
    added = [f"{fid}: {new[fid]}" for fid in sorted(set(new) - set(old))]
    return weaker, gone, added, stronger


def run_check(source: Path, args: list[str]) -> dict:
    """`rulekit check --format json ARGS` with the code of `source` (exit code 1 is findings, not failure)."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    done = subprocess.run([sys.executable, "-m", "rulekit", "check", "--format", "json", *args], cwd=source,
                          env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"rulekit check failed in {source} (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="*", metavar="REPORT.json", help="the older report, then the newer one")
    parser.add_argument("--ref", metavar="REV", help="check this git revision and this tree instead")
    parser.add_argument("check_args", nargs=argparse.REMAINDER, help="after --: arguments for rulekit check")
    args = parser.parse_args(argv)
    extra = [a for a in args.check_args if a != "--"]
    if args.ref:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / "before"
            subprocess.run(["git", "worktree", "add", "--detach", str(tree), args.ref], cwd=ROOT, check=True,
                           capture_output=True)
            try:
                before = run_check(tree, extra)
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
        after = run_check(ROOT, extra)
    elif len(args.reports) == 2:
        before, after = (json.loads(Path(p).read_text()) for p in args.reports)
    else:
        parser.error("give two reports, or --ref REV")
    weaker, gone, added, stronger = changes(before, after)
    total = len(verdicts(before))
    print(f"{total} findings before, {len(verdicts(after))} after")
    for title, items in (("weaker or flipped", weaker), ("gone", gone), ("new", added), ("stronger", stronger)):
        print(f"{title}: {len(items)}")
        for item in items:
            print(f"  {item}")
    return 1 if weaker or gone else 0


if __name__ == "__main__":
    sys.exit(main())
