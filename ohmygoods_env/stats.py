"""Match statistics shared by the tournament runner and training: intervals and multiplayer ratings.

* :func:`wilson` — the one Wilson score interval of the project (win rates; ties may count
  half, so the number of successes may be fractional).
* :func:`mean_interval` — the mean and its 95% normal interval (solo scores).
* :func:`multiplayer_ratings` — ratings of agents from 3- and 4-player games with the
  Plackett–Luce model of ``openskill`` (the ``ratings`` extra): every game ranks its seats by
  R8.3 (score, then leftover coins; equal counts as a tie), and the posterior of each agent's
  skill gives its rating ``mu`` and a 95% interval ``mu ± 1.96 sigma``. Skill is taken as
  fixed (``tau = 0``), so ``sigma`` shrinks with the games played but never reaches zero. An
  agent that holds several seats of one game gets the mean of its seats' updates. Ratings
  are on openskill's scale (a new agent: ``mu = 25``), shifted so that ``random`` is 0 when
  it plays, else the mean is 0.

Pairwise Bradley–Terry ratings with bootstrap intervals (2-player tournaments) stay in
:mod:`ohmygoods_agents.tournament`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["Z95", "mean_interval", "multiplayer_ratings", "wilson"]

Z95 = 1.959963984540054


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion; ``(0, 1)`` when ``n`` is 0.

    >>> [round(x, 3) for x in wilson(8, 10)]
    [0.49, 0.943]
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, n] = [0, {n}], got {successes}")
    p = successes / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean of ``values`` and its normal 95% interval ``mean ± z · sd / sqrt(n)`` (sample sd).

    >>> [round(x, 3) for x in mean_interval([1.0, 2.0, 3.0, 4.0])]
    [2.5, 1.235, 3.765]
    """
    n = len(values)
    if n == 0:
        raise ValueError("mean_interval needs at least one value")
    mean = math.fsum(values) / n
    if n == 1:
        return (mean, float("-inf"), float("inf"))
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return (mean, mean - half, mean + half)


def multiplayer_ratings(names: Sequence[str], games: Sequence[dict], z: float = Z95) -> list[dict[str, float]]:
    """Plackett–Luce ratings of ``names`` from tournament games (see the module docstring).

    Each game is a dict with ``agent_index`` (agent of each seat), ``scores`` and ``leftover``
    (per seat), in the order played. Returns per agent ``{"rating", "lo", "hi", "sigma"}``.
    Raises ``ImportError`` naming the extra when openskill is not installed.
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:
        raise ImportError(
            "ratings of 3-4 player games need openskill: pip install openskill (the 'ratings' extra)"
        ) from exc
    model = PlackettLuce(tau=0.0)
    mu = [model.mu] * len(names)
    sigma = [model.sigma] * len(names)
    for g in games:
        seats = list(g["agent_index"])
        if len(set(seats)) < 2:
            continue  # one agent against itself: nothing to learn about the others
        keys = [(g["scores"][s], g["leftover"][s]) for s in range(len(seats))]
        order = sorted(set(keys), reverse=True)
        ranks = [order.index(k) + 1 for k in keys]
        teams = [[model.rating(mu=mu[a], sigma=sigma[a])] for a in seats]
        new = model.rate(teams, ranks=ranks)
        for a in set(seats):
            mine = [new[s][0] for s in range(len(seats)) if seats[s] == a]
            mu[a] = sum(r.mu for r in mine) / len(mine)
            sigma[a] = sum(r.sigma for r in mine) / len(mine)
    anchor = mu[list(names).index("random")] if "random" in names else sum(mu) / len(mu)
    return [
        {"rating": m - anchor, "lo": m - anchor - z * s, "hi": m - anchor + z * s, "sigma": s}
        for m, s in zip(mu, sigma, strict=True)
    ]
