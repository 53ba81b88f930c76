"""Full decodes of big photos in a short-lived child process with an address-space limit.

Pillow reduces a JPEG while decoding it (``draft``: 1/2, 1/4, 1/8 scale), so a 48 MP
JPEG costs a worker ~80 MiB. HEIF (pillow-heif), PNG, TIFF and WebP have no reduced
decode: the whole image is decoded (a 48 MP HEIF grew a worker by 358 MiB, an RGBA PNG
by 425 MiB) before it can shrink. So a
non-JPEG photo above :data:`IN_PROCESS_MAX_PIXELS` is decoded here instead: a fresh
``python -m server.field.photos.child`` process limits its own address space
(``RLIMIT_AS``) before it touches the photo, does the work, writes its result and exits,
and all its memory goes back to the system. A worker's growth is then bounded by the
in-process limit, whatever the pixel count.

A child that runs out of its memory limit, crashes or overruns its time raises
:class:`~server.field.photos.errors.PhotoDecodeFailed` in the caller: the photo is not refused
for it (nothing is lost), the caller answers with a clear, retryable error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from os import PathLike
from pathlib import Path

from server.field.photos import decoders
from server.field.photos.errors import PhotoDecodeFailed, PhotoRejected

# Photos up to this many pixels are decoded in the worker: a 12 MP phone HEIC costs it
# ~90 MiB; the child's start (~1 s: Python, Pillow, the app's packages) is paid above.
IN_PROCESS_MAX_PIXELS = 16_000_000
# The child's address space (virtual memory, not RSS): Python and the photo code map
# ~255 MiB before the photo; the rest is for the decode (bench/README.md, "Photo memory").
DEFAULT_MEMORY_LIMIT_MIB = 1536
DEFAULT_TIMEOUT_S = 120
_ROOT = Path(__file__).resolve().parents[3]
_TASKS = ("check", "derive")


def decode_route(image_format: str | None, size: tuple[int, int]) -> str:
    """Where the pixels of a photo of this format and size are decoded.

    ``reduced``: a JPEG, in the worker at reduced scale. ``worker``: small enough to
    decode whole in the worker. ``child``: in a child process (:func:`run_child`).
    """
    if image_format == "JPEG":
        return "reduced"
    return "worker" if size[0] * size[1] <= IN_PROCESS_MAX_PIXELS else "child"


def run_child(task: str, path: str | PathLike, out_dir: str | PathLike | None = None, *,
              memory_limit_mib: int = DEFAULT_MEMORY_LIMIT_MIB,
              timeout_s: float = DEFAULT_TIMEOUT_S) -> dict:
    """Run ``task`` (``check``: decode every pixel; ``derive``: write ``display.jpg`` and
    ``thumbnail.jpg`` into ``out_dir``) on the photo at ``path`` in a child process.

    Returns:
        The child's report: ``peak_mib`` (its peak RSS).

    Raises:
        PhotoRejected: the child found the photo damaged (``check``).
        PhotoDecodeFailed: the child ran out of memory, crashed or overran ``timeout_s``.
    """
    if task not in _TASKS:
        raise ValueError(task)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_ROOT), env.get("PYTHONPATH")]))
    env["MALLOC_ARENA_MAX"] = "2"  # each thread's malloc arena reserves 64 MiB of address space
    command = [sys.executable, "-m", "server.field.photos.child", task, os.fspath(path),
               os.fspath(out_dir or ""), str(int(memory_limit_mib))]
    try:
        # At most PHOTO_DECODERS_PER_HOST children at once on this host (decoders.py).
        with decoders.slots().slot():
            done = subprocess.run(command, cwd=_ROOT, env=env, capture_output=True, text=True,
                                  timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired as exc:
        raise PhotoDecodeFailed("timeout", f"decoding the photo took longer than {timeout_s:g} s") from exc
    report = _last_json(done.stdout)
    if report is not None and "rejected" in report:
        raise PhotoRejected(report["rejected"], report["message"])
    if done.returncode == 0 and report is not None and report.get("ok"):
        return report
    if report is not None and report.get("failed") == "memory" or "memory" in done.stderr.lower() \
            or "bad_alloc" in done.stderr:
        raise PhotoDecodeFailed("memory", f"decoding the photo needed more than the {memory_limit_mib} MiB "
                                          "allowed (PHOTO_DECODE_MEMORY_MIB)")
    raise PhotoDecodeFailed("crashed", f"the photo decoder stopped (exit status {done.returncode})")


def _last_json(stdout: str) -> dict | None:
    for line in reversed(stdout.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        return value if isinstance(value, dict) else None
    return None
