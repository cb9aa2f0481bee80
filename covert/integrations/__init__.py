"""Adapters that serve covert's environments to other RL stacks (OpenEnv, verifiers).

Each adapter is a subpackage that imports its framework; ``import covert`` imports none of them.
"""
