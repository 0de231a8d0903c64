"""Readings for spellings the lexicon lacks but whose listed base it knows.

New sentences are full of words no one listed; their class follows from the base: an irregular past of
a listed verb (rang, wrote, rewrote), an -ing form with a spelling change (lying, dying), a comparative or
superlative of a listed adjective (wider, bigger, heavier, youngest). Anything else keeps the guess from
its ending.
"""

from __future__ import annotations

from app.models.lexicon import LEXICON

# Irregular past forms of common verbs (past -> plain form); the plain form must be a listed verb.
_IRREGULAR_PAST = dict(
    pair.split(":")
    for pair in (
        "arose:arise awoke:awake bore:bear beat:beat became:become began:begin bent:bend bet:bet bit:bite "
        "bled:bleed blew:blow broke:break bred:breed brought:bring built:build burnt:burn bought:buy "
        "caught:catch chose:choose clung:cling came:come crept:creep dealt:deal dug:dig dove:dive "
        "drew:draw dreamt:dream drank:drink drove:drive ate:eat fell:fall fed:feed felt:feel fought:fight "
        "found:find fled:flee flung:fling flew:fly forbade:forbid forgot:forget forgave:forgive "
        "froze:freeze got:get gave:give went:go ground:grind grew:grow hung:hang heard:hear hid:hide "
        "held:hold kept:keep knelt:kneel knew:know laid:lay led:lead leant:lean leapt:leap learnt:learn "
        "left:leave lent:lend lay:lie lit:light lost:lose made:make meant:mean met:meet paid:pay "
        "rode:ride rang:ring rose:rise ran:run said:say saw:see sought:seek sold:sell sent:send "
        "shook:shake shone:shine shot:shoot shrank:shrink sang:sing sank:sink sat:sit slept:sleep "
        "slid:slide slung:sling smelt:smell spoke:speak sped:speed spelt:spell spent:spend spilt:spill "
        "spun:spin spat:spit sprang:spring stood:stand stole:steal stuck:stick stung:sting stank:stink "
        "strode:stride struck:strike swore:swear swept:sweep swam:swim swung:swing took:take taught:teach "
        "tore:tear told:tell thought:think threw:throw trod:tread understood:understand woke:wake "
        "wore:wear wove:weave wept:weep won:win wound:wind wrote:write"
    ).split()
)
_PREFIXES = ("re", "over", "under", "out", "mis", "un", "with", "fore")


def _verb(key: str) -> bool:
    entry = LEXICON.get(key)
    return entry is not None and (entry.pos == "verb" or "verb" in entry.also)


def _adj(key: str) -> bool:
    entry = LEXICON.get(key)
    return entry is not None and (entry.pos == "adj" or "adj" in entry.also)


def irregular_past(key: str) -> str | None:
    """The plain form of a listed verb whose irregular past ``key`` is (rang -> ring, rewrote -> rewrite)."""
    for prefix in ("", *_PREFIXES):
        if not key.startswith(prefix):
            continue
        plain = _IRREGULAR_PAST.get(key[len(prefix) :])
        if plain is not None and (_verb(prefix + plain) or _verb(plain)):
            return prefix + plain
    return None


def _bases(key: str, ending: str) -> list[str]:
    stem = key[: -len(ending)]
    found = [stem, stem + "e"]
    if len(stem) > 2 and stem[-1] == stem[-2]:
        found.append(stem[:-1])  # bigger -> big, running -> run
    if stem.endswith("i"):
        found.append(stem[:-1] + "y")  # heavier -> heavy
    if ending == "ing" and stem.endswith("y"):
        found.append(stem[:-1] + "ie")  # lying -> lie
    return found


def derived(key: str) -> tuple[str, str, str] | None:
    """(pos, tense, lemma) of an unlisted spelling read from its listed base, or None."""
    plain = irregular_past(key)
    if plain is not None:
        return "verb", "past", plain
    for ending in ("er", "est"):
        if key.endswith(ending) and len(key) > len(ending) + 1:
            base = next((b for b in _bases(key, ending) if _adj(b)), None)
            if base is not None:
                return "adj", "", base
    if key.endswith("ing") and len(key) > 4:
        listed = (b for b in _bases(key, "ing") if b in LEXICON and LEXICON[b].pos in ("verb", "noun"))
        base = next(listed, None)
        if base is not None:
            return "verb", "", base
    return None
