"""The statistics of the project: every interval and rating, for any game (nothing here knows a game's rules).

A *game record* is a mapping with ``scores`` (one per seat) and, optionally, ``leftover`` (the
game's tie-break, compared when scores are equal; in *Oh my Goods!* the leftover coins, R8.3),
``winners`` (the seats that won) and ``agent_index`` (the agent of each seat).

* :func:`wilson` — the one Wilson score interval of the project (win rates; ties may count
  half, so the number of successes may be fractional); :func:`win_rate_interval` — wins and
  ties of a match as a rate (ties half) with that interval.
* :func:`mean_interval` — the mean and its 95% normal interval (solo scores, margins).
* :func:`ahead`, :func:`ahead_share`, :func:`win_share`, :func:`pair_outcomes`,
  :func:`pairwise` — counting a finished game: whether one seat finished ahead of another
  (equal counts half), a seat's share of the others it beat or of the win, and the pairwise
  comparisons of agents over many games.
* :func:`bradley_terry`, :func:`wilson_rating_bounds` — pairwise Bradley–Terry ratings on the
  Elo scale (MM algorithm, a prior of virtual games), and the interval of a perfect record.
* :func:`multiplayer_ratings` — ratings of agents from 3- and 4-player games with the
  Plackett–Luce model of ``openskill`` (the ``ratings`` extra): every game ranks its seats by
  score, then tie-break (equal counts as a tie), and the posterior of each agent's
  skill gives its rating ``mu`` and a 95% interval ``mu ± 1.96 sigma``. Skill is taken as
  fixed (``tau = 0``), so ``sigma`` shrinks with the games played but never reaches zero. An
  agent that holds several seats of one game gets the mean of its seats' updates. Ratings
  are on openskill's scale (a new agent: ``mu = 25``), shifted so that ``random`` is 0 when
  it plays, else the mean is 0.
* :func:`anchored_rating` — the rating of one agent on a fixed Bradley–Terry (Elo) scale
  whose anchor agents are pinned (``ohmygoods evaluate``: random 0, heuristic 1000), with a
  95% interval.
* :func:`rate_difference`, :func:`value_difference` — whether two measured win rates (or two
  means, two ratings) differ: the 95% interval of the difference (``ohmygoods evaluate --compare``).

``ohmygoods_env.stats`` is the same module under its older name.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "ELO",
    "Z95",
    "ahead",
    "ahead_share",
    "anchored_rating",
    "bradley_terry",
    "finish_key",
    "mean_interval",
    "multiplayer_ratings",
    "pair_outcomes",
    "pairwise",
    "rate_difference",
    "value_difference",
    "wilson",
    "wilson_rating_bounds",
    "win_rate_interval",
    "win_share",
]

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


def win_rate_interval(wins: int, ties: int, games: int, z: float = Z95) -> tuple[float, float, float]:
    """``(rate, lo, hi)``: the win rate of ``games`` games with ties counting half, and its Wilson interval.

    >>> [round(x, 3) for x in win_rate_interval(6, 2, 10)]
    [0.7, 0.397, 0.892]
    """
    if games <= 0:
        raise ValueError(f"win_rate_interval needs at least one game, got {games}")
    score = wins + 0.5 * ties
    lo, hi = wilson(score, games, z)
    return (score / games, lo, hi)


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
        keys = [finish_key(g, s) for s in range(len(seats))]
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


ELO = 400.0 / math.log(10.0)  # Elo points per unit of log-odds


# ===================================================================== counting finished games


def finish_key(game: Mapping[str, Any], seat: int) -> tuple[float, float]:
    """What ranks ``seat`` of a game record: its score, then its tie-break (``leftover``; 0 without one)."""
    tie = game.get("leftover")
    return (game["scores"][seat], tie[seat] if tie is not None else 0)


def ahead(game: Mapping[str, Any], s: int, t: int) -> float:
    """1 when seat ``s`` of the game record finished ahead of seat ``t`` (score, then tie-break), 0.5 when
    equal, else 0.

    >>> ahead({"scores": [10, 10], "leftover": [3, 1]}, 0, 1)
    1.0
    """
    a, b = finish_key(game, s), finish_key(game, t)
    return 1.0 if a > b else (0.5 if a == b else 0.0)


def ahead_share(game: Mapping[str, Any], seat: int) -> float:
    """Share of the other seats that ``seat`` finished ahead of (equal counts half)."""
    others = [t for t in range(len(game["scores"])) if t != seat]
    return sum(ahead(game, seat, t) for t in others) / len(others)


def win_share(game: Mapping[str, Any], seat: int) -> float:
    """``seat``'s share of the win: ``1/k`` when it is one of ``k`` winners (``winners``), else 0."""
    return 1.0 / len(game["winners"]) if seat in game["winners"] else 0.0


def pair_outcomes(games: Sequence[Mapping[str, Any]], i: int, j: int) -> tuple[int, int, int]:
    """``(wins, ties, losses)`` of agent ``i``'s seats against agent ``j``'s over the games (``agent_index``)."""
    out = [0, 0, 0]
    for g in games:
        mine = [s for s, a in enumerate(g["agent_index"]) if a == i]
        theirs = [s for s, a in enumerate(g["agent_index"]) if a == j]
        for s in mine:
            for t in theirs:
                out[{1.0: 0, 0.5: 1, 0.0: 2}[ahead(g, s, t)]] += 1
    return out[0], out[1], out[2]


