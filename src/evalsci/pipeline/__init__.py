"""The workflow machinery: what runs the Snakemake workflow, not the science it runs.

- `jobs`: a job's log, atomic writes, thread caps and the one adapter (workflow/scripts/call.py)
  that calls the function a rule names;
- `configfiles`: config files read strictly (a key given twice names its file and line);
- `runlocks`: runs sharing one working directory;
- `hublock`: the hub commits a results/ tree loaded;
- `determinism`: portable arithmetic (environment pins, torch's deterministic algorithms);
- `artefacts` (+ `artefacts.yaml`): the artefact registry, its index (docs/artefacts.md) and the captions;
- `doctables` (+ `doc_blocks.yaml`): the generated blocks in docs/.

Like every module outside `evalsci.studies`, none of them imports a study
(tests/test_layering.py); the registries name studies' functions as data.
"""
