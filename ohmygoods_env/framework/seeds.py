"""The one seed recipe: which game slot ``slot`` of a batch, vector env or tool plays as its ``episode``-th.

Every env, batch engine and tool of every game derives the seed of a slot's games here, so a
base seed deals the same games whatever runs them. Version 1 (:data:`SEED_RECIPE_VERSION`), for
a base ``seed`` in ``0 <= seed < 2**64`` and non-negative ``slot`` and ``episode``::

    z = mix64(mix64(mix64(seed) + slot) + episode)      # uint64 arithmetic, wrapping
    episode_seed(seed, slot, episode) = z >> 1           # an int in 0 <= s < 2**63

with ``mix64`` splitmix64 (the golden-ratio increment, then its finaliser;
:func:`ohmygoods_env.framework.rng.mix64`). Slot ``i`` of a batch seeded ``s`` plays its
``e``-th game from ``episode_seed(s, i, e)``, so that game replays alone as the game's
``Game(..., seed=episode_seed(s, i, e))``.

History: version 1 is the recipe *Oh my Goods!*'s batch engine always used, so its recorded
results (training statistics, evaluation and leaderboard games played in batches, pinned tests)
are unchanged. *Artificium*'s batch engine and the framework's vector env derived their seeds
otherwise before (version 0): a base seed deals other *Artificium* training games there than
it did. A change of the recipe changes which games a seed deals, so it bumps
:data:`SEED_RECIPE_VERSION`.

The seeds of *scheduled* games (tournaments, evaluation, ``framework.matches.play_games``)
are another derivation, :func:`ohmygoods_env.framework.matches.derive_seed` (numpy's
``SeedSequence`` of the seed and the game's indices): a schedule is not a slot replaying
episodes, and the recorded tournament and report-card games depend on it. A series played in a
batch engine (``framework.matches.play_batch``, the training statistics) is a batch: its game ``i``
is slot ``i``'s first episode, ``episode_seed(seed, i, 0)``.

Pure Python (no numba, so a game without compiled kernels loads none). *Oh my Goods!*'s batch
engine seeds its slots in a kernel, ``ohmygoods_env.batch._episode_seed``: the same recipe
compiled (``tests/framework/test_seed_recipe.py`` checks they agree).
"""

from __future__ import annotations

from .checks import check_int, check_seed

__all__ = ["SEED_RECIPE_VERSION", "episode_seed", "mix64"]

#: the version of :func:`episode_seed`; bumped whenever a seed would deal other games
SEED_RECIPE_VERSION = 1

_MASK = (1 << 64) - 1
#: splitmix64's increment (the golden ratio in 64 bits) and its two finaliser multipliers, written
#: once in the package: ``framework.rng`` builds its kernel's ``uint64`` constants from these
SPLITMIX_GOLDEN, SPLITMIX_MIX1, SPLITMIX_MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def mix64(z: int) -> int:
    """splitmix64 on a 64-bit int (the same function as the kernel ``framework.rng.mix64``)."""
    z = (z + SPLITMIX_GOLDEN) & _MASK
    z = ((z ^ (z >> 30)) * SPLITMIX_MIX1) & _MASK
    z = ((z ^ (z >> 27)) * SPLITMIX_MIX2) & _MASK
    return z ^ (z >> 31)


def episode_seed(seed: int, slot: int, episode: int) -> int:
    """The seed (``0 <= s < 2**63``) of game number ``episode`` played in ``slot`` under the base ``seed``
    (``0 <= seed < 2**64``): the one recipe of every env, batch engine and tool (module docstring)."""
    base = check_seed(seed)
    s = check_int(slot, "slot", 0, 2**63 - 1)
    e = check_int(episode, "episode", 0, 2**63 - 1)
    return mix64((mix64((mix64(base) + s) & _MASK) + e) & _MASK) >> 1
