"""Fixed shapes and index tables of *Artificium*: the state row, the action ids, the observation.

Every range is declared once, in a registry (``_a`` actions, ``_f`` state fields, ``_o``
observation blocks, ``_feat`` per-seat features); ids and offsets follow, and the tables in
``docs/artificium/layout.md`` are derived from :data:`ACTION_RANGES`, :data:`STATE_FIELDS`
and :data:`OBS_TABLE`. All names are plain ints so the kernels compile them in.

State row
---------
A game is one ``int32`` row of length :data:`STATE_LEN`; a batch is ``int32[B, STATE_LEN]``.
``F_LOC + card`` is the place of each of the 108 cards (``L_*`` codes), the deck order is
``F_DECK[0:F_DECK_N]`` with the top card last, ``F_RNG`` holds the game's 64-bit xorshift
state (two int32 words, seeded through ``ohmygoods_env.framework.rng.mix64``). Per-player blocks are
``[MAX_PLAYERS]`` or ``[MAX_PLAYERS * N_RES]`` (index ``p * N_RES + r``).

Action ids
----------
========================  =====  ===============================================  ==========
range                     size   meaning                                          decision
========================  =====  ===============================================  ==========
``A_SWAP``                256    ``+ give_type * 16 + take_type`` market swap     market
``A_REDRAW``              1      discard the hand and draw 5 (A3.4)               market
``A_MARKET_PASS``         1      pass, final for the round (A3.2)                 market
``A_PLAY``                16     ``+ type``: choose a hand card face down (A4.1)   choose
``A_BUY``                 9      ``+ resource``: buy one at the board price        resolve, round end
``A_SELL``                9      ``+ resource``: sell one at the board price       resolve, round end
``A_APPLY``               1      apply the revealed card (A4.4)                   resolve
``A_DISCARD_CARD``        1      discard the revealed card, stay in (A4.5)        resolve
``A_TAKE_BACK``           1      take it back to hand, out for the round (A4.5)   resolve
``A_SCOUT``               5      ``+ k - 1``: Scouting on the seat k places left   scout
``A_THEFT``               45     ``+ (k - 1) * 9 + resource``: Theft target        theft
``A_RECON``               16     ``+ type``: the played card to take back          recon
``A_KNIGHT``              6      ``+ k``: Knight on the seat k places left (0 me)  knight
``A_MAGE_DISCARD``        16     ``+ type``: a hand card the Mage discards         mage
``A_END_DISCARD``         16     ``+ type``: discard a hand card at round end      round end
``A_END_DONE``            1      done with the end of the round (A5.2)            round end
``A_WAIT``                1      nothing to decide (parallel env only; never legal)
========================  =====  ===============================================  ==========

Seat offsets ``k`` count clockwise (increasing seat number) from the acting seat.

Observation
-----------
``float32[OBS_DIM]`` per seat, seats rotated so that the observing seat comes first; each entry is
value / scale. Never another seat's hand or face-down card, nor the deck (A9.2).

======  ====  =====  ==========================================================
offset  size  scale  block
======  ====  =====  ==========================================================
0       10    1      pending decision, one-hot
10      5     1      number of players 2..6, one-hot
15      1     4      round
16      6     1      first player relative to me, one-hot
22      1     1      I am pending now
23      3     108    deck size, discard size, bank tokens
26      16    5      my hand per type
42      16    1      my face-down card, one-hot by type
58      16    3      market per type
74      6     1      seat whose card resolves, relative one-hot
80      1     3      Mage discards owed
81      1     10     card-play step in this round
82      306   1      per seat (me first) x features (below)
======  ====  =====  ==========================================================

Per seat (``O_PLAYERS + seat * PLAYER_FEATURES``):

======  ====  =====  ==========================================================
offset  size  scale  feature
======  ====  =====  ==========================================================
0       1     1      seat in the game
1       1     50     score
2       1     20     coins
3       9     5      resources per resource
12      1     10     hand size
13      1     1      passed in the market
14      1     5      market swaps this round
15      1     1      redrew this round
16      1     1      out of the card play
17      1     1      has a card face down (not which)
18      16    1      revealed card type, one-hot
34      16    3      played this round per type
50      1     1      done with the round end
======  ====  =====  ==========================================================
"""

from __future__ import annotations

from ..framework.registry import Ranges, append_range
from .cards import N_CARDS, N_RES, N_TYPES