def pairwise(games: Sequence[Mapping[str, Any]], k: int) -> tuple[np.ndarray, np.ndarray]:
    """wins[i, j]: comparisons agent i's seat finished ahead of agent j's; count[i, j]: comparisons."""
    wins = np.zeros((k, k))
    count = np.zeros((k, k))
    for g in games:
        idx = g["agent_index"]
        for s, t in itertools.permutations(range(len(idx)), 2):
            i, j = idx[s], idx[t]
            if i == j:
                continue
            wins[i, j] += ahead(g, s, t)
            count[i, j] += 1
    return wins, count


# ===================================================================== ratings


def bradley_terry(wins: np.ndarray, count: np.ndarray, prior: float = 1.0, iters: int = 2000) -> np.ndarray:
    """Elo-scale Bradley-Terry ratings (MM algorithm) with ``prior`` virtual games per pair."""
    k = wins.shape[0]
    off = 1 - np.eye(k)
    w = wins + prior / 2 * off
    n_ij = count + prior * off  # comparisons between i and j (count is symmetric)
    total_w = w.sum(1)
    gamma = np.ones(k)
    for _ in range(iters):
        den = (n_ij / (gamma[:, None] + gamma[None, :])).sum(1)
        new = total_w / np.maximum(den, 1e-300)
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - gamma)) < 1e-10:
            gamma = new
            break
        gamma = new
    return 400.0 * np.log10(gamma)


def wilson_rating_bounds(
    wins: np.ndarray, count: np.ndarray, i: int, rate: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> tuple[float, float]:
    """Agent ``i``'s rating with its wins against each opponent moved to the Wilson bounds.

    A bootstrap over games has no spread when every comparison of a pair went one way (each
    resample is the same perfect record), which gave zero-width intervals such as "645 [645,
    645]". The Wilson interval of each of ``i``'s pairwise win rates is not degenerate, so its
    bounds, as ratings of the same model (with its prior), give the interval: for a perfect
    record it ends at the point estimate, the most the prior allows.
    """
    bounds = []
    for side in (0, 1):
        w = wins.astype(float).copy()
        for j in np.flatnonzero(count[i] > 0):
            if j != i:
                w[i, j] = wilson(wins[i, j], count[i, j])[side] * count[i, j]
                w[j, i] = count[i, j] - w[i, j]
        bounds.append(float(rate(w, count)[i]))
    return min(bounds), max(bounds)


def anchored_rating(
    results: Sequence[tuple[float, float, float]], prior: float = 1.0, z: float = Z95
) -> tuple[float, float, float]:
    """Rating of one agent on a Bradley–Terry scale (Elo points) whose anchors are pinned.

    ``results`` holds one ``(anchor_rating, score, n)`` per anchor: ``n`` comparisons
    against that anchor, ``score`` of them won (ties count half). Under Bradley–Terry the
    agent wins against an anchor of rating ``r`` with ``p = 1 / (1 + 10^((r - x) / 400))``;
    ``x`` maximises the likelihood plus ``prior`` virtual comparisons split half-half per
    anchor (keeps ``x`` finite when the agent never loses or never wins). The interval is
    ``x ± z / sqrt(I)`` with ``I`` the Fisher information. Returns ``(x, lo, hi)``.

    >>> [round(v) for v in anchored_rating([(0.0, 75.0, 100.0)], prior=0.0)]
    [191, 112, 269]
    """
    rows = [(float(r), float(s) + prior / 2, float(n) + prior) for r, s, n in results if n + prior > 0]
    if not rows:
        raise ValueError("anchored_rating needs at least one anchor with comparisons")
    for r, s, n in rows:
        if not 0 <= s <= n:
            raise ValueError(f"a score must be in [0, n], got {s} of {n} against the anchor rated {r}")
    x = sum(r * n for r, _, n in rows) / sum(n for _, _, n in rows)
    info = 0.0
    for _ in range(100):  # Newton's method on the concave log-likelihood (in log-odds units)
        grad, info = 0.0, 0.0
        for r, s, n in rows:
            p = 1.0 / (1.0 + math.exp((r - x) / ELO))
            grad += s - n * p
            info += n * p * (1 - p)
        if info <= 0:
            raise ValueError("anchored_rating: no information (every anchor decided with certainty)")
        step = max(-400.0, min(400.0, ELO * grad / info))
        x += step
        if abs(step) < 1e-9:
            break
    half = z * ELO / math.sqrt(info)
    return (x, x - half, x + half)


def rate_difference(s1: float, n1: float, s2: float, n2: float, z: float = Z95) -> tuple[float, float, float]:
    """Difference of two proportions ``s1/n1 - s2/n2`` with Newcombe's 95% interval (built from the
    two Wilson intervals); the difference is significant when the interval excludes 0.

    >>> [round(v, 3) for v in rate_difference(60, 100, 40, 100)]
    [0.2, 0.061, 0.328]
    """
    if n1 <= 0 or n2 <= 0:
        raise ValueError(f"rate_difference needs games on both sides, got n1={n1}, n2={n2}")
    p1, p2 = s1 / n1, s2 / n2
    l1, u1 = wilson(s1, n1, z)
    l2, u2 = wilson(s2, n2, z)
    d = p1 - p2
    return (d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def value_difference(
    a: tuple[float, float, float], b: tuple[float, float, float], z: float = Z95
) -> tuple[float, float, float]:
    """Difference ``a - b`` of two independent estimates given as ``(value, lo, hi)`` with
    symmetric normal 95% intervals; its 95% interval (standard errors added in quadrature).

    >>> [round(v, 2) for v in value_difference((10.0, 8.0, 12.0), (7.0, 5.0, 9.0))]
    [3.0, 0.17, 5.83]
    """
    se_a = (a[2] - a[1]) / (2 * z)
    se_b = (b[2] - b[1]) / (2 * z)
    d = a[0] - b[0]
    half = z * math.sqrt(se_a**2 + se_b**2)
    return (d, d - half, d + half)
