"""Benchmark: a worker's memory while it makes the display image of a big photo.

    .venv/bin/python -m bench.bench_photo_memory

Each case runs in a fresh Python process that imports the app's photo code, makes the
display image and thumbnail of one small photo (libraries loaded, allocator warm), resets
the kernel's peak-RSS mark (``/proc/self/clear_refs``), then makes those of the big photo
with :func:`server.field.photos.make_derivatives`. Growth is the peak RSS (``VmHWM``) less the RSS
before. For the code now, the upload's check (:func:`server.field.photos.validate_photo`, which
decodes a non-JPEG in full to find a truncated file) is measured the same way first.

A non-JPEG photo above ``IN_PROCESS_MAX_PIXELS`` is decoded in a child process
(:mod:`server.field.photos.isolated`); the larger peak RSS of the check's and the derivatives'
children (``ru_maxrss`` of the children) is reported beside the worker's growth.
``before`` replays the order of the code before issue 15 (turn upright and convert to RGB
at full size, then shrink, all in the worker) for comparison. Target: under 150 MiB of
worker growth for a 48 MP photo, every format.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_MIB = 150

CASES = [  # name, format, size, mode, EXIF orientation
    ("48 MP JPEG (8000 × 6000), camera", "JPEG", (8000, 6000), "RGB", 1),
    ("48 MP JPEG (8000 × 6000), turned (orientation 6)", "JPEG", (8000, 6000), "RGB", 6),
    ("48 MP HEIF (8000 × 6000), phone", "HEIF", (8000, 6000), "RGB", 1),
    ("48 MP PNG (8000 × 6000), RGB", "PNG", (8000, 6000), "RGB", 1),
    ("48 MP PNG (8000 × 6000), RGBA", "PNG", (8000, 6000), "RGBA", 1),
]


def _make(path: Path, fmt: str, size: tuple[int, int], mode: str, orientation: int) -> None:
    from PIL import Image

    # Noise drawn small and scaled up: photo-like detail that compresses like a photo.
    base = Image.merge("RGB", [Image.effect_noise((size[0] // 8, size[1] // 8), 60) for _ in range(3)])
    image = base.resize(size, Image.Resampling.BILINEAR)
    if mode == "RGBA":
        image.putalpha(Image.linear_gradient("L").resize(size))
    exif = Image.Exif()
    exif[0x0112] = orientation
    if fmt == "JPEG":
        image.save(path, "JPEG", quality=90, exif=exif.tobytes())
    elif fmt == "HEIF":
        from server.field.photos._pillow import register_heif

        register_heif()
        image.save(path, "HEIF", quality=80)
    else:
        image.save(path, "PNG", compress_level=1)


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])  # kB
    raise KeyError(field)


def _old_order(path):
    """The derivative code before issue 15: upright and RGB at full size, then shrink."""
    from PIL import Image, ImageOps

    from server.field.photos.derivatives import _as_rgb, _draft_request, _to_jpeg
    from server.field.photos.inspect import open_image

    with open_image(path) as image:
        if image.format == "JPEG":
            image.draft("RGB", _draft_request(image.size))
        display = _as_rgb(ImageOps.exif_transpose(image))
        display.thumbnail((2048, 2048), Image.Resampling.LANCZOS)
        thumbnail = display.copy()
        thumbnail.thumbnail((256, 256), Image.Resampling.LANCZOS)
        return _to_jpeg(display), _to_jpeg(thumbnail)


def worker(path: str, warm: str, order: str) -> None:
    """Runs in the child: warm up, reset the peak, check the photo as the upload does,
    reset the peak again, make the derivatives, report."""
    from server.field.photos import make_derivatives, validate_photo

    make = make_derivatives if order == "now" else _old_order
    make(warm)
    validate_photo(warm)
    check_growth = None
    if order == "now":  # the upload's check (validate_photo), 200 MB file limit for the big PNGs
        Path("/proc/self/clear_refs").write_text("5")
        before = _status("VmRSS")
        validate_photo(path, max_bytes=200 * 1024 * 1024)
        check_growth = (_status("VmHWM") - before) / 1024
    Path("/proc/self/clear_refs").write_text("5")
    before = _status("VmRSS")
    started = time.perf_counter()
    display, _ = make(path)
    seconds = time.perf_counter() - started
    child_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({"growth_mib": (_status("VmHWM") - before) / 1024, "seconds": seconds,
                      "check_growth_mib": check_growth,
                      "child_peak_mib": child_kib / 1024 if child_kib else None,
                      "display_bytes": len(display)}))


def main() -> int:
    from PIL import Image

    rows, worst = [], 0.0
    with tempfile.TemporaryDirectory(prefix="lateral-bench-photo-") as tmp:
        warm = Path(tmp) / "warm.jpg"
        Image.new("RGB", (640, 480), "grey").save(warm)
        for name, fmt, size, mode, orientation in CASES:
            path = Path(tmp) / f"big.{fmt.lower()}"
            _make(path, fmt, size, mode, orientation)
            for order in ("now", "before"):
                out = subprocess.run([sys.executable, "-m", "bench.bench_photo_memory", "--worker", str(path),
                                      str(warm), order], cwd=ROOT, check=True, capture_output=True, text=True)
                result = json.loads(out.stdout.strip().splitlines()[-1])
                rows.append((name, f"{path.stat().st_size / 1e6:.1f} MB", order, result))
                if order == "now":
                    worst = max(worst, result["growth_mib"], result["check_growth_mib"])
    print("| photo | file | code | worker RSS growth, display image | child peak RSS | time "
          "| worker RSS growth, upload check |")
    print("|---|---|---|---|---|---|---|")
    for name, file_size, order, r in rows:
        child = f"{r['child_peak_mib']:.0f} MiB" if r["child_peak_mib"] else "no child"
        check = f"{r['check_growth_mib']:.0f} MiB" if r["check_growth_mib"] is not None else "—"
        print(f"| {name} | {file_size} | {order} | {r['growth_mib']:.0f} MiB | {child} | {r['seconds']:.2f} s "
              f"| {check} |")
    print(f"\n48 MP, worst worker RSS growth now: {worst:.0f} MiB (target < {TARGET_MIB} MiB): "
          f"{'met' if worst < TARGET_MIB else 'NOT met'}")
    return 0 if worst < TARGET_MIB else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(*sys.argv[2:5])
    else:
        sys.exit(main())
