"""spaCy 3.8's tokenizer exceptions (MIT), which the word splitting reproduces.

``base_exceptions`` are the ones every spaCy language has (emoticons, single letters with a
period, ...); ``english_exceptions`` adds English's (contractions, abbreviations such as
``Mr.``, times): only English text is split with them, so German "Im" stays one word.
"""

from __future__ import annotations

# spaCy 3.8 spacy/lang/tokenizer_exceptions.py (MIT): emoticons kept as one token.
_SPACY_EMOTICONS = r"""
:) :-) :)) :-)) :))) :-))) (: (-: =) (= :] :-] [: [-: [= =] :o) (o: :} :-} 8) 8-) (-8 ;) ;-)
(; (-; :( :-( :(( :-(( :((( :-((( ): )-: =( >:( :') :'-) :'( :'-( :/ :-/ =/ =| :| :-| ]= =[
:1 :P :-P :p :-p :O :-O :o :-o :0 :-0 :() >:o :* :-* :3 :-3 =3 :> :-> :X :-X :x :-x :D :-D ;D
;-D =D xD XD xDD XDD 8D 8-D ^_^ ^__^ ^___^ >.< >.> <.< ._. ;_; -_- -__- v.v V.V v_v V_V o_o
o_O O_o O_O 0_o o_0 0_0 o.O O.o O.O o.o 0.0 o.0 0.o @_@ <3 <33 <333 </3 (^_^) (-_-) (._.)
(>_<) (*_*) (¬_¬) ಠ_ಠ ಠ︵ಠ (ಠ_ಠ) ¯\(ツ)/¯ (╯°□°）╯︵┻━┻ ><(((*>
"""  # noqa: RUF001
# spaCy 3.8 spacy/lang/en/tokenizer_exceptions.py (MIT): abbreviations kept as one token.
_SPACY_ABBREVIATIONS = """
'S 's ‘S ‘s and/or w/o 're 'Cause 'cause 'cos 'Cos 'coz 'Coz 'cuz 'Cuz 'bout ma'am Ma'am
o'clock O'clock lovin' Lovin' lovin Lovin havin' Havin' havin Havin doin' Doin' doin Doin goin'
Goin' goin Goin Mt. Ak. Ala. Apr. Ariz. Ark. Aug. Calif. Colo. Conn. Dec. Del. Feb. Fla. Ga. Ia.
Id. Ill. Ind. Jan. Jul. Jun. Kan. Kans. Ky. La. Mar. Mass. Mich. Minn. Miss. N.C. N.D. N.H. N.J.
N.M. N.Y. Neb. Nebr. Nev. Nov. Oct. Okla. Ore. Pa. S.C. Sep. Sept. Tenn. Va. Wash. Wis. 'd a.m.
Adm. Bros. co. Co. Corp. D.C. Dr. e.g. E.g. E.G. Gen. Gov. i.e. I.e. I.E. Inc. Jr. Ltd. Md.
Messrs. Mo. Mont. Mr. Mrs. Ms. p.m. Ph.D. Prof. Rep. Rev. Sen. St. vs. v.s.
nothin nuthin ol somethin nothin' nuthin' ol' somethin' Nothin Nuthin Ol Somethin
Nothin' Nuthin' Ol' Somethin' em 'em ll 'll nuff 'nuff
"""  # noqa: RUF001
# spaCy 3.8 spacy/lang/tokenizer_exceptions.py (MIT): BASE_EXCEPTIONS kept as one token.
_SPACY_BASE = """
' <space> '' C++ a. b. c. d. e. f. g. h. i. j. k. l. m. n. o. p. q. r. s. t. u. v. w. x. y. z. ä.
ö. ü. —
"""
_EXCLUDED = {"Ill", "ill", "Its", "its", "Hell", "hell", "Shell", "shell", "Shed", "shed"}
_EXCLUDED |= {"were", "Were", "Well", "well", "Whore", "whore"}


