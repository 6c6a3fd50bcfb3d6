"""Training, evaluation and shipping of MaskablePPO agents for Oh my Goods! (see ``docs/training.md``)."""
