"""Figure 1's English rule parser: every word's part of speech in its sentence and its grammatical partner(s).

``parse`` is the one way in; app/models/relations.py reads the grammar relation from it. The steps below live
in one module each: reading.py (what a spelling says alone), tagging.py (step 1, with place.py: the word
classes it names and its view of one word), chunks.py (step 2), clauses.py (step 3) and partners.py (the
partners, construction by construction).

How the grammar relation is read
--------------------------------
1. *Tagging* (``Token.tag``). A word's part of speech comes from the lexicon; an unknown word's from its
   ending (-ly adverb, -ed/-ing verb, -ous/-ful/-ive/-able adjective, -tion/-ness/-ment noun, ...). The
   neighbours then settle what the lexicon or the ending leaves open: a verb form right after a determiner
   is a noun ("in the park"); an unknown word after a determiner is an adjective when a noun follows ("the
   glorpy zibbets") and a noun when the phrase ends there; an -ing/-ed word after an auxiliary is a verb
   ("were snurfling"), an unknown word after "was" at the end an adjective ("was crumbly"); an unknown word
   after a subject that has no verb yet is its verb, unless a known verb follows it right after a noun, when
   it heads the noun phrase ("the garden zibbets are"); a word that can be an adverb is one after an
   ordinary verb ("studied hard"); this/that/her/... with no noun after them are pronouns; "that" after a
   noun is a relative pronoun (also before a noun and a verb: "the cake that mum baked") and after a verb a
   conjunction; "to" before a verb marks an infinitive; a word listed only as a noun is the verb after a
   modal, a negated do, a question's subject or a subject pronoun ("does not water", "why did the riders
   slow down"), and an -ing noun after be ("was running"); a verb after a noun in a preposition's phrase
   heads it when another verb follows ("the pipe under the kitchen sink has"); between two clause openers
   with no verb, a noun after a noun that can be a verb (or is the -s form of one) is one ("the dogs bark",
   "the last train to london leaves at nine").
2. *Chunking.* Noun phrases are [determiners] [adverb? adjective | number | adjective and adjective]*
   noun+ (the head is the last noun) or a single pronoun; a preposition right before a phrase owns it. A verb
   group is a chain of auxiliaries (be, have, do, the modals, and their n't forms), with adverbs between,
   ending at its main verb ("did not finish", "has been", "were barking").
3. *Clauses.* who/which/that after a noun open a relative clause; because/if/when/while/although/... (and
   after/before/until/since when a subject and verb follow) open a subordinate clause; "that" after a verb a
   complement clause; and/or/but followed by a subject and a verb (or by an auxiliary, a subject and a verb:
   "did he sign it or did he veto it"), once the clause has its verb, open a coordinated clause. A
   subordinate or relative clause ends when a second verb group arrives while the clause it hangs on still
   lacks a verb ("the man who lives next door | has a parrot"); the last noun phrase after the verb, with
   the phrases that own a preposition and the adverbs after it, then goes with the new verb ("when the
   liquids were mixed | the beaker suddenly turned"), as it does, in a clause that has its verb, as the
   subject of a complement clause with no "that" ("said | the collar on my shirt was too tight"), but not
   an object pronoun ("made me laugh"). A particle may end a subordinate clause that opens the sentence
   ("when the lights go out | the ward becomes quiet").

Grammar partners, construction by construction (query -> key; <-> marks a pair in both directions):

* noun phrase: determiners, numbers, adjectives and modifying nouns -> the head noun ("the quick brown fox":
  the, quick, brown -> fox); an adverb before an adjective -> that adjective ("a very old man": very -> old);
* each clause's subject <-> its verb. The verb is the main verb of the verb group, or the copula when there
  is none ("the dogs ... were barking": dogs <-> barking; "the bank was steep": bank <-> was);
* an auxiliary or modal -> its main verb ("were -> barking", "can -> swim", "did -> finish"), also when the
  subject stands between them in a question ("can you swim": can -> swim, you <-> swim);
* an object, or any noun phrase after the verb without a preposition -> the nearest verb before it
  ("she saw the crane": crane -> saw; "stay home": home -> stay);
* a predicate adjective -> the subject it describes ("the bank was steep": steep -> bank), or the object
  when it follows one ("left the door open": open -> door);
* a preposition <-> the head of its noun phrase ("in the park": in <-> park); one with no phrase after it
  (a particle) -> the verb before it ("the sun came out": out -> came);
* an adverb (not, never, where, why, ...) -> the adjective or adverb right after it ("still warm",
  "too hot"), otherwise -> the verb of its clause: the verb before it, or the next one when none comes before
  ("quickly ate", "ate quickly");
* an infinitive: "to" -> its verb, and that verb -> the adjective or verb it completes ("too hot to
  drink": drink -> hot; "wants to swim": swim -> wants); a verb that follows a verb directly -> that verb;
* questions: the subject after an auxiliary is the clause's subject ("is the bread warm": bread <-> is); a
  wh-pronoun is the subject when no other subject is found ("who ate the cake": who <-> ate) and otherwise
  the object ("what did you eat": what -> eat), but a noun phrase after "be" is the subject ("what is the
  capital": capital <-> is, what -> is);
* coordination (and, or, but): the conjunction -> both conjuncts (the heads of the two phrases, or the two
  verbs); the second conjunct takes the first one's partners (in "my brother and my sister live",
  sister <-> live as brother <-> live; in "they ate the pizza and drank", drank <-> they), and a second
  verb with no auxiliary of its own the first one's ("should clean ... and buy": should -> buy); a
  preposition points at a second noun with no words of its own before it ("with butter and honey": with ->
  butter, honey) but not at a second phrase that has them ("with rice and a green salad": with -> rice);
* relative clause: the relative pronoun -> the noun it stands for and is the clause's subject (<-> its verb)
  or, when the clause has another subject, its object (-> its verb) ("the man who lives": who -> man,
  who <-> lives; "the book that i borrowed": that -> book, that -> borrowed, i <-> borrowed); "whose"
  -> the noun it stands for and the noun after it ("the girl whose bike was stolen": whose -> girl, bike);
  a subject pronoun and its verb right after a noun phrase that still lacks its verb are a relative clause
  with no pronoun, its subject and verb paired ("the film we watched | was scary": film <-> was);
* subordinate and complement clauses: the conjunction -> its own clause's verb and the verb of the clause it
  depends on, the nearer before it when that clause has two ("... finish ... because the lesson was long":
  because -> was, because -> finish; "remember to charge it before we left": before -> charge); the
  clause's own subject and verb point at each other; a complement clause with no "that" -> its verb points
  at the main verb ("i think the movie was boring": was -> think).

``parse`` also names the main clause's subject and verb (the first clause with a verb when the main clause
has none): ``Analysis.subject`` and ``Analysis.verb`` in app/models/relations.py.

Every sentence of figure 1's training grammar (training/relation_corpus.py) gets the analysis it got before
these constructions were added, but for the few whose "that" between two nouns and a verb now opens a
relative clause ("their cranes that oxen chilled scorches ..."); a test compares.
"""

