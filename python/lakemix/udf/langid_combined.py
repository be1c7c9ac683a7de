"""lid.176 with CLD2 where lid.176 is unsure: a fixed rule, chosen by measurement.

lid.176 wins on noisy web pages (it knows 176 languages, CLD2's quadgram model 83), CLD2 on
clean sentences of languages lid.176 confuses (Somali, Yoruba, Afrikaans, Nynorsk, Slovak,
Bosnian, ...). So lid.176 decides; CLD2 (``lakemix.udf.cld2``) is asked only about texts where
lid.176's probability ``p`` of its label is below ``CONSULT_BELOW`` (about half of web
documents), on the same prefix. CLD2 is *sure* when it calls its answer reliable, gives it at
least ``MIN_PERCENT`` percent of the text and a normalized score of at least ``MIN_SCORE``
(CLD2 answers English with a score under 100 for text it cannot place).

* CLD2 reliably names lid.176's label: the label stays; ``language_score`` is
  ``AGREE_SCORE``.
* CLD2 is sure of another label lid.176 has, lid.176's label is one CLD2 could have given
  (or lid.176 said "hbs" and CLD2 one of "hr", "bs", "sr"), and either lid.176 is unsure
  (``p < UNSURE_BELOW``) or lid.176 itself gives CLD2's label at least ``RUNNER_UP``
  (a neighbour: nb/nn, nl/af, cs/sk, id/ms, ...): CLD2's label, scored ``OVERRIDE_SCORE``.
* CLD2 is sure of a language lid.176 has no label for (Zulu, Xhosa, Maori, ...): lid.176's
  label stays (the label set is lid.176's) and is scored ``FOREIGN_SCORE``.
* Otherwise (CLD2 unsure, "un", or ruled out above): lid.176's label and ``p``.

Why these gates: without "lid.176's label is one CLD2 could give", CLD2 turns lid.176's right
answers for languages it does not know into their neighbours on OSCAR (bar -> de, dsb -> pl,
pnb -> ur); without ``MIN_SCORE`` its English fallback replaces right labels of noisy pages.

``language_score`` means "how sure we are of this label": lid.176's probability where lid.176
alone decides, else the share of right labels measured for the case on the training half,
rounded down to a multiple of 0.05: both agree 2,763 of 2,959 (0.93, held-out half 0.94),
CLD2's label 722 of 918 (0.79; 0.80), lid.176's label while CLD2 is sure of a language
lid.176 lacks 0 of 1,309 (1 of 1,283). ``AGREE_SCORE`` is also ``CONSULT_BELOW``, so a label
both agree on never outranks one lid.176 alone is sure of.

Measured by ``bench/langid.py`` on Leipzig sentences (75 languages, 300 each), documents of
500-2,000 characters joined from other Leipzig sentences (30 a language), OSCAR 2019 and HPLT
pages. The thresholds were chosen on the texts whose CRC-32 is even; figures on the others:

==================================================  =============  ==========  ========
held-out half                                       lid.176 alone  CLD2 alone  combined
==================================================  =============  ==========  ========
Leipzig sentences, the 67 languages lid.176 has     0.892          0.948       0.951
Leipzig sentences, all 75                           0.797          0.950       0.850
Leipzig documents, the 67                           0.942          0.979       0.975
OSCAR documents (175)                               0.931          0.646       0.926
HPLT pages, OpenLID's labels (96)                   0.854          0.875       0.885
web: OSCAR and HPLT (271)                           0.904          0.727       0.911
right labels scored under 0.65: Leipzig sentences   0.104                      0.003
right labels scored under 0.65: Leipzig documents   0.077                      0.000
right labels scored under 0.65: web                 0.131                      0.089
==================================================  =============  ==========  ========

The combination cannot name the 8 Leipzig languages lid.176 lacks (its labels are lid.176's),
so over all 75 it stays under CLD2 alone; on the held-out documents CLD2 alone is right where
either is, so no choice between the two can beat it. Cost: run in turns with lid.176 alone on one
core, it keeps 0.76 of its OSCAR documents/s (0.69 of its Leipzig sentences/s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lakemix.udf.langid_neighbours import SERBO_CROATIAN

if TYPE_CHECKING:
    from lakemix.udf.fasttext_kernel import Model

CONSULT_BELOW = 0.9
MIN_PERCENT = 80
MIN_SCORE = 300.0
UNSURE_BELOW = 0.6
RUNNER_UP = 0.05
AGREE_SCORE = 0.9
OVERRIDE_SCORE = 0.75
FOREIGN_SCORE = 0.0
# lid.176's label for Serbo-Croatian, and the labels CLD2 splits it into.
_MACRO, _PARTS = SERBO_CROATIAN[-1], SERBO_CROATIAN[:-1]


def combine(
    model: Model,
    names: tuple[str, ...],
    data: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    labels: np.ndarray,
    scores: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Labels and scores of lid.176 corrected by CLD2 as the module docstring says.

    Args:
        model: lid.176 as ``fasttext_kernel.load`` reads it.
        names: ``model.labels`` as langid names them (``names[k]`` is label ``k``).
        data: The texts' UTF-8 bytes.
        starts: First byte of each text's prefix.
        ends: End byte of each text's prefix.
        labels: lid.176's label index of each text.
        scores: lid.176's probability of that label (float64 in [0, 1]).

    Returns:
        New label indices and scores (copies; texts CLD2 was not asked about keep theirs).
    """
    from lakemix.udf import cld2, fasttext_kernel

    labels, scores = labels.astype(np.int64), scores.astype(np.float64)
    asked = np.flatnonzero(scores < CONSULT_BELOW)
    found = cld2.detect(data, starts[asked], ends[asked], names)
    mine, p, theirs = labels[asked], scores[asked], found.labels
    sure = found.reliable & (found.percent >= MIN_PERCENT) & (found.score >= MIN_SCORE)
    agree = found.reliable & (theirs == mine)
    foreign = sure & (theirs == cld2.FOREIGN)
    refines = np.zeros(len(asked), bool)
    if _MACRO in names:
        parts = [names.index(part) for part in _PARTS if part in names]
        refines = (mine == names.index(_MACRO)) & np.isin(theirs, parts)
    other = sure & (theirs >= 0) & (theirs != mine) & (cld2.detectable(names)[mine] | refines)
    override = other & (p < UNSURE_BELOW)
    ask = np.flatnonzero(other & ~override)
    if len(ask):
        theirs_p = fasttext_kernel.probabilities(
            model, data, starts[asked][ask], ends[asked][ask], theirs[ask]
        )
        override[ask] = theirs_p >= RUNNER_UP
    labels[asked] = np.where(override, theirs, mine)
    scores[asked] = np.select(
        [agree, override, foreign], [np.maximum(p, AGREE_SCORE), OVERRIDE_SCORE, FOREIGN_SCORE], p
    )
    return labels, scores
