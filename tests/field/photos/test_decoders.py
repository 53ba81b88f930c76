"""At most N photo decoders on a host, across worker processes (issue 30)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

from server.field.photos import decoders, isolated
from server.field.photos.errors import PhotoDecodeFailed
from tests.support.env import REPO_ROOT

HOLDER = textwrap.dedent("""
    import sys, time
    from server.field.photos.decoders import DecoderSlots
    with DecoderSlots(int(sys.argv[2]), sys.argv[1]).slot():
        print("holding", flush=True)
        time.sleep(float(sys.argv[3]))
""")


def hold_in_another_process(folder, count: int, seconds: float) -> subprocess.Popen:
    """A second worker process that takes a slot and keeps it for ``seconds``."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), str(count), str(seconds)],
                              cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "holding"
    return holder


def test_another_process_holding_the_only_slot_makes_a_decode_wait_then_fail_busy(tmp_path):
    holder = hold_in_another_process(tmp_path, 1, 5)
    try:
        started = time.monotonic()
        with pytest.raises(PhotoDecodeFailed) as refused, decoders.DecoderSlots(1, tmp_path).slot(wait_s=0.3):
            pass
        assert refused.value.reason == "busy" and time.monotonic() - started >= 0.3
    finally:
        holder.kill()
        holder.wait()


def test_a_slot_comes_free_when_its_holder_ends(tmp_path):
    holder = hold_in_another_process(tmp_path, 1, 0.5)
    with decoders.DecoderSlots(1, tmp_path).slot(wait_s=10) as number:
        assert number == 0
    holder.wait()


def test_two_slots_let_two_decoders_run_and_no_third(tmp_path):
    first = hold_in_another_process(tmp_path, 2, 5)
    try:
        with decoders.DecoderSlots(2, tmp_path).slot(wait_s=0) as number:
            assert number == 1
            with pytest.raises(PhotoDecodeFailed), decoders.DecoderSlots(2, tmp_path).slot(wait_s=0.1):
                pass
    finally:
        first.kill()
        first.wait()


def test_the_decoder_child_runs_only_inside_a_slot(tmp_path, monkeypatch):
    monkeypatch.setattr(decoders, "_slots", decoders.DecoderSlots(1, tmp_path / "slots", wait_s=0.2))
    holder = hold_in_another_process(tmp_path / "slots", 1, 5)
    started = []
    monkeypatch.setattr(isolated.subprocess, "run", lambda *a, **k: started.append(a))
    try:
        with pytest.raises(PhotoDecodeFailed) as refused:
            isolated.run_child("check", tmp_path / "photo.heic")
        assert refused.value.reason == "busy" and started == []
    finally:
        holder.kill()
        holder.wait()
