"""Training, evaluation and shipping of MaskablePPO agents for Oh my Goods! (see ``docs/training.md``)."""

# before any module here imports torch: the package sets how OpenMP's idle threads wait
# (:data:`ohmygoods_env.OPENMP_SPINCOUNT`) before the runtime torch and numba share is loaded
import ohmygoods_env as _ohmygoods_env  # noqa: F401
