"""Reading Virtools 2.x composition files (.nmo / .cmo), from the spec
virtools-nmo.md only: the 64-byte header (1.2), the CRC (1.3), the zlib
sections (1.4), header1's object table (1.5), the data section (1.6), the
state chunks (2) and the classes a Ballance level needs (3).

Every size and count a file gives is checked against the bytes that are
really there before anything is read or allocated, and identifier chains must
move strictly forward, so a truncated, corrupt or hostile file ends in one
``VirtoolsError`` naming the file, the object and the byte offset, never in a
loop or a huge allocation. The limits are the ``MAX_*`` names below.
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass, field

import numpy as np

MAGIC = b"Nemo Fi"
HEADER_SIZE = 64
FILE_VERSIONS = (8, 9)              # 1.2: 8 in Ballance, 9 [S]
CHUNK_VERSIONS = (6, 7)             # 2.1: the packed layout
MAX_FILE_BYTES = 256 * 1024 * 1024  # a larger file is refused (Ballance levels: under 3 MB)
MAX_SECTION_BYTES = 256 * 1024 * 1024   # header1 and data, once inflated
MAX_INFLATE_RATIO = 1100            # zlib cannot inflate more than ~1032x: a claimed size above is corrupt
ENCODINGS = ("cp1252", "gbk")       # 1.9: tried strictly in order, then latin-1

# 1.8: class ids.
CK_PARAMETER_OUT, CK_GROUP, CK_MATERIAL, CK_TEXTURE, CK_MESH = 3, 23, 30, 31, 32
CK_3DENTITY, CK_3DOBJECT, CK_PARAMETER_LOCAL, CK_PARAMETER, CK_DATAARRAY = 33, 41, 45, 46, 52
ENTITY_CLASSES = (CK_3DENTITY, CK_3DOBJECT, 34, 35, 36, 37, 38, 39, 40, 42, 43)
PARAMETER_CLASSES = (CK_PARAMETER_OUT, CK_PARAMETER_LOCAL, CK_PARAMETER)
CLASS_NAMES = {CK_PARAMETER_OUT: "CKParameterOut", CK_GROUP: "CKGroup", CK_MATERIAL: "CKMaterial",
               CK_TEXTURE: "CKTexture", CK_MESH: "CKMesh", CK_3DENTITY: "CK3dEntity", CK_3DOBJECT: "CK3dObject",
               CK_PARAMETER_LOCAL: "CKParameterLocal", CK_PARAMETER: "CKParameter",
               CK_DATAARRAY: "CKDataArray"}

# 3.1 - 3.8: identifiers, per class.
ID_HIDDEN, ID_HIDDEN_HIERARCHY = 0x4, 0x18
ID_ENTITY_MESHES, ID_ENTITY_CORE = 0x4000, 0x100000
ID_MESH_FLAGS, ID_MESH_SLOTS, ID_MESH_VERTICES, ID_MESH_FACES = 0x2000, 0x100000, 0x20000, 0x10000
ID_MATERIAL = 0x1000
ID_TEXTURE_FILES, ID_TEXTURE_RAW, ID_TEXTURE_PROPS, ID_TEXTURE_PROPS_LATER = 0x10000, 0x20000, 0x2FF000, 0xFFF000
ID_GROUP_MEMBERS = 0xFFFFF
ID_ARRAY_FORMAT, ID_ARRAY_DATA = 0x1000, 0x2000
ID_PARAMETER_VALUE = 0x40

# 3.3: 3D-entity flags giving the optional fields after the matrix, in order.
ENTITY_PLACE_VALID, ENTITY_PARENT_VALID, ENTITY_ZORDER_VALID = 0x10000, 0x20000, 0x100000
# 3.4: vertex save flags.
VX_ONE_COLOUR, VX_ONE_SPECULAR, VX_NO_NORMALS, VX_ONE_UV, VX_NO_POSITIONS = 0x1, 0x2, 0x4, 0x8, 0x10
# 3.8: data array column types.
COLUMN_INT, COLUMN_FLOAT, COLUMN_STRING, COLUMN_OBJECT, COLUMN_PARAMETER = 1, 2, 3, 4, 5


class VirtoolsError(ValueError):
    """A file that cannot be read: the message names the file, the object (when
    the problem is inside one) and the byte offset."""


# --- the decoded objects ---------------------------------------------------------------

@dataclass(eq=False)
class CKObject:
    """An entry of the object table (1.5) with what its chunk says. ``index`` is
    its table position, the value references use (1.6)."""

    index: int
    id: int
    class_id: int
    name: str
    hidden: bool = False            # 3.1

    @property
    def label(self) -> str:
        return f"object #{self.index} {self.name!r} ({CLASS_NAMES.get(self.class_id, f'class {self.class_id}')})"


@dataclass(eq=False)
class Entity(CKObject):
    """3.3: a 3D entity or 3D object. ``matrix`` is the world matrix as 4 rows of
    3 floats (X, Y, Z axes, then the position), even under a parent."""

    mesh: int | None = None
    meshes: list = field(default_factory=list)      # the potential meshes
    entity_flags: int = 0
    moveable: int = 0
    matrix: tuple = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
    place: int | None = None
    parent: int | None = None
    zorder: int | None = None


@dataclass(eq=False)
class Mesh(CKObject):
    """3.4: vertices (V, 3) float32, normals (V, 3) or None when not stored,
    uvs (V, 2), faces (F, 3) int32 and each face's material slot."""

    flags: int = 0
    slots: list = field(default_factory=list)       # material index or None, per slot
    vertices: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))
    normals: np.ndarray | None = None
    uvs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.float32))
    faces: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int32))
    face_slots: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))


