"""GPU buffers and vertex layouts shared by the viewer's batches."""

from __future__ import annotations

import ctypes

import numpy as np
from pyglet import gl

F = ctypes.sizeof(ctypes.c_float)


class Buffer:
    """A vertex buffer refilled whole (orphaned) when its data change."""

    def __init__(self):
        self.id = gl.GLuint()
        gl.glGenBuffers(1, ctypes.byref(self.id))

    def upload(self, data: np.ndarray, usage=gl.GL_DYNAMIC_DRAW, target=gl.GL_ARRAY_BUFFER) -> None:
        if target == gl.GL_ARRAY_BUFFER:
            data = np.ascontiguousarray(data, dtype=np.float32)
        gl.glBindBuffer(target, self.id)
        gl.glBufferData(target, data.nbytes, data.ctypes.data, usage)

    def delete(self) -> None:
        gl.glDeleteBuffers(1, ctypes.byref(self.id))


def attribute(location: int, size: int, stride_floats: int, offset_floats: int, divisor: int = 0) -> None:
    gl.glEnableVertexAttribArray(location)
    gl.glVertexAttribPointer(location, size, gl.GL_FLOAT, gl.GL_FALSE,
                             stride_floats * F, ctypes.c_void_p(offset_floats * F))
    if divisor:
        gl.glVertexAttribDivisor(location, divisor)


def instanced_vao(vertices: np.ndarray, indices, layout):
    """A vertex array: the index buffer, the vertices with ``layout`` [(location,
    size)] packed per vertex, and an instance buffer of a 4x4 matrix (locations
    2-5) and a colour (6). Returns (vao, index buffer, vertex buffer, instance buffer)."""
    vao = gl.GLuint()
    gl.glGenVertexArrays(1, ctypes.byref(vao))
    gl.glBindVertexArray(vao)
    ib = Buffer()
    ib.upload(np.ascontiguousarray(indices, dtype=np.uint32), gl.GL_STATIC_DRAW, gl.GL_ELEMENT_ARRAY_BUFFER)
    vb = Buffer()
    vb.upload(vertices, gl.GL_STATIC_DRAW)
    stride = sum(size for _, size in layout)
    at = 0
    for location, size in layout:
        attribute(location, size, stride, at)
        at += size
    instances = Buffer()
    instances.upload(np.zeros((1, 20), dtype=np.float32))
    for column in range(4):
        attribute(2 + column, 4, 20, 4 * column, divisor=1)
    attribute(6, 4, 20, 16, divisor=1)
    gl.glBindVertexArray(0)
    return vao, ib, vb, instances
