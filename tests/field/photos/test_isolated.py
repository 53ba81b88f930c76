"""Big non-JPEG photos are decoded in a child process, never in the worker (issue 15, item 8).

Each test makes the worker's own decode fail (monkeypatch: a child process is a fresh
interpreter and does not see it), so a big HEIF or PNG decoded in the worker fails the
test, whatever the timings.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from server.field.photos import PhotoDecodeFailed, PhotoRejected, derivatives, isolated, make_derivatives, validate
from server.field.photos import validate_photo as validate_photo_fn
from server.field.photos._pillow import register_heif

# Above IN_PROCESS_MAX_PIXELS (16 MP), under the 50 MP limit.
BIG = (5000, 3600)


def _no_decode_here(*_args, **_kwargs):
    raise AssertionError("a big non-JPEG photo was decoded in the worker")


@pytest.fixture
def worker_must_not_decode(monkeypatch):
    monkeypatch.setattr(derivatives, "derive_here", _no_decode_here)
    monkeypatch.setattr(validate, "check_pixels_here", _no_decode_here)


@pytest.fixture(scope="module")
def big_png(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big.png"
    image = Image.new("RGBA", BIG, (200, 60, 30, 255))
    image.paste((0, 0, 255, 128), (0, 0, BIG[0] // 2, BIG[1]))
    image.save(path, compress_level=1)
    return path


@pytest.fixture(scope="module")
def big_heif(tmp_path_factory):
    register_heif()
    path = tmp_path_factory.mktemp("big") / "big.heic"
    image = Image.new("RGB", BIG, (20, 120, 30))
    image.paste((250, 250, 250), (0, 0, BIG[0] // 2, BIG[1]))
    image.save(path, "HEIF", quality=50)
    return path


def _open(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def test_routes_by_format_and_pixels():
    assert isolated.decode_route("JPEG", (8000, 6000)) == "reduced"
    assert isolated.decode_route("PNG", (4000, 3000)) == "worker"
    assert isolated.decode_route("PNG", BIG) == "child"
    assert isolated.decode_route("HEIF", (8000, 6000)) == "child"
    assert isolated.decode_route("WEBP", BIG) == "child"


@pytest.mark.parametrize("fixture", ["big_png", "big_heif"])
def test_big_photo_is_checked_and_shrunk_in_a_child(request, fixture, worker_must_not_decode):
    path = request.getfixturevalue(fixture)
    validate_photo_fn(path)
    display, thumbnail = make_derivatives(path)
    display_image, thumbnail_image = _open(display), _open(thumbnail)
    assert (display_image.format, display_image.size) == ("JPEG", (2048, round(2048 * BIG[1] / BIG[0])))
    assert max(thumbnail_image.size) == 256
    # Left half as painted (transparency flattened on white for the PNG), right half too.
    assert display_image.getpixel((1500, 700)) != display_image.getpixel((500, 700))


def test_big_damaged_png_is_refused_by_the_child(big_png, tmp_path, worker_must_not_decode):
    cut = tmp_path / "cut.png"
    cut.write_bytes(big_png.read_bytes()[: big_png.stat().st_size // 2])
    with pytest.raises(PhotoRejected) as caught:
        validate_photo_fn(cut)
    assert caught.value.code == "truncated"


def test_small_png_stays_in_the_worker(tmp_path, monkeypatch):
    monkeypatch.setattr(derivatives, "run_child", _no_decode_here)
    monkeypatch.setattr(validate, "run_child", _no_decode_here)
    path = tmp_path / "small.png"
    Image.new("RGB", (3000, 2000), "green").save(path)
    validate_photo_fn(path)
    assert _open(make_derivatives(path)[0]).size == (2048, 1365)


def test_a_child_out_of_memory_is_a_decode_failure_not_a_refusal(big_png):
    with pytest.raises(PhotoDecodeFailed) as caught:
        make_derivatives(big_png, memory_limit_mib=200)
    assert caught.value.reason == "memory"
    with pytest.raises(PhotoDecodeFailed):
        validate_photo_fn(big_png, memory_limit_mib=200)
