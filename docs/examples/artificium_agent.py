"""An external *Artificium* agent for ``ohmygoods evaluate --game artificium "exec:python3 artificium_agent.py"``.

JSON lines only: it imports nothing from ohmygoods, so the same rules could be written in any
language. It reads the ``hello`` line (its seat, the player count and the table of action ids
by name), then answers every ``act`` line with one legal action id: it applies a revealed card
when it can (A4.4: the card's VP), plays a card rather than anything else, passes at the card
market at once, sends the Knight against another seat (never its own), discards a card it
cannot apply and stays in, and buys or sells only when nothing else is legal.
Protocol: docs/evaluation.md, *External agents*.
"""

import json
import sys

# most wanted first; an action of a name missing from this list counts after all of them
PREFERENCE = (
    "apply",
    "choose card",
    "market pass",
    "round end done",
    "Knight target",
    "Theft target x resource",
    "Scouting target",
    "Reconstruction card",
    "Mage discard",
    "round-end discard",
)
LAST = ("discard card, stay in", "buy", "sell", "take back, out for the round")


def main() -> None:
    rank = {}  # action id -> (preference, id)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            assert message["game"] == "artificium", message["game"]
            for name, (start, stop) in message["action_ranges"].items():
                if name in PREFERENCE:
                    order = PREFERENCE.index(name)
                elif name in LAST:
                    order = len(PREFERENCE) + 1 + LAST.index(name)
                else:
                    order = len(PREFERENCE)
                for a in range(start, stop):
                    rank[a] = (order, a)
            knight = message["action_ranges"]["Knight target"][0]  # + seat offset; offset 0 is the agent itself
            rank[knight] = (len(PREFERENCE) + 1 + len(LAST), knight)
            continue
        action = min(message["legal"], key=lambda a: rank.get(a, (len(PREFERENCE), a)))
        print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main()
