"""The option sets a check plays under, how findings name them, and which options change which verdicts."""
from __future__ import annotations


from .. import model as m
from ..findings import Finding, GameReport
from .shared import options_key


def option_sets(game: m.Game, pairs: bool = False) -> list[dict[str, str]]:
    """The default options, then each non-default option on its own (a covering set of single changes),
    then every option set that a property is claimed under, and with `pairs` every two non-default
    options of two ambiguities together."""
    default = game.default_options()
    singles = [(a.name, o.name) for a in game.ambiguities for o in a.options if o.name != a.default]
    out = [default] + [{**default, name: option} for name, option in singles]
    wanted = [dict(p.under) for p in game.properties if p.under]
    if pairs:
        wanted += [dict((x, y)) for i, x in enumerate(singles) for y in singles[i + 1:] if x[0] != y[0]]
    for changes in wanted:
        options = {**default, **changes}
        if options not in out:
            out.append(options)
    return out


def changed_options(options: dict, game: m.Game) -> dict:
    default = game.default_options()
    return {k: v for k, v in options.items() if default.get(k) != v}


def options_suffix(options: dict, game: m.Game) -> str:
    return "".join(f"/{k}={v}" for k, v in sorted(changed_options(options, game).items()))


def variant_analysis(game: m.Game, variants: list[dict], verdicts: dict, report: GameReport) -> None:
    """Which options change which verdicts, relative to the default options."""
    def table(findings):
        out = {}
        for f in findings:
            base = f.id
            for k, v in sorted(f.options.items()):
                base = base.replace(f"/{k}={v}", "")
            out[base] = f.verdict
        return out

    default = table(verdicts[options_key(variants[0])])
    for options in variants[1:]:
        changed = changed_options(options, game)
        mine = table(verdicts[options_key(options)])
        diffs = [(k, default.get(k, "absent"), mine.get(k, "absent")) for k in sorted(set(default) | set(mine))
                 if default.get(k) != mine.get(k)]
        label = ", ".join(f"{k}={v}" for k, v in changed.items())
        if diffs:
            text = "; ".join(f"{k.split('/', 1)[1]}: {a} -> {b}" for k, a, b in diffs)
            message = f"under {label}: {len(diffs)} verdict(s) change: {text}"
        else:
            message = f"under {label}: no verdict changes"
        report.add(Finding(f"{game.name}/ambiguity/{'/'.join(f'{k}={v}' for k, v in changed.items())}/variant",
                           game.name, "ambiguity", "info" if not diffs else "warning", "proven" if not diffs else "refuted",
                           "static", message, options=changed, acknowledged_by=next(iter(changed), None),
                           bound={"changes": [{"finding": k, "default": a, "option": b} for k, a, b in diffs]}))
