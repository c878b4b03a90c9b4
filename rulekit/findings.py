"""One data model for everything `rulekit check` reports."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

KINDS = ("contradiction", "invariant", "reachability", "deadlock", "termination", "dead-rule", "coverage",
         "quote", "ambiguity", "runtime", "stale-expect", "information-flow", "option-impact", "example",
         "silent-case", "conflict", "modal", "rotation", "seat")
SEVERITIES = ("error", "warning", "info")
VERDICTS = ("proven", "refuted", "bounded", "unknown")
METHODS = ("z3-unsat-core", "z3-bmc", "z3-k-induction", "z3-pdr", "z3-abstraction", "hypothesis", "graph", "static",
           "random-play", "explicit-state", "replay", "z3-ranking")

# Kinds whose refutation breaks the rules themselves: they fail a run unless acknowledged.
FAILING_KINDS = ("contradiction", "invariant", "deadlock", "quote", "runtime", "example")


@dataclass
class Finding:
    id: str
    game: str
    kind: str
    severity: str
    verdict: str
    method: str
    message: str
    bound: dict | None = None
    quotes: list[str] = field(default_factory=list)
    location: str | None = None
    witness: list[dict] | None = None
    options: dict = field(default_factory=dict)
    acknowledged_by: str | None = None
    hint: str | None = None  # what would fix or acknowledge it
    related: list[str] = field(default_factory=list)  # where its quotes stand in the rulebook (file:line:col)
    details: dict = field(default_factory=dict)  # what a kind of finding adds for machines (see docs/cli.rst)

    def __post_init__(self):
        assert self.kind in KINDS, self.kind
        assert self.severity in SEVERITIES, self.severity
        assert self.verdict in VERDICTS, self.verdict
        assert self.method in METHODS, self.method

    @property
    def subject(self) -> str | None:
        """The property a finding judges (ids read `game/kind/subject/...`), None for other findings."""
        parts = self.id.split("/")
        if self.kind in ("invariant", "reachability") and len(parts) > 2 and not parts[2].startswith("z3-"):
            return parts[2]
        return None

    @property
    def fails(self) -> bool:
        """An unacknowledged error: it makes `rulekit check` exit 1."""
        return self.severity == "error" and self.acknowledged_by is None

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class GameReport:
    game: str
    title: str
    spec: str
    players: list[int]
    options: dict
    findings: list[Finding] = field(default_factory=list)
    stats: dict = field(default_factory=dict)  # time per method, explored configurations
    sources: dict = field(default_factory=dict, repr=False)  # shown file name -> path on disk, for source lines

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)

    def to_json(self) -> dict:
        return {"game": self.game, "title": self.title, "spec": self.spec, "players": self.players,
                "options": self.options, "findings": [f.to_json() for f in self.findings], "stats": self.stats}
