"""Writing the subset of Virtools 2.x files that ``reader`` decodes, after the
minimal writer of virtools-nmo.md 6: the tests build their own level files
with it (the project ships no game file). Objects are the reader's records,
in table order (an object's ``index`` is its table position).
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from . import reader as r

CK_VERSION = 0x13022002
PRODUCT_BUILD = 0x02010001
CHUNK_DATA_VERSION = 10
CHUNK_OPTIONS_FILE = 0x08          # 2.1: references are table positions
MOVEABLE_VISIBLE, MOVEABLE_HIDDEN = 0x0040000B, 0x00400009     # 6.2
MESH_FLAGS = 0x0003C00A            # 3.4: every level mesh


class ChunkWriter:
    """A state chunk (2.1): identifiers linked in order (2.2), dword values (2.4)."""

    def __init__(self, class_byte: int, encoding: str = "cp1252"):
        self.class_byte = class_byte
        self.encoding = encoding
        self.words = bytearray()
        self.last = None

    def open(self, ident: int) -> "ChunkWriter":
        here = len(self.words) // 4
        if self.last is not None:
            struct.pack_into("<I", self.words, 4 * self.last + 4, here)
        self.words += struct.pack("<II", ident, 0)
        self.last = here
        return self

    def u32(self, *values) -> None:
        self.words += struct.pack(f"<{len(values)}I", *values)

    def i32(self, *values) -> None:
        self.words += struct.pack(f"<{len(values)}i", *values)

    def f32(self, *values) -> None:
        self.words += struct.pack(f"<{len(values)}f", *values)

    def ref(self, index) -> None:
        self.i32(-1 if index is None else index)

    def refs(self, indices) -> None:
        self.u32(len(indices))
        for i in indices:
            self.ref(i)

    def blob(self, data: bytes) -> None:
        self.words += data + b"\0" * (-len(data) % 4)

    def buffer(self, data: bytes) -> None:
        self.u32(len(data))
        self.blob(data)

    def string(self, text: str) -> None:
        if not text:
            self.u32(0)
            return
        self.buffer(text.encode(self.encoding) + b"\0")

    def pack(self) -> bytes:
        head = bytes((CHUNK_DATA_VERSION, self.class_byte & 0xFF, 7, CHUNK_OPTIONS_FILE))
        return head + struct.pack("<I", len(self.words) // 4) + bytes(self.words)


# --- per class (6.2) ---------------------------------------------------------------------

def _entity(c: ChunkWriter, e: r.Entity) -> None:
    if e.mesh is not None or e.meshes:
        c.open(r.ID_ENTITY_MESHES)
        c.ref(e.mesh)
        c.refs(e.meshes)
    c.open(r.ID_ENTITY_CORE)
    flags = e.entity_flags & ~(r.ENTITY_PLACE_VALID | r.ENTITY_PARENT_VALID | r.ENTITY_ZORDER_VALID)
    flags |= (r.ENTITY_PLACE_VALID if e.place is not None else 0) | \
        (r.ENTITY_PARENT_VALID if e.parent is not None else 0) | (r.ENTITY_ZORDER_VALID if e.zorder is not None else 0)
    c.u32(flags, e.moveable or (MOVEABLE_HIDDEN if e.hidden else MOVEABLE_VISIBLE))
    c.f32(*e.matrix)
    for value in (e.place, e.parent):
        if value is not None:
            c.ref(value)
    if e.zorder is not None:
        c.i32(e.zorder)


def _mesh(c: ChunkWriter, m: r.Mesh) -> None:
    c.open(r.ID_MESH_FLAGS).u32(m.flags or MESH_FLAGS)
    c.open(r.ID_MESH_SLOTS).u32(len(m.slots))
    for s in m.slots:
        c.ref(s)
        c.u32(0)
    faces = np.asarray(m.faces, np.uint32).reshape(-1, 3)
    slots = np.asarray(m.face_slots, np.uint32).reshape(-1)
    packed = np.stack([faces[:, 0] | (faces[:, 1] << 16), faces[:, 2] | (slots << 16)], axis=1)
    c.open(r.ID_MESH_FACES).u32(len(faces))
    c.words += packed.astype("<u4").tobytes()
    v = len(m.vertices)
    c.open(r.ID_MESH_VERTICES).u32(v)
    if v:
        normals = m.normals is not None
        c.u32(r.VX_ONE_COLOUR | r.VX_ONE_SPECULAR | (0 if normals else r.VX_NO_NORMALS),
              1 + 3 * v + 2 + (3 * v if normals else 0) + 2 * v)
        c.words += np.asarray(m.vertices, "<f4").tobytes()
        c.u32(0xFFFFFFFF, 0)
        if normals:
            c.words += np.asarray(m.normals, "<f4").tobytes()
        c.words += np.asarray(m.uvs, "<f4").tobytes()


def _material(c: ChunkWriter, m: r.Material) -> None:
    c.open(r.ID_MATERIAL).u32(m.diffuse, m.ambient, m.specular, m.emissive)
    c.f32(m.power)
    c.ref(m.texture)
    c.u32(m.border, m.modes, m.flags)


def _texture(c: ChunkWriter, t: r.Texture) -> None:
    c.open(r.ID_TEXTURE_FILES).u32(len(t.files))
    for f in t.files:
        c.string(f)
    if t.pixels is not None:
        h, w = t.pixels.shape[:2]
        up = t.pixels[::-1]                 # rows bottom-up (3.6)
        c.open(r.ID_TEXTURE_RAW).u32(1, 32, w, h, 0xFF000000, 0x00FF0000, 0x0000FF00, 0x000000FF, 0)
        for channel in (2, 1, 0, 3):
            c.buffer(np.ascontiguousarray(up[:, :, channel]).tobytes())
    if t.properties is not None:
        c.open(r.ID_TEXTURE_PROPS).u32(t.properties)


def _group(c: ChunkWriter, g: r.Group) -> None:
    c.open(r.ID_GROUP_MEMBERS).refs(g.members)


def _data_array(c: ChunkWriter, a: r.DataArray) -> None:
    c.open(r.ID_ARRAY_FORMAT).u32(len(a.columns))
    for name, kind in a.columns:
        c.string(name)
        c.u32(kind)
        if kind == r.COLUMN_PARAMETER:
            c.u32(0, 0)
    c.open(r.ID_ARRAY_DATA).u32(len(a.rows))
    write = {r.COLUMN_INT: c.i32, r.COLUMN_FLOAT: c.f32, r.COLUMN_STRING: c.string, r.COLUMN_OBJECT: c.ref,
             r.COLUMN_PARAMETER: c.ref}
    for row in a.rows:
        for (_, kind), cell in zip(a.columns, row):
            write[kind](cell)


def _parameter(c: ChunkWriter, p: r.Parameter) -> None:
    c.open(r.ID_PARAMETER_VALUE).u32(*p.type_guid)
    c.u32(p.kind)
    if p.kind == 1:
        c.buffer(p.value)
    elif p.kind == 2:
        c.ref(p.value)


_WRITERS = {r.Entity: _entity, r.Mesh: _mesh, r.Material: _material, r.Texture: _texture, r.Group: _group,
            r.DataArray: _data_array, r.Parameter: _parameter}


def chunk_of(obj: r.CKObject, encoding: str = "cp1252") -> bytes:
    """The object's state chunk; 3D objects carry class byte 33, as the game's (6.2)."""
    c = ChunkWriter(r.CK_3DENTITY if obj.class_id == r.CK_3DOBJECT else obj.class_id, encoding)
    if obj.hidden:
        c.open(r.ID_HIDDEN)
    write = _WRITERS.get(type(obj))
    if write is not None:
        write(c, obj)
    return c.pack()


# --- the file (6.1) ---------------------------------------------------------------------------

def write_bytes(objects, compressed: bool = False, encoding: str = "cp1252") -> bytes:
    """A whole file: write mode 0 (as levels) or 8 (both sections zlib streams)."""
    chunks = [chunk_of(o, encoding) for o in objects]
    names = [o.name.encode(encoding) for o in objects]
    hdr1_size = sum(16 + len(n) for n in names) + 12
    data = bytearray()
    indices = []
    for c in chunks:
        indices.append(r.HEADER_SIZE + hdr1_size + len(data))
        data += struct.pack("<I", len(c)) + c
    hdr1 = bytearray()
    for o, n, fi in zip(objects, names, indices):
        hdr1 += struct.pack("<4I", o.id or o.index + 1, o.class_id, fi, len(n)) + n
    hdr1 += struct.pack("<IiI", 0, 4, 0)
    hdr1_disk, data_disk = (zlib.compress(bytes(hdr1)), zlib.compress(bytes(data))) if compressed \
        else (bytes(hdr1), bytes(data))
    fields = (r.MAGIC + b"\0", 0, CK_VERSION, 8, 0, 8 if compressed else 0, len(hdr1_disk), len(data_disk),
              len(data), 0, len(objects), max([o.id or o.index + 1 for o in objects], default=0) + 1, 0,
              PRODUCT_BUILD, len(hdr1))
    header = bytearray(struct.pack("<8s14I", *fields))
    struct.pack_into("<I", header, 8, r.adler_crc(bytes(header), hdr1_disk, data_disk))
    return bytes(header) + hdr1_disk + data_disk


def write_file(path: str, objects, compressed: bool = False) -> None:
    with open(path, "wb") as fh:
        fh.write(write_bytes(objects, compressed))
