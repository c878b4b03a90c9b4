"""A loaded game: one spec compiled for one player count and one choice of options."""
from __future__ import annotations

import json
from functools import cached_property

from .. import model as m
from .. import phrases
from ..errors import IllegalActionError, RuleRuntimeError, StateFormatError
from ..lower import ActionTable, Config, Layout, core, lower_expression
from ..lower import branches, sites
from . import probes as probes_runtime
from . import pycode, runtime, subsets, triggermemo
from .knowledge import knowledge
from .codegen import Codegen, Program
from .decisions import decision_prefixes
from .direct import DirectProgram, direct_program
from .stepping import SteppingProgram, stepped_state, stepping_program
from .statetests import state_tests
from .watched import WatchedProgram, watched_program
from .playouts import DEFAULT_MAX_STEPS, Playouts, playouts
from .signals import FRAMES, HALT, SUSPEND, TRIGGER
from .state import State

STATE_FORMAT = "rulekit-state"
STATE_VERSION = 1
EVENT_TEXTS_KEPT = 200_000  # a bound on the memo of event texts, for a game played for days


class Game:
    """OpenSpiel-shaped: `new_initial_state`, `num_players`, `num_distinct_actions`, ...

    Built from the core IR of one configuration (`rulekit.lower.Config`); get one with
    `rulekit.load` or `Spec.engine`, which compile each configuration once. The engine publishes
    where things are in a state (`layout`), how action ids are numbered (`action_table`, `choices`)
    and the compiled program, so that other backends never read its internals.
    """

    def __init__(self, config: Config, spec=None, probes: bool = False):
        self.config = config
        self.spec = spec  # the pipeline it was compiled from (`rulekit.Spec`), when there is one
        self.model: m.Game = config.source
        self.options = dict(config.options)
        self.digest = digest = spec.digest if spec is not None else ""
        self._players = players = config.players
        self._event_texts: dict = {}  # (log entry, seat) -> its text: a perfect-recall observation rereads the whole log
        # With `probes`, the build that `rulekit check` plays: it records in `probe_hits` the silent-case
        # sites (`probe_sites`, see `lower.sites`) where the language's default decided, and the branches
        # of an `if` taken (`lower.branches`).
        self.probe_sites = [*sites.of(config), *branches.of(config)] if probes else []
        self.probe_hits = triggermemo.Hits()  # a set of sites; clearing it moves its epoch on
        # The rule error of a set-up that fails before any chance event: every start fails alike, so
        # later starts raise it at once instead of running the rules again (a million steps, perhaps).
        self.set_up_failure: Exception | None = None
        self.probe_decisions = {site.node.point: i for i, site in enumerate(self.probe_sites) if site.decision}
        codegen = Codegen(config, self.probe_sites if probes else None)
        self.layout: Layout = config.layout
        source, consts, flow_size = codegen.module()
        namespace = {name: getattr(runtime, name) for name in runtime.__all_helpers__}
        namespace.update(SUSPEND=SUSPEND, FRAMES=FRAMES, HALT=HALT, TRIGGER=TRIGGER)
        namespace.update(consts)
        if probes:
            namespace.update(HITS=self.probe_hits, the_tie=probes_runtime.the_tie, best_tie=probes_runtime.best_tie)
        try:
            pycode.run(source, f"<rulekit:{self.model.name}:{players}>", namespace)
        except SyntaxError as exc:  # Python's own limits, such as 20 nested blocks
            raise RuleRuntimeError(f"the spec is too deeply nested for the engine ({exc.msg}); "
                                   "move part of it into a procedure", self.model.flow.span) from None
        self.program = Program(source, namespace, flow_size, len(codegen.instrs), codegen.origins,
                               tuple(codegen.action_scopes))
        self.triggers = namespace["TRIGGERS"]
        self.fire_triggers = namespace["FIRE"]  # FIRE(state): start the first trigger due, if any
        self.action_table: ActionTable = config.actions
        self.choices = config.choices
        self.decision_prefixes = decision_prefixes(self.model)  # names that tell alike decisions apart
        self.kind_names = [c.name for c in self.model.components]
        self.zone_is_set = [d.shape == "set" for d in self.layout.zone_decl]
        self.facts = dict(config.facts)
        initial = [[] for _ in self.layout.zone_names]
        start = next((self.layout.zone_base[z.name] for z in self.model.zones if z.initial), None)
        if start is not None:
            for kind, count in enumerate(config.component_counts):
                initial[start].extend([kind] * count)
        self.initial_zones = initial
        self.component_count_list = config.component_counts
        values = [0] * self.layout.nvars
        for v in self.model.vars:
            base = self.layout.var_base[v.name]
            for p in range(players if v.per_player else 1):
                values[base + p] = config.initial_values[v.name]
        for name, total in config.supplies.items():
            values[self.layout.supply_slot[name]] = total
        if self.layout.order_slot is not None:  # the order of play can turn: it starts as the header says
            values[self.layout.order_slot] = 1 if self.model.order == "clockwise" else -1
        self.initial_values = values
        self.key = (self.model.name, digest, players, tuple(sorted(self.options.items())))
        self._var_seen_by = self._variable_visibility()
        self._var_domains = self._variable_domains()
        self._internal_slots = {self.layout.var_base[v.name] + p for v in self.model.vars if v.visibility == "internal"
                                for p in range(players if v.per_player else 1)}
        self._properties = [(p, namespace[f"PROP{i}"]) for i, p in enumerate(config.game.properties)]
        self._claims = [(c, namespace[f"CLAIM{i}"]) for i, c in enumerate(config.game.claims)]

    def _variable_visibility(self) -> list[int | None]:
        """Per variable slot: None when everyone sees it, else the only seat that does (-1: nobody)."""
        seen_by: list[int | None] = [None] * self.layout.nvars
        for v in self.model.vars:
            if v.visibility != "public":
                base = self.layout.var_base[v.name]
                for p in range(self._players if v.per_player else 1):
                    seen_by[base + p] = p if v.per_player and v.visibility == "owner" else -1
        return seen_by

    def _variable_domains(self) -> list[str]:
        """Per variable slot, how its value reads (see `describe_value`); tokens and the order are ints."""
        domains = ["int"] * self.layout.nvars
        for v in self.model.vars:
            t = v.type
            domain = {"card": "card", "player": "player", "bool": "bool", "enum": f"enum:{t.enum}"}.get(t.kind, "int")
            if t.kind == "pos":
                domain = f"pos:{t.enum}:{self.config.board_sizes[t.enum][1]}"
            base = self.layout.var_base[v.name]
            for p in range(self._players if v.per_player else 1):
                domains[base + p] = domain
        if self.layout.order_slot is not None:
            domains[self.layout.order_slot] = "order"
        return domains

    def variable_value(self, slot: int, value: int):
        """A variable's value as the observation shows it: a card, an enum member or a position by its name,
        a truth value as a bool, a player as a seat number ("none" for no player), the order of play as
        "clockwise" or "counterclockwise", numbers as they are."""
        domain = self._var_domains[slot]
        if domain == "int":
            return value
        if domain == "bool":
            return bool(value)
        if domain == "player":
            return "none" if value < 0 else value
        if domain == "order":
            return "clockwise" if value > 0 else "counterclockwise"
        return self.describe_value(domain, value)

    def variable_internal(self, slot: int) -> bool:
        """Bookkeeping for the checks (declared `internal`): hidden from every player, kept out of views."""
        return slot in self._internal_slots

    def variable_visible(self, slot: int, player: int) -> bool:
        """Whether `player` may see variable slot `slot` (see `variable_names`)."""
        seen_by = self._var_seen_by[slot]
        return seen_by is None or seen_by == player

    def variable_public(self, slot: int) -> bool:
        return self._var_seen_by[slot] is None

    def properties(self, kind: str) -> list:
        """The spec's invariants or reachability targets, each as (declaration, test of a state)."""
        return [(p, test) for p, test in self._properties if p.kind == kind]

    def violated_invariants(self, state: State) -> list:
        return [p for p, test in self._properties if p.kind == "invariant" and not test(state)]

    def compile_expression(self, expr: m.Expr):
        """A resolved expression of this game's model (see `rulekit.expressions`), compiled for this
        configuration as invariants are: a function from a State to the expression's value as an int."""
        codegen = Codegen(self.config)
        source = codegen.ex(lower_expression(self.config, expr))
        namespace = {**self.program.ns, **codegen.consts}  # the expression's own span constants win
        return eval(compile(f"lambda s: int({source})", f"<rulekit:{self.model.name}:expression>", "eval"),  # noqa: S307
                    namespace)

    def claims(self) -> list:
        """The spec's claims about the set-up, each as (declaration, holds in the initial position)."""
        start = object.__new__(State)
        start.z, start.v, start.cur = [list(c) for c in self.initial_zones], list(self.initial_values), 0
        start.game = self
        return [(c, test(start)) for c, test in self._claims]

    # ---- OpenSpiel's Game API
    def num_players(self) -> int:
        return self._players

    def num_distinct_actions(self) -> int:
        return self.action_table.size

    def max_chance_outcomes(self) -> int:
        """A bound on chance outcome ids: card kinds, seats, enum members, positions of a board, or the
        values of a range."""
        enums = max((len(e.members) for e in self.model.enums), default=0)
        positions = max((rows * columns for rows, columns in self.config.board_sizes.values()), default=0)
        return max(len(self.kind_names), self.model.max_players, enums, positions, self.config.max_chance_value + 1, 1)

    def min_utility(self) -> float:
        return float(min(self.model.payoff))

    def max_utility(self) -> float:
        return float(max(self.model.payoff))

    def new_initial_state(self, seed: int | None = None, auto_chance: bool = False, on_round=None) -> State:
        """The start of a game. With `auto_chance`, chance events are drawn from `seed` inside the
        engine (and recorded in the history), so the caller only ever sees player decisions.
        `on_round`, a function of the state, is called each time a round of a `rounds` loop begins.
        A state is stepped by the whole-game code where it covers the rules (see
        `rulekit.engine.stepping`): the same game, until the state becomes the engine's own."""
        if self.set_up_failure is not None:
            raise self.set_up_failure
        # (not in the build that records the silent-case probes: only the engine's code has them)
        if on_round is None and not self.probe_sites and (seed is not None or not auto_chance):
            program = self.stepping if auto_chance else self.stepping_chance
            if program is not None:
                return stepped_state(self, program, seed, auto_chance)
        return State(self, seed, auto_chance, on_round)

    def playouts(self, n: int | None = None, seed: int = 0, policy=None, max_steps: int = DEFAULT_MAX_STEPS,
                 seeds=None, at_end=None) -> Playouts:
        """`n` seeded games to the end, the loop inside the engine: returns, lengths and end kinds
        (see `rulekit.engine.playouts`). Game `i` is the game of seed `seed + i` (or `seeds[i]`) played
        with chance drawn inside and, without `policy`, each decision `random.Random(its seed).choice`
        of the legal actions; `policy(state)` returns the action to take instead; `at_end(i, end)`
        sees the last state of each game that ends: a `State` where the engine played it (always with
        a `policy`), else the whole-game code's record (`direct.Playout`: the zones and variables of a
        State, not its methods), both read by `rulekit.expressions.compile_expression`."""
        return playouts(self, n, seed, policy, max_steps, seeds, at_end)

    @cached_property
    def whole_games(self) -> DirectProgram | None:
        """This configuration compiled for whole games (see `rulekit.engine.direct`), compiled on first
        use; None where that compiler does not cover the rules."""
        return direct_program(self)

    @cached_property
    def state_tests(self):
        """Every invariant and target tested on a state by one compiled function (see
        `rulekit.engine.statetests`), compiled on first use."""
        return state_tests(self)

    @cached_property
    def watched_games(self) -> WatchedProgram | None:
        """The whole-game code with a watcher at each state (see `rulekit.engine.watched`), what the
        sampled checks play in a build with probes; compiled on first use; None where the whole-game
        compiler does not cover the rules."""
        return watched_program(self)

    @cached_property
    def stepping(self) -> SteppingProgram | None:
        """The whole-game code with a stop at each decision (see `rulekit.engine.stepping`), compiled
        on first use; None where it does not cover the rules."""
        return stepping_program(self)

    @cached_property
    def stepping_chance(self) -> SteppingProgram | None:
        """The same, stopping at each chance event too, for a state whose chance the caller gives."""
        return stepping_program(self, chance=True)

    def replay(self, history, seed: int | None = None, auto_chance: bool = False) -> State:
        """The state reached by `history` (chance outcomes included) from the start."""
        state = State(self, seed)
        for action in history:
            state.apply_action(action)
        if auto_chance:
            state.auto = True
            while state.chance is not None:
                state.apply_action(state.sample_chance())
        return state

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def source(self) -> str:
        """The generated Python this game runs as (for the curious and for debugging)."""
        return self.program.source

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.options.items() if v != self.model.default_options()[k]}
        return f"<rulekit game {self.name!r} players={self._players} options={changed}>"

    # ---- where things are in a state
    def zone_index(self, name: str, index: int | tuple | None = None) -> int:
        """Where zone `name` is in a state; `index` is the seat, or the position, of an indexed zone: a
        board's space as its number or as (row, column), counted from 1. A name as `zone_names` lists
        it (`hand[2]`, `down[1,1]`) needs no index."""
        listed = self.layout.zone_names
        if index is None and name in listed:
            return listed.index(name)
        if isinstance(index, tuple):
            spelled = f"{name}[{','.join(str(i) for i in index)}]"
            if spelled not in listed:
                raise KeyError(f"{self.name} has no zone {spelled!r} (a board's spaces are (row, column), from 1)")
            return listed.index(spelled)
        decl = next((z for z in self.model.zones if z.name == name), None)
        if decl is None:
            raise KeyError(f"{self.name} has no zone {name!r}")
        count = self.layout.zone_count[name]
        if decl.indexed != (index is not None) or (index is not None and not 0 <= index < count):
            raise KeyError(f"zone {name!r} is {'indexed: give a seat or position below ' + str(count) if decl.indexed else 'shared: give no index'}")
        return self.layout.zone_base[name] + (index or 0)

    def zone_instances(self) -> list[tuple[str, m.ZoneDecl, int]]:
        """Every zone of a state in order: its name (as `hand[2]`), declaration and owner seat (-1: none)."""
        lay = self.layout
        return list(zip(lay.zone_names, lay.zone_decl, lay.zone_owner))

    def variable_names(self) -> list[str]:
        """Every variable slot of a state in order, tokens included (as `supply(Fear)`, `Fear[1]`)."""
        return list(self.layout.var_names)

    def var_index(self, name: str, player: int | None = None) -> int:
        lay = self.layout
        if name in lay.supply_slot:
            return lay.supply_slot[name] if player is None else lay.held_base[name] + player
        decl = next((v for v in self.model.vars if v.name == name), None)
        if decl is None:
            raise KeyError(f"{self.name} has no variable or token {name!r}")
        if decl.per_player != (player is not None) or (player is not None and not 0 <= player < self._players):
            raise KeyError(f"variable {name!r} is {'per player: give a seat' if decl.per_player else 'shared: give no seat'}")
        return lay.var_base[name] + (player or 0)

    @property
    def component_counts(self) -> dict[str, int]:
        """How many copies of each component this configuration has."""
        return dict(zip(self.kind_names, self.component_count_list))

    # ---- names for people
    def player_name(self, p: int) -> str:
        return phrases.seat(p)

    def describe_value(self, domain: str, value: int) -> str:
        if domain == "card":
            return self.kind_names[value] if 0 <= value < len(self.kind_names) else str(value)
        if domain == "player":
            return self.player_name(value) if value >= 0 else "none"
        if domain == "bool":
            return "yes" if value else "no"
        if domain.startswith("pos:"):
            _, board, columns = domain.split(":")
            row, column = divmod(value, int(columns))
            return f"{board}({row + 1},{column + 1})"
        if domain.startswith("enum:"):
            members = next(e.members for e in self.model.enums if e.name == domain[5:])
            return members[value] if 0 <= value < len(members) else str(value)
        return str(value)

    def describe_action(self, action: int, public: bool = False) -> str:
        """An action id for people; `public`: as the other seats see it, the spec's secret parts hidden."""
        if not 0 <= action < self.action_table.size:
            return f"<unknown action {action}>"
        act, parts = self.action_parts(action, public)
        if public and act.secret:
            return "a secret choice"
        if len(act.binders) == 1 and act.name == act.binders[0].name:
            text = parts[0]
        else:
            text = f"{act.name}({', '.join(parts)})" if parts else act.name
        prefix = self.decision_prefixes.get(self.action_table.owner(action)[0])
        return f"{prefix}: {text}" if prefix else text

    def action_is_secret(self, action: int) -> bool:
        """Whether the other seats see less of this decision than the one who takes it."""
        point, ai, _, _ = self.action_table[action]
        act = self.choices[point].actions[ai]
        return act.secret or bool(act.secret_params)

    def action_parts(self, action: int, public: bool = False) -> tuple[m.Action, list[str]]:
        """The action of a legal action id, and each of its parameters as `name=value`; `public`:
        a secret parameter reads `?` (or `a card`)."""
        point, ai, combo, shown = self.action_table[action]
        act = self.choices[point].actions[ai]
        parts = []
        for b, index, name in zip(act.binders, combo, shown):
            it = b.iter
            if public and b.name in act.secret_params:
                text = "a card" if isinstance(it, (core.CardsIn, core.CardsInEvery, core.CardsOf)) else "a set of cards" if isinstance(it, core.SubsetsOf) else "?"
            elif name is not None:
                text = name
            elif isinstance(it, (core.CardsIn, core.CardsInEvery, core.CardsOf)):
                text = self.describe_value("card", index)
            elif isinstance(it, core.Seats):
                text = self.player_name(index)
            elif isinstance(it, core.Members):
                text = self.describe_value(f"enum:{it.enum}", index)
            elif isinstance(it, core.Positions):
                text = self.describe_value(f"pos:{it.board}:{self.config.board_sizes[it.board][1]}", index)
            elif isinstance(it, core.SubsetsOf):
                bag = subsets.from_index(index, [max(0, c) for c in self.component_count_list])
                text = "{" + ", ".join(self.kind_names[k] for k in bag) + "}"
            else:
                text = f"#{index}"
            parts.append(f"{b.name}={text}")
        return act, parts

    def action_label(self, action: int) -> str | None:
        point, ai, _, _ = self.action_table[action]
        return self.choices[point].actions[ai].label

    # ---- observations
    def zone_visible(self, zone: int, player: int) -> bool:
        """Whether `player` sees the cards of zone instance `zone` (see `zone_instances`)."""
        vis = self.layout.zone_decl[zone].visibility
        return vis == "public" or (vis == "owner" and self.layout.zone_owner[zone] == player)

    _visible = zone_visible

    def decision_text(self, actor: int, action: int, player: int) -> str:
        """A decision as seat `player` observes it: in full for its taker or a public decision."""
        return f"{self.player_name(actor)}: {self.describe_action(action, public=player != actor)}"

    def event_text(self, entry: tuple, player: int) -> str:
        """One entry of a state's log (`State.events`) as seat `player` observes it."""
        return self._event(entry, player)

    def _event(self, entry: tuple, player: int) -> str:
        key = (entry, player)
        try:
            return self._event_texts[key]
        except KeyError:
            text = self._describe_event(entry, player)
            if len(self._event_texts) < EVENT_TEXTS_KEPT:
                self._event_texts[key] = text
            return text
        except TypeError:  # an entry that holds a list
            return self._describe_event(entry, player)

    def _describe_event(self, entry: tuple, player: int) -> str:
        names, kinds = self.layout.zone_names, self.kind_names
        if entry[0] == "act":
            return self.decision_text(entry[1], entry[2], player)
        if entry[0] == "rotate":
            _, base, count, shift = entry
            family = names[base].split("[")[0]
            return f"{family} passed {shift:+d} seat(s)"
        if entry[0] == "reveal":
            _, zone, cards, to = entry
            if to == -1 or to == player:
                return f"{names[zone]} revealed{'' if to == -1 else ' to ' + self.player_name(to)}: " + (
                    ", ".join(kinds[k] for k in cards) or "(empty)")
            return f"{names[zone]} revealed to {self.player_name(to)}"
        if entry[0] == "show":
            _, zone, kind, to = entry
            if to == -1 or to == player or self._visible(zone, player):
                return f"{kinds[kind]} in {names[zone]} revealed{'' if to == -1 else ' to ' + self.player_name(to)}"
            return f"a card in {names[zone]} revealed to {self.player_name(to)}"
        if entry[0] == "say":
            _, speaker, value, domain = entry
            return f"{self.player_name(speaker)} announces: {self.describe_value(domain, value)}"
        src, dst, kind = entry
        seen = self._visible(src, player) or self._visible(dst, player)
        return f"{kinds[kind] if seen else 'a card'}: {names[src]} -> {names[dst]}"

    def observe(self, state: State, player: int) -> dict:
        """What `player` may see: visible zones card by card ("?" where a shuffled stack's order is
        not decided yet), hidden zones as a count, every variable, and this turn's events."""
        zones = {}
        for i, name in enumerate(self.layout.zone_names):
            if self._visible(i, player):
                cards = [self.kind_names[k] for k in state.z[i]]
                lo, hi = state.lo[i], state.hi[i]
                if hi > lo:
                    cards[lo:hi] = ["?"] * (hi - lo)
                zones[name] = cards
            else:
                zones[name] = len(state.z[i])
        return {
            "player": player,
            "turn": state.cur,
            "to_move": state.to_move,
            "zones": zones,
            # a variable the player may not see reads None; cards and enum members read by name; the checks'
            # bookkeeping (`internal`) is no part of the game a player sees
            "vars": {name: self.variable_value(i, value) if self.variable_visible(i, player) else None
                     for i, (name, value) in enumerate(zip(self.layout.var_names, state.v))
                     if i not in self._internal_slots},
            "events": [self._event(e, player) for e in state.log[state.turn_start:]],
            # cards the player knows to be in zones they cannot see (shown to them, or seen going in)
            "known": {self.layout.zone_names[z]: sorted(self.kind_names[k] for k in cards.elements())
                      for z, cards in sorted(knowledge(self, state, player).items())},
            "terminal": state.over,
        }

    def known_text(self, obs: dict) -> list[str]:
        """The "known to you" lines of an observation."""
        return [f"  known to you: {zone}: {', '.join(cards)}" for zone, cards in obs["known"].items()]

    def seat_events(self, state: State, player: int, since: int = 0) -> list[str]:
        """What happened from log position `since` on, as seat `player` may be told it: the others'
        decisions in their public form, the moves and announcements, and "you saw: ..." for what the
        rules showed this seat."""
        names = self.layout.zone_names
        out = []
        for entry in state.log[since:]:
            if entry[0] == "reveal" and entry[3] in (-1, player):
                out.append(f"you saw: {names[entry[1]]}: {', '.join(self.kind_names[k] for k in entry[2]) or '(empty)'}")
            elif entry[0] == "show" and entry[3] in (-1, player):
                out.append(f"you saw: {self.kind_names[entry[2]]} in {names[entry[1]]}")
            elif not (entry[0] == "act" and entry[1] == player):  # one's own decisions need no telling
                out.append(self._event(entry, player))
        return out

    def _view_lines(self, obs: dict) -> list[str]:
        """What a player sees, for people: non-empty zones, each board as a grid, the variables."""
        lines = [f"you are {self.player_name(obs['player'])}; "
                 + ("the game is over" if obs.get("terminal") else f"turn of {self.player_name(obs['turn'])}")]
        for name, decl, _ in self.zone_instances():
            content = obs["zones"][name]
            if decl.per_board is None and content:
                lines.append(f"  {name}: " + (", ".join(content) if isinstance(content, list)
                                              else f"{content} hidden card(s)"))
        for board, (rows, columns) in self.config.board_sizes.items():
            families = [z.name for z in self.model.zones if z.per_board == board]
            cells = []
            for r in range(1, rows + 1):
                for c in range(1, columns + 1):
                    parts = []
                    for family in families:
                        content = obs["zones"][f"{family}[{r},{c}]"]
                        parts += content if isinstance(content, list) else ["?"] * content
                    cells.append("/".join(parts) or ".")
            width = max(len(cell) for cell in cells)
            lines.append(f"  {board} (? is a card you cannot see, . an empty place):")
            lines.append(("       " + " ".join(f"{c:<{width}}" for c in range(1, columns + 1))).rstrip())
            for r in range(rows):
                row = " ".join(f"{cell:<{width}}" for cell in cells[r * columns:(r + 1) * columns])
                lines.append(f"    {r + 1:>2} {row}".rstrip())
        lines.append("  " + ", ".join(f"{k}={self._show_value(k, v)}" for k, v in obs["vars"].items()))
        return lines + self.known_text(obs)

    def variable_text(self, slot: int, value: int) -> str:
        """A variable slot's raw value for people, as observation strings show it: "P2", "hearts", "yes"."""
        return self._show_value(self.layout.var_names[slot], self.variable_value(slot, value))

    def _show_value(self, slot: str, value) -> str:
        """A value of the observation (`variable_value`) for people."""
        if value is None:
            return "?"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, str):
            return value
        decl = next((v for v in self.model.vars if v.name == slot.split("[")[0]), None)
        if decl is not None and decl.type.kind == "enum":
            return self.describe_value(f"enum:{decl.type.enum}", value)
        if decl is not None and decl.type.kind == "player":
            return self.player_name(value)
        if decl is not None and decl.type.kind == "bool":
            return "yes" if value else "no"
        if decl is not None and decl.type.kind == "card":
            return self.describe_value("card", value)
        if decl is not None and decl.type.kind == "pos":
            return self.describe_value(f"pos:{decl.type.enum}:{self.config.board_sizes[decl.type.enum][1]}", value)
        return str(value)

    def observation_text(self, state: State, player: int) -> str:
        obs = self.observe(state, player)
        return "\n".join(self._view_lines(obs) + [f"  > {e}" for e in obs["events"]])

    def information_text(self, state: State, player: int) -> str:
        obs = self.observe(state, player)
        return "\n".join(self._view_lines(obs) + [f"  > {self._event(e, player)}" for e in state.log])

    def describe_state(self, state: State) -> str:
        lines = [f"{self.name}: turn of {self.player_name(state.cur)}, "
                 + ("over" if state.over else "chance" if state.chance is not None else f"{self.player_name(state.to_move)} to move")]
        for i, name in enumerate(self.layout.zone_names):
            block = f" (undetermined {state.lo[i]}..{state.hi[i]})" if state.hi[i] > state.lo[i] else ""
            lines.append(f"  {name}: {', '.join(self.kind_names[k] for k in state.z[i]) or '-'}{block}")
        lines.append("  " + ", ".join(f"{k}={v}" for k, v in zip(self.layout.var_names, state.v)))
        return "\n".join(lines)

    # ---- serialization
    def serialize(self, state: State) -> str:
        return json.dumps({
            "format": STATE_FORMAT, "version": STATE_VERSION, "game": self.name, "spec": self.digest,
            "players": self._players, "options": self.options, "seed": state.seed, "auto_chance": state.auto,
            "history": state.history, "digest": state.digest(),
        })

    def state_from_json(self, text: str) -> State:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, TypeError) as exc:
            raise StateFormatError(f"the state is not valid JSON (truncated?): {exc}") from None
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise StateFormatError("this is not a rulekit state (no \"format\": \"rulekit-state\")")
        if data.get("version") != STATE_VERSION:
            raise StateFormatError(f"state version {data.get('version')!r} is not supported (expected {STATE_VERSION})")
        expected = {"game": self.name, "spec": self.digest, "players": self._players, "options": self.options}
        for key, want in expected.items():
            if data.get(key) != want:
                raise StateFormatError(_mismatch(key, data.get(key), want))
        history, seed = data.get("history"), data.get("seed")
        if not isinstance(history, list) or not all(type(a) is int for a in history):
            raise StateFormatError("\"history\" must be a list of integer actions")
        if seed is not None and type(seed) is not int:
            raise StateFormatError("\"seed\" must be an integer or null")
        auto = data.get("auto_chance", False)
        if type(auto) is not bool or (auto and seed is None):
            raise StateFormatError("\"auto_chance\" must be true or false, and true only with a seed")
        state = State(self, seed)
        for step, action in enumerate(history):
            try:
                state.apply_action(action)
            except IllegalActionError:
                raise StateFormatError(f"step {step}: action {action} is not legal there; the state was altered") from None
        if auto:
            state.auto = True
            if state.chance is not None:
                raise StateFormatError("the history stops at a chance event, which auto_chance never does; "
                                       "the state was altered")
        if data.get("digest") != state.digest():
            raise StateFormatError("the state's digest does not match its content; the state was altered")
        return state


def _mismatch(key: str, got, want) -> str:
    """Why a saved state does not fit this game, said of the part that differs."""
    if key == "players":
        return f"the state is of a game for {got!r} players, but this game has {want!r}"
    if key == "spec":
        return "the state was saved from another version of the spec (its digest differs); replay its actions instead"
    if key == "options":
        return f"the state was saved under the options {got!r}, but this game has {want!r}"
    return f"the state is of the game {got!r}, but this game is {want!r}"