#: Version of the action/observation layout; env ids end in ``-v{LAYOUT_VERSION}``.
LAYOUT_VERSION = 0
MAX_PLAYERS = 6
MIN_PLAYERS = 2
ROUNDS = 4  # A2.5, A8.1
HAND_TARGET = 5  # A2.2, A2.3
MARKET_SIZE = 6  # A3.1
START_COINS = 5  # A1.4
TOKENS = 100  # A1.6
SWAP_COST = 2  # A3.3
VP_PER_COINS = 4  # A8.2
KNIGHT_STEPS = 4  # A7.4
MAGE_DRAW = 5  # A7.3
MAGE_DISCARD = 3  # A7.3
THEFT_MAX_TIER = 2  # A6.2: Theft reaches tier I (1 coin) and tier II (2 coins)

# ---------------------------------------------------------------- card places (F_LOC)
L_DECK = 0
L_DISCARD = 1
L_MARKET = 2
L_HAND = 3  # + player
L_CHOSEN = L_HAND + MAX_PLAYERS  # + player: chosen face down, not yet revealed (A4.1)
L_REVEALED = L_CHOSEN + MAX_PLAYERS  # + player: revealed, not yet resolved (A4.2)
L_PLAYED = L_REVEALED + MAX_PLAYERS  # + player: applied, face up until the round ends (A4.7)
N_LOC = L_PLAYED + MAX_PLAYERS

# ---------------------------------------------------------------- decisions (F_DEC)
D_MARKET = 0  # swap / redraw / pass (A3)
D_CHOOSE = 1  # simultaneous: choose a hand card face down (A4.1)
D_RESOLVE = 2  # trade, then apply / discard / take back the revealed card (A4.3-A4.5)
D_SCOUT = 3  # Scouting target (A6.1)
D_THEFT = 4  # Theft target and resource (A6.2)
D_RECON = 5  # Reconstruction: which played card (A6.3)
D_KNIGHT = 6  # Knight target (A7.4)
D_MAGE = 7  # Mage: discard a hand card (A7.3)
D_ROUND_END = 8  # sell, discard hand cards, done (A5.2)
D_OVER = 9
N_DECISIONS = 10
DECISION_NAMES = (
    "card market",
    "choose a card (simultaneous)",
    "resolve the revealed card",
    "Scouting target",
    "Theft target",
    "Reconstruction card",
    "Knight target",
    "Mage discard",
    "end of round",
    "game over",
)

# ---------------------------------------------------------------- actions
_a = Ranges()


A_SWAP = _a("market swap", N_TYPES * N_TYPES)  # + give_type * N_TYPES + take_type
A_REDRAW = _a("redraw hand")
A_MARKET_PASS = _a("market pass")
A_PLAY = _a("choose card", N_TYPES)  # + type
A_BUY = _a("buy", N_RES)  # + resource
A_SELL = _a("sell", N_RES)  # + resource
A_APPLY = _a("apply")
A_DISCARD_CARD = _a("discard card, stay in")
A_TAKE_BACK = _a("take back, out for the round")
A_SCOUT = _a("Scouting target", MAX_PLAYERS - 1)  # + seat offset - 1
A_THEFT = _a("Theft target x resource", (MAX_PLAYERS - 1) * N_RES)  # + (offset - 1) * N_RES + resource
A_RECON = _a("Reconstruction card", N_TYPES)  # + type
A_KNIGHT = _a("Knight target", MAX_PLAYERS)  # + seat offset (0 = me)
A_MAGE_DISCARD = _a("Mage discard", N_TYPES)  # + type
A_END_DISCARD = _a("round-end discard", N_TYPES)  # + type
A_END_DONE = _a("round end done")
A_WAIT = _a("wait")
#: the number of actions and (name, first id, size) of every action range, in id order
N_ACTIONS, ACTION_RANGES = _a.close()

# ---------------------------------------------------------------- state fields
_f = Ranges()


