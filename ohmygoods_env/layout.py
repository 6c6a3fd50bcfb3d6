"""Fixed shapes and index tables: the state row, action ids and observation vector.

Everything here is a plain integer constant so that the numba kernels in
:mod:`ohmygoods_env.core` compile them in. The human-readable tables are in
``docs/layouts.md`` and in :mod:`ohmygoods_env.actions`.

State row
---------
A game is one ``int32`` row of length ``STATE_LEN`` (a batch is ``int32[B, STATE_LEN]``).
Fields are named ``F_*``; per-player blocks are ``[MAX_PLAYERS]`` or
``[MAX_PLAYERS * MAX_SLOTS]`` (index ``p * MAX_SLOTS + s``). Every deck card's place is
``F_LOC + card`` (``L_*`` codes below); the deck order is ``F_DECK[0:F_DECK_N]`` with the top
card last. The per-game RNG is ``F_RNG`` (64 bits of xorshift64 state in two int32 words,
seeded by ``core.seed_rng``).
"""

from __future__ import annotations

from .cards import N_ASSISTANT_CARDS, N_COLOURS, N_DECK, N_GOODS, N_RES
from .framework.registry import Ranges, append_range
from .rules import MAX_PLAYERS as MAX_PLAYERS  # per-player blocks are sized by the rules' largest table

#: Version of the action/observation layout; env ids end in ``-v{LAYOUT_VERSION}``.
LAYOUT_VERSION = 2

#: Buildings a player can own: 8 trigger the end (R8.1); with the rest of that round and
#: one more round at one building per round, nobody can exceed 9.
MAX_SLOTS = 9
N_CARDS = N_DECK
N_ASSIST = N_ASSISTANT_CARDS

# ---------------------------------------------------------------- card locations (F_LOC)
L_DECK = 0
L_DISCARD = 1
L_ROW1 = 2  # market row 1 (sunrise, R5.1)
L_ROW2 = 3  # market row 2 (sunset, R6.1)
L_ESCROW = 4  # goods paid in phase II, discarded at the reveal (hidden until then)
L_LIMBO = 5  # cards discarded for the empty-deck rule (R3.1), become the new deck
L_HAND = 6  # + player
L_ASIDE = L_HAND + MAX_PLAYERS  # + player: set-aside building card (R5.5)
L_BUILT = L_ASIDE + MAX_PLAYERS  # + player: a building in front of the player
L_GOODS = L_BUILT + MAX_PLAYERS  # + player * MAX_SLOTS + slot: a good on a building (R1.3)
N_LOC = L_GOODS + MAX_PLAYERS * MAX_SLOTS

# ---------------------------------------------------------------- phases (F_PH)
PH_ROUND_START = 0
PH_P1_ASK = 1  # phase I decisions (R4.1)
PH_P1_RESOLVE = 2
PH_P1_DRAW = 3  # R4.2, R4.3
PH_SUNRISE = 4  # R5.1
PH_P2 = 5  # phase II decisions (R5.2-R5.5)
PH_P2_REVEAL = 6
PH_SUNSET = 7  # R6.1
PH_P4 = 8  # production and building (R7)
PH_ROUND_END = 9
PH_REFILL = 10  # empty-deck rule (R3.1)
PH_OVER = 11
PHASE_NAMES = (
    "round start",
    "I new hand cards",
    "I resolve",
    "I draw",
    "II sunrise",
    "II decisions",
    "II reveal",
    "III sunset",
    "IV production & building",
    "round end",
    "empty deck: discard half",
    "game over",
)

# sub-steps of a player's turn in PH_P2 / PH_P4 (F_SUB)
SUB_MOVE = 0
SUB_WORKER = 1
SUB_ASIDE = 2
SUB_PROD = 3
SUB_SPEND = 4
SUB_DRAW = 5
SUB_CHAIN = 6
SUB_BUILD = 7
SUB_PAY = 8
SUB_HIRE = 9
SUB_PLACE = 10
SUB_END = 11

# payment purposes (F_PAY_FOR)
PAY_MOVE = 0  # R5.3: 2 coins per assistant move
PAY_BUILD = 1  # R7.10
PAY_HIRE = 2  # R7.12

# variant bits (F_VARIANTS; R10)
V_KEEP_ONE = 1
V_TWO_FOR_ONE = 2

