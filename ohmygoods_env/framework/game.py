"""The game interface of the machinery: the forward model, the game spec and the game registry.

Every game-agnostic tool of the library (the env adapters in :mod:`ohmygoods_env.framework.envs`,
IS-MCTS, tournaments) talks to a game only through what this module declares:

* :class:`ForwardModel` — one game's Python front over its engine (a ``typing.Protocol``):

  ==============================  ===============================================================
  member                          meaning
  ==============================  ===============================================================
  ``num_players``                 seats, ``0 .. num_players - 1``
  ``num_actions``                 size of the one ``Discrete`` action space of every decision
  ``obs_size``                    length of ``observe(p)``
  ``current_player``              the first seat the game waits for; -1 when done
  ``done``                        the game is over
  ``pending_players()``           the seats the game waits for now: one seat in sequential
                                  parts, every seat still to choose during a simultaneous
                                  choice (no seat sees another's choice before all have
                                  chosen, and no seat's legal actions depend on another's
                                  choice); ``()`` when done
  ``legal_mask(player=None)``     ``int8[num_actions]``, default the current player; any
                                  pending seat may be asked; a seat that is not pending gets
                                  all zeros
  ``observe(player)``             ``float32[obs_size]``: that seat's view only
  ``step(action)``                the current player's action; ``TypeError`` (not an int),
                                  ``ValueError`` (out of range), :class:`IllegalActionError`,
                                  :class:`GameOverError`; the state is unchanged on error
  ``step_joint(actions)``         ``{seat: action}`` for **every** pending seat, all checked
                                  before any is applied (:class:`JointStepMixin`)
  ``clone()``                     an independent copy
  ``rewards(mode="win")``         ``float32[num_players]``, zeros until the end
  ``scores()`` / ``winners()``    the game's own score records / the winning seats
  ``determinize(player, seed)``   a model consistent with everything ``player`` has seen,
                                  hidden cards re-dealt and others' undisclosed choices
                                  re-drawn (for IS-MCTS)
  ``record()`` / ``replay(rec)``  a record that replays the game exactly (``replay`` is a
                                  class method)
  ``seed``                        the deal's seed, an int in ``0 <= seed < 2**64``
  ==============================  ===============================================================

  A model *may* also offer ``info_state(player) -> np.ndarray``: an array information state
  (public information and the seat's own cards) for agents of that game that read one;
  :class:`InformationSet` hands it over as its ``numpy`` array.

* :class:`GameSpec` — a game's facts declared once (name, title, player range, sizes, how to
  deal a game, how to describe an action and render a position), and the registry
  (:func:`register_game`, :func:`game_spec`, :func:`game_names`). A game registers its spec
  when its package is imported; a game may also be *declared* by where its spec lives
  (:func:`declare_game`, ``"module:SPEC"``: imported on first use, so naming a game loads
  nothing of it), and a name neither registered nor declared is looked up once in the entry
  point group ``ohmygoods.games`` (``name = "module:SPEC"``).
* :class:`SimultaneousChoice` — a simultaneous choice that the game's spec declares
  (``GameSpec.simultaneous``) when its model asks it one seat at a time over several
  decisions each: who decides together in each step, how many steps it lasts (fixed by public
  information at its start, the padding that keeps hidden choices out of the step count) and
  the order in which the choices are applied to the model at its end.
* :class:`JointStepMixin` — ``step_joint`` for a model that collects a simultaneous choice
  one seat at a time through ``step``: every pending seat's action is checked against its
  own mask first, then they are applied in the game's order.
* :class:`InformationSet` — what a search agent receives for the seat it plays: worlds
  sampled with ``determinize``, never the true state.
* The errors every model raises (:class:`IllegalActionError`, :class:`GameOverError`) and
  the shared argument checks (:func:`check_action`, :func:`check_player`).

This module imports no game: games import it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .checks import check_int

__all__ = [
    "ENTRY_POINT_GROUP",
    "ForwardModel",
    "GameOverError",
    "GameSpec",
    "GameTools",
    "IllegalActionError",
    "InformationSet",
    "JointStepMixin",
    "SimultaneousChoice",
    "StateRowMixin",
    "check_action",
    "check_joint",
    "check_player",
    "declare_game",
    "default_game",
    "game_names",
    "game_spec",
    "game_tools",
    "games_with",
    "is_default_game",
    "register_game",
    "resolve_game",
]

#: Entry point group of game specs (``name = "package.module:SPEC"``), read for unknown names.
ENTRY_POINT_GROUP = "ohmygoods.games"


class IllegalActionError(ValueError):
    """An action that the legal mask does not allow; the game state is unchanged."""


class GameOverError(RuntimeError):
    """A step was attempted after the game ended; the game state is unchanged."""


# ===================================================================== the forward model


@runtime_checkable
class ForwardModel(Protocol):
    """One game's Python front over its engine (see the module docstring for every member)."""

    num_players: int
    num_actions: int
    obs_size: int

    @property
    def current_player(self) -> int: ...

    @property
    def done(self) -> bool: ...

    @property
    def seed(self) -> int: ...

    def pending_players(self) -> tuple[int, ...]: ...

    def legal_mask(self, player: int | None = None) -> np.ndarray: ...

    def observe(self, player: int) -> np.ndarray: ...

    def step(self, action: int) -> None: ...

    def step_joint(self, actions: Mapping[int, int]) -> None: ...

    def clone(self) -> ForwardModel: ...

    def rewards(self, mode: str = "win") -> np.ndarray: ...

    def scores(self) -> list: ...

    def winners(self) -> list[int]: ...

    def determinize(self, player: int, seed: int) -> ForwardModel: ...

    def record(self) -> Any: ...


