"""The tagger's vocabulary and its view of one word: the word classes the rules of tagging.py name, and
``Place``, word i as the tagger meets it, left to right, with its neighbours and the tags settled so far."""

from __future__ import annotations

from app.models.grammar.reading import Reading

AUXILIARY_LEMMAS = frozenset({"be", "have", "do", "will", "can", "shall", "may", "must"})
# Verbs after which an adjective describes the subject ("tasted salty"); after any other verb a word that can
# be an adverb is one ("studied hard").
COPULAR_LEMMAS = frozenset(
    {"be", "become", "seem", "look", "feel", "taste", "smell", "sound", "appear", "remain", "stay", "get",
     "grow", "turn", "fall", "go", "keep"}
)  # fmt: skip
COORDINATORS = frozenset({"and", "or", "but", "nor"})
CLAUSE_PREPOSITIONS = frozenset({"after", "before", "until", "since"})
WH_ADVERBS = frozenset({"where", "when", "why", "how"})
RELATIVE_PRONOUNS = frozenset({"who", "whom", "which", "whose"})
PRONOUN_DETERMINERS = frozenset(
    {"this", "that", "these", "those", "her", "his", "some", "any", "all", "many", "few", "several", "both",
     "each", "either", "neither", "another", "mine", "no", "much"}
)  # fmt: skip
# Words of quantity that are degree adverbs before an adjective or adverb ("far too loud", "the most popular
# dish") and adjectives elsewhere ("more salt", "enough money", "how far is it").
DEGREE_WORDS = frozenset({"far", "much", "more", "most", "less", "least", "enough"})
# Adverbs that stand between a subject and its verb ("the pupil who sits near the door always finishes").
BEFORE_A_VERB = frozenset(
    {"always", "never", "often", "usually", "sometimes", "rarely", "seldom", "also", "still", "already",
     "just", "really", "finally", "suddenly", "even", "only", "ever", "hardly", "mostly", "soon"}
)  # fmt: skip
SUBJECT_PRONOUNS = frozenset(
    {"i", "you", "he", "she", "it", "we", "they", "who", "everyone", "everybody", "someone", "somebody",
     "anyone", "anybody", "nobody"}
)  # fmt: skip
TAKES_A_PLAIN_VERB = frozenset({"do", "will", "can", "shall", "may", "must"})
MODALS = TAKES_A_PLAIN_VERB - {"do"}
# Verbs of going: after them "to" before a word that is also a noun is a preposition ("walks to work").
GOING_LEMMAS = frozenset(
    {"go", "walk", "drive", "run", "ride", "cycle", "travel", "fly", "hurry", "rush", "return", "commute"}
)


class Place:
    """Word i as the tagger meets it, left to right: its reading, its neighbours', and the tags so far."""

    __slots__ = (
        "reads", "pos", "role", "i", "r", "prev", "prev_r", "nxt", "after", "governor", "governor_lemma",
        "inside_phrase", "has_verb", "asked",
    )  # fmt: skip

    def __init__(
        self, reads: list[Reading], pos: list[str], role: list[str], i: int, has_verb: bool, asked: bool
    ) -> None:
        n = len(reads)
        self.reads, self.pos, self.role, self.i = reads, pos, role, i  # pos, role: settled before word i
        self.r = reads[i]
        self.prev = prev = pos[i - 1] if i else ""  # the part of speech of the word before
        self.prev_r = reads[i - 1] if i else None
        self.nxt = reads[i + 1] if i + 1 < n else None
        self.after = reads[i + 2] if i + 2 < n else None  # the word after the next
        # The word before, skipping adverbs: does an auxiliary, "to", or a determiner govern this one?
        j = i - 1
        while j >= 0 and pos[j] == "adv" and role[j] == "":
            j -= 1
        self.governor = role[j] if j >= 0 else ""  # its role ("aux", "inf", ...)
        self.governor_lemma = reads[j].lemma if j >= 0 else ""
        self.inside_phrase = prev in ("det", "num") or (
            prev == "adj" and i >= 2 and pos[i - 2] in ("det", "adj", "num", "adv", "prep")
        )  # after a determiner or number, or an adjective that follows one
        self.has_verb = has_verb  # a verb since the clause's last boundary
        self.asked = asked  # the sentence opened with do or a modal ("did the dog ...") and awaits its verb


def asks(pos: list[str], role: list[str], a: int, b: int) -> bool:
    """Do words a..b-1 open a question: question words, or "which"/"what" and its noun ("what time does")?"""
    if a < b and role[a] == "whdet":
        return all(pos[x] in ("adj", "noun", "num") and role[x] == "" for x in range(a + 1, b))
    return all(x == "wh" for x in role[a:b])
