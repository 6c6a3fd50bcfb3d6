"""Every code block of README.md and docs/*.md runs, exactly as written, from a directory outside the repository.

The collector reads the fenced blocks of the documents:

* ```` ```python ```` blocks run as scripts (``python block.py``);
* ```` ```bash ````, ```` ```sh ```` and ```` ```shell ```` blocks run with ``bash -e -o pipefail``;
  ```` ```console ```` blocks run their ``$ `` lines (continuation lines included) the same way;
* ```` ```text ```` blocks are output, tables or usage synopses: not code, not run;
* a fence without a language fails (:func:`test_every_fence_names_its_language`): a block is either code
  or text, never left to guess.

Each block runs in a fresh empty temporary directory outside the repository, with this interpreter's
``bin`` first on ``PATH`` (so ``python`` and ``ohmygoods`` are the installed ones), and a time limit. A
block is skipped only when the line directly above its opening fence is ``<!-- not run: REASON -->``;
the reason is required and the skip shows it (``pytest -rs``).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "docs" / "artificium").glob("*.md")),
]
RUN_LANGUAGES = {"python": "python", "bash": "bash", "sh": "bash", "shell": "bash", "console": "console"}
TEXT_LANGUAGES = {"text"}
#: seconds per block; the first block may compile the engine (65-115 s with a cold cache)
TIMEOUT_S = float(os.environ.get("OHMYGOODS_DOC_BLOCK_TIMEOUT", "300"))
_FENCE = re.compile(r"^(?P<indent>[ ]*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)")
_NOT_RUN = re.compile(r"^\s*<!--\s*not run\s*(?::\s*(?P<reason>.*?))?\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, its text and (when marked) why it is not run."""

    path: Path
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    not_run: str | None  # the reason of a ``<!-- not run: REASON -->`` line above the fence, "" without reason

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}:{self.language or 'untagged'}"


def read_blocks(path: Path) -> list[Block]:
    """The fenced blocks of a markdown file, in order (a fence closes with the same or a longer run)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, start = len(m["indent"]), m["fence"], i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        above = _NOT_RUN.match(lines[start - 1]) if start > 0 else None
        reason = None if above is None else (above["reason"] or "")
        blocks.append(Block(path, start + 1, m["info"].lower(), "\n".join(body) + "\n", reason))
        i += 1
    return blocks


def console_script(code: str) -> str:
    """The commands of a console block: its ``$ `` lines and their backslash continuations."""
    out: list[str] = []
    continued = False
    for line in code.splitlines():
        if continued or line.startswith("$ "):
            out.append(line if continued else line[2:])
            continued = line.rstrip().endswith("\\")
    return "\n".join(out) + "\n"


ALL_BLOCKS = [b for doc in DOCUMENTS for b in read_blocks(doc)]
CODE_BLOCKS = [b for b in ALL_BLOCKS if b.language in RUN_LANGUAGES]


def test_the_collector_finds_the_documents_blocks() -> None:
    assert (ROOT / "README.md") in DOCUMENTS and len(DOCUMENTS) >= 5
    assert len(CODE_BLOCKS) >= 10, [b.id for b in ALL_BLOCKS]


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=lambda b: b.id)
def test_every_fence_names_its_language(block: Block) -> None:
    known = set(RUN_LANGUAGES) | TEXT_LANGUAGES
    assert block.language in known, (
        f"{block.id}: a fence needs a language, one of {sorted(known)} (code that runs, or `text` for "
        f"output, tables and usage synopses)"
    )
    if block.not_run is not None:
        assert block.not_run, f"{block.id}: `<!-- not run: REASON -->` needs a reason"
        assert block.language in RUN_LANGUAGES, f"{block.id}: `not run` marks code blocks only"


def _environment(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("MPLBACKEND", "Agg")
    env["HOME"] = env.get("HOME", str(workdir))
    return env


def run_block(block: Block, workdir: Path, timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    """Run one code block in ``workdir`` (python as a script; shell with ``bash -e -o pipefail``)."""
    kind = RUN_LANGUAGES[block.language]
    if kind == "python":
        script, command = workdir / "block.py", [sys.executable, "block.py"]
        script.write_text(block.code, encoding="utf-8")
    else:
        script, command = workdir / "block.sh", ["bash", "-e", "-o", "pipefail", "block.sh"]
        script.write_text(console_script(block.code) if kind == "console" else block.code, encoding="utf-8")
    with subprocess.Popen(
        command,
        cwd=workdir,
        env=_environment(workdir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a time-out ends the block's whole process group (servers, workers)
    ) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


@pytest.mark.parametrize("block", CODE_BLOCKS, ids=lambda b: b.id)
def test_doc_code_block_runs(block: Block, tmp_path: Path) -> None:
    if block.not_run:
        pytest.skip(f"{block.id} not run: {block.not_run}")
    assert ROOT not in tmp_path.resolve().parents, "the block must run outside the repository"
    try:
        done = run_block(block, tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{block.id} ran past {TIMEOUT_S} s: give it small sizes or mark it `<!-- not run: REASON -->`")
    assert done.returncode == 0, (
        f"{block.id} exited {done.returncode}\n--- code\n{block.code}--- stdout (tail)\n{done.stdout[-3000:]}"
        f"--- stderr (tail)\n{done.stderr[-3000:]}"
    )


def test_the_collector_reads_fences_markers_and_console_prompts(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text(
        "intro\n<!-- not run: needs a GPU -->\n```python\nprint(1)\n```\n"
        "  ```text\n  output\n  ```\n<!-- not run -->\n```bash\necho hi\n```\n"
        "```console\n$ echo a \\\n  b\na b\n$ true\n```\n````\n```nested```\n````\n",
        encoding="utf-8",
    )
    blocks = read_blocks(doc)
    assert [(b.line, b.language, b.not_run) for b in blocks] == [
        (3, "python", "needs a GPU"),
        (6, "text", None),
        (10, "bash", ""),
        (13, "console", None),
        (19, "", None),
    ]
    assert blocks[1].code == "output\n"
    assert console_script(blocks[3].code) == "echo a \\\n  b\ntrue\n"
