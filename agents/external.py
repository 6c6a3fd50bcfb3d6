"""External agents: a program in any language that plays over JSON lines on stdin/stdout.

The spec ``exec:COMMAND`` (``ohmygoods evaluate "exec:python3 my_agent.py"``, ``ohmygoods
tournament --agents "exec:./my_agent,heuristic"``) builds an :class:`ExternalAgent`; through
:func:`~ohmygoods_env.policy.make_agent` only with ``allow_exec=True``, so an agent name from
elsewhere (a request to ``ohmygoods serve``) never starts a program. The
command is split like a shell would (:func:`shlex.split`) but runs without a shell. One
process plays one seat of one game: it starts at the first decision and its stdin is closed
when the game is over (the agent object is dropped).

Protocol (version 1), one JSON object per line, UTF-8:

==========================  =====================================================================
line                        content
==========================  =====================================================================
``hello`` (to the agent)    ``{"type": "hello", "protocol": "ohmygoods-agent", "version": 1,
                            "game": "ohmygoods", "env": "oh_my_goods-v1", "seed": int,
                            "num_actions": int, "obs_dim": int, "state_len": int,
                            "action_ranges": {name: [start, stop], ...}}``; no reply.
                            ``action_ranges`` is the table of action ids
                            (:data:`ohmygoods_env.layout.ACTION_RANGES`). Another game of the
                            framework (``game``, e.g. ``"artificium"``, ``env`` ``"artificium-v0"``)
                            adds ``"num_players"`` and ``"seat"``; its ``state_len`` is ``null``
                            where the game has no array information state.
``act`` (to the agent)      ``{"type": "act", "observation": [float, ...] (obs_dim), "mask":
                            [0 or 1, ...] (num_actions), "legal": [id, ...], "info_state": [int,
                            ...] (state_len) or null}``: the acting seat's observation, legal
                            mask (and its ids) and redacted information state (``null`` for a
                            game without an array information state).
reply (from the agent)      one line: ``{"action": id}`` or a bare ``id``; ``id`` must be legal.
==========================  =====================================================================

A reply must come within ``timeout`` seconds (default 10; the first one includes the
program's start). A reply that is not JSON (or JSON beyond the limits: nested deeper than 4
levels, a number longer than 20 characters), not an integer id, or not a legal action; a
program that exits, stays silent past the timeout, or closes its output (or input) but keeps
running (stopped after the timeout): each raises :class:`ExternalAgentError`
naming the command, the decision and what was wrong. The harness that catches it keeps the
games already finished (``ohmygoods evaluate`` and ``ohmygoods tournament`` write each
finished game at once and continue with ``--resume``).
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import shutil
import subprocess
import tempfile
import time
import weakref
from typing import Any

import numpy as np

from ohmygoods_env.framework.files import BadJSON, loads_bounded
from ohmygoods_env.framework.game import DEFAULT_GAME, InformationSet, game_tools, resolve_game
from ohmygoods_env.policy import Agent

PROTOCOL = "ohmygoods-agent"
PROTOCOL_VERSION = 1
DEFAULT_TIMEOUT = 10.0
_MAX_LINE = 1 << 20  # a reply longer than this is malformed


class ExternalAgentError(RuntimeError):
    """An external agent broke the protocol: a bad reply, a crash, or silence past the timeout."""


def hello_message(
    seed: int | None, game: str = DEFAULT_GAME, info: InformationSet | None = None, obs_dim: int | None = None
) -> dict[str, Any]:
    """The first line sent to an external agent (see the module docstring). A game other than
    *Oh my Goods!* needs the seat's ``info`` (its seat and player count) and ``obs_dim``, the
    length of that seat's observation at that player count."""
    spec = resolve_game(game)
    hello = {
        "type": "hello",
        "protocol": PROTOCOL,
        "version": PROTOCOL_VERSION,
        "game": spec.name,
        "env": f"{spec.name}-v{spec.version}",
        "seed": seed,
        "num_actions": spec.num_actions,
        "action_ranges": {row[0]: [row[1], row[1] + row[2]] for row in spec.action_ranges},
    }
    own = game_tools(spec).hello  # a game's own hello (Oh my Goods!: one observation size, its layout's env name)
    if own is not None:
        return own(hello, info, obs_dim)
    if info is None or obs_dim is None:
        raise ValueError(f"the hello of {spec.title} names the seat and the observation size: give info and obs_dim")
    state = _array_state(info)
    return {
        **hello,
        "num_players": info.num_players,
        "seat": info.player,
        "obs_dim": int(obs_dim),
        "state_len": None if state is None else len(state),
    }


def _array_state(info: Any) -> list[int] | None:
    """The information state as a list of ints; an :class:`InformationSet` of a game without an
    array information state gives ``None``."""
    if info is None:
        return None
    try:
        return np.asarray(info).astype(int).tolist()
    except TypeError:
        return None


