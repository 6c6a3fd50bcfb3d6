"""What the env adapters share: action-id checks, spaces, agents and infos, the global state, rendering.

Every adapter module (:mod:`.pettingzoo_env`, :mod:`.parallel`, :mod:`.gym_env`, :mod:`.vector`,
:mod:`.sb3`, :mod:`.seat_vec`, :mod:`.batched`) imports its shared pieces from here, from
:mod:`.learner` (the single-learner core) or :mod:`.sb3_base` (SB3 ``VecEnv`` plumbing), never
from a sibling adapter (``tests/envs/test_adapter_imports.py``). Nothing here steps a game:

* action ids: :func:`action_id`, :func:`action_ids` (``TypeError`` / ``ValueError`` naming the
  expected range and the first bad row);
* spaces: :func:`observation_high`, :func:`obs_high`, :func:`observation_space`,
  :func:`action_space`, :func:`agent_spaces` (the PettingZoo ``Dict`` spaces per agent);
* the PettingZoo infos (:data:`INFO_KEYS`, :func:`game_infos`);
* the **privileged** global state for centralised critics (:func:`global_state`,
  :func:`state_space`, :data:`STATE_DIM`), never for a policy;
* the spectator view in a render mode (:func:`render_spectator`) and :func:`check_reward`;
  the render-mode check, seeds and agent names are the framework's
  (:mod:`ohmygoods_env.framework.envs.common`, re-exported here);
* :class:`GameAgents`, what the AEC and the parallel env share: their arguments, the game they
  deal on ``reset``, agents, spaces and the privileged ``state()``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from .. import layout as L
from .. import spaces as _spaces
from ..cards import CardSet
from ..engine import REWARD_MODES, Game
from ..framework.envs.common import (
    SEED_BOUND,
    agent_names_of,
    check_render_mode,
    dict_obs_space,
    next_game_seed,
    show_text,
    warn_no_render_mode,
)
from ..render import render_text
from ..rules import DEFAULT_MAX_ROUNDS, RuleSet
from ..spaces import action_space

__all__ = [
    "GameAgents",
    "INFO_KEYS",
    "N_PLACES",
    "SEED_BOUND",
    "STATE_DIM",
    "action_id",
    "action_ids",
    "action_space",
    "agent_spaces",
    "check_render_mode",
    "check_reward",
    "game_infos",
    "global_state",
    "next_game_seed",
    "obs_high",
    "observation_high",
    "observation_space",
    "render_spectator",
    "state_space",
]

#: The keys of every agent's info dict, at every step (values are ints).
INFO_KEYS: tuple[str, ...] = ("decision", "score", "leftover_coins", "winner")
#: Card places in the global state: deck, discard, market rows 1 and 2, escrow, empty-deck
#: discards, then hand, set-aside, built and goods for each of ``MAX_PLAYERS`` seats.
N_PLACES = L.L_GOODS + L.MAX_PLAYERS
#: Length of :func:`global_state`: seat 0's observation, each deck card's true place
#: (one-hot over ``N_PLACES``), each seat's phase-I choice (1 discard) and staff per slot / 3.
STATE_DIM = L.OBS_DIM + L.N_CARDS * N_PLACES + L.MAX_PLAYERS + L.MAX_PLAYERS * L.MAX_SLOTS


# ===================================================================== action ids


def action_id(action: Any) -> int:
    """``action`` as an action id, or a ``TypeError`` / ``ValueError`` naming what was expected.

    Accepts a Python or numpy integer (or a one-element integer array); refuses bools,
    strings, floats, ``None`` and ids outside ``0..N_ACTIONS - 1``.
    """
    a = action
    if isinstance(a, np.ndarray) and a.size == 1 and np.issubdtype(a.dtype, np.integer):
        a = a.reshape(-1)[0]
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise TypeError(
            f"an action must be an int action id in 0..{L.N_ACTIONS - 1} (see ohmygoods_env.actions), "
            f"got {type(action).__name__} {action!r}"
        )
    if not 0 <= int(a) < L.N_ACTIONS:
        raise ValueError(f"action {int(a)} is out of range: expected an int action id in 0..{L.N_ACTIONS - 1}")
    return int(a)


def action_ids(actions: Any, n: int) -> np.ndarray:
    """``actions`` as ``int64[n]`` action ids; else ``TypeError`` / ``ValueError`` naming the first bad row, value."""
    try:
        a = np.asarray(actions)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"actions must be {n} int action ids in 0..{L.N_ACTIONS - 1}, got {actions!r}") from exc
    flat = a.reshape(-1)
    if flat.dtype.kind in "iu":
        bad = np.flatnonzero((flat < 0) | (flat >= L.N_ACTIONS))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"row {i}: action {int(flat[i])} is out of range: expected an int action id in 0..{L.N_ACTIONS - 1}"
            )
    else:
        for i, x in enumerate(flat.tolist() if flat.dtype != object else flat):
            try:
                action_id(x)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"row {i}: {exc}") from None
    if a.size != n:
        raise ValueError(f"expected {n} actions (one per env), got shape {a.shape}")
    return flat.astype(np.int64)


# ===================================================================== spaces


def observation_high(cards: CardSet | None = None, rules: RuleSet | None = None) -> np.ndarray:
    """Per-entry upper bound (float32[OBS_DIM]): :func:`ohmygoods_env.spaces.observation_high`."""
    return _spaces.observation_high(cards, rules)


def obs_high(max_rounds: int = DEFAULT_MAX_ROUNDS, cards: CardSet | None = None) -> float:
    """The largest entry of :func:`ohmygoods_env.spaces.observation_high` under these rules and cards."""
    return float(_spaces.observation_high(cards, RuleSet(max_rounds=max_rounds)).max())


def observation_space(max_rounds: int = DEFAULT_MAX_ROUNDS, cards: CardSet | None = None) -> spaces.Box:
    """The single-game observation space: :func:`ohmygoods_env.spaces.observation_space`."""
    return _spaces.observation_space(cards, RuleSet(max_rounds=max_rounds))


def agent_spaces(
    game: Game,
) -> tuple[list[str], dict[str, int], dict[str, spaces.Space], dict[str, spaces.Space], spaces.Box]:
    """The PettingZoo agents of ``game`` and their spaces.

    Returns ``(possible_agents, agent_name_mapping, observation_spaces, action_spaces,
    state_space)``: agents ``player_0 .. player_{n-1}``; each observes ``Dict(observation=Box(0,
    high, (OBS_DIM,), float32), action_mask=Box(0, 1, (N_ACTIONS,), int8))`` (in that order) and
    acts in ``Discrete(N_ACTIONS)``.
    """
    agents = agent_names_of(game.num_players)
    high = observation_high(game.cards, game.rules)
    observation_spaces = {
        a: dict_obs_space(spaces.Box(0.0, high, (L.OBS_DIM,), np.float32), L.N_ACTIONS) for a in agents
    }
    action_spaces = {a: spaces.Discrete(L.N_ACTIONS) for a in agents}
    mapping = {a: i for i, a in enumerate(agents)}
    return agents, mapping, observation_spaces, action_spaces, state_space(game.cards, game.rules)


# ===================================================================== infos and global state


def game_infos(game: Game, agents: list[str], mapping: dict[str, int]) -> dict[str, dict[str, int]]:
    """Every agent's info (:data:`INFO_KEYS`, ints): the acting seat's decision id, final results at the end."""
    if game.done:
        scores, winners = game.scores(), game.winners()
        return {
            a: {
                "decision": L.D_OVER,
                "score": int(scores[mapping[a]][0]),
                "leftover_coins": int(scores[mapping[a]][1]),
                "winner": int(mapping[a] in winners),
            }
            for a in agents
        }
    cur = game.current_player
    dec = int(game.state[L.F_DEC])
    return {
        a: {"decision": dec if mapping[a] == cur else -1, "score": 0, "leftover_coins": 0, "winner": 0} for a in agents
    }


def global_state(states: np.ndarray, obs_seat0: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The **privileged** global state (float32[N, STATE_DIM]) of ``N`` games, for centralised critics.

    ``states`` is ``int32[N, STATE_LEN]`` (engine rows), ``obs_seat0`` their observations
    from seat 0 (``float32[N, OBS_DIM]``). Layout: ``obs_seat0`` | per deck card a one-hot of
    its true place (:data:`N_PLACES`) | per seat the phase-I choice | per seat x slot the
    staff code / 3. It holds every hand, set-aside card and the deck's contents: never feed
    it to a policy.
    """
    states = np.asarray(states)
    n = states.shape[0]
    if out is None:
        out = np.empty((n, STATE_DIM), np.float32)
    out[:, : L.OBS_DIM] = obs_seat0
    loc = states[:, L.F_LOC : L.F_LOC + L.N_CARDS].astype(np.int64)
    place = np.where(loc < L.L_GOODS, loc, L.L_GOODS + (loc - L.L_GOODS) // L.MAX_SLOTS)
    o = L.OBS_DIM
    onehot = out[:, o : o + L.N_CARDS * N_PLACES].reshape(n, L.N_CARDS, N_PLACES)
    onehot[:] = 0.0
    np.put_along_axis(onehot, place[:, :, None], 1.0, axis=2)
    o += L.N_CARDS * N_PLACES
    out[:, o : o + L.MAX_PLAYERS] = states[:, L.F_P1 : L.F_P1 + L.MAX_PLAYERS]
    o += L.MAX_PLAYERS
    out[:, o:] = states[:, L.F_STAFF : L.F_STAFF + L.MAX_PLAYERS * L.MAX_SLOTS] / 3.0
    return out


def state_space(cards: CardSet | None = None, rules: RuleSet | None = None) -> spaces.Box:
    """The space of :func:`global_state` rows (privileged: for critics only)."""
    high = np.ones(STATE_DIM, np.float32)
    high[: L.OBS_DIM] = observation_high(cards, rules)
    return spaces.Box(0.0, high, (STATE_DIM,), np.float32)


# ===================================================================== arguments, seeds, rendering


def check_reward(reward: str) -> str:
    """``reward`` if it is a reward mode of :data:`ohmygoods_env.engine.REWARD_MODES`; else a ``ValueError``."""
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {list(REWARD_MODES)}, got {reward!r}")
    return reward


def render_spectator(game: Game, render_mode: str | None) -> str | np.ndarray | None:
    """The spectator view of ``game`` in a PettingZoo render mode (the AEC and parallel envs).

    ``"ansi"`` returns the text of :func:`~ohmygoods_env.render.render_text`, ``"human"`` prints
    it, ``"rgb_array"`` returns ``uint8[H, W, 3]`` (:func:`~ohmygoods_env.picture.render_image`,
    needs cairosvg), ``"svg"`` the SVG text (:func:`~ohmygoods_env.picture.render_svg`).
    """
    if render_mode is None:
        warn_no_render_mode()
        return None
    if render_mode == "rgb_array":
        from ..picture import render_image

        return render_image(game)
    if render_mode == "svg":
        from ..picture import render_svg

        return render_svg(game)
    return show_text(render_text(game), render_mode)


# ===================================================================== the PettingZoo envs' common part


class GameAgents:
    """The part of the PettingZoo AEC and parallel envs that only deals and reads the game.

    :meth:`_setup` checks the arguments (``render_mode``, ``reward``, the game's), deals a
    first game so that bad arguments fail at construction, and sets the agents and spaces
    (:func:`agent_spaces`); :meth:`_deal` deals the game of a ``reset``. Mixed in before
    ``AECEnv`` / ``ParallelEnv``.
    """

    metadata: dict[str, Any]
    _game: Game

    def _setup(
        self,
        num_players: int,
        rules: str | RuleSet,
        render_mode: str | None,
        reward: str,
        auto_forced: bool,
        cards: CardSet | None,
        rule_options: dict[str, Any],
    ) -> None:
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.reward_mode = check_reward(reward)
        self._game_args = (num_players, rules)
        self._rule_options = {"auto_forced": auto_forced, **rule_options}
        self._game = Game(num_players, rules, seed=0, cards=cards, **self._rule_options)
        self._rng = np.random.default_rng()
        (
            self.possible_agents,
            self.agent_name_mapping,
            self.observation_spaces,
            self.action_spaces,
            self.state_space,
        ) = agent_spaces(self._game)

    def _deal(self, seed: int | None) -> None:
        """Deal a new game: from ``seed`` (re-seeding the env's RNG), else from the env's RNG's next seed."""
        game_seed, self._rng = next_game_seed(seed, self._rng)
        num_players, rules = self._game_args
        self._game = Game(num_players, rules, seed=game_seed, cards=self._game.cards, **self._rule_options)
        self._seed_used = game_seed

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def game(self) -> Game:
        """The underlying engine game (a forward model holding hidden information)."""
        return self._game

    @property
    def seed_used(self) -> int | None:
        """The seed the current game was dealt from (``None`` before the first reset)."""
        return getattr(self, "_seed_used", None)

    def state(self) -> np.ndarray:
        """**Privileged** global state (float32[STATE_DIM], :func:`global_state`): critics only, never a policy."""
        g = self._game
        return global_state(g.state[None], g.observe(0)[None])[0]