@dataclass(eq=False)
class Material(CKObject):
    """3.5: colours as ARGB dwords (``rgba`` converts), the texture index or None,
    the packed modes and flags dwords."""

    diffuse: int = 0xFFB3B3B3
    ambient: int = 0xFF4D4D4D
    specular: int = 0xFF808080
    emissive: int = 0xFF000000
    power: float = 0.0
    texture: int | None = None
    border: int = 0
    modes: int = 0
    flags: int = 0

    @property
    def two_sided(self) -> bool:
        return bool(self.flags & 1)


@dataclass(eq=False)
class Texture(CKObject):
    """3.6: file names, the packed properties dword (None when absent) and, for a
    raw embedded slot, its pixels as (height, width, 4) RGBA uint8, top row first."""

    files: list = field(default_factory=list)
    properties: int | None = None
    pixels: np.ndarray | None = None


@dataclass(eq=False)
class Group(CKObject):
    """3.7: member indices in stored order (null entries dropped)."""

    members: list = field(default_factory=list)


@dataclass(eq=False)
class DataArray(CKObject):
    """3.8: columns as (name, type) and rows of cells (int, float, str, or an
    object index / None for object and parameter columns)."""

    columns: list = field(default_factory=list)
    rows: list = field(default_factory=list)


@dataclass(eq=False)
class Parameter(CKObject):
    """3.8: a parameter's value: kind 1 bytes, kind 2 an object index."""

    type_guid: tuple = (0, 0)
    kind: int | None = None
    value: bytes | int | None = None


@dataclass
class NmoFile:
    """A read file: the header's fields, every object of the table (decoded
    when its class is one of 3), and warnings (a CRC mismatch)."""

    path: str
    header: dict
    objects: list
    warnings: list

    def of_class(self, *class_ids) -> list:
        return [o for o in self.objects if o.class_id in class_ids]

    @property
    def entities(self) -> list:
        return [o for o in self.objects if isinstance(o, Entity)]

    @property
    def groups(self) -> list:
        return [o for o in self.objects if isinstance(o, Group)]

    def get(self, index, cls=CKObject):
        """The object at a table position when it is a ``cls``, else None."""
        if index is None:
            return None
        o = self.objects[index]
        return o if isinstance(o, cls) else None

    def named(self, name: str, cls=CKObject) -> list:
        return [o for o in self.objects if o.name == name and isinstance(o, cls)]


def rgba(argb: int) -> tuple:
    """3.5: an ARGB dword as (r, g, b, a) in 0..1."""
    return (((argb >> 16) & 255) / 255.0, ((argb >> 8) & 255) / 255.0, (argb & 255) / 255.0,
            ((argb >> 24) & 255) / 255.0)


