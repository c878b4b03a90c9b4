"""The option sets a check plays under, and how findings name them (what each option changes: `impact`)."""
from __future__ import annotations


from .. import model as m


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
