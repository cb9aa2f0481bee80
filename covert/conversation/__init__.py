"""Multi-turn conversations: dialogue templates, held-back values, the LLM user, conversation rows and their
checks (the simulated user itself is in covert.user)."""