def decode_name(raw: bytes, encodings=ENCODINGS) -> str:
    """1.9: each encoding strictly, in order, then latin-1 (never fails)."""
    for enc in encodings:
        try:
            return raw.decode(enc)
        except (UnicodeDecodeError, LookupError):
            continue
    return raw.decode("latin-1")


# --- byte cursors ----------------------------------------------------------------------

class Cursor:
    """Reads little-endian values from ``buf[pos:end]``; every read checks that
    its bytes are there. ``base`` maps a position to the offset reported, and
    ``where`` names the file part or object in the messages."""

    def __init__(self, buf, pos: int, end: int, path: str, where: str, base: int = 0):
        self.buf, self.pos, self.end = buf, pos, end
        self.path, self.where, self.base = path, where, base

    def fail(self, message: str, pos: int | None = None):
        at = self.base + (self.pos if pos is None else pos)
        raise VirtoolsError(f"{self.path}: {self.where}: at byte offset {at}: {message}")

    @property
    def left(self) -> int:
        return self.end - self.pos

    def need(self, n: int, what: str) -> None:
        if n < 0 or n > self.left:
            self.fail(f"{what} needs {n} bytes, only {self.left} are left")

    def take(self, n: int, what: str) -> bytes:
        self.need(n, what)
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def u32(self, what: str = "a dword") -> int:
        self.need(4, what)
        v = struct.unpack_from("<I", self.buf, self.pos)[0]
        self.pos += 4
        return v

    def i32(self, what: str = "a dword") -> int:
        self.need(4, what)
        v = struct.unpack_from("<i", self.buf, self.pos)[0]
        self.pos += 4
        return v

    def f32(self, what: str = "a float") -> float:
        self.need(4, what)
        v = struct.unpack_from("<f", self.buf, self.pos)[0]
        self.pos += 4
        return v

    def array(self, dtype: str, count: int, what: str) -> np.ndarray:
        """``count`` little-endian values (4 bytes each) as a new array."""
        self.need(4 * count, what)
        out = np.frombuffer(self.buf, dtype=dtype, count=count, offset=self.pos).copy()
        self.pos += 4 * count
        return out

    def count(self, what: str, item_bytes: int) -> int:
        """A u32 count whose items (``item_bytes`` each, at least) must fit in what is left."""
        at = self.pos
        n = self.u32(what)
        if n * item_bytes > self.left:
            self.fail(f"{what} is {n}, but {n} x {item_bytes} bytes do not fit in the {self.left} left", at)
        return n


class Section(Cursor):
    """The payload of one chunk identifier (2.2): dword-granular reads (2.3, 2.4)
    and references checked against the object table."""

    def __init__(self, buf, pos, end, path, where, base, object_count: int, encodings):
        super().__init__(buf, pos, end, path, where, base)
        self.object_count = object_count
        self.encodings = encodings

    def ref(self, what: str = "a reference") -> int | None:
        """1.6: a table position (>= 0) or null (< 0)."""
        at = self.pos
        r = self.i32(what)
        if r < 0:
            return None
        if r >= self.object_count:
            self.fail(f"{what} is object #{r}, but the table has {self.object_count} objects", at)
        return r

    def refs(self, what: str) -> list:
        """2.4: an object array (nulls kept as None)."""
        n = self.count(f"the count of {what}", 4)
        return [self.ref(what) for _ in range(n)]

    def blob(self, n: int, what: str) -> bytes:
        """n bytes padded to a dword boundary (2.3)."""
        self.need((n + 3) & ~3, what)
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += (n + 3) & ~3
        return out

    def string(self, what: str = "a string") -> str:
        """2.4: u32 length counting the NUL, then the padded bytes."""
        n = self.count(f"the length of {what}", 1)
        raw = self.blob(n, what)
        return decode_name(raw[:-1] if raw.endswith(b"\0") else raw, self.encodings)

    def buffer(self, what: str) -> bytes:
        return self.blob(self.count(f"the size of {what}", 1), what)