@runtime_checkable
class SimultaneousChoice(Protocol):
    """A simultaneous choice in progress, begun by the spec's ``simultaneous(model)`` hook.

    The parallel env (:mod:`ohmygoods_env.framework.envs.parallel`) plays it instead of the
    model's one-seat-at-a-time questions: each step every seat of :meth:`acting` decides
    together, on its own line of decisions that no other seat's choice reaches; a seat whose
    line is finished waits (the wait action) until ``steps_left`` reaches 0, so the number of
    steps never depends on a hidden choice; then :meth:`apply_to` plays every seat's choices on
    the model in ``order``. During the choice the model itself stays as at its start.

    ==========================  ==================================================================
    member                      meaning
    ==========================  ==================================================================
    ``order``                   the seats that choose, in the order their choices are applied
    ``steps_left``              steps still to come (fixed at the start from public information)
    ``acting()``                the seats with a decision in this step (in ``order``)
    ``legal_mask(player)``      ``int8[num_actions]``, that seat's own line; zeros when it waits
    ``observe(player)``         that seat's view: its own choices so far, nobody else's
    ``step(actions)``           ``{seat: action}`` of every acting seat (checked by the caller)
    ``over``                    ``steps_left == 0``: time to :meth:`apply_to`
    ``apply_to(model)``         play the choices on the model, in ``order``
    ==========================  ==================================================================

    A game whose ``pending_players()`` already names every seat of a simultaneous choice and
    whose seats decide once each (*Artificium*, *Goofspiel*) declares nothing
    (``simultaneous=None``): the pending seats decide together in one step, applied with
    ``step_joint`` in the pending order, and no padding is needed.
    """

    order: list[int]
    steps_left: int

    def acting(self) -> list[int]: ...

    def legal_mask(self, player: int) -> np.ndarray: ...

    def observe(self, player: int) -> np.ndarray: ...

    def step(self, actions: Mapping[int, int]) -> None: ...

    @property
    def over(self) -> bool: ...

    def apply_to(self, model: ForwardModel) -> None: ...


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_action(action: object, num_actions: int) -> int:
    """``action`` as an int in ``[0, num_actions)``: ``TypeError`` for a non-int, ``ValueError`` out of range."""
    return check_int(action, "action", 0, num_actions - 1)