# staff codes (F_STAFF)
STAFF_NONE = 0
STAFF_EFFICIENT = 1
STAFF_SLOPPY = 2
STAFF_ASSISTANT = 3

# ---------------------------------------------------------------- decisions (F_DEC)
D_PHASE1 = 0  # keep or discard the whole hand (R4.1)
D_MOVE = 1  # move an assistant, or done (R5.3)
D_WORKER = 2  # place the worker: slot x mode (R5.4)
D_ASIDE = 3  # set aside a building card, or none (R5.5)
D_PRODUCE = 4  # which staffed building produces next / open a chain (R8.2) / done (R7.6)
D_SPEND = 5  # which hand card supplies a missing resource (R7.1, R7.2, R7.4)
D_CHAIN = 6  # run the chain once (naming the hand card) or stop (R7.7, R7.8)
D_BUILD = 7  # build the set-aside card or not (R7.10, R7.11)
D_PAY = 8  # spend one good from a slot (R7.10, R5.3, R7.12)
D_HIRE = 9  # hire assistant k, or none (R7.12)
D_PLACE = 10  # where the hired assistant goes (R7.12)
D_REFILL = 11  # discard a hand card for the empty-deck rule (R3.1)
D_OVER = 12
N_DECISIONS = 13
DECISION_NAMES = (
    "keep or discard hand",
    "move assistant",
    "place worker",
    "set aside building",
    "produce",
    "spend hand card for resource",
    "run chain",
    "build",
    "pay",
    "hire assistant",
    "place assistant",
    "discard half hand (empty deck)",
    "game over",
)

# ---------------------------------------------------------------- actions
#
# One registry: ``_a(name, size)`` appends a range of ids. ``actions.RANGES`` and the tables in
# the docs are derived from ``ACTION_RANGES``.

_a = Ranges()


A_KEEP = _a("keep hand")
A_DISCARD_HAND = _a("discard hand")
A_MOVE = _a("move assistant", MAX_SLOTS * MAX_SLOTS)  # + from_slot * MAX_SLOTS + to_slot
A_MOVES_DONE = _a("moves done")
A_WORKER = _a("place worker", 2 * MAX_SLOTS)  # + slot * 2 + mode (0 efficient, 1 sloppy)
A_ASIDE = _a("set aside", N_CARDS)  # + card
A_ASIDE_NONE = _a("set aside nothing")
A_PRODUCE = _a("produce", MAX_SLOTS)  # + slot
A_CHAIN_OPEN = _a("open chain", MAX_SLOTS)  # + slot (final round, R8.2)
A_PRODUCTION_DONE = _a("production done")
A_SPEND = _a("spend hand card", N_CARDS)  # + card
A_CHAIN_HAND = _a("chain with hand card", N_CARDS)  # + card
A_CHAIN_GOODS = _a("chain with goods")
A_CHAIN_STOP = _a("stop chain")
A_BUILD = _a("build")
A_NO_BUILD = _a("do not build")
A_PAY = _a("pay", MAX_SLOTS)  # + slot
A_HIRE = _a("hire", N_ASSIST)  # + display position
A_NO_HIRE = _a("hire nobody")
A_PLACE = _a("place assistant", MAX_SLOTS)  # + slot
A_REFILL = _a("discard for new deck", N_CARDS)  # + card
A_KEEP_ONE = _a("discard hand, keep one", N_CARDS)  # + card kept (variant R10.1)
#: "Nothing to decide": the parallel env's action for seats that are not to act. The engine
#: never marks it legal; only that env accepts it.
A_WAIT = _a("wait")
#: the number of actions and (name, first id, size) of every action range, in id order
N_ACTIONS, ACTION_RANGES = _a.close()

# ---------------------------------------------------------------- state fields
_f = Ranges()


