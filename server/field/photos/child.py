"""The child process of :mod:`server.field.photos.isolated`:
``python -m server.field.photos.child TASK PATH OUT LIMIT_MIB``.

It limits its own address space (``RLIMIT_AS``) before it touches the photo, does one
task (``check``: decode every pixel; ``derive``: write ``display.jpg`` and
``thumbnail.jpg`` into ``OUT``), prints one JSON line (``ok`` with its peak RSS,
``rejected`` with the photo's code, or ``failed: memory``) and exits.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
from pathlib import Path

from server.field.photos.derivatives import derive_here
from server.field.photos.errors import PhotoRejected
from server.field.photos.validate import check_pixels_here


def _peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child_main(task: str, path: str, out_dir: str, memory_limit_mib: str) -> int:
    limit = int(memory_limit_mib) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        if task == "check":
            check_pixels_here(path)
        else:
            display, thumbnail = derive_here(path)
            for name, data in (("thumbnail.jpg", thumbnail), ("display.jpg", display)):
                with tempfile.NamedTemporaryFile(dir=out_dir, delete=False) as tmp:
                    tmp.write(data)
                os.replace(tmp.name, Path(out_dir) / name)
    except PhotoRejected as exc:
        print(json.dumps({"rejected": exc.code, "message": exc.message}), flush=True)
        return 3
    except MemoryError:
        print(json.dumps({"failed": "memory"}), flush=True)
        return 4
    print(json.dumps({"ok": True, "peak_mib": _peak_mib()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_child_main(*sys.argv[1:5]))