class Chunk:
    """2.1, 2.2: a packed state chunk and the (start, end) byte range of each
    identifier's payload. The chain must start at 0 and move strictly forward
    inside the stream, so walking it ends within N steps."""

    def __init__(self, cur: Cursor, size: int, object_count: int, encodings):
        self.cur = cur
        start = cur.pos
        cur.need(size, "the chunk")
        if size < 8:
            cur.fail(f"a chunk of {size} bytes is shorter than its 8-byte header")
        b = cur.buf
        self.data_version, self.class_byte, self.chunk_version, self.options = b[start], b[start + 1], \
            b[start + 2], b[start + 3]
        if self.chunk_version not in CHUNK_VERSIONS:
            cur.fail(f"chunk version {self.chunk_version} is not supported (only 6 and 7)")
        cur.pos = start + 4
        n = cur.u32("the chunk's data size")
        if 8 + 4 * n > size:
            cur.fail(f"the chunk's data ({n} dwords) does not fit in its {size} bytes", start + 4)
        self.data = start + 8
        self.data_end = self.data + 4 * n
        self.object_count, self.encodings = object_count, encodings
        self.sections = {}
        p = 0
        while n:
            if p + 1 >= n:
                cur.fail(f"the identifier record at dword {p} runs past the end of the stream ({n} dwords)",
                         self.data + 4 * p)
            ident, nxt = struct.unpack_from("<II", b, self.data + 4 * p)
            end = n if nxt == 0 else nxt
            if end <= p + 1 or end > n:
                cur.fail(f"identifier 0x{ident:X} at dword {p} links to dword {nxt}: the chain must move "
                         f"forward inside the {n} dwords", self.data + 4 * p + 4)
            self.sections.setdefault(ident, (self.data + 4 * (p + 2), self.data + 4 * end))
            if nxt == 0:
                break
            p = nxt
        cur.pos = start + size

    def has(self, ident: int) -> bool:
        return ident in self.sections

    def section(self, ident: int) -> Section | None:
        span = self.sections.get(ident)
        if span is None:
            return None
        c = self.cur
        return Section(c.buf, span[0], span[1], c.path, f"{c.where}, identifier 0x{ident:X}", c.base,
                       self.object_count, self.encodings)


# --- the file ----------------------------------------------------------------------------

_HEADER_FIELDS = ("crc", "ck_version", "file_version", "zero", "write_mode", "hdr1_pack_size", "data_pack_size",
                  "data_unpack_size", "manager_count", "object_count", "max_id_saved", "product_version",
                  "product_build", "hdr1_unpack_size")


def adler_crc(header: bytes, hdr1: bytes, data: bytes) -> int:
    """1.3: Adler-32 seeded with 0 over the header (CRC field zeroed), then the
    packed header1 and data."""
    crc = zlib.adler32(header[:8] + b"\0\0\0\0" + header[12:HEADER_SIZE], 0)
    return zlib.adler32(data, zlib.adler32(hdr1, crc))


def _inflate(packed: bytes, size: int, path: str, what: str, offset: int) -> bytes:
    """1.4: a zlib stream that must inflate to exactly ``size`` bytes; at most
    size + 1 bytes are ever produced."""
    try:
        out = zlib.decompressobj().decompress(packed, size + 1)
    except zlib.error as exc:
        raise VirtoolsError(f"{path}: {what}: at byte offset {offset}: the zlib stream is corrupt ({exc})") \
            from None
    if len(out) != size:
        got = f"more than {size}" if len(out) > size else str(len(out))
        raise VirtoolsError(f"{path}: {what}: at byte offset {offset}: inflates to {got} bytes, the header "
                            f"says {size}")
    return out


def read_file(path: str, encodings=ENCODINGS) -> NmoFile:
    """Read the file at ``path`` (1, 2, 3). Raises VirtoolsError for a file that
    is not a readable Virtools 2.x file; an OSError when it cannot be opened."""
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise VirtoolsError(f"{path}: the file has {size} bytes, more than the limit of {MAX_FILE_BYTES}")
    with open(path, "rb") as fh:
        return read_bytes(fh.read(), path, encodings)