def check_player(player: object, num_players: int) -> int:
    """``player`` as a seat in ``[0, num_players)``: ``TypeError`` for a non-int, ``ValueError`` out of range."""
    if not _is_int(player):
        raise TypeError(f"player must be an int in [0, {num_players - 1}], got {type(player).__name__} {player!r}")
    p = int(player)
    if not 0 <= p < num_players:
        raise ValueError(f"player {p} is out of range: expected 0..{num_players - 1}")
    return p


def illegal_message(model: ForwardModel, player: int, action: int) -> str:
    """The words for ``action`` not being legal for ``player`` now (names the legal actions)."""
    legal = [int(a) for a in np.flatnonzero(model.legal_mask(player))]
    more = "..." if len(legal) > 20 else ""
    return f"action {action} is illegal for player {player}; legal actions: {legal[:20]}{more}"


def check_joint(model: ForwardModel, actions: object) -> dict[int, int]:
    """``actions`` checked for :meth:`ForwardModel.step_joint`: one legal action per pending seat, nothing else.

    Returns ``{seat: action}`` in the game's pending order. Raises :class:`GameOverError`
    after the end, ``TypeError`` for a non-mapping or a non-int entry, ``ValueError`` for a
    missing pending seat or a seat that is not pending, :class:`IllegalActionError` for an
    action its seat's mask forbids. Nothing is applied.
    """
    if model.done:
        raise GameOverError(f"the game is over; no actions (got {actions!r}) can be applied")
    if not isinstance(actions, Mapping):
        raise TypeError(f"actions must be a mapping seat -> action, got {type(actions).__name__}")
    pending = model.pending_players()
    for seat in actions:
        p = check_player(seat, model.num_players)
        if p not in pending:
            raise ValueError(f"player {p} has nothing to decide now: the game waits for players {list(pending)}")
    missing = [p for p in pending if p not in actions]
    if missing:
        raise ValueError(f"no action for players {missing}: step_joint needs one per pending player {list(pending)}")
    out = {}
    for p in pending:
        try:
            a = check_action(actions[p], model.num_actions)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{exc} (player {p})") from None
        if not model.legal_mask(p)[a]:
            raise IllegalActionError(illegal_message(model, p, a))
        out[p] = a
    return out


class JointStepMixin:
    """``step_joint`` for a model whose ``step`` takes a simultaneous choice one seat at a time.

    The model's ``step`` applies the action of ``current_player``, the first pending seat,
    and records it face down while others still choose. :meth:`step_joint` checks every
    pending seat's action against that seat's own mask (:func:`check_joint`) before
    anything happens, then steps them in the game's pending order. Because no seat's legal
    actions depend on another's choice (the protocol's promise), a checked set of actions
    always applies; a game that broke the promise gets a ``RuntimeError``.
    """

    def step_joint(self, actions: Mapping[int, int]) -> None:
        chosen = check_joint(self, actions)  # type: ignore[arg-type]
        for p, a in chosen.items():
            if self.current_player != p:  # type: ignore[attr-defined]
                raise RuntimeError(
                    f"player {p}'s simultaneous action {a} cannot be applied: the game asks player "
                    f"{self.current_player} instead (its pending players are not one simultaneous choice)"  # type: ignore[attr-defined]
                )
            self.step(a)  # type: ignore[attr-defined]