def parse_command(command: str) -> list[str]:
    """``COMMAND`` of ``exec:COMMAND`` as an argument list; ``ValueError`` when the program is not found."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"exec agent: cannot split the command {command!r}: {exc}") from None
    if not argv:
        raise ValueError("exec agent: empty command (expected exec:COMMAND, e.g. 'exec:python3 my_agent.py')")
    if shutil.which(argv[0]) is None:
        raise ValueError(f"exec agent: no program {argv[0]!r} (not on PATH, not an executable file) in {command!r}")
    return argv


def _stop(proc: subprocess.Popen, stderr: Any) -> None:
    """Close the agent's stdin (the end of its game), then make sure it exits."""
    try:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()
    finally:
        for f in (proc.stdout, stderr):
            if f is not None:
                f.close()


class ExternalAgent(Agent):
    """A seat played by an external program over JSON lines (see the module docstring)."""

    name = "exec"
    needs_info_state = True
    needs_observation = True

    def __init__(
        self, command: str, seed: int | None = None, timeout: float = DEFAULT_TIMEOUT, game: str = DEFAULT_GAME
    ) -> None:
        if not timeout > 0:
            raise ValueError(f"exec agent: timeout must be > 0 seconds, got {timeout}")
        self.game = resolve_game(game).name
        self.command = command
        self.argv = parse_command(command)
        self.seed = seed
        self.timeout = float(timeout)
        self.decisions = 0
        self._proc: subprocess.Popen | None = None
        self._stderr: Any = None
        self._buffer = b""

    def _start(self, info: Any, obs_dim: int) -> subprocess.Popen:
        hello = hello_message(self.seed, self.game, info, obs_dim)  # a wrong call fails before a program runs
        self._stderr = tempfile.TemporaryFile()
        proc = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, bufsize=0
        )
        weakref.finalize(self, _stop, proc, self._stderr)
        self._proc = proc
        self._send(hello)
        return proc

    def _fail(self, what: str) -> ExternalAgentError:
        tail = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            text = self._stderr.read()[-800:].decode("utf-8", "replace").strip()
            tail = f"; its stderr ends: {text}" if text else ""
        return ExternalAgentError(
            f"external agent {self.command!r}, decision {self.decisions + 1} of its game: {what}{tail}"
        )

    def _ended(self, what: str, when: str) -> ExternalAgentError:
        """The error for a program that closed its ``what`` (``input``/``output``): it has exited (``when``
        says at which point), or it gets up to the timeout to exit and is then stopped, never waited on longer."""
        assert self._proc is not None
        try:
            status = self._proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
            return self._fail(
                f"the program closed its {what} but kept running; stopped after {self.timeout:g} s (an agent "
                "reads every line and replies until its input ends)"
            )
        return self._fail(f"the program exited (status {status}) {when}")

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write((json.dumps(message) + "\n").encode())
        except (BrokenPipeError, OSError):
            raise self._ended("input", "before reading its input") from None

    def _read_line(self) -> bytes:
        assert self._proc is not None and self._proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        fd = self._proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if len(self._buffer) > _MAX_LINE:
                    raise self._fail(f"malformed reply: a line longer than {_MAX_LINE} bytes")
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise self._fail(f"no reply within the timeout of {self.timeout:g} s")
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise self._ended("output", "without a reply")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _parse(self, line: bytes, mask: np.ndarray) -> int:
        text = line.decode("utf-8", "replace").strip()
        try:  # within limits: a deeply nested or 5,000-digit reply is malformed, not a crash
            reply = loads_bounded(line, max_depth=4, max_digits=20)
        except BadJSON as exc:
            raise self._fail(f'malformed reply {text[:200]!r} ({exc}): expected {{"action": ID}} or ID') from None
        action = reply.get("action") if isinstance(reply, dict) else reply
        if isinstance(action, bool) or not isinstance(action, int):
            raise self._fail(f'malformed reply {text[:200]!r}: expected {{"action": ID}} with ID an integer')
        if not 0 <= action < mask.shape[0] or not mask[action]:
            legal = np.flatnonzero(mask).tolist()
            raise self._fail(f"illegal action {action}: the legal actions are {legal}")
        return action

    def act(self, observation: np.ndarray, mask: np.ndarray, info_state: np.ndarray | None = None) -> int:
        m = np.asarray(mask)
        obs = np.asarray(observation, np.float64)
        if self._proc is None:
            self._start(info_state if isinstance(info_state, InformationSet) else None, obs.shape[0])
        self._send(
            {
                "type": "act",
                "observation": obs.tolist(),
                "mask": m.astype(int).tolist(),
                "legal": np.flatnonzero(m).tolist(),
                "info_state": _array_state(info_state),
            }
        )
        action = self._parse(self._read_line(), m)
        self.decisions += 1
        return action

    def __repr__(self) -> str:
        return f"<ExternalAgent {self.command!r}>"


__all__ = ["DEFAULT_TIMEOUT", "PROTOCOL", "PROTOCOL_VERSION", "ExternalAgent", "ExternalAgentError", "hello_message"]