F_NP = _f("num_players")
F_RNG = _f("rng state: xorshift64, low and high 32-bit words", 2)
F_DEC = _f("pending decision (D_*)")
F_CUR = _f("current player (-1 at the end)")
F_ROUND = _f("round 1..4")
F_FIRST = _f("first player of the round")
F_TURN = _f("market: seat whose turn it is")
F_STEPS = _f("decisions taken")
F_BANK = _f("tokens in the bank")
F_RES_POS = _f("resolution position: pass * MAX_PLAYERS + k (seat first + k)")
F_RES_CARD = _f("card being resolved (-1 none)")
F_MAGE_LEFT = _f("Mage discards still owed")
F_PLAY_STEP = _f("card-play steps in this round")
F_DECK_N = _f("deck size")
F_LOC = _f("card places (L_*)", N_CARDS)
F_DECK = _f("deck order, top last", N_CARDS)
#: bit ``q`` set: seat ``q`` knows this card's place although it is hidden (A9.3)
F_KNOW = _f("seats that know where a hidden card is, bit mask per card", N_CARDS)
F_COINS = _f("coins per player", MAX_PLAYERS)
F_VP = _f("score-track position per player", MAX_PLAYERS)
F_RES = _f("resources per player x resource", MAX_PLAYERS * N_RES)
F_PASSED = _f("passed in the market this round", MAX_PLAYERS)
F_SWAPS = _f("market swaps this round", MAX_PLAYERS)
F_REDRAWN = _f("redrew the hand this round", MAX_PLAYERS)
F_OUT = _f("out of the card play this round", MAX_PLAYERS)
F_CHOSEN = _f("card chosen face down this step (-1 none)", MAX_PLAYERS)
F_ENDED = _f("done with the end of the round", MAX_PLAYERS)
#: the state row's length and (name, offset, size) of every field, in offset order
STATE_LEN, STATE_FIELDS = _f.close()

# ---------------------------------------------------------------- observation
# Every block is declared once with its scale (the observation holds value / scale).
_obs: list[tuple[str, int, int, float]] = []


def _o(name: str, n: int, scale: float = 1.0) -> int:
    return append_range(_obs, name, n, float(scale))


_pf: list[tuple[str, int, int, float]] = []


def _feat(name: str, n: int = 1, scale: float = 1.0) -> int:
    return append_range(_pf, name, n, float(scale))


PF_PRESENT = _feat("seat in the game")
PF_VP = _feat("score", 1, 50.0)
PF_COINS = _feat("coins", 1, 20.0)
PF_RES = _feat("resources per resource", N_RES, 5.0)
PF_HAND = _feat("hand size", 1, 10.0)
PF_PASSED = _feat("passed in the market")
PF_SWAPS = _feat("market swaps this round", 1, 5.0)
PF_REDRAWN = _feat("redrew this round")
PF_OUT = _feat("out of the card play")
PF_CHOSEN = _feat("has a card face down (not which)")
PF_REVEALED = _feat("revealed card type, one-hot", N_TYPES)
PF_PLAYED = _feat("played this round per type", N_TYPES, 3.0)
PF_ENDED = _feat("done with the round end")
PLAYER_FEATURES = _feat("end", 0)
PLAYER_FEATURE_TABLE = tuple(_pf[:-1])

O_DEC = _o("pending decision, one-hot", N_DECISIONS)
O_NP = _o("number of players 2..6, one-hot", MAX_PLAYERS - 1)
O_ROUND = _o("round", 1, float(ROUNDS))
O_FIRST = _o("first player relative to me, one-hot", MAX_PLAYERS)
O_ME = _o("I am pending now", 1)
O_PILES = _o("deck size, discard size, bank tokens", 3, float(N_CARDS))
O_HAND = _o("my hand per type", N_TYPES, 5.0)
O_CHOSEN = _o("my face-down card, one-hot by type", N_TYPES)
O_MARKET = _o("market per type", N_TYPES, 3.0)
O_RESOLVING = _o("seat whose card resolves, relative one-hot", MAX_PLAYERS)
O_MAGE_LEFT = _o("Mage discards owed", 1, float(MAGE_DISCARD))
O_STEP = _o("card-play step in this round", 1, 10.0)
O_PLAYERS = _o("per seat (me first) x features (below)", MAX_PLAYERS * PLAYER_FEATURES)
OBS_DIM = _o("end", 0)
#: (name, offset, size, scale) of every observation block
OBS_TABLE: tuple[tuple[str, int, int, float], ...] = tuple(_obs[:-1])

SC_VP = PLAYER_FEATURE_TABLE[1][3]
SC_COINS = PLAYER_FEATURE_TABLE[2][3]
SC_RES = PLAYER_FEATURE_TABLE[3][3]
SC_HAND = PLAYER_FEATURE_TABLE[4][3]
SC_SWAPS = PLAYER_FEATURE_TABLE[6][3]
SC_PLAYED = PLAYER_FEATURE_TABLE[11][3]
SC_HAND_ME = OBS_TABLE[6][3]
SC_MARKET = OBS_TABLE[8][3]
SC_STEP = OBS_TABLE[11][3]
