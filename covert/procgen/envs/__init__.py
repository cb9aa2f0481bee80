"""The registered procedural environments: one module each, defining ``ENV`` (see ``covert.procgen.contract``)."""
