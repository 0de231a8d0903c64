"""What each of figure 1's heads does, judged from its relation scores, and whether a sentence tells the
story.

The page words a head's verdict ("serves meaning", "torn between meaning and grammar"); the judging is here,
once, so that the page, the API and the tests that measure the story on held-out sentences agree:

* **serves**: one relation scores at least SERVES, and no other relation reaches SERVES within CLEAR_LEAD
  of it;
* **shares**: several relations score at least SERVES, within CLEAR_LEAD of the best (it serves them all);
* **torn**: no relation reaches SERVES, and two or more take a share (at least SHARE) of the head's weight;
* **leans**: no relation reaches SERVES and just one takes a share;
* **none**: no relation takes a share.

The **story** of figure 1 holds on a sentence when, at three heads, every relation the sentence has is served
by a head of its own (``own_heads``: a head that serves that relation alone, or serves it beside relations
that other heads serve alone), and at one head the lone head does not serve every relation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

SERVES = 0.8  # a head that puts this much of its words' weight on a relation's partners does that job
CLEAR_LEAD = 0.15  # ... and serves that relation alone when it leads every other one by this much
SHARE = 0.45  # a relation scoring this much takes a real share of a head's weight
THRESHOLDS = {"serves": SERVES, "clear_lead": CLEAR_LEAD, "share": SHARE}

Kind = Literal["serves", "shares", "torn", "leans", "none"]


@dataclass(frozen=True)
class Verdict:
    """A head's verdict: its kind and the relations it serves or is torn between, best first."""

    kind: Kind
    relations: tuple[str, ...]


def verdict(scores: Mapping[str, float]) -> Verdict:
    """The verdict of a head whose score on each relation the sentence has is ``scores``."""
    ranked = sorted(scores.items(), key=lambda item: -item[1])
    if not ranked:
        return Verdict("none", ())
    top = ranked[0][1]
    if top >= SERVES:
        close = tuple(name for name, s in ranked if s >= SERVES and top - s < CLEAR_LEAD)
        return Verdict("serves" if len(close) == 1 else "shares", close)
    sharing = tuple(name for name, s in ranked if s >= SHARE)
    if len(sharing) >= 2:
        return Verdict("torn", sharing)
    if sharing:
        return Verdict("leans", sharing)
    return Verdict("none", ())


def head_verdicts(head_scores: Mapping[str, list[float]]) -> list[Verdict]:
    """Every head's verdict, from each present relation's scores per head ({relation: [score of head k]})."""
    heads = len(next(iter(head_scores.values()))) if head_scores else 0
    return [verdict({name: scores[k] for name, scores in head_scores.items()}) for k in range(heads)]


def own_heads(verdicts: list[Verdict], relations: list[str]) -> dict[str, int | None]:
    """For each relation, its own head (the first, if several qualify), or None.

    A head that serves the relation alone is its own. So is a head that serves it together with others when
    each of those others is served alone by another head: their pairs overlap ("the cricket chirped": the
    subject's verb is also the word that settles its sense), and the head covers the shared pair because it
    serves its own relation. Two heads that both serve the same two relations are neither's own."""
    alone = {
        name: next((k for k, v in enumerate(verdicts) if v.kind == "serves" and v.relations == (name,)), None)
        for name in relations
    }

    def shared_own(name: str) -> int | None:
        return next(
            (
                k
                for k, v in enumerate(verdicts)
                if v.kind == "shares"
                and name in v.relations
                and all(alone.get(other) not in (None, k) for other in v.relations if other != name)
            ),
            None,
        )

    return {name: alone[name] if alone[name] is not None else shared_own(name) for name in relations}


def every_relation_has_its_own_head(head_scores: Mapping[str, list[float]]) -> bool:
    """At this head count, does every relation (with pairs) have a head of its own (``own_heads``)?"""
    if not head_scores:
        return False
    owners = own_heads(head_verdicts(head_scores), list(head_scores))
    return all(k is not None for k in owners.values())


def serves_every_relation(head_scores: Mapping[str, list[float]]) -> bool:
    """Does some head's verdict serve every relation the sentence has (the lone head at h = 1, say)?"""
    wanted = set(head_scores)
    return bool(wanted) and any(
        v.kind in ("serves", "shares") and wanted <= set(v.relations) for v in head_verdicts(head_scores)
    )