class StateRowMixin:
    """What a compiled game reads off its one state row, for a model whose ``state`` is an int32
    row laid out by its layout module ``_layout`` (``STATE_LEN``, ``F_CUR``, ``F_DEC``,
    ``F_ROUND``, ``D_OVER``, ``DECISION_NAMES``): who is asked, the pending decision, the round,
    and the checks of a row a game is continued from (:meth:`_state_row`, :meth:`_check_consistent`).
    """

    _layout: Any
    state: np.ndarray

    @property
    def current_player(self) -> int:
        """The seat asked now; -1 when the game is over."""
        return int(self.state[self._layout.F_CUR])

    @property
    def decision(self) -> int:
        """The pending decision (the layout's ``D_*``)."""
        return int(self.state[self._layout.F_DEC])

    @property
    def decision_name(self) -> str:
        return self._layout.DECISION_NAMES[self.decision]

    @property
    def done(self) -> bool:
        return self.decision == self._layout.D_OVER

    @property
    def round(self) -> int:
        return int(self.state[self._layout.F_ROUND])

    @classmethod
    def _state_row(cls, state: object) -> np.ndarray:
        """``state`` as an array, if it is an integer row of the layout's length; else ``ValueError``."""
        s = np.asarray(state)
        n = cls._layout.STATE_LEN
        if s.shape != (n,) or s.dtype.kind not in "iu":
            raise ValueError(f"state must be an integer row of shape ({n},), got {s.dtype} {s.shape}")
        return s

    def _check_consistent(self) -> None:
        """``ValueError`` unless the row passes the game's ``check_invariants``."""
        code = self.check_invariants()  # type: ignore[attr-defined]
        if code != 0:
            raise ValueError(f"state fails check_invariants (code {code}): not a consistent game state")


class InformationSet:
    """One seat's information set over a model: what a search agent may use.

    ``determinize(seed)`` samples a full model consistent with what the seat has seen
    (:meth:`ForwardModel.determinize`); ``legal_mask()`` is the seat's mask now. For agents
    of a game that read an array information state, ``numpy.asarray(info_set)`` gives the
    model's ``info_state(player)``. Agents must not reach past these members: the object
    refers to the true game.
    """

    __slots__ = ("_model", "player")

    def __init__(self, model: ForwardModel, player: int) -> None:
        self._model = model
        self.player = check_player(player, model.num_players)

    @property
    def num_players(self) -> int:
        return self._model.num_players

    @property
    def num_actions(self) -> int:
        return self._model.num_actions

    def legal_mask(self) -> np.ndarray:
        return self._model.legal_mask(self.player)

    def determinize(self, seed: int) -> ForwardModel:
        """A world consistent with the seat's information (hidden cards and choices re-drawn from ``seed``)."""
        return self._model.determinize(self.player, seed)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        info = getattr(self._model, "info_state", None)
        if info is None:
            raise TypeError(f"{type(self._model).__name__} offers no array information state (info_state)")
        arr = np.asarray(info(self.player))
        return arr if dtype is None else arr.astype(dtype)


# ===================================================================== the game spec and registry


def _no_bounds(num_players: int) -> tuple[float, float]:
    return -np.inf, np.inf


