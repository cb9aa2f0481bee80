"""covert: verified tool-use training data for LLM agents.

Importing covert is cheap: heavy dependencies (datasets, pyarrow, torch, transformers, vllm, ray) are
imported only by the modules that use them.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
