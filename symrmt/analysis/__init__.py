"""Monte Carlo post-processing: statistics over seeds, finite-size ladders, and the convergence check.

=========================  ====================================================================
module                     what it holds
=========================  ====================================================================
:mod:`.seeds`              :mod:`symrmt.simulation.seeds` (means, standard errors, t quantiles), re-exported
:mod:`.finite_size`        fits of a ladder of sizes, E(n) = E_inf + B n^(-alpha)
:mod:`.convergence`        :func:`symrmt.converge`: theory against a ladder of Monte Carlo runs
:mod:`.agreement`          one Monte Carlo against the theory: z = (MC - theory)/se and a verdict per point
:mod:`.with_theory`        :func:`symrmt.simulate`: the Monte Carlo, with ``theory=True`` the verdicts attached
=========================  ====================================================================

NumPy and SciPy only; the theory is imported by :mod:`.convergence` and :func:`.agreement.attach_theory`
when they run.
"""
