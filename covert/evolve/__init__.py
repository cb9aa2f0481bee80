"""Environment engineering and off-policy environment evolution between training stages.

- :mod:`covert.evolve.summary`: one JSON document per environment after a stage (pass / valid / optimal
  rates per configuration, failure categories, example failures, environment statistics);
- :mod:`covert.evolve.engineer`: summary in, next-stage configuration out (rule-based by default, or an LLM
  through the backend seam), always validated against the environment's knobs;
- :mod:`covert.evolve.buffer`: a learnability buffer (p(1-p), prioritized replay, staleness);
- :mod:`covert.evolve.tools`: tool-environment configurations (calls, distractors, noise, ambiguity) made
  from covert's own rows and augmentations;
- :mod:`covert.evolve.evolution`: mutants along named directions, kept only when their reference still
  solves them and a fixed reference policy passes them less often than their parent.
"""