from __future__ import annotations

from app.models.grammar.chunks import Unit, chunk
from app.models.grammar.clauses import distribute
from app.models.grammar.partners import link_clauses, resolve, share
from app.models.grammar.reading import Reading
from app.models.grammar.tagging import tag


def parse(
    words: list[str],
) -> tuple[list[Reading], list[str], list[tuple[int, int]], int | None, int | None]:
    """Each word's reading and part of speech, the grammar pairs (query, key) in order, and the main clause's
    subject and verb."""
    reads, pos, role = tag(words)
    pairs: set[tuple[int, int]] = set()
    units = chunk(reads, pos, role, pairs)
    coordinations: list[tuple[int, Unit | None, Unit]] = []
    clauses = distribute(units, coordinations, [r.key for r in reads])
    lemmas = [r.lemma for r in reads]
    for clause in clauses:
        resolve(clause, pos, role, pairs, lemmas)
    link_clauses(clauses, pairs)
    share(coordinations, role, pairs)
    n = len(words)  # sorted as the numbers a·n + b, which order as the pairs (a, b) do and sort faster
    codes = sorted({a * n + b for a, b in pairs if a != b})
    main = next((c for c in clauses if c.verb is not None), clauses[0])
    if clauses[0].verb is not None:
        main = clauses[0]
    grammar = [divmod(c, n) for c in codes]
    return reads, pos, grammar, main.subject if main.verb is not None else None, main.verb
