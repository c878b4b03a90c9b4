"""Small random games, as a Hypothesis strategy: the text of a spec built from a pool of statements
that covers the control of the whole language (turns, `then`, `end turn`, triggers and `check
triggers`, functions, `reverse order`, `rotate`, `players from`, chance from a die and from a
shuffled deck, tokens passed and capped, actions with binders and `when` clauses). Every game ends: a
counter of turns ends it. The pool avoids what the engine refuses (a value out of its range, a card
from an empty deck), so that the games run long."""
from __future__ import annotations

from hypothesis import strategies as st

HEADER = """
game fz "Fuzz"
rulebook "rulebook.txt" source "fz.txt"
players 2 to {max_players}
unmodelled "Tiny Game." "Each player draws one card." "The player with the Ace wins." because "Test."
enum Colour {{ red, blue }}
card A x {a} {{ colour = red, value = 1 }}
card B x {b} {{ colour = blue, value = 2 }}
card C x {c} {{ colour = red, value = 3 }}
zone box: set, public, initial
zone deck: stack, hidden
zone pile: set, public
zone hand per player: set, owner
board grid: 2 by 2
zone spot per grid: set, public
token Coin x {coins}{cap}
var steps: int 0..{turns} = 0
var score per player: int 0..9 = 0
var flag: bool = false
var mark: player = none
var level: int 0..5 = {level}
define rich(p: player): bool = Coin(p) >= 2
procedure best: player {{
  let found = none
  for p in players {{ if found == none or score(p) > score(found) {{ set found = p }} }}
  return found
}}
procedure total(p: player): int {{
  let t = 0
  for c in hand(p) {{ set t = t + c.value }}
  return t
}}
procedure chain(p: player) {{
  if size(hand(p)) > 0 {{
    choose by p {{
      action again(c in hand(p)) "Again." {{
        move c from hand(p) to pile
        do chain(p)
      }}
      action enough "Enough." {{ }}
    }}
  }}
}}
procedure offer(p: player) {{
  if size(hand(p)) > 0 {{
    choose by p {{
      action keep "Keep." {{ }}
      action toss(c in hand(p)) "Toss." {{ move c from hand(p) to pile }}
    }}
  }}
}}
"""

TRIGGERS = ["""
trigger bonus when level >= 4 and not flag {
  set flag = true
  take 1 Coin by current
}
""", """
trigger windfall once when Coin(current) >= 3 {
  choose by current {
    action cash "Cash in." { return 2 Coin by current  if score(current) < 9 { add 1 to score(current) } }
    action hold "Hold." { }
  }
}
""", """
trigger streak when (rich(current) and level >= 3) or (rich(current) and flag)
                    or (level == 1 and forall(q in players: rich(q) or score(q) > score(current))) {
  set flag = not flag
}
"""]

STATEMENTS = [
    "if level < 5 { add 1 to level }",
    "if level > 0 { subtract 1 from level }",
    "if size(deck) > 0 { move top from deck to hand(current) }",
    "take 1 Coin by current",
    "return 1 Coin by current",
    "move 2 Coin from next(current) to current",
    "set flag = not flag",
    "set mark = next(current)",
    "set mark = best",
    "reverse order",
    "if score(current) < 9 { add 1 to score(current) }",
    "random d in 1..3\n if level + d <= 5 { add d to level }",
    "rotate hand to next",
    "if flag { end turn }",
    "if mark != none and score(mark) < 9 { add 1 to score(mark) }",
    "move all from pile to deck\n shuffle deck",
    "for q in players from next(current) { if Coin(q) > 0 and score(q) < 9 { add 1 to score(q) } }",
    "if total(current) > 3 and level < 5 { add 1 to level }",
    "let x = size(hand(current))\n if x > 2 and level < 5 { add 1 to level }",
    "if exists(c in hand(current) where c.colour == blue) and score(current) < 9 { add 1 to score(current) }",
    "do offer(current)",
    "do offer(next(current))",
    "if size(hand(next(current))) > 0 {\n random c in hand(next(current))\n move c from hand(next(current)) to hand(current)\n }",
    "if exists(c in hand(current) where c.colour == red) { move one c where c.colour == red from hand(current) to pile }",
    "set mark = argmax(p in players: score(p))",
    "if mark != none { set mark = the(p in players where p == mark) }",
    "let before = score(current)\n do offer(current)\n if score(current) == before and level < 5 { add 1 to level }",
    "if size(pile) > 2 { win current  end game }",
    "announce level by current",
    "for i in 1..level { if score(current) < 9 { add 1 to score(current) } }",
    "move all c where c.colour == red from hand(current) to pile",
    "random q in players\n set mark = q",
    "if size(pile) > 0 {\n random c in pile\n move c from pile to hand(current)\n }",
    "do chain(current)",
    "while size(deck) > 0 and size(hand(current)) < 3 { move top from deck to hand(current) }",
    'loop {\n choose by current {\n action more "More." { if level < 5 { add 1 to level } }\n'
    ' action done "Done." { break }\n }\n if level >= 5 { break }\n }',
    "if size(hand(current)) > 1 { win current  win next(current)  end game }",
    "if exists(x in grid where size(spot(x)) == 0) and size(hand(current)) > 0 {\n"
    " let x = the(y in grid where size(spot(y)) == 0)\n move one c where true from hand(current) to spot(x)\n }",
    "if count(x in grid where size(spot(x)) > 0) >= 3 and score(current) < 9 { add 1 to score(current) }",
    "set level = max(0, min(5, level + (if flag then 1 else -1)))",
    "set level = (level + 2) % 6",
    "set mark = argmin(p in players: Coin(p))",
    "if exists(x in grid where exists(y in grid where adjacent(x, y) and size(spot(x)) > 0 and size(spot(y)) > 0))"
    " and level < 5 { add 1 to level }",
    "for x in grid { if size(spot(x)) > 1 { move all from spot(x) to pile } }",
]

