"""Spec 6.4 and 1.5: the controller interface and the simulation event."""

from __future__ import annotations


class SimEvent:
    """Spec 1.5 (IVP_Event_Sim): what a controller is called with each PSI."""

    __slots__ = ("delta_time", "i_delta_time", "environment", "sim_unit")

    def __init__(self, delta_time: float, i_delta_time: float, environment, sim_unit=None):
        self.delta_time = delta_time
        self.i_delta_time = i_delta_time
        self.environment = environment
        self.sim_unit = sim_unit


def connected_parts(items, links) -> list:
    """The parts of ``items`` that ``links`` (groups of items; members not in
    items are passed over) connect (10.0, 5.9: a unit's or a friction
    system's split): each part in the items' order, the parts in the order
    of their first item."""
    parent = {id(c): id(c) for c in items}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for group in links:
        linked = [id(c) for c in group if id(c) in parent]
        for other in linked[1:]:
            parent[find(other)] = find(linked[0])
    groups = {}
    for c in items:
        groups.setdefault(find(id(c)), []).append(c)
    return list(groups.values())


class Controller:
    """A controller of a sim unit (vtable: core deleted, priority, simulate).
    ``links_cores``: it joins several cores into one unit (springs,
    constraints, contacts; spec 10.0), which splits along such links. A unit
    calls consecutive controllers of one ``run_class`` that are ``in_run`` as
    one step of that class (the same values as each in turn)."""

    priority = 0
    links_cores = False
    run_class = None            # a class that runs consecutive controllers of this kind as one step

    def in_run(self) -> bool:
        """Whether this controller may be one of a run_class step."""
        return False

    def do_simulation_controller(self, ev: SimEvent, cores: list) -> None:
        raise NotImplementedError

    def get_controlled_cores(self) -> list:
        raise NotImplementedError

    def core_is_going_to_be_deleted_event(self, core) -> None:
        """Slot 0: a controlled core is being deleted; the controller removes itself."""
        core.environment.controller_manager.remove_controller(self)
