"""bbglue: the Virtools-like CK runtime and the glue to ivp (glue-and-content 1, 2, 4).

Layers: bbglue imports ivp and nothing above it; inside it, the building blocks
(``bbglue.blocks``, with the scripting calls) stand on the physics manager.
"""

from . import blocks, meshes
from .context import CKContext, FrameError
from .entity import CK3dEntity, CKGroup, CKObject
from .managers import InputManager, Message, MessageManager, TimeManager
from .meshes import Mesh
from .physics import PhysicsManager, PhysicsRecord
from .vxmath import VxMatrix

__all__ = [
    "blocks", "meshes", "Mesh", "VxMatrix", "CKContext", "FrameError", "CKObject", "CK3dEntity", "CKGroup",
    "TimeManager", "InputManager", "MessageManager", "Message", "PhysicsManager", "PhysicsRecord",
]
