"""Closely related languages told apart by the words only one of them writes.

lid.176 and CLD2 both learned Bosnian, Croatian and Serbian (Latin script), and Malay and
Indonesian, from too little text to separate them: on Leipzig's clean Bosnian documents the two
together answer Croatian for most, and on its Malay documents Indonesian (bench/multilingual).
Those texts were kept, but counted in their neighbour's share of a language-weighted mix.

The standards differ in a small set of frequent words, which is how the languages are told apart
in the literature on similar languages (Ljubešić, Mikelić and Boras 2007, "Language
identification: how to distinguish similar languages?"; Tiedemann and Ljubešić 2012, "Efficient
discrimination between closely related languages"): Croatian writes *tisuća, tjedan, tijekom,
obitelj, siječanj*, Bosnian and Serbian *hiljada, sedmica, tokom, porodica, januar*; Serbian is
ekavian (*vreme, dete, gde*) where Bosnian and Croatian are ijekavian (*vrijeme, dijete, gdje*);
Malaysian Malay spells *kerana, bahawa, wang, universiti* where Indonesian spells *karena, bahwa,
uang, universitas*. The lists below are such words (stems end in ``*``), chosen from the
standards' documented differences; those that occur in Leipzig's even-numbered lines
(bench/multilingual measures on the odd ones) were checked to be rare or absent in the other
language's (Croatian *također* and *općina*, which Bosnian writes too, were left out; the Malay
words against the Indonesian sample only, Leipzig's Malay being half Indonesian).

Only a text whose label is in a group is looked at, on the prefix lid.176 read; its label moves
to another language of the group when the text's words say so (``refine``), and stays when they
are silent or tied: most short texts carry none of these words, and lid.176's label is then as
good as any. A moved label's score is how sure lid.176 is of the group (``refine``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from lakemix.udf.fasttext_kernel import Model

# Croatian words Bosnian and Serbian write otherwise (and the Croatian month names).
CROATIAN = (
    "tisuć* povijes* tjedan* tjedn* tijekom siječ* veljač* ožuj* travanj* travnj* svibanj* "
    "svibnj* lipanj* lipnj* srpanj* srpnj* kolovoz* rujan* rujn* listopad* studenog* studeni "
    "prosin* obitelj* tvrtk* sveučilišt* glazb* kemij* nogomet* točn* točk* uvjet* suradnj* "
    "suradni* europ* tko kruh zrakoplov* izvješć*"
)
# Bosnian and Serbian words Croatian writes otherwise (and the international month names).
EASTERN = (
    "hiljad* histori* istorij* tokom sedmic* januar* februar* mart marta martu aprila juna "
    "juni jula juli avgust* augusta septemb* oktob* novemb* decemb* porodic* univerzitet* "
    "hemij* fudbal* tačn* tačk* uslov* saradnj* saradni* evrop* ko hljeb* hleb* voz voza vozom "
    "izvještaj* izveštaj* bezbjednos* bezbednos* takođe opštin* uopšte muzik* vazduh*"
)
# Words whose old yat is "e" in ekavian (Serbian) and "ije"/"je" in ijekavian (Bosnian,
# Croatian, Montenegrin), as pairs of the same forms.
EKAVIAN = (
    "vreme reka reke reku dve mesto mesta mestu vest vesti ovde gde lep lepa lepo lepi cena "
    "cene ceni cenu deca dece decu deci dete deteta pesma pesme pesmu nedelja nedelje nedelju "
    "uvek pre posle vek veka reč reči sever severa mesec meseca meseci primer videti živeti "
    "smer telo tela promene promena mere mera verovatno"
)
IJEKAVIAN = (
    "vrijeme rijeka rijeke rijeku dvije mjesto mjesta mjestu vijest vijesti ovdje gdje lijep "
    "lijepa lijepo lijepi cijena cijene cijeni cijenu djeca djece djecu djeci dijete djeteta "
    "pjesma pjesme pjesmu nedjelja nedjelje nedjelju uvijek prije poslije vijek vijeka riječ "
    "riječi sjever sjevera mjesec mjeseca mjeseci primjer vidjeti živjeti smjer tijelo tijela "
    "promjene promjena mjere mjera vjerovatno vjerojatno"
)
# Malaysian Malay spellings and words, and Indonesian ones, for the same things.
MALAY = (
    "kerana bahawa sahaja wang baharu polis universiti disember ogos julai selepas iaitu "
    "syarikat kakitangan cukai kenderaan bilangan pelbagai percuma hospital mahkamah manakala rm"
)
INDONESIAN = (
    "karena bahwa pemerintah uang polisi universitas desember agustus juli juni maret yaitu "
    "perusahaan pajak kendaraan kantor mobil rp nggak enggak gak aja udah banget gimana"
)
# The group's labels: its languages, then lid.176's macrolanguage label (langid_combined too).
SERBO_CROATIAN = ("hr", "bs", "sr", "hbs")
MALAY_INDONESIAN = ("ms", "id")


_WORD = re.compile(r"\w+")


@functools.cache
def _lexicon(
    classes: tuple[tuple[str, str], ...],
) -> tuple[dict[str, int], dict[str, int], tuple[int, ...]]:
    """Whole words and stems (a trailing ``*``), each to its class's index; the stems' lengths."""
    words: dict[str, int] = {}
    stems: dict[str, int] = {}
    for k, (_, listed) in enumerate(classes):
        for word in listed.split():
            if word.endswith("*"):
                stems[word[:-1]] = k
            else:
                words[word] = k
    return words, stems, tuple(sorted({len(stem) for stem in stems}))


def counts(text: str, classes: tuple[tuple[str, str], ...]) -> dict[str, int]:
    """How many words of each class ``text`` has (whole words, any case; a stem takes endings)."""
    words, stems, lengths = _lexicon(classes)
    found = [0] * len(classes)
    for word in _WORD.findall(text.lower()):
        k = words.get(word)
        if k is None:
            for n in lengths:
                if n > len(word):
                    break
                k = stems.get(word[:n])
                if k is not None:
                    break
        if k is not None:
            found[k] += 1
    return {name: n for (name, _), n in zip(classes, found, strict=True)}


_SERBO_CROATIAN_CLASSES = (
    ("hr", CROATIAN),
    ("east", EASTERN),
    ("ek", EKAVIAN),
    ("ijek", IJEKAVIAN),
)
_MALAY_INDONESIAN_CLASSES = (("ms", MALAY), ("id", INDONESIAN))


def serbo_croatian(text: str, label: str) -> str:
    """Croatian, Bosnian or Serbian by the text's words, else ``label``.

    Ekavian forms outnumbering ijekavian ones: Serbian. Otherwise Bosnian/Serbian vocabulary
    outnumbering Croatian: Bosnian, unless the label is Serbian and no ijekavian form backs the
    change (ijekavian with that vocabulary is Bosnian, or Montenegrin, which lid.176 lacks);
    Croatian vocabulary outnumbering it: Croatian.
    """
    c = counts(text, _SERBO_CROATIAN_CLASSES)
    if c["ek"] > c["ijek"]:
        return "sr"
    if c["east"] > c["hr"]:
        return "bs" if c["ijek"] > 0 or label != "sr" else label
    if c["hr"] > c["east"]:
        return "hr"
    return label


def malay_indonesian(text: str, label: str) -> str:
    """Malay or Indonesian by which spellings and words the text has more of, else ``label``."""
    c = counts(text, _MALAY_INDONESIAN_CLASSES)
    if c["ms"] != c["id"]:
        return "ms" if c["ms"] > c["id"] else "id"
    return label


_GROUPS = ((SERBO_CROATIAN, serbo_croatian), (MALAY_INDONESIAN, malay_indonesian))


def refine(
    model: Model,
    names: Sequence[str],
    data: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    labels: np.ndarray,
    scores: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Labels of texts in a group moved to the group's language their words name.

    A moved label is scored with lid.176's probability of the whole group (the sum over its
    languages) where that is higher than the text's score: the words decide within the group,
    and lid.176 may have split its probability among the group's languages.

    Args:
        model: lid.176 as ``fasttext_kernel.load`` reads it.
        names: ``model.labels`` as langid names them (``names[k]`` is label ``k``).
        data: The texts' UTF-8 bytes.
        starts: First byte of each text's prefix.
        ends: End byte of each text's prefix.
        labels: Label index of each text.
        scores: Language score of each text.

    Returns:
        New label indices and scores (copies); texts outside the groups keep theirs, and so do
        texts whose group has a language ``names`` lacks.
    """
    from lakemix.udf import fasttext_kernel

    labels, scores = labels.astype(np.int64), scores.astype(np.float64)
    index = {name: k for k, name in enumerate(names)}
    for group, decide in _GROUPS:
        if not all(language in index for language in group):
            continue
        members = [index[language] for language in group]
        rows = np.flatnonzero(np.isin(labels, members))
        moved = []
        for row in rows:
            text = bytes(data[starts[row] : ends[row]]).decode("utf-8", "replace")
            label = index[decide(text, names[labels[row]])]
            if label != labels[row]:
                labels[row] = label
                moved.append(row)
        if moved:
            at = np.array(moved, np.int64)
            group_p = sum(
                fasttext_kernel.probabilities(
                    model, data, starts[at], ends[at], np.full(len(at), member, np.int64)
                ).astype(np.float64)
                for member in members
            )
            scores[at] = np.maximum(scores[at], np.minimum(group_p, 1.0))
    return labels, scores