def _base() -> dict[str, tuple[str, ...]]:
    exc: dict[str, tuple[str, ...]] = {}
    for orth in (_SPACY_BASE + _SPACY_EMOTICONS).split():
        exc[orth] = (orth,)
    for orth in ("\\t", "\\n", '\\")', "\xa0"):
        exc[orth] = (orth,)
    for unit in "cfkCFK":
        exc[f"°{unit}."] = ("°", unit, ".")
    return exc


def _lengths(exc: dict[str, tuple[str, ...]]) -> dict[str, tuple[int, ...]]:
    """orth -> lengths of its tokens, each ' also as U+2019 (as spaCy's update_exc does)."""
    for orth, pieces in list(exc.items()):
        if "'" in orth:
            exc[orth.replace("'", "\u2019")] = tuple(p.replace("'", "\u2019") for p in pieces)
    return {orth: tuple(map(len, parts)) for orth, parts in exc.items()}


def base_exceptions() -> dict[str, tuple[int, ...]]:
    """spaCy 3.8's exceptions of every language (``BASE_EXCEPTIONS``), as orth -> lengths of
    its tokens: without the U+2019 variants, which a language only has when its exceptions go
    through spaCy's ``update_exc`` (English, French, Macedonian, ...; ``word_exceptions.json``
    holds them then), not where it takes the base ones as they are (Albanian: U+2019 twice is
    two words)."""
    return {orth: tuple(map(len, parts)) for orth, parts in _base().items()}


def english_exceptions() -> dict[str, tuple[int, ...]]:
    """spaCy 3.8's English tokenizer exceptions, as orth -> lengths of its tokens."""
    exc = _base()

    def add(*parts: str) -> None:
        exc["".join(parts)] = parts

    def cased(*words: str) -> list[str]:
        return [w for word in words for w in (word, word.title())]

    for orth in cased("i"):
        for tail in (("'m",), ("m",), ("'m", "a"), ("m", "a")):
            add(orth, *tail)
    wh = ("who", "what", "when", "where", "why", "how", "there")
    modals = (
        *("ca", "could", "do", "does", "did", "had", "may", "might", "must", "need", "ought"),
        *("sha", "should", "wo", "would"),
    )
    perfect = ("could", "might", "must", "should", "would")  # these take 've
    contractions = {
        "'ll": ("i", "you", "he", "she", "it", "we", "they", *wh, "that", "this", "these", "those"),
        "'d": ("i", "you", "he", "she", "it", "we", "they", *wh, "that", "this", "these", "those"),
        "'ve": ("i", "you", "we", "they", *wh, "these", "those", *perfect),
        "'re": ("you", "we", "they", *wh, "these", "those"),
        "'s": ("he", "she", "it", *wh, "that", "this"),
        "n't": (*modals, "ai", "are", "is", "was", "were", "have", "has", "dare"),
    }
    for suffix, words in contractions.items():
        for word in words:
            for orth in cased(word):
                add(orth, suffix)
                add(orth, suffix.replace("'", ""))
                if suffix in ("'ll", "'d") or (suffix == "n't" and word in modals):
                    add(orth, suffix, "'ve")
                    add(orth, suffix.replace("'", ""), "ve")
    for hour in range(1, 13):
        for period in ("a.m.", "am", "p.m.", "pm"):
            add(str(hour), period)
    for orth, split in {
        "y'all": ("y'", "all"),
        "yall": ("y", "all"),
        "how'd'y": ("how", "'d", "'y"),
        "How'd'y": ("How", "'d", "'y"),
        "cannot": ("can", "not"),
        "Cannot": ("Can", "not"),
        "gonna": ("gon", "na"),
        "Gonna": ("Gon", "na"),
        "gotta": ("got", "ta"),
        "Gotta": ("Got", "ta"),
        "let's": ("let", "'s"),
        "Let's": ("Let", "'s"),
        "c'mon": ("c'm", "on"),
        "C'mon": ("C'm", "on"),
    }.items():
        exc[orth] = split
    for orth in cased("not"):
        add(orth, "'ve")
        add(orth, "ve")
    for orth in _SPACY_ABBREVIATIONS.split():
        add(orth)
    for orth in _EXCLUDED:
        exc.pop(orth, None)
    return _lengths(exc)