def read_bytes(raw: bytes, path: str = "<bytes>", encodings=ENCODINGS) -> NmoFile:
    """Read a whole file given as bytes (see ``read_file``)."""
    top = Cursor(raw, 0, len(raw), path, "header")
    if len(raw) < HEADER_SIZE:
        top.fail(f"the file has {len(raw)} bytes, shorter than the {HEADER_SIZE}-byte header", 0)
    if raw[:7] != MAGIC:
        top.fail(f"not a Virtools file: it starts with {raw[:8]!r}, not {MAGIC!r}", 0)
    h = dict(zip(_HEADER_FIELDS, struct.unpack_from("<14I", raw, 8)))
    if h["file_version"] not in FILE_VERSIONS:
        top.fail(f"file version {h['file_version']} is not supported (only 8 and 9; 7 and older use another "
                 "layout)", 0x10)
    if h["zero"] != 0:
        top.fail(f"the field at 0x14 must be 0, it is {h['zero']}", 0x14)
    hdr1_at = HEADER_SIZE
    data_at = hdr1_at + h["hdr1_pack_size"]
    if data_at + h["data_pack_size"] > len(raw):
        top.fail(f"the file is truncated: header1 ({h['hdr1_pack_size']} bytes) and data "
                 f"({h['data_pack_size']} bytes) need {data_at + h['data_pack_size']} bytes, the file has "
                 f"{len(raw)}", 0x1C)
    hdr1_packed = raw[hdr1_at:data_at]
    data_packed = raw[data_at:data_at + h["data_pack_size"]]
    warnings = []
    crc = adler_crc(raw, hdr1_packed, data_packed)
    if crc != h["crc"] and zlib.adler32(data_packed, 0) != h["crc"]:
        warnings.append(f"{path}: the CRC is 0x{h['crc']:08X}, the contents give 0x{crc:08X}")
    for key, packed, at in (("hdr1", hdr1_packed, hdr1_at), ("data", data_packed, data_at)):
        unpacked = h[f"{key}_unpack_size"]
        if unpacked > MAX_SECTION_BYTES:
            top.fail(f"{'header1' if key == 'hdr1' else 'the data'} claims {unpacked} bytes, more than the "
                     f"limit of {MAX_SECTION_BYTES}", 0x3C if key == "hdr1" else 0x24)
        if unpacked > MAX_INFLATE_RATIO * (len(packed) + 16):
            top.fail(f"{'header1' if key == 'hdr1' else 'the data'} claims {unpacked} bytes once inflated "
                     f"from {len(packed)}: more than zlib can give", 0x3C if key == "hdr1" else 0x24)
    hdr1 = hdr1_packed
    if h["hdr1_pack_size"] != h["hdr1_unpack_size"]:
        hdr1 = _inflate(hdr1_packed, h["hdr1_unpack_size"], path, "header1", hdr1_at)
    data = data_packed
    if h["write_mode"] & 0x09:
        data = _inflate(data_packed, h["data_unpack_size"], path, "data section", data_at)
    elif h["data_pack_size"] != h["data_unpack_size"]:
        top.fail(f"the data is not compressed (write mode {h['write_mode']}) but its packed and unpacked "
                 f"sizes differ ({h['data_pack_size']} and {h['data_unpack_size']})", 0x20)
    table = _object_table(hdr1, h, path, encodings)
    objects = _data_section(data, h, table, path, encodings)
    return NmoFile(path, h, objects, warnings)


def _object_table(hdr1: bytes, h: dict, path: str, encodings) -> list:
    """1.5: (id, class id, file index, name) per object; then the plugin and
    included-file blocks, which must consume header1 exactly."""
    cur = Cursor(hdr1, 0, len(hdr1), path, "header1 (inflated)" if h["hdr1_pack_size"] != len(hdr1)
                 else "header1", 0 if h["hdr1_pack_size"] != len(hdr1) else HEADER_SIZE)
    n = h["object_count"]
    if 16 * n > len(hdr1):
        cur.fail(f"the header's object count {n} needs at least {16 * n} bytes of header1, which has "
                 f"{len(hdr1)}", 0)
    table = []
    for i in range(n):
        at = cur.pos
        obj_id, class_id, _file_index = cur.u32(), cur.u32(), cur.u32()
        length = cur.count(f"the name length of object #{i}", 1)
        name = decode_name(cur.take(length, f"the name of object #{i}"), encodings)
        table.append((obj_id, class_id, name, at))
    plugins = cur.count("the plugin dependency count", 8)
    for _ in range(plugins):
        cur.u32("a plugin category")
        cur.take(8 * cur.count("a plugin GUID count", 8), "plugin GUIDs")
    included = cur.i32("the included-file block size")
    if included < 0:
        cur.fail(f"the included-file block size is {included}", cur.pos - 4)
    cur.take(included, "the included-file block")
    if cur.left:
        cur.fail(f"{cur.left} bytes are left after the object table, plugins and included files")
    return table


