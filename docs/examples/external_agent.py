"""An external agent for ``ohmygoods evaluate "exec:python3 external_agent.py"``: JSON lines only.

It imports nothing from ohmygoods, so the same rules could be written in any language. It reads
the ``hello`` line (the table of action ids by name), then answers every ``act`` line with one
legal action id: it prefers building, pays for it, produces, otherwise takes the first legal
action that does not pass, and never moves an assistant (each move costs 2 coins, R5.3).
Protocol: docs/evaluation.md, *External agents*.
"""

import json
import sys

# most wanted first; an action of a name missing from this list counts after all of them
PREFERENCE = (
    "build",
    "pay",
    "set aside",
    "produce",
    "chain with goods",
    "chain with hand card",
    "hire",
    "place assistant",
    "place worker",
    "keep hand",
)
PASSING = ("do not build", "hire nobody", "set aside nothing", "stop chain", "production done", "moves done")
AVOID = ("move assistant", "discard hand")


def main() -> None:
    rank = {}  # action id -> (preference, id)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            for name, (start, stop) in message["action_ranges"].items():
                if name in PREFERENCE:
                    order = PREFERENCE.index(name)
                elif name in PASSING:
                    order = len(PREFERENCE) + 1
                elif name in AVOID:
                    order = len(PREFERENCE) + 2
                else:
                    order = len(PREFERENCE)
                for a in range(start, stop):
                    rank[a] = (order, a)
            continue
        action = min(message["legal"], key=lambda a: rank.get(a, (len(PREFERENCE), a)))
        print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main()
