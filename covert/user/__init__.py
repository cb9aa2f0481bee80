"""The simulated user: the scenario a user holds and the template user that answers from it. Generation
(multi-turn rows) and the trainer environments (covert.rewards.trl_env, OpenEnv, verifiers) both talk to it."""