def _data_section(data: bytes, h: dict, table: list, path: str, encodings) -> list:
    """1.6: the manager records (skipped), then one chunk per object, in table order."""
    compressed = bool(h["write_mode"] & 0x09)
    base = HEADER_SIZE + h["hdr1_unpack_size"]
    cur = Cursor(data, 0, len(data), path, "data section (inflated)" if compressed else "data section", base)
    managers = h["manager_count"]
    if 12 * managers > len(data):
        cur.fail(f"the header's manager count {managers} does not fit in the {len(data)}-byte data", 0)
    for i in range(managers):
        cur.take(8, f"the GUID of manager {i}")
        cur.take(cur.count(f"the chunk size of manager {i}", 1), f"the chunk of manager {i}")
    if 4 * len(table) > cur.left:
        cur.fail(f"{len(table)} objects need at least {4 * len(table)} bytes, {cur.left} are left")
    objects = []
    for index, (obj_id, class_id, name, _) in enumerate(table):
        size = cur.count(f"the chunk size of object #{index} {name!r}", 1)
        obj = CKObject(index, obj_id, class_id, name)
        cur.where = obj.label
        if size:
            chunk = Chunk(cur, size, len(table), encodings)
            obj = _decode(obj, chunk)
        objects.append(obj)
        cur.where = "data section"
    if cur.left:
        cur.fail(f"{cur.left} bytes are left after the last object")
    return objects


# --- the classes (3) -------------------------------------------------------------------------

def _decode(obj: CKObject, chunk: Chunk) -> CKObject:
    """The object as its class's record; classes outside 3 stay plain CKObjects."""
    hidden = chunk.has(ID_HIDDEN) or chunk.has(ID_HIDDEN_HIERARCHY)
    decoder = _DECODERS.get(obj.class_id)
    if obj.class_id in ENTITY_CLASSES:
        decoder = _entity
    if decoder is None:
        obj.hidden = hidden
        return obj
    out = decoder(obj, chunk)
    out.hidden = hidden
    return out


def _base(cls, obj: CKObject, **values):
    return cls(obj.index, obj.id, obj.class_id, obj.name, **values)


def _entity(obj: CKObject, chunk: Chunk) -> Entity:
    """3.3: the meshes section and the core data (flags, matrix, optional place,
    parent and z-order)."""
    e = _base(Entity, obj)
    s = chunk.section(ID_ENTITY_MESHES)
    if s is not None:
        e.mesh = s.ref("the current mesh")
        e.meshes = s.refs("the potential meshes")
    s = chunk.section(ID_ENTITY_CORE)
    if s is not None:
        e.entity_flags, e.moveable = s.u32("the 3D-entity flags"), s.u32("the moveable flags")
        at = s.pos
        m = s.array("<f4", 12, "the world matrix")
        if not np.all(np.isfinite(m)):
            s.fail("the world matrix has a NaN or infinite value", at)
        e.matrix = tuple(float(x) for x in m)
        if e.entity_flags & ENTITY_PLACE_VALID:
            e.place = s.ref("the place")
        if e.entity_flags & ENTITY_PARENT_VALID:
            e.parent = s.ref("the parent")
            if e.parent == e.index:
                s.fail("the entity is its own parent", s.pos - 4)
        if e.entity_flags & ENTITY_ZORDER_VALID:
            e.zorder = s.i32("the z-order")
    return e


