"""Training, evaluation and shipping of MaskablePPO agents for Oh my Goods! (see ``docs/training.md``)."""

# before any module here imports torch: importing ohmygoods_env sets how OpenMP's idle threads wait
# (``OMP_WAIT_POLICY=PASSIVE`` unless the environment says otherwise) before the runtime torch and numba
# share is loaded, which reads it once
import ohmygoods_env as _ohmygoods_env  # noqa: F401