ACTIONS = [
    'action place(x in grid) when size(spot(x)) == 0 and size(hand(current)) > 0 "Place." '
    '{{ move one c where true from hand(current) to spot(x) {body} }}',
    'action bid(n in 1..3 where n <= level) "Bid." {{ if score(current) + n <= 9 {{ add n to score(current) }} {body} }}',
    'action shift(d in {{-1, 1}}) "Shift." {{ if level + d >= 0 and level + d <= 5 {{ add d to level }} {body} }}',
    'action paint(k in Colour) "Paint." {{ set flag = k == red {body} }}',
    'action stop "Stop." {{ {body}  end turn }}',
    'action play(c in hand(current)) "Play." {{ move c from hand(current) to pile {body} }}',
    'action draw when size(deck) > 0 "Draw." {{ move top from deck to hand(current) {body} }}',
    'action give(q in players where q != current) when Coin(current) > 0 "Give." {{ move 1 Coin from current to q {body} }}',
    'action bump when rich(current) "Bump." {{ {body} }}',
    'action red(c in hand(current) where c.colour == red) "Red." {{ move c from hand(current) to pile {body} }}',
]

ENDS = [
    "if score(current) >= 9 { win current  end game }",
    "if size(deck) == 0 and size(hand(current)) == 0 { win current  end game }",
    "if Coin(current) >= 5 { win current  end game }",
]


def _block(draw, most: int) -> str:
    picked = draw(st.lists(st.sampled_from(STATEMENTS), max_size=most))
    return "\n".join(picked)


@st.composite
def random_specs(draw) -> str:
    """The text of a small game that ends, built from the pools above."""
    cap = draw(st.sampled_from(["", " cap 4", " cap 6"]))
    turns = draw(st.integers(4, 14))
    head = HEADER.format(max_players=draw(st.integers(2, 3)), a=draw(st.integers(1, 3)), b=draw(st.integers(1, 3)),
                         c=draw(st.integers(0, 2)), coins=draw(st.integers(4, 12)), cap=cap, turns=turns,
                         level=draw(st.integers(0, 5)))
    triggers = draw(st.lists(st.sampled_from(TRIGGERS), max_size=2, unique=True))
    actions = ['action pass "Pass." {{ {body} }}'.format(body=_block(draw, 2))]
    for template in draw(st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=3, unique=True)):
        actions.append(template.format(body=_block(draw, 3)))
    deal = draw(st.integers(0, 2))
    before, after = _block(draw, 2), _block(draw, 2)
    checks = "\n check triggers" if triggers and draw(st.booleans()) else ""
    ends = "\n".join(draw(st.lists(st.sampled_from(ENDS), max_size=2, unique=True)))
    deal_lines = f"""  move all from box to deck
  shuffle deck
  for p in players {{ for i in 1..{deal} {{ if size(deck) > 0 {{ move top from deck to hand(p) }} }} }}"""
    if draw(st.booleans()):  # rounds of a `for` around the decisions, its seat kept over each of them
        flow = f"""
flow {{
{deal_lines}
  rounds {{
    if steps >= {turns} {{ end game }}
    add 1 to steps
    {before.replace("end turn", "end round")}
    for p in players from next(argmax(q in players: score(q))) {{
      choose by p {{
        {chr(10).join(a.replace("current", "p").replace("end turn", "end round") for a in actions)}
      }}{checks}
      if score(p) >= 9 {{ win p  end game }}
      if size(pile) > 4 {{ end round }}
    }}
    {after.replace("current", "seat(0)").replace("end turn", "end round")}
  }}
}}
"""
        return head + "".join(triggers) + flow
    flow = f"""
flow {{
{deal_lines}
  turns from seat(0) {{
    {before}
    choose by current {{
      {chr(10).join(actions)}
    }}{checks}
    {after}
  }} then {{
    if steps >= {turns} {{ end game }}
    add 1 to steps
    {ends}
  }}
}}
"""
    return head + "".join(triggers) + flow


CLAIMS = [
    "level <= {k}",
    "size(pile) <= {k}",
    "steps <= {k}",
    "Coin(current) <= {k}",
    "score(current) <= {k}",
    "count(p in players where score(p) > 0) <= {k}",
    "mark == none or score(mark) <= {k}",
    "count(c in every hand where c.colour == blue) <= {k}",
    "supply(Coin) + sum(p in players: Coin(p)) >= {k}",
    "not flag or level >= {k}",
]


@st.composite
def claimed_specs(draw) -> tuple[str, list[str]]:
    """A random game with a few invariants it may or may not keep, and their names."""
    text = draw(random_specs())
    claims = draw(st.lists(st.sampled_from(CLAIMS), min_size=1, max_size=4, unique=True))
    lines = [f"invariant claim{i}: " + c.format(k=draw(st.integers(0, 6))) for i, c in enumerate(claims)]
    return text + "\n".join(lines) + "\n", [f"claim{i}" for i in range(len(claims))]


@st.composite
def targeted_specs(draw) -> str:
    """A random game with a few invariants and a few reachability targets (each the negation of a claim)."""
    text, _ = draw(claimed_specs())
    targets = draw(st.lists(st.sampled_from(CLAIMS), min_size=1, max_size=3, unique=True))
    k = draw(st.integers(0, 6))
    return text + "".join(f"reachable goal{i}: not ({t.format(k=k)})\n" for i, t in enumerate(targets))