def _mesh(obj: CKObject, chunk: Chunk) -> Mesh:
    """3.4: flags, material slots, vertices (the block checked against its
    size dword) and faces (indices checked against V, slots against the slots)."""
    if chunk.data_version < 9:
        chunk.cur.fail(f"mesh data version {chunk.data_version} is not supported (9 and later)", chunk.data - 8)
    m = _base(Mesh, obj)
    s = chunk.section(ID_MESH_FLAGS)
    if s is not None:
        m.flags = s.u32("the mesh flags")
    s = chunk.section(ID_MESH_SLOTS)
    if s is not None:
        n = s.count("the material slot count", 8)
        for _ in range(n):
            m.slots.append(s.ref("a material slot"))
            s.u32("a slot's reserved dword")
    s = chunk.section(ID_MESH_VERTICES)
    if s is not None:
        _vertices(m, s)
    s = chunk.section(ID_MESH_FACES)
    if s is not None:
        at = s.pos
        f = s.count("the face count", 8)
        raw = s.array("<u4", 2 * f, "the faces").reshape(f, 2)
        m.faces = np.stack([raw[:, 0] & 0xFFFF, raw[:, 0] >> 16, raw[:, 1] & 0xFFFF], axis=1).astype(np.int32)
        m.face_slots = (raw[:, 1] >> 16).astype(np.int32)
        if f and m.faces.max() >= len(m.vertices):
            bad = int(np.argmax(m.faces.max(axis=1) >= len(m.vertices)))
            s.fail(f"face {bad} uses vertex {int(m.faces[bad].max())}, the mesh has {len(m.vertices)}",
                   at + 4 + 8 * bad)
        if f and m.face_slots.max() >= max(len(m.slots), 1):
            bad = int(np.argmax(m.face_slots >= max(len(m.slots), 1)))
            s.fail(f"face {bad} uses material slot {int(m.face_slots[bad])}, the mesh has {len(m.slots)}",
                   at + 8 + 8 * bad)
    return m


def _vertices(m: Mesh, s: Section) -> None:
    v = s.count("the vertex count", 4)
    if v == 0:
        return
    flags = s.u32("the vertex save flags")
    at = s.pos
    block = s.u32("the vertex block size")
    sizes = {"positions": 0 if flags & VX_NO_POSITIONS else 3 * v,
             "colours": 1 if flags & VX_ONE_COLOUR else v,
             "specular": 1 if flags & VX_ONE_SPECULAR else v,
             "normals": 0 if flags & VX_NO_NORMALS else 3 * v,
             "uvs": 2 if flags & VX_ONE_UV else 2 * v}
    if block != sum(sizes.values()) + 1:
        s.fail(f"the vertex block size is {block} dwords, its {v} vertices with save flags 0x{flags:X} "
               f"need {sum(sizes.values()) + 1}", at)
    s.need(4 * (block - 1), "the vertex arrays")
    pos = s.pos
    m.vertices = s.array("<f4", sizes["positions"], "the positions").reshape(-1, 3) if sizes["positions"] \
        else np.zeros((v, 3), np.float32)
    s.array("<u4", sizes["colours"] + sizes["specular"], "the vertex colours")
    if sizes["normals"]:
        m.normals = s.array("<f4", sizes["normals"], "the normals").reshape(v, 3)
    uv = s.array("<f4", sizes["uvs"], "the texture coordinates").reshape(-1, 2)
    m.uvs = np.repeat(uv, v, axis=0) if flags & VX_ONE_UV else uv
    if not (np.all(np.isfinite(m.vertices)) and np.all(np.isfinite(m.uvs))
            and (m.normals is None or np.all(np.isfinite(m.normals)))):
        s.fail("a vertex position, normal or texture coordinate is NaN or infinite", pos)


def _material(obj: CKObject, chunk: Chunk) -> Material:
    """3.5: the main data section."""
    m = _base(Material, obj)
    s = chunk.section(ID_MATERIAL)
    if s is not None:
        if chunk.data_version < 5:
            s.fail(f"material data version {chunk.data_version} is not supported (5 and later)")
        m.diffuse, m.ambient, m.specular, m.emissive = (s.u32("a colour") for _ in range(4))
        m.power = s.f32("the specular power")
        m.texture = s.ref("the texture")
        m.border, m.modes, m.flags = s.u32("the border colour"), s.u32("the modes"), s.u32("the flags")
    return m