F_NP = _f("num_players")
F_ROYAL = _f("royal edition")
F_VARIANTS = _f("variants: bit 0 keep one (R10.1), bit 1 two for one (R10.2)")
F_AUTO = _f("auto-apply forced moves")
F_MAXR = _f("max rounds")
F_RNG = _f("rng state: xorshift64, low and high 32-bit words", 2)
F_PH = _f("phase")
F_SUB = _f("sub-step")
F_DEC = _f("pending decision")
F_CUR = _f("current player")
F_FIRST = _f("active (first) player")
F_TURN = _f("turn index in phase")
F_ROUND = _f("round")
F_TRIGGER = _f("end triggered (R8.1)")
F_FINAL = _f("final round")
F_BLOCKED = _f("draw blocked after empty refill")
F_REF_RET = _f("phase to resume after refill")
F_REF_TURN = _f("refill turn index")
F_PROD_SLOT = _f("producing slot")
F_MISS = _f("missing resources", N_RES)
F_MISS_ANY = _f("missing any (Glassmaker)")
F_HALF = _f("one stand-in hand card spent toward a missing resource (R10.2)")
F_ALLOW = _f("sloppy allowance")
F_OWE_GOODS = _f("goods still to draw")
F_GOODS_MADE = _f("goods drawn this production")
F_CHAIN_SLOT = _f("chain slot")
F_CHAIN_RUNS = _f("chain runs in this opening")
F_CHAIN_SEL = _f("chain opened by R8.2")
F_PAY_DUE = _f("coins still to pay")
F_PAY_FOR = _f("payment purpose")
F_HIRE_K = _f("assistant being hired")
F_STEPS = _f("decisions taken")
F_SUNS = _f("half-suns per market row", 2)
F_ROW_CUT = _f("market row cut short", 2)
F_MKT = _f("market count per row x resource", 2 * N_RES)
F_DECK_N = _f("deck size")
F_LOC = _f("card locations", N_CARDS)
F_DECK = _f("deck order", N_CARDS)
F_NB = _f("buildings per player", MAX_PLAYERS)
F_BLD = _f("building ids", MAX_PLAYERS * MAX_SLOTS)
F_GOODS = _f("goods per slot", MAX_PLAYERS * MAX_SLOTS)
F_STAFF = _f("staff per slot", MAX_PLAYERS * MAX_SLOTS)
F_PRODUCED = _f("produced this turn", MAX_PLAYERS * MAX_SLOTS)
F_ASLOT = _f("assistant display index per slot", MAX_PLAYERS * MAX_SLOTS)
F_ASIDE = _f("set-aside card per player", MAX_PLAYERS)
F_P1 = _f("phase I choice per player", MAX_PLAYERS)
F_HAND0 = _f("hand size at start of phase I", MAX_PLAYERS)
F_OWE = _f("cards owed in phase I", MAX_PLAYERS)
F_REF_OWE = _f("cards owed to the refill", MAX_PLAYERS)
F_SNAP_GOODS = _f("phase II snapshot: goods", MAX_PLAYERS * MAX_SLOTS)
F_SNAP_STAFF = _f("phase II snapshot: staff", MAX_PLAYERS * MAX_SLOTS)
F_SNAP_HAND = _f("phase II snapshot: hand size", MAX_PLAYERS)
F_SNAP_ASIDE = _f("phase II snapshot: has set-aside card", MAX_PLAYERS)
F_A_CARD = _f("assistant card per display position", N_ASSIST)
F_A_SIDE = _f("assistant side per display position", N_ASSIST)
F_A_OWNER = _f("assistant owner (-1 display, -2 out of game)", N_ASSIST)
F_MOVED = _f("phase II: bit s = assistant on slot s already moved by the current player")
#: bit ``c % 16`` of word ``c // 16``: card ``c`` was shown when fed into a chain from a hand
#: (R3.2, R7.7); its identity stays public while it lies face down as a good
F_SHOWN = _f("cards shown when fed into a chain (16 bits per word)", (N_CARDS + 15) // 16)
#: per card: ``1 + player * MAX_SLOTS + slot`` of the building a card in the phase-II escrow was
#: paid from (R5.3), 0 for every card not in the escrow; the seats that saw a shown good there
#: (R3.2, R7.7) still place it on that building until the reveal (``infostate.redact``)
F_PAID_FROM = _f("phase II: building each escrow card was paid from (1 + player * slots + slot)", N_CARDS)
F_SNAP_ASLOT = _f("phase II snapshot: assistant display index per slot", MAX_PLAYERS * MAX_SLOTS)
#: the state row's length and (name, offset, size) of every field, in offset order
STATE_LEN, STATE_FIELDS = _f.close()

# ---------------------------------------------------------------- observation
#
# Every block (and every feature of the per-seat, per-slot and per-assistant records) is
# declared once with its scale (the observation holds ``value / scale``) and its bound: the
# name of the largest raw value it can take (``"one"`` for flags and one-hot entries; the
# others are computed from the card tables and rules by :mod:`ohmygoods_env.spaces`).
# ``core.observe`` reads the scales from the ``SC_*`` constants derived here.

_obs: list[tuple[str, int, int, float, str]] = []


def _o(name: str, n: int, scale: float = 1.0, bound: str = "one") -> int:
    return append_range(_obs, name, n, float(scale), bound)


def _feat(table: list[tuple[str, int, int, float, str]], name: str, n: int = 1, scale: float = 1.0, bound: str = "one"):
    return append_range(table, name, n, float(scale), bound)


def _scale(table: list[tuple[str, int, int, float, str]], off: int) -> float:
    return next(sc for _, o, _, sc, _ in table if o == off)


# per seat (me first)
_pf: list[tuple[str, int, int, float, str]] = []
PF_HAND = _feat(_pf, "hand size", 1, 10.0, "cards")
PF_BUILDINGS = _feat(_pf, "buildings", 1, 9.0, "one")
PF_COINS = _feat(_pf, "coins", 1, 30.0, "money")
PF_ASSISTANTS = _feat(_pf, "assistants", 1, 4.0, "assistants")
PF_VP = _feat(_pf, "VP", 1, 30.0, "score")
PF_ASIDE = _feat(_pf, "has set-aside card")
PF_IN_PLAY = _feat(_pf, "seat in play")
PLAYER_FEATURES = _feat(_pf, "end", 0)
PLAYER_FEATURE_TABLE = tuple(_pf[:-1])

# per seat x slot (building features)
_sf: list[tuple[str, int, int, float, str]] = []
SF_PRESENT = _feat(_sf, "present")
SF_COLOUR = _feat(_sf, "colour one-hot (grain, wood, clay, wool, stone, charburner)", N_COLOURS)
SF_KIND = _feat(_sf, "kind one-hot (production, Glassmaker, Market Office, Extra-card)", 4)
SF_GOOD = _feat(_sf, "good one-hot (order of cards.GOODS)", N_GOODS)
SF_OFFICE = _feat(_sf, "Market-Office resource one-hot", N_RES)
SF_NEEDS = _feat(_sf, "needs per resource", N_RES, 5.0, "need")
SF_NEED_ANY = _feat(_sf, "needs any", 1, 12.0, "need_any")
SF_GOODS = _feat(_sf, "goods count", 1, 10.0, "cards")
SF_VALUE = _feat(_sf, "goods value", 1, 30.0, "money")
SF_STAFF = _feat(_sf, "staff one-hot (efficient worker, sloppy worker, assistant)", 3)
SF_PRODUCED = _feat(_sf, "produced this turn")
SF_VP = _feat(_sf, "VP", 1, 5.0, "vp")
SLOT_FEATURES = _feat(_sf, "end", 0)
SLOT_FEATURE_TABLE = tuple(_sf[:-1])

# per assistant display position
_af: list[tuple[str, int, int, float, str]] = []
AF_DISPLAY = _feat(_af, "on display")
AF_OWNER = _feat(_af, "owner's seat relative to me, one-hot", MAX_PLAYERS)
AF_COST = _feat(_af, "cost", 1, 10.0, "assistant_cost")
AF_VP = _feat(_af, "VP", 1, 5.0, "assistant_vp")
AF_REQ = _feat(_af, "required buildings per colour", N_COLOURS, 3.0, "assistant_req")
ASSIST_FEATURES = _feat(_af, "end", 0)
ASSIST_FEATURE_TABLE = tuple(_af[:-1])

O_DEC = _o("pending decision, one-hot", N_DECISIONS)
O_NP = _o("number of players 1/2/3/4, one-hot", MAX_PLAYERS)
O_ROUND = _o("round", 1, 20.0, "rounds")
#: rounds the game can still last, the current one included: ``F_MAXR - F_ROUND`` (the round
#: limit: solo R10.4, else the R8.4 cap), at most 2 once R8.1 is triggered, 1 in its final
#: round, 0 once the game is over
O_ROUNDS_LEFT = _o("rounds left, this one included (limit R10.4 / R8.4, end R8.1)", 1, 20.0, "rounds")
O_FLAGS = _o("final round, end triggered, royal rules, I am the active player", 4)
O_VARIANTS = _o("variants on: keep one (R10.1), two for one (R10.2)", 2)
O_FIRST = _o("seat of the active player relative to me, one-hot", MAX_PLAYERS)
O_PILES = _o("deck size, discard size", 2, float(N_CARDS), "cards")
O_HAND = _o("my hand, multi-hot by card id", N_CARDS)
O_HANDRES = _o("my hand per resource", N_RES, 5.0, "resource_cards")
O_ASIDE = _o("my set-aside card, one-hot by card id", N_CARDS)
O_DISCARD = _o("public discard pile, multi-hot by card id", N_CARDS)
O_SHOWN = _o("goods whose card was shown when fed into a chain (R3.2, R7.7), multi-hot by card id", N_CARDS)
O_MARKET = _o("market row 1 and row 2 per resource", 2 * N_RES, 5.0, "resource_cards")
O_SUNS = _o("half-suns per market row", 2, 2.0)
O_OFFICE = _o("my Market-Office bonus per resource", N_RES, 1.0, "offices")
O_PEND_SLOT = _o("pending production slot, one-hot", MAX_SLOTS)
O_PEND_MISS = _o("pending missing resources", N_RES, 5.0, "need")
O_PEND_MISS_ANY = _o("pending missing any", 1, 12.0, "need_any")
O_PEND_ALLOW = _o("pending sloppy allowance", 1)
O_PEND_HALF = _o("pending: one stand-in hand card spent (R10.2)", 1)
O_PEND_CHAIN = _o("pending chain slot, one-hot", MAX_SLOTS)
O_PEND_CHAIN_MUST = _o("chain must run", 1)
O_PEND_DUE = _o("coins due", 1, 20.0, "due")
O_PEND_PAY_FOR = _o("payment purpose, one-hot (move, build, hire)", 3)
O_PEND_HIRE = _o("assistant being hired, one-hot", N_ASSIST)
O_PLAYERS = _o("per seat (me first) x player features (below)", MAX_PLAYERS * PLAYER_FEATURES)
O_SLOTS = _o("per seat x slot: building features (below)", MAX_PLAYERS * MAX_SLOTS * SLOT_FEATURES)
O_ASSIST = _o("per assistant display position: features (below)", N_ASSIST * ASSIST_FEATURES)
OBS_DIM = _o("end", 0)
#: (name, offset, size) of every observation block
OBS_BLOCKS: tuple[tuple[str, int, int], ...] = tuple((n, o, k) for n, o, k, _, _ in _obs[:-1])
#: (name, offset, size, scale, bound) of every observation block
OBS_TABLE: tuple[tuple[str, int, int, float, str], ...] = tuple(_obs[:-1])

# scales read by core.observe
SC_ROUND = _scale(_obs, O_ROUND)
SC_ROUNDS_LEFT = _scale(_obs, O_ROUNDS_LEFT)
SC_PILES = _scale(_obs, O_PILES)
SC_HANDRES = _scale(_obs, O_HANDRES)
SC_MARKET = _scale(_obs, O_MARKET)
SC_SUNS = _scale(_obs, O_SUNS)
SC_OFFICE = _scale(_obs, O_OFFICE)
SC_PEND_MISS = _scale(_obs, O_PEND_MISS)
SC_PEND_MISS_ANY = _scale(_obs, O_PEND_MISS_ANY)
SC_PEND_DUE = _scale(_obs, O_PEND_DUE)
SC_PF_HAND = _scale(_pf, PF_HAND)
SC_PF_BUILDINGS = _scale(_pf, PF_BUILDINGS)
SC_PF_COINS = _scale(_pf, PF_COINS)
SC_PF_ASSISTANTS = _scale(_pf, PF_ASSISTANTS)
SC_PF_VP = _scale(_pf, PF_VP)
SC_SF_NEEDS = _scale(_sf, SF_NEEDS)
SC_SF_NEED_ANY = _scale(_sf, SF_NEED_ANY)
SC_SF_GOODS = _scale(_sf, SF_GOODS)
SC_SF_VALUE = _scale(_sf, SF_VALUE)
SC_SF_VP = _scale(_sf, SF_VP)
SC_AF_COST = _scale(_af, AF_COST)
SC_AF_VP = _scale(_af, AF_VP)
SC_AF_REQ = _scale(_af, AF_REQ)
assert N_GOODS == 17
