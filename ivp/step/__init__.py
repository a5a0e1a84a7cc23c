"""The PSI's unit pass (spec 6.2-6.3, 7.1 / 7.3, 8.2 / 8.3, 10.1-10.2): the
dynamics kernels (:mod:`ivp.step.kernels`) and the pass over the units' rows
of the body table (:mod:`ivp.step.unit_pass`)."""