def _texture(obj: CKObject, chunk: Chunk) -> Texture:
    """3.6: the file names, the properties dword, and raw embedded pixels (the
    first raw slot with data; JPEG-compressed slots are skipped)."""
    t = _base(Texture, obj)
    s = chunk.section(ID_TEXTURE_FILES)
    if s is not None:
        t.files = [s.string("a texture file name") for _ in range(s.count("the file name count", 4))]
    s = chunk.section(ID_TEXTURE_PROPS) or chunk.section(ID_TEXTURE_PROPS_LATER)
    if s is not None:
        t.properties = s.u32("the texture properties")
    s = chunk.section(ID_TEXTURE_RAW)
    if s is not None:
        for _ in range(s.count("the raw slot count", 4)):
            bpp = s.u32("a slot's bits per pixel")
            if bpp == 0:
                continue
            w, h = s.u32("the width"), s.u32("the height")
            s.take(16, "the colour masks")
            options = s.u32("the slot options")
            at = s.pos
            channels = [s.buffer(name) for name in ("the blue channel", "the green channel", "the red channel",
                                                   "the alpha channel")]
            if options & 0xF or t.pixels is not None:
                continue
            if any(len(c) != w * h for c in channels[:3]) or len(channels[3]) not in (0, w * h):
                s.fail(f"a {w} x {h} slot needs channels of {w * h} bytes, they have "
                       f"{[len(c) for c in channels]}", at)
            alpha = channels[3] or b"\xff" * (w * h)
            px = np.stack([np.frombuffer(c, np.uint8) for c in (channels[2], channels[1], channels[0], alpha)],
                          axis=1).reshape(h, w, 4)
            t.pixels = px[::-1].copy()          # rows are stored bottom-up
    return t


def _group(obj: CKObject, chunk: Chunk) -> Group:
    """3.7: the members, null entries dropped."""
    g = _base(Group, obj)
    s = chunk.section(ID_GROUP_MEMBERS)
    if s is not None:
        g.members = [r for r in s.refs("the group members") if r is not None]
    return g


def _data_array(obj: CKObject, chunk: Chunk) -> DataArray:
    """3.8: the format (column names and types), then the rows."""
    a = _base(DataArray, obj)
    s = chunk.section(ID_ARRAY_FORMAT)
    if s is None:
        return a
    for _ in range(s.count("the column count", 8)):
        name = s.string("a column name")
        at = s.pos
        kind = s.u32("a column type")
        if kind not in (COLUMN_INT, COLUMN_FLOAT, COLUMN_STRING, COLUMN_OBJECT, COLUMN_PARAMETER):
            s.fail(f"column {name!r} has the unknown type {kind}", at)
        if kind == COLUMN_PARAMETER:
            s.take(8, "the parameter type GUID")
        a.columns.append((name, kind))
    s = chunk.section(ID_ARRAY_DATA)
    if s is None or not a.columns:
        return a
    read = {COLUMN_INT: s.i32, COLUMN_FLOAT: s.f32, COLUMN_STRING: s.string, COLUMN_OBJECT: s.ref,
            COLUMN_PARAMETER: s.ref}
    for _ in range(s.count("the row count", 4 * len(a.columns))):
        a.rows.append([read[kind](f"column {name!r}") for name, kind in a.columns])
    return a


def _parameter(obj: CKObject, chunk: Chunk) -> Parameter:
    """3.8: the value section: type GUID, kind, then bytes (1) or a reference (2)."""
    p = _base(Parameter, obj)
    s = chunk.section(ID_PARAMETER_VALUE)
    if s is None:
        return p
    p.type_guid = (s.u32("the type GUID"), s.u32("the type GUID"))
    p.kind = s.u32("the value kind")
    if p.kind == 1:
        p.value = s.buffer("the value")
    elif p.kind == 2:
        p.value = s.ref("the value object")
    return p


_DECODERS = {CK_MESH: _mesh, CK_MATERIAL: _material, CK_TEXTURE: _texture, CK_GROUP: _group,
             CK_DATAARRAY: _data_array, **{c: _parameter for c in PARAMETER_CLASSES}}
