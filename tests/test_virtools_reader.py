"""The Virtools reader and writer (virtools-nmo.md 1-3, 6): round trips of every
field, the container's fields, and bad files (truncated, corrupt, hostile)."""

import random
import struct
import zlib

import numpy as np
import pytest

from bbglue import meshes
from scenes.virtools import reader as r
from scenes.virtools import writer
from virtools_levels import LevelBuilder, translation, two_sector_level


def every_class() -> LevelBuilder:
    b = LevelBuilder()
    px = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    tex = b.add(r.Texture, r.CK_TEXTURE, "Geländer", files=["Geländer.bmp"], properties=0x00010000, pixels=px)
    mat = b.add(r.Material, r.CK_MATERIAL, "Geländer", diffuse=0x80FF4020, ambient=0xFF010203,
                specular=0xFF0A0B0C, emissive=0xFF000001, power=12.5, texture=tex, border=7,
                modes=0x13212224, flags=0x00080407)
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 2, 0], [0, 0, 3]], np.float32)
    normals = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1], [0, -1, 0]], np.float32)
    mesh = b.add(r.Mesh, r.CK_MESH, "tetra", flags=0x0003C00A, slots=[None, mat], vertices=verts, normals=normals,
                 uvs=np.array([[0, 0], [1, 0], [0, 1], [0.25, 0.75]], np.float32),
                 faces=np.array([[0, 2, 1], [0, 1, 3], [65535 % 4, 3, 2]], np.int32),
                 face_slots=np.array([1, 0, 1], np.int32))
    root = b.entity("Root_MF", None, translation(1, 2, 3), class_id=r.CK_3DENTITY)
    b.entity("Part", mesh, (0, 0, -2, 0, 1, 0, 2, 0, 0, 4, 5, 6), hidden=True, parent=root)
    b.group("All_Thing", [root, mesh, tex])
    light = b.add(r.Parameter, r.CK_PARAMETER_OUT, "Light", type_guid=(0x1234, 0x5678), kind=1,
                  value=struct.pack("<4f", 0.5, 0.25, 1.0, 1.0))
    b.add(r.DataArray, r.CK_DATAARRAY, "AllLevel",
          columns=[("Levelfile", 3), ("LevelBonus", 1), ("Scroll", 2), ("Thing", 4), ("Light", 5)],
          rows=[["Level_01.nmo", 100, 0.25, root, light], ["", -5, -1.5, None, None]])
    b.add(r.CKObject, 8, "a behaviour")                           # a skipped class: no chunk data
    return b


@pytest.mark.parametrize("compressed", [False, True])
def test_round_trip_keeps_every_field(compressed):
    b = every_class()
    f = r.read_bytes(b.data(compressed), "every.nmo")
    assert f.warnings == []
    assert f.header["file_version"] == 8 and f.header["write_mode"] == (8 if compressed else 0)
    assert f.header["object_count"] == len(b.objects)
    assert len(f.objects) == len(b.objects)
    for want, got in zip(b.objects, f.objects):
        assert (type(got), got.index, got.id, got.class_id, got.name, got.hidden) == \
            (type(want), want.index, want.id, want.class_id, want.name, want.hidden)
        for key, value in vars(want).items():
            g = getattr(got, key)
            if isinstance(value, np.ndarray) or isinstance(g, np.ndarray):
                assert g is not None and np.array_equal(g, value), key
                assert g.dtype == value.dtype or key != "faces", key
            elif key == "rows":
                assert g[0][:2] == value[0][:2] and g[0][2] == 0.25 and g[0][3:] == value[0][3:]
                assert g[1] == ["", -5, -1.5, None, None]
            elif key == "moveable":
                assert g == (writer.MOVEABLE_HIDDEN if want.hidden else writer.MOVEABLE_VISIBLE) or value
            elif key == "entity_flags":
                assert g == (r.ENTITY_PARENT_VALID if want.parent is not None else 0)
            else:
                assert g == value, key
    assert f.objects[0].name == "Geländer"
    assert f.get(4, r.Entity).parent == 3 and f.get(4, r.Mesh) is None
    assert r.rgba(f.objects[1].diffuse) == pytest.approx((1.0, 64 / 255, 32 / 255, 128 / 255))


def test_file_layout_follows_the_spec():
    """1.2 header, 1.3 CRC, 1.5 header1 blocks, 1.6 file indices."""
    b = every_class()
    data = b.data()
    h = struct.unpack_from("<8s14I", data, 0)
    assert h[0] == b"Nemo Fi\0" and h[2] == 0x13022002 and h[3] == 8
    hdr1_size, data_size = h[6], h[7]
    assert len(data) == 64 + hdr1_size + data_size
    crc = zlib.adler32(data[:8] + b"\0" * 4 + data[12:64], 0)
    assert h[1] == zlib.adler32(data[64:], crc)
    pos, data_pos = 64, 64 + hdr1_size
    for _ in b.objects:
        _, _, file_index, n = struct.unpack_from("<4I", data, pos)
        assert file_index == data_pos                      # uncompressed: the real offset of the size field
        data_pos += 4 + struct.unpack_from("<I", data, data_pos)[0]
        pos += 16 + n
    assert struct.unpack_from("<IiI", data, pos) == (0, 4, 0) and pos + 12 == 64 + hdr1_size


