"""Draw the field app's icons (offline_client/web/icons/) with Pillow.

A manhole cover on a sewer main, on navy: run again after changing the drawing; the
PNGs are committed so nobody has to.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent.parent / "offline_client" / "web" / "icons"
NAVY, AMBER, WHITE = (18, 53, 91), (240, 180, 41), (255, 255, 255)


def draw(size: int, maskable: bool = False) -> Image.Image:
    scale = 4  # draw large, then downsample for smooth edges
    s = size * scale
    img = Image.new("RGB" if maskable else "RGBA", (s, s), NAVY if maskable else (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    if not maskable:
        d.rounded_rectangle((0, 0, s - 1, s - 1), radius=int(s * 0.22), fill=NAVY)
    inset = 0.2 if maskable else 0.12  # maskable icons keep to the 80 % safe zone
    c, r = s / 2, s * (0.5 - inset) * 0.62
    # the main the manhole sits on, edge to edge of the safe zone
    d.rounded_rectangle((s * inset, c - s * 0.05, s * (1 - inset), c + s * 0.05), radius=s * 0.05, fill=AMBER)
    d.ellipse((c - r, c - r, c + r, c + r), fill=AMBER)
    ri = r * 0.8
    d.ellipse((c - ri, c - ri, c + ri, c + ri), fill=NAVY)
    # the cover's grip bars
    bar = ri * 0.14
    for k in (-2, -1, 0, 1, 2):
        y = c + k * ri * 0.34
        half = (ri ** 2 - (y - c) ** 2) ** 0.5 * 0.72
        d.rounded_rectangle((c - half, y - bar / 2, c + half, y + bar / 2), radius=bar / 2, fill=WHITE)
    return img.resize((size, size), Image.LANCZOS)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        draw(size).save(OUT / f"icon-{size}.png", optimize=True)
    draw(512, maskable=True).save(OUT / "icon-maskable-512.png", optimize=True)


if __name__ == "__main__":
    main()