@dataclass(frozen=True)
class GameSpec:
    """A game's facts, declared once; the machinery builds everything else from them.

    Sizes describe the game with its default options; front ends read the sizes of the
    models they build (``model.num_actions``, ``model.obs_size``), so options that change
    them are allowed.

    Members beyond the name and the sizes:

    * ``new_game(num_players, seed=None, **options) -> ForwardModel``: a new deal (a fresh
      seed from entropy when ``seed`` is None);
    * ``describe(action, game=None) -> str`` and ``render_text(game, player=None) -> str``
      (spectator view for ``None``);
    * ``version``: the env version of the layout (PettingZoo / Gymnasium ids end in ``-v{version}``);
    * ``wait_action``: an action id the game defines for "nothing to decide" (the parallel
      env gives it to waiting seats), or ``None`` (the parallel env then adds one after the
      game's actions);
    * ``simultaneous(model) -> SimultaneousChoice | None``: the simultaneous choice the model
      stands at (``None`` when it stands at none), for a game whose model asks a simultaneous
      choice one seat at a time (:class:`SimultaneousChoice`); ``None`` (the default): the
      model's ``pending_players()`` decide together, once each;
    * ``obs_bounds(num_players) -> (low, high)``: bounds of ``observe`` (scalars or arrays);
    * ``reward_modes``: the ``mode`` values ``rewards`` accepts;
    * ``make_agent(spec, seed=None, **kwargs)``: an older hook, a game's own agent registry asked
      last for names the framework's one registry (:mod:`ohmygoods_env.framework.agents`) does not
      know; no game here uses it (a game registers its agents with ``register_agent``);
    * ``action_ranges``: the layout's table of action ids, ``(name, start, size, ...)`` rows in
      id order (:class:`~.registry.Ranges`), told to external agents by name;
    * ``web``: the game's browser page, ``"module:Class"`` of its page kind for ``ohmygoods serve``
      (:class:`ohmygoods_env.apps.web_shell.WebKind`), imported only by the web shell; ``None``: no page;
    * ``protocol``: the game's evaluation protocol shipped in its own folder, ``"package:file.json"``,
      found by ``ohmygoods evaluate --game NAME`` besides the protocols in ``agents/data``; ``None``: none;
    * ``agent_entry_points``: older entry point groups whose every entry (``NAME = "module:factory"``)
      is an agent of this game, read besides ``ohmygoods.game_agents`` (:mod:`.agents`);
    * ``tools``: the game's :class:`GameTools` (what the shared commands need of it: commands, rule
      sets, search agents, leaderboard place, ...), or ``"module:OBJECT"`` of it, imported on first
      use by :func:`game_tools` so importing a spec stays cheap; ``None``: the defaults (a game on
      the framework alone);
    * ``env_hooks``: what its PettingZoo envs show beyond the generic ones, an
      :class:`~ohmygoods_env.framework.env_hooks.EnvHooks` (infos, privileged ``state()``, picture
      render modes, a fused observe-with-mask kernel, its own action checks and error wording);
      ``None``: the generic envs.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    num_actions: int
    obs_size: Callable[[int], int]
    new_game: Callable[..., ForwardModel]
    describe: Callable[..., str]
    render_text: Callable[..., str]
    version: int = 0
    wait_action: int | None = None
    simultaneous: Callable[[ForwardModel], SimultaneousChoice | None] | None = None
    obs_bounds: Callable[[int], tuple[Any, Any]] = _no_bounds
    reward_modes: tuple[str, ...] = ("win",)
    make_agent: Callable[..., Any] | None = None
    action_ranges: tuple[tuple, ...] = ()
    web: str | None = None
    agent_entry_points: tuple[str, ...] = ()
    protocol: str | None = None
    tools: str | GameTools | None = None
    env_hooks: Any = None

    def check_num_players(self, num_players: object) -> int:
        """``num_players`` as an int in ``[min_players, max_players]`` (``TypeError`` / ``ValueError``)."""
        if not _is_int(num_players):
            raise TypeError(
                f"num_players must be an int in {self.min_players}..{self.max_players} for {self.title}, "
                f"got {type(num_players).__name__} {num_players!r}"
            )
        n = int(num_players)
        if not self.min_players <= n <= self.max_players:
            raise ValueError(f"num_players must be in {self.min_players}..{self.max_players} for {self.title}, got {n}")
        return n

    def check_reward_mode(self, mode: object) -> str:
        """``mode`` if it is one of :attr:`reward_modes`, else ``ValueError``."""
        if mode not in self.reward_modes:
            raise ValueError(
                f"reward must be one of {list(self.reward_modes)}, got {mode!r} (the reward modes of {self.title})"
            )
        return str(mode)

    def make(self, num_players: int, seed: int | None = None, **options: Any) -> ForwardModel:
        """``new_game`` with the player count checked first."""
        return self.new_game(self.check_num_players(num_players), seed=seed, **options)


_GAMES: dict[str, GameSpec] = {}
#: games known by where their spec lives (``"module:SPEC"``), imported on first use
_DECLARED: dict[str, str] = {}


def register_game(spec: GameSpec, replace: bool = False) -> GameSpec:
    """Add ``spec`` to the registry under ``spec.name`` (again with the same spec is a no-op)."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"spec must be a GameSpec, got {type(spec).__name__}")
    old = _GAMES.get(spec.name)
    if old is not None and old is not spec and not replace:
        raise ValueError(f"a game named {spec.name!r} is registered already (replace=True replaces it)")
    _GAMES[spec.name] = spec
    return spec


