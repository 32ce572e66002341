"""Tolerances and sizes of the solver (one place, so that tests and benchmarks can read them)."""

#: Initial midpoint nodes of a rule (multiple of 3: the embedded coarse rule takes every third node).
INITIAL_NODES = 48
#: Refinement stops here (48 * 3**6). For the Marchenko--Pastur law at c = 1 the support reaches 0,
#: and an integrand with a pole at lambda ~ -v lies about sqrt(2 v / h) from the real phi axis, so
#: the midpoint rule needs about 7 / sqrt(v) nodes for 1e-6: this covers v down to ~1e-7 there.
MAX_NODES = 34992
#: Accepted difference between an observable under the full rule and under the embedded coarse rule
#: (absolute or relative, as the system's Admissible says). This estimates the error of the coarse
#: rule (a third of the nodes); the returned full rule converges geometrically and is far more
#: accurate (docs/performance.md records the measured accuracy).
QUADRATURE_TOLERANCE = 1e-6
#: Newton tolerance at the targets, relative to 1 + max |t|.
TOLERANCE = 1e-11
#: Looser tolerance on the continuation path (only the target needs TOLERANCE).
PATH_TOLERANCE = 1e-6
#: Largest elimination multiplier accepted without a row exchange in the Newton corrections along a path
#: (:func:`~symrmt.solve.batched.solve_batched`): a correction needs a few digits, its residual decides the step.
#: On the random cloud of benchmarks/bench_solver.py 28% of the Jacobians need an exchange at 1, 5% at 10.
PATH_GROWTH = 10.0
#: A continuation step is accepted when its Newton correction is at most this fraction of the predicted change.
STEP_CONTROL = 1.0
#: Newton corrections allowed in one continuation step.
PATH_NEWTON = 3
#: Largest continuation step (a ratio in the continuation variable).
MAX_RATIO = 10.0
#: A point whose step ratio falls below this has stalled (steps at round-off level would otherwise
#: alternate between accepted and rejected for a very long time before anything else refuses them).
MIN_RATIO = 1.0001
#: The path stops at this fraction of its start when the target is smaller (a target of 0 is reached
#: by the last Newton solve from there).
PATH_FLOOR = 1e-14
#: Points solved together (larger inputs are split), and the largest points x nodes array.
BATCH_POINTS = 20_000
CHUNK_ELEMENTS = 2_000_000
#: Inputs of at least twice this many points are split into batches solved in parallel threads.
PARALLEL_POINTS = 2_000
#: Point-nodes per block when generated integrands are evaluated (temporaries of 200 kB stay in cache).
CACHE_ELEMENTS = 25_000
#: Nodes of the cheaper rule used along the continuation path (the target is polished with the full rule).
PATH_NODES = 24
MAX_NEWTON = 30
STEPS_PER_DECADE = 1.5
#: Slack of the admissible ranges and of non-strict branch conditions (quadrature-level and round-off).
RANGE_SLACK = 1e-6
BRANCH_SLACK = 1e-9
#: Complex unknowns: below this fraction of the start the path is followed with each level's own rule.
NEAR_AXIS = 1e-2
#: Systems without spectral averages (exact, cheap to evaluate): Newton corrections per continuation step,
#: and the largest step ratio.
EXACT_CORRECTIONS = 6
EXACT_MAX_RATIO = 10.0
#: ... and the residual (relative to 1 + max |t|) at which a step of their path has converged: looser
#: saves one evaluation in eight, but strands the path near a branch point of the transform.
EXACT_PATH_TOLERANCE = 1e-6
#: Newton steps an exact system takes past the stopping rule at its targets (symrmt.solve.exact): Newton's
#: tolerance is relative to the largest unknown, so the small ones may still be far from round-off; two steps
#: take the residual of the measured algebraic forms from up to 1e-5 to round-off (benchmarks/agreement.py).
EXACT_REFINEMENTS = 2
#: ... and the Newton steps past the stopping rule at the targets of a system with a spectral average (the same
#: reason; a step costs one evaluation with the full rule, and one takes the residual from up to 1e-9 to
#: round-off, since Newton converges quadratically there: tests/solve/test_solve.py).
REFINEMENTS = 1
#: One-curve continuation of a costly system (:mod:`symrmt.solve.curve`): Newton's tolerance (relative to
#: max(1, |t|)), the residual below which a stalled Newton has reached the evaluation's round-off (seen at small
#: values of the variable, where general M's p x p matrices of real weights are ill-conditioned), its
#: iterations, the largest ratio between consecutive points of the path, and the start as a multiple of the
#: largest target (or of 1).
CURVE_TOLERANCE = 1e-12
CURVE_FLOOR = 1e-7
CURVE_NEWTON = 40
CURVE_RATIO = 2.5
CURVE_START = 50.0
