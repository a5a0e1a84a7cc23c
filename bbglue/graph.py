"""The behaviour graph runtime (glue-and-content 4): blocks linked output -> input
with per-link frame delays, executed once per frame in a defined order.

Order within a frame: the blocks due this frame (activated by a link whose delay
ended, by ``start``, by an output fired during the last physics step, or
asking to be run again with ACTIVATE_NEXT_FRAME) run first-in first-out, in the
order they became due (inputs of one block due together run in one
execution); a link of delay 0 appends its target to this frame's queue. A block
runs at most once per frame: a 0-delay link to a block that
already ran activates it at the next frame (so a loop of 0-delay links cannot
hang the frame).
"""

from __future__ import annotations

from .blocks.base import ACTIVATE_NEXT_FRAME, BuildingBlock


class BehaviorGraph:
    """A named graph of building blocks, added to a context with ``add_behavior``."""

    def __init__(self, name: str = "graph"):
        self.name = name
        self.blocks = []
        self.links = {}            # (block id, output) -> [(dst, input, delay)]
        self.param_links = {}      # (dst id, pin) -> (src, out pin)
        self.frame = 0
        self._scheduled = {}       # frame -> [(block, input or None)]

    def add(self, block: BuildingBlock) -> BuildingBlock:
        if not isinstance(block, BuildingBlock):
            raise TypeError(f"graph {self.name!r}: {block!r} is not a building block")
        if block not in self.blocks:
            self.blocks.append(block)
        return block

    def link(self, src: BuildingBlock, output: str, dst: BuildingBlock, input: str, delay: int = 0) -> None:
        """Output ``output`` of src activates input ``input`` of dst ``delay`` frames later."""
        if output not in src.OUTPUTS:
            raise ValueError(f"graph {self.name!r}: {src.describe()} has no output {output!r} "
                             f"(outputs: {', '.join(src.OUTPUTS)})")
        if input not in dst.INPUTS:
            raise ValueError(f"graph {self.name!r}: {dst.describe()} has no input {input!r} "
                             f"(inputs: {', '.join(dst.INPUTS)})")
        if isinstance(delay, bool) or not isinstance(delay, int) or delay < 0:
            raise ValueError(f"graph {self.name!r}: a link delay must be an integer >= 0, got {delay!r}")
        self.add(src)
        self.add(dst)
        self.links.setdefault((id(src), output), []).append((dst, input, delay))

    def link_param(self, src: BuildingBlock, out_pin: str, dst: BuildingBlock, pin: str) -> None:
        """dst's input pin takes src's output parameter each time dst runs."""
        if out_pin not in src.outputs:
            raise ValueError(f"graph {self.name!r}: {src.describe()} has no output parameter {out_pin!r}")
        name = dst._find(dst.pins(), pin, "pin").name
        self.add(src)
        self.add(dst)
        self.param_links[(id(dst), name)] = (src, out_pin)

    def start(self, block: BuildingBlock, input: str | None = None, delay: int = 0) -> None:
        """Activate an input of a block at the next processed frame (+ delay)."""
        name = input or block.INPUTS[0]
        if name not in block.INPUTS:
            raise ValueError(f"graph {self.name!r}: {block.describe()} has no input {name!r}")
        self.add(block)
        self._scheduled.setdefault(self.frame + delay, []).append((block, name))

    def process(self, ctx) -> None:
        """One frame of the graph."""
        frame = self.frame
        queue = list(self._scheduled.pop(frame, []))
        for blk in self.blocks:
            for out in blk.take_outputs():      # fired outside a run (physics listeners)
                queue.extend(self._follow(blk, out, frame))
        ran = set()
        while queue:
            blk, inp = queue.pop(0)
            if id(blk) in ran:
                if inp is not None:
                    self._scheduled.setdefault(frame + 1, []).append((blk, inp))
                continue
            for b, other in [q for q in queue if q[0] is blk] + [(blk, inp)]:
                if other is not None:
                    b.activate_input(other)
            queue = [q for q in queue if q[0] is not blk]
            ran.add(id(blk))
            queue.extend(self._run(ctx, blk, frame))
        self.frame = frame + 1

    def _run(self, ctx, blk: BuildingBlock, frame: int) -> list:
        try:
            for (dst_id, pin), (src, out_pin) in self.param_links.items():
                if dst_id == id(blk):
                    blk.set_pin(pin, src.outputs[out_pin])
            result = blk.run(ctx)
        except Exception as exc:
            blk.take_outputs()
            ctx.report_error(f"graph {self.name!r}: {blk.describe()}", exc)
            return []
        if result == ACTIVATE_NEXT_FRAME:
            self._scheduled.setdefault(frame + 1, []).append((blk, None))
        due = []
        for out in blk.take_outputs():
            due.extend(self._follow(blk, out, frame))
        return due

    def _follow(self, blk, output: str, frame: int) -> list:
        """Links of an output: delay 0 joins this frame's queue, others are scheduled."""
        now = []
        for dst, inp, delay in self.links.get((id(blk), output), ()):
            if delay == 0:
                now.append((dst, inp))
            else:
                self._scheduled.setdefault(frame + delay, []).append((dst, inp))
        return now

    def reset(self) -> None:
        """Behaviour reset: nothing scheduled, every block reset."""
        self._scheduled.clear()
        for blk in self.blocks:
            blk.reset()
            blk.take_outputs()
