"""The one adapter between a rule and the package: calls the evalsci function the rule names
(input `code`: its module's file; param `function`: its name) with the rule's named inputs,
outputs, params and wildcards as keyword arguments (evalsci.pipeline.jobs.call)."""

from evalsci.pipeline.jobs import call

call(snakemake)  # noqa: F821 (injected by Snakemake)
