"""Generic assessor machinery shared by the `assessors` study and `evalsci reference`.

- `classifiers`: the classifiers, the generic-assessor feature matrices and the AUC;
- `selectors`: the reference-instance selectors of the assessors paper (Section 3.2.1);
- `refset`: choosing reference items from anyone's per-item results and predicting a new
  model's accuracy from them (`evalsci reference`).

Nothing here imports a study (DESIGN.md: studies import shared code, never the reverse).
"""
