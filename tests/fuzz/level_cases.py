"""Level cases (``--game DIR``): a copy of one of the game's Level_NN.NMO with
its bytes or fields mutated, written to the fuzz's folder and loaded with
the game's modules, then run for FRAMES frames. A refusal must name the file
(LOCATED); any other refusal is UNLOCATED, any other exception UNCAUGHT.

Half the cases change the file as stored (a header field, a byte, a cut);
the others inflate header1 or the data section, overwrite a field there (a
hostile 32-bit integer or float at a 4-byte step, or a byte) and store the
section uncompressed, so the change reaches the object decoders instead of
stopping at the zlib stream."""

from __future__ import annotations

import os
import random
import struct
import zlib

from ivp import rng as ivp_rng
from scenes.virtools import game_level, load
from scenes.virtools.reader import HEADER_SIZE

from . import BAD, LOCATED, UNCAUGHT, UNLOCATED, Outcome, describe, run_frames

LEVELS = range(1, 13)
WORDS = [b"\x00\x00\x00\x00", b"\xff\xff\xff\xff", b"\xff\xff\xff\x7f", b"\x00\x00\x00\x80", b"\x01\x00\x00\x00",
         b"\x00\x00\x01\x00", struct.pack("<f", float("nan")), struct.pack("<f", float("inf")),
         struct.pack("<f", 3.4e38), struct.pack("<f", -1e30), struct.pack("<f", 1e-38)]


def stored_mutation(raw: bytes, rnd: random.Random) -> bytes:
    """A change to the file as stored."""
    kind = rnd.randrange(4)
    if kind == 0:                       # a header field (not the magic)
        at = 8 + 4 * rnd.randrange((HEADER_SIZE - 8) // 4)
        return raw[:at] + rnd.choice(WORDS) + raw[at + 4:]
    if kind == 1:                       # a cut
        return raw[:rnd.randrange(len(raw))]
    at = rnd.randrange(len(raw))
    if kind == 2:                       # a byte
        return raw[:at] + bytes([rnd.randrange(256)]) + raw[at + 1:]
    return raw[:at] + bytes(rnd.randrange(256) for _ in range(rnd.choice([1, 16, 4096]))) + raw[at:]


def field_mutation(raw: bytes, rnd: random.Random) -> bytes:
    """A field of header1 or the data section changed, both stored uncompressed."""
    h = list(struct.unpack_from("<14I", raw, 8))
    mode, hdr1_pack, data_pack, hdr1_unpack = h[4], h[5], h[6], h[13]
    hdr1 = raw[HEADER_SIZE:HEADER_SIZE + hdr1_pack]
    data = raw[HEADER_SIZE + hdr1_pack:HEADER_SIZE + hdr1_pack + data_pack]
    sections = {"hdr1": zlib.decompress(hdr1) if hdr1_pack != hdr1_unpack else hdr1,
                "data": zlib.decompress(data) if mode & 0x09 else data}
    which = rnd.choice(["hdr1", "data", "data"])
    section = bytearray(sections[which])
    for _ in range(rnd.choice([1, 1, 4])):
        if rnd.random() < 0.7:
            at = 4 * rnd.randrange(len(section) // 4)
            section[at:at + 4] = rnd.choice(WORDS)
        else:
            section[rnd.randrange(len(section))] = rnd.randrange(256)
    sections[which] = bytes(section)
    hdr1, data = sections["hdr1"], sections["data"]
    h[4], h[5], h[6], h[7], h[13] = mode & ~0x09, len(hdr1), len(data), len(data), len(hdr1)
    return raw[:8] + struct.pack("<14I", *h) + hdr1 + data


def case_file(seed: int, game: str) -> tuple:
    """(the mutated file's name, its bytes)."""
    rnd = random.Random(seed)
    path = game_level(game, rnd.choice(LEVELS))
    with open(path, "rb") as fh:
        raw = fh.read()
    name = os.path.basename(path)[:-4] + f"__fz{seed}.NMO"
    return name, (field_mutation(raw, rnd) if rnd.random() < 0.5 else stored_mutation(raw, rnd))


def reproducer(seed: int, setting) -> dict:
    """The mutated level; load it with ``ivp run FILE --game DIR`` (never commit it: it is the game's)."""
    name, raw = case_file(seed, setting.game)
    return {os.path.join("levels", name): raw}


def run_case(seed: int, setting) -> Outcome:
    name, raw = case_file(seed, setting.game)
    path = os.path.join(setting.root, name)
    with open(path, "wb") as fh:
        fh.write(raw)
    ivp_rng.reset()
    try:
        try:
            loaded = load(path, game=setting.game)
        except (ValueError, TypeError, OSError) as exc:     # VirtoolsError and SceneError are ValueErrors
            if name not in str(exc):
                return Outcome("level", seed, UNLOCATED, f"{name}: {describe(exc)} (does not name the file)")
            return Outcome("level", seed, LOCATED)
        cls, detail = run_frames(loaded.ctx)
        return Outcome("level", seed, cls, f"{name}: {detail}" if cls in BAD else "")
    except Exception as exc:            # noqa: BLE001 - the harness classifies every exception
        return Outcome("level", seed, UNCAUGHT, f"{name}: {describe(exc)}")
    finally:
        os.remove(path)
