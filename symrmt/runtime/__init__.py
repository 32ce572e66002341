"""The process the package runs in: CPUs, lazy exports, progress bars and optional compiled kernels.

=========================  ====================================================================
module                     what it holds
=========================  ====================================================================
:mod:`.cpus`               the CPUs this process may use
:mod:`.lazy`               public names imported on first use (PEP 562)
:mod:`.progress`           progress bars on stderr (tqdm)
:mod:`.jit`                Numba kernels compiled once they pay for themselves
:mod:`.memory`             the memory this process really has (ulimit -v, the cgroup, MemAvailable)
:mod:`.cost`               the refusal of work estimated to take too long (``--allow-long``)
=========================  ====================================================================

NumPy only: importing it loads neither SymPy nor Numba.
"""