def test_a_changed_crc_is_a_warning_not_an_error():
    data = bytearray(every_class().data())
    data[8] ^= 1
    f = r.read_bytes(bytes(data), "crc.nmo")
    assert len(f.warnings) == 1 and "crc.nmo" in f.warnings[0] and "CRC" in f.warnings[0]


def test_names_fall_back_from_cp1252_to_gbk_and_latin1():
    assert r.decode_name("Geländer".encode("cp1252")) == "Geländer"
    gbk = "关卡".encode("gbk")
    assert r.decode_name(gbk, ("gbk", "cp1252")) == "关卡"
    assert r.decode_name(b"\x81\x8d") == b"\x81\x8d".decode("gbk")       # undefined in cp1252
    assert r.decode_name(b"\xff\xff", ("ascii",)) == "\xff\xff"          # latin-1 keeps every byte


def _error(data: bytes, *parts):
    with pytest.raises(r.VirtoolsError) as exc:
        r.read_bytes(data, "bad.nmo")
    text = str(exc.value)
    assert text.startswith("bad.nmo: "), text
    for p in parts:
        assert p in text, text
    return text


def test_bad_containers_name_the_offset():
    data = every_class().data()
    _error(data[:40], "header", "at byte offset 0", "shorter than the 64-byte header")
    _error(b"RIFF" + data[4:], "not a Virtools file")
    _error(data[:0x10] + struct.pack("<I", 7) + data[0x14:], "file version 7", "at byte offset 16")
    _error(data[:-3], "truncated", "at byte offset 28")
    big = data[:0x2C] + struct.pack("<I", 10 ** 8) + data[0x30:]
    _error(big, "object count 100000000", "header1")


def test_bad_chunks_name_the_object_and_offset():
    b = LevelBuilder()
    b.box("Box", (1, 1, 1), (0, 0, 0), None)
    data = bytearray(b.data())
    hdr1 = struct.unpack_from("<I", data, 0x1C)[0]
    first = 64 + hdr1                                    # the mesh's record: u32 size, then its chunk
    chain = bytes(data)
    # the first identifier's "next" link pointing back to itself: a loop a naive reader never leaves
    loop = bytearray(chain)
    struct.pack_into("<I", loop, first + 4 + 8 + 4, 0)
    struct.pack_into("<I", loop, first + 4 + 8 + 4, 1)
    _error(bytes(loop), "object #0 'Box_Mesh' (CKMesh)", "must move forward", f"at byte offset {first + 16}")
    huge = bytearray(chain)
    struct.pack_into("<I", huge, first + 4 + 4, 0x3FFFFFFF)
    _error(bytes(huge), "object #0 'Box_Mesh'", "does not fit")


def test_hostile_counts_inside_sections_are_checked_against_the_bytes_left():
    b = LevelBuilder()
    m = b.mesh("m", meshes.box(1, 1, 1), None)
    obj = b.objects[m]
    chunk = bytearray(writer.chunk_of(obj))
    words = np.frombuffer(bytes(chunk[8:]), "<u4")
    p = 0
    while words[p] != r.ID_MESH_FACES:
        p = words[p + 1]
    struct.pack_into("<I", chunk, 8 + 4 * (p + 2), 0xFFFFFFF0)      # the face count
    b.objects[m] = obj
    data = writer.write_bytes(b.objects)
    data = data.replace(writer.chunk_of(obj), bytes(chunk))
    data = data[:8] + struct.pack("<I", 0) + data[12:]
    _error(data, "the face count is 4294967280", "identifier 0x10000")


def test_a_face_outside_the_vertices_is_an_error():
    b = LevelBuilder()
    b.add(r.Mesh, r.CK_MESH, "m", slots=[None], vertices=np.zeros((3, 3), np.float32),
          uvs=np.zeros((3, 2), np.float32), faces=np.array([[0, 1, 3]], np.int32),
          face_slots=np.zeros(1, np.int32))
    _error(b.data(), "face 0 uses vertex 3, the mesh has 3")


def mutations(data: bytes, n: int, seed: int = 16):
    """Truncations, flipped bytes, huge counts and bad offsets (dwords set to
    0, 0xFFFFFFFF, 0x7FFFFFFF or a random value)."""
    rng = random.Random(seed)
    for _ in range(n):
        kind = rng.randrange(4)
        d = bytearray(data)
        if kind == 0:
            d = d[:rng.randrange(len(d))]
        elif kind == 1:
            for _ in range(rng.randint(1, 8)):
                d[rng.randrange(len(d))] ^= 1 << rng.randrange(8)
        else:
            for _ in range(rng.randint(1, 3)):
                at = rng.randrange(len(d) - 4) & ~3 if kind == 2 else rng.randrange(len(d) - 4)
                struct.pack_into("<I", d, at, rng.choice((0, 0xFFFFFFFF, 0x7FFFFFFF, rng.getrandbits(32))))
        yield bytes(d)


@pytest.mark.parametrize("compressed", [False, True])
def test_mutated_files_are_read_or_refused_with_a_located_error(compressed):
    data = two_sector_level().data(compressed)
    refused = 0
    for d in mutations(data, 600):
        try:
            r.read_bytes(d, "fuzz.nmo")
        except r.VirtoolsError as exc:
            refused += 1
            assert str(exc).startswith("fuzz.nmo: ") and "byte offset" in str(exc), str(exc)
    assert refused > 100