def declare_game(name: str, spec: str) -> None:
    """Make ``name`` a known game whose spec is ``spec`` (``"module:SPEC"``), imported when first asked for.

    The package root declares the games it ships this way, so importing one game (or the root)
    loads no other game's modules. Importing the module must register that spec under ``name``.
    """
    if not isinstance(name, str) or not isinstance(spec, str) or spec.count(":") != 1:
        raise TypeError(f"declare_game needs a name and 'module:SPEC', got {name!r}, {spec!r}")
    _DECLARED.setdefault(name, spec)


def _from_declared(name: str) -> GameSpec | None:
    target = _DECLARED.get(name)
    if target is None:
        return None
    import importlib

    module, _, attr = target.partition(":")
    spec = getattr(importlib.import_module(module), attr)
    if not isinstance(spec, GameSpec) or spec.name != name:
        raise ValueError(f"the declared game {name} = {target} must name a GameSpec called {name!r}")
    return register_game(spec)


def _from_entry_point(name: str) -> GameSpec | None:
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            spec = ep.load()
            if not isinstance(spec, GameSpec) or spec.name != name:
                raise ValueError(f"the entry point {name} = {ep.value} must name a GameSpec called {name!r}")
            return register_game(spec)
    return None


def game_spec(name: str) -> GameSpec:
    """The registered spec of ``name``; ``ValueError`` naming the known games otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"game must be a name (str) or a GameSpec, got {type(name).__name__} {name!r}")
    spec = _GAMES.get(name) or _from_declared(name) or _from_entry_point(name)
    if spec is None:
        raise ValueError(f"unknown game {name!r}: registered games are {game_names()}")
    return spec


@dataclass(frozen=True)
class GameTools:
    """What the shared commands need of one game beyond its :class:`GameSpec`: the one place a game's
    differences live, so that no shared module names a game (``docs/architecture.md``). Every
    field has the default of a game on the framework alone; a game names its object in
    :attr:`GameSpec.tools`.

    * ``env_name``: the name in its env version (``{env_name}-v{version}``, report cards, external
      agents' hello); ``None``: the game's name;
    * ``rules``: its rule sets, the first the default (``ohmygoods tournament --rules``); ``()``: one;
    * ``search_agents``: agent names that take ``sims`` / ``seconds`` (``--mcts-sims``, ``mcts-N``);
    * ``leaderboard_agents``: ``ohmygoods evaluate --leaderboard``'s default agents (``None``: its
      protocol's ladder); ``docs_dir``: the folder of its leaderboard page and cards (``None``:
      ``docs/<name>``); ``out_prefix``: the prefix of a default ``evaluate --out`` (``None``: ``<name>_``);
    * ``checkpoints()``: its shipped policy checkpoints by agent name (their JSON names the player count);
    * ``warm()``: compile its engine before a timed or interactive run, telling the user (``ohmygoods
      evaluate``, ``tournament``);
    * ``play_game(agents, players, rules, seed) -> (row, rounds, decisions, record)``: a tournament
      game on the game's own loop (``None``: the framework's match loop);
    * ``hello(hello, info, obs_dim)``: an external agent's hello for this game (``None``: the
      framework's, which names the seat and the observation size of that seat);
    * ``commands``: the game's implementation of a command (``"demo"``, ``"play"``, ``"fuzz"``,
      ``"train"``) as ``"module:main"``, ``main(argv) -> int``; a command missing here is refused
      for the game (exit 2) by :func:`ohmygoods_env.apps.common.game_command`;
    * ``bench_rows(seconds)``: its rows of ``ohmygoods bench`` after the engine rows (``None``: none);
    * ``training_kit``: what the one self-play loop (``ohmygoods_training.fast_ppo``) needs of the game beyond
      its batch engine, a ``"module:object"`` of the training layer (``ohmygoods_training.kits.Kit``: network,
      league agents, prior, shaping, evaluation, warm start); ``None``: the kit of any game (an MLP);
    * ``checkpoint_layout()``: the layout a checkpoint of the self-play loop records for this game
      (``None``: one observation block and one action range from the spec's sizes);
    * ``batch_engine``: its batch engine, a class satisfying :class:`ohmygoods_env.framework.batch.BatchEngine`
      built as ``(num_games, num_players, seed=seed, **options)`` (``None``: none; the self-play loop plays
      its forward models through ``framework.batch.ModelBatch``);
    * ``batch_policy(agent) -> policy``: an agent as a policy over rows of that engine, ``policy(engine, rows)
      -> int64[len(rows)]`` (``framework.matches.play_batch``; ``None``: ``framework.matches.BatchAgent``,
      which asks an agent that reads an information state through ``engine.model(i)``). A game whose agents
      read its engine's own rows (*Oh my Goods!*'s redacted state rows) names its own here.

    A callable field may be given as ``"module:function"`` (read with :meth:`load`): a game package
    names that way what lives in a layer above it (its agents' checkpoints, its command lines in
    :mod:`ohmygoods_env.apps`), which only the layer that uses it imports.
    """

    env_name: str | None = None
    rules: tuple[str, ...] = ()
    search_agents: tuple[str, ...] = ()
    leaderboard_agents: str | None = None
    docs_dir: str | None = None
    out_prefix: str | None = None
    checkpoints: str | Callable[[], Mapping[str, Any]] | None = None
    warm: str | Callable[[], None] | None = None
    play_game: Callable[..., tuple] | None = None
    hello: Callable[..., dict] | None = None
    commands: Mapping[str, str] = field(default_factory=dict)
    bench_rows: str | Callable[[float], list] | None = None
    training_kit: str | None = None
    checkpoint_layout: str | Callable[[], dict] | None = None
    batch_engine: str | Callable[..., Any] | None = None
    batch_policy: str | Callable[[Any], Callable[..., Any]] | None = None

    def load(self, field_name: str) -> Any:
        """The callable of field ``field_name`` (a ``"module:function"`` string imported now), or None."""
        value = getattr(self, field_name)
        if isinstance(value, str):
            import importlib

            module, _, attr = value.partition(":")
            value = getattr(importlib.import_module(module), attr)
        return value


_TOOLS: dict[str, GameTools] = {}


def game_tools(game: str | GameSpec) -> GameTools:
    """The :class:`GameTools` of a game (its spec's ``tools``, imported once; the defaults without one)."""
    spec = resolve_game(game)
    tools = _TOOLS.get(spec.name)
    if tools is None:
        tools = spec.tools if isinstance(spec.tools, GameTools) else GameTools()
        if isinstance(spec.tools, str):
            import importlib

            module, _, attr = spec.tools.partition(":")
            tools = getattr(importlib.import_module(module), attr)
            if not isinstance(tools, GameTools):
                raise TypeError(f"{spec.name}: tools {spec.tools} must name a GameTools, got {type(tools).__name__}")
        _TOOLS[spec.name] = tools
    return tools


def games_with(command: str) -> list[str]:
    """The registered games whose tools implement ``command`` (``"demo"``, ``"fuzz"``, ...), sorted."""
    return [name for name in game_names() if command in game_tools(name).commands]


def default_game() -> str:
    """The game a command plays when none is named: the first game declared or registered (the package
    root declares *Oh my Goods!* first). ``DEFAULT_GAME`` of this module is this name, read on use."""
    for name in (*_DECLARED, *_GAMES):
        return name
    raise ValueError("no game is registered: import a game package (ohmygoods_env registers its games)")


def is_default_game(game: str | GameSpec) -> bool:
    """Whether ``game`` is the one a command plays when none is named. Shared code asks this only about
    words a user types or reads (a command needs no ``--game``, a page needs no game's name), never
    to choose what a game does: that comes from its spec and :func:`game_tools`."""
    return resolve_game(game).name == default_game()


def __getattr__(name: str) -> Any:
    if name == "DEFAULT_GAME":  # computed on use: the registry fills while packages are imported
        return default_game()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def game_names() -> list[str]:
    """Names of the registered games (and the declared ones, not imported yet), sorted."""
    return sorted({*_GAMES, *_DECLARED})


def resolve_game(game: str | GameSpec) -> GameSpec:
    """A :class:`GameSpec` from a spec or a registered name."""
    return game if isinstance(game, GameSpec) else game_spec(game)
