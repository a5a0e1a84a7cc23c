"""bbglue: the Virtools-like CK runtime and the glue to ivp (glue-and-content 1, 2, 4).

Layers: bbglue imports ivp and nothing above it.
"""

from . import meshes
from .context import CKContext, FrameError
from .entity import CK3dEntity, CKGroup, CKObject
from .managers import InputManager, Message, MessageManager, TimeManager
from .meshes import Mesh
from .physics import PhysicsManager, PhysicsRecord
from .vxmath import VxMatrix

__all__ = [
    "meshes", "Mesh", "VxMatrix", "CKContext", "FrameError", "CKObject", "CK3dEntity", "CKGroup",
    "TimeManager", "InputManager", "MessageManager", "Message", "PhysicsManager", "PhysicsRecord",
]
