"""The verifiers id of covert's environments: ``covert_verifiers`` (verifiers 0.4 loads a taskset
package by a top-level module name, e.g. ``eval covert_verifiers --env.taskset.dataset DIR``; verifiers
0.3 takes it too). Everything here is :mod:`covert.integrations.verifiers`."""

from covert.integrations.verifiers import *  # noqa: F403
from covert.integrations.verifiers import __all__  # noqa: F401
