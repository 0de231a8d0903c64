"""The language figure 7's decoders are trained on: everyday English words in a small grammar, written once
as a tree that both writes sentences (training) and judges them (the page).

Every word of the grammar belongs to exactly one class (a determiner that takes a singular noun, a plural
noun, a past-tense verb with an object, "was", ...), drawn from the English lexicon of
``app/models/lexicon.py``, the content words among them those of at most six letters: about 1,100 singular
and 390 plural nouns, 340 adjectives and 400 verbs in three forms. The grammar covers statements in the
past and present with agreement ("the dog swims", "dogs swim", "i am", "they were"), modals and "did"/"does"
with "not", adjectives with "very", prepositional phrases, relative clauses with "who", two clauses joined by
"and", "but", "because", "when", ..., yes/no and wh- questions, and imperatives ("do not touch the stove").

``GRAMMAR`` is that tree; each choice in it carries how often the training corpus takes it
(training/lm_corpus.py walks it at random). ``grammatical`` runs the same tree as an automaton over the words'
classes, and ``allowed_next`` says which classes may follow a beginning. A sentence is
*well formed* when the grammar accepts it: every word is one of its words, in an order the tree allows. The
grammar knows nothing of meaning, so "the sandy banker chased a frog" is well formed; what the page uses
the check for is telling a model that writes sentences from one that writes garbage.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from app.models.lexicon import LEXICON

# ---------------------------------------------------------------------------------------------------------
# The words, by class (one class per word).
# ---------------------------------------------------------------------------------------------------------

_FIXED: dict[str, str] = {
    "d": "the his her their my our your its",
    "s": "a an this that every each another",
    "m": "these those some many few several both two three four five six seven eight nine ten twenty",
    "v": "very too",
    "A": "i",
    "S": "he she",
    "K": "it",
    "Q": "we they",
    "U": "you",
    "O": "me him us them",
    "w": "was",
    "W": "were",
    "z": "is",
    "y": "are",
    "e": "am",
    "M": "can could will would should must might may",
    "D": "did",
    "F": "does",
    "G": "do",
    "x": "not",
    "r": """quickly slowly quietly loudly softly gently carefully suddenly eagerly happily sadly often always
        never sometimes rarely usually soon today yesterday tomorrow again together away""",
    "p": """by on in near under over with at from to across along behind into of about above below beneath
        beside between through during without around toward against onto inside outside beyond upon within
        among underneath""",
    "c": "and but or",
    "b": "because while although if when",
    "h": "where why how",
    "R": "who",
}
CLASS_NAMES: dict[str, str] = {
    "d": "determiners",
    "s": "determiners of one thing",
    "m": "determiners of several things",
    "n": "nouns",
    "N": "plural nouns",
    "a": "adjectives",
    "v": "degree words",
    "A": "I",
    "S": "he and she",
    "K": "it",
    "Q": "we and they",
    "U": "you",
    "O": "object pronouns",
    "i": "past verbs without an object",
    "t": "past verbs with an object",
    "I": "plain verbs without an object",
    "T": "plain verbs with an object",
    "j": "present verbs without an object (he, she, it)",
    "k": "present verbs with an object (he, she, it)",
    "w": "was",
    "W": "were",
    "z": "is",
    "y": "are",
    "e": "am",
    "M": "modals",
    "D": "did",
    "F": "does",
    "G": "do",
    "x": "not",
    "r": "adverbs",
    "p": "prepositions",
    "c": "and, but, or",
    "b": "subordinators",
    "h": "question words",
    "R": "who",
}


def _verbs() -> dict[str, list[str]]:
    """Past, plain and third-person forms of every lexicon verb that has three different ones, by object."""
    forms: dict[str, dict[str, str]] = {}
    transitive: dict[str, bool] = {}
    for e in LEXICON.values():
        if e.pos != "verb":
            continue
        slot = {("past", ""): "past", ("present", "pl"): "plain", ("present", "sg"): "third"}.get(
            (e.tense, e.number)
        )
        if slot is not None:
            forms.setdefault(e.lemma, {})[slot] = e.word
            transitive[e.lemma] = transitive.get(e.lemma, False) or e.transitive
    out: dict[str, list[str]] = {code: [] for code in "itITjk"}
    for lemma, f in sorted(forms.items()):
        if len(f) == 3 and len(set(f.values())) == 3 and lemma not in ("be", "have", "do"):
            obj = transitive[lemma]
            out["t" if obj else "i"].append(f["past"])
            out["T" if obj else "I"].append(f["plain"])
            out["k" if obj else "j"].append(f["third"])
    return out


# Content words whose dictionary form has at most this many letters: the everyday ones, roughly (the more
# often a word is used, the shorter it tends to be), and few enough for a tiny model to learn each one's
# class.
MAX_LETTERS = 6
CONTENT_CLASSES = "nNaitITjk"  # nouns, adjectives and verbs (CLASS_NAMES)


def _classes() -> dict[str, tuple[str, ...]]:
    """Every class's words; a word two classes would claim goes to neither, a content word longer than
    MAX_LETTERS in its dictionary form to no class."""
    claims: dict[str, list[str]] = {code: text.split() for code, text in _FIXED.items()}
    claims.update(_verbs())
    nouns = [e for e in LEXICON.values() if e.pos == "noun"]
    claims["n"] = [e.word for e in nouns if e.number == "sg"]
    claims["N"] = [e.word for e in nouns if e.number == "pl"]
    claims["a"] = [e.word for e in LEXICON.values() if e.pos == "adj"]
    owners: dict[str, set[str]] = {}
    for code, ws in claims.items():
        for w in ws:
            owners.setdefault(w, set()).add(code)

    def short(word: str) -> bool:
        entry = LEXICON.get(word)
        return len(entry.lemma if entry is not None else word) <= MAX_LETTERS

    return {
        code: tuple(
            sorted(
                w
                for w in set(ws)
                if len(owners[w]) == 1 and w.isalpha() and (code not in CONTENT_CLASSES or short(w))
            )
        )
        for code, ws in claims.items()
    }


CLASSES: dict[str, tuple[str, ...]] = _classes()
WORD_CLASS: dict[str, str] = {w: c for c, ws in CLASSES.items() for w in ws}
VOCABULARY: tuple[str, ...] = tuple(sorted(WORD_CLASS))

# ---------------------------------------------------------------------------------------------------------
# The grammar, as a tree of classes.
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sym:
    code: str


@dataclass(frozen=True)
class Seq:
    parts: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    options: tuple[Node, ...]
    weights: tuple[float, ...]


@dataclass(frozen=True)
class Opt:
    inner: Node
    p: float  # how often ``write`` takes it


Node = Sym | Seq | Alt | Opt


def _s(*parts: Node | str) -> Node:
    nodes = tuple(Sym(p) if isinstance(p, str) else p for p in parts)
    return nodes[0] if len(nodes) == 1 else Seq(nodes)


def _alt(*options: tuple[Node | str, float]) -> Alt:
    return Alt(tuple(_s(o) for o, _ in options), tuple(w for _, w in options))


def _build() -> Node:
    adjectives = _s(Opt(_s(Opt(Sym("v"), 0.15), "a"), 0.45), Opt(Sym("a"), 0.1))
    np_one = _s(_alt(("d", 0.6), ("s", 0.4)), adjectives, "n")
    np_many = _s(Opt(_alt(("d", 0.5), ("m", 0.5)), 0.8), adjectives, "N")
    obj = _alt((np_one, 0.55), (np_many, 0.25), ("O", 0.1), ("K", 0.05), ("U", 0.05))
    pp = _s("p", obj)
    past = _s(_alt(("i", 0.4), (_s("t", obj), 0.6)), Opt(pp, 0.35), Opt(Sym("r"), 0.12))
    plain = _s(_alt(("I", 0.4), (_s("T", obj), 0.6)), Opt(pp, 0.35), Opt(Sym("r"), 0.12))
    third = _s(_alt(("j", 0.4), (_s("k", obj), 0.6)), Opt(pp, 0.35), Opt(Sym("r"), 0.12))
    complement = _alt((_s(Opt(Sym("v"), 0.2), "a"), 0.7), (pp, 0.3))
    relative = _s("R", past)
    modifier = Opt(_alt((pp, 0.6), (relative, 0.4)), 0.25)

    def predicate(present: Node, be_past: str, be_now: str, do: str) -> Alt:
        return _alt(
            (past, 0.32),
            (present, 0.18),
            (_s("M", Opt(Sym("x"), 0.2), plain), 0.15),
            (_s(_alt(("D", 0.5), (do, 0.5)), "x", plain), 0.1),
            (_s(_alt((be_past, 0.6), (be_now, 0.4)), Opt(Sym("x"), 0.15), complement), 0.25),
        )

    one = _alt((_s(np_one, modifier), 0.7), ("S", 0.2), ("K", 0.1))
    many = _alt((_s(np_many, modifier), 0.6), ("Q", 0.3), ("U", 0.1))
    clause = _alt(
        (_s(one, predicate(third, "w", "z", "F")), 0.5),
        (_s(many, predicate(plain, "W", "y", "G")), 0.35),
        (_s("A", predicate(plain, "w", "e", "G")), 0.15),
    )
    anyone = _alt((one, 0.5), (many, 0.35), ("A", 0.15))
    question = _s(
        Opt(Sym("h"), 0.4),
        _alt(
            (_s(_alt(("D", 0.5), ("M", 0.5)), anyone, plain), 0.6),
            (_s("F", one, plain), 0.1),
            (_s("G", _alt((many, 0.7), ("A", 0.3)), plain), 0.1),
            (_s(_alt(("w", 0.5), ("z", 0.5)), one, complement), 0.1),
            (_s(_alt(("W", 0.5), ("y", 0.5)), many, complement), 0.1),
        ),
    )
    return _alt(
        (_s(clause, Opt(_s(_alt(("c", 0.6), ("b", 0.4)), clause), 0.2)), 0.7),
        (_s("b", clause, clause), 0.06),
        (question, 0.14),
        (_s(Opt(_s("G", "x"), 0.2), plain), 0.1),
    )


GRAMMAR: Node = _build()

# ---------------------------------------------------------------------------------------------------------
# Judging a sentence: the same tree as an automaton.
# ---------------------------------------------------------------------------------------------------------


class _Automaton:
    """The tree compiled into a nondeterministic automaton over class codes (one state per tree position)."""

    def __init__(self, root: Node) -> None:
        self.empty: list[list[int]] = []  # state -> states reached without reading a class
        self.moves: list[list[tuple[str, int]]] = []  # state -> (class, state)
        self.start = self._state()
        self.final = self._compile(root, self.start)

    def _state(self) -> int:
        self.empty.append([])
        self.moves.append([])
        return len(self.empty) - 1

    def _compile(self, node: Node, start: int) -> int:
        if isinstance(node, Sym):
            end = self._state()
            self.moves[start].append((node.code, end))
            return end
        if isinstance(node, Seq):
            for part in node.parts:
                start = self._compile(part, start)
            return start
        if isinstance(node, Alt):
            end = self._state()
            for option in node.options:
                entry = self._state()
                self.empty[start].append(entry)
                self.empty[self._compile(option, entry)].append(end)
            return end
        end = self._compile(node.inner, start)
        self.empty[start].append(end)
        return end

    def closure(self, states: frozenset[int]) -> frozenset[int]:
        seen, todo = set(states), list(states)
        while todo:
            for nxt in self.empty[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return frozenset(seen)

    @lru_cache(maxsize=4096)  # noqa: B019 - one automaton, built once at import
    def after(self, codes: str) -> frozenset[int]:
        """The states the automaton can be in after reading ``codes`` (empty: no sentence begins so)."""
        if not codes:
            return self.closure(frozenset({self.start}))
        states = self.after(codes[:-1])
        return self.closure(frozenset(t for s in states for c, t in self.moves[s] if c == codes[-1]))


_AUTOMATON = _Automaton(GRAMMAR)
END = "END"  # what ``allowed_next`` answers when the words so far are a whole sentence


def _codes(words: list[str]) -> str | None:
    if any(w not in WORD_CLASS for w in words):
        return None
    return "".join(WORD_CLASS[w] for w in words)


def grammatical(words: list[str]) -> bool:
    """True when the words are a sentence of the grammar (every word known, classes in an order it allows)."""
    codes = _codes(words)
    return codes is not None and _AUTOMATON.final in _AUTOMATON.after(codes)


def allowed_next(words: list[str]) -> set[str] | None:
    """The classes (and END) the grammar allows after ``words``, or None when ``words`` begin no sentence of
    the grammar (an unknown word, or classes in an order no sentence has)."""
    codes = _codes(words)
    states = _AUTOMATON.after(codes) if codes is not None else frozenset()
    if not states:
        return None
    allowed = {c for s in states for c, _ in _AUTOMATON.moves[s]}
    return allowed | {END} if _AUTOMATON.final in states else allowed


def fits(words: list[str], following: str | None) -> bool | None:
    """Whether the grammar allows ``following`` after ``words`` (None: the end of the sentence); None when
    ``words`` begin no sentence of the grammar, so nothing can be judged to fit."""
    allowed = allowed_next(words)
    if allowed is None:
        return None
    if following is None:
        return END in allowed
    return WORD_CLASS.get(following) in allowed
