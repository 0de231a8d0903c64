// Figure 6's live explanation: under the mask chosen, a concrete row of the answer in words, with its own
// numbers (the three masks here, the zoo's bugs in zoo-text.js); "e^{x}" is written as e with a superscript.

import { counted as plural } from "../../lib/counts.js";
import { element } from "../../lib/dom.js";
import { formatPercent, leakiestRow, mapName, num, quote } from "./numbers.js";
import { ZOO_TEXT } from "./zoo-text.js";

/** Set `el`'s text, writing each "e^{x}" as e with a superscript x (built as nodes, never parsed as HTML). */
function setWithPowers(el, text) {
  const parts = text.split(/e\^\{([^}]*)\}/);
  el.replaceChildren();
  parts.forEach((part, idx) => {
    if (idx % 2 === 0) el.append(part);
    else el.append("e", element("sup", "", part));
  });
}

/** −∞: nothing above the diagonal. */
function negInfText(data) {
  const { weights, future_shares: shares } = data;
  const maps = weights.length * weights[0].length;
  const most = Math.max(...shares.flat(2));
  const cells = most === 0 ? `exactly 0 in all ${maps} maps` : `at most ${num(most)}`;
  return (
    `−∞: e^{−∞} = 0, so every cell above the diagonal is ${cells}, and each row shares its 1 among the ` +
    "positions so far."
  );
}

/** No mask and ×0: the leakiest row's share of the future, and for ×0 the sum Σ it is divided by. */
function leakText(data) {
  const { tokens, weights, scaled, future_shares: shares, mask } = data;
  const n = tokens.length;
  const { l, h, i, share } = leakiestRow(shares, n);
  const later = n - 1 - i;
  const where = `the row of ${quote(tokens[i])} in ${mapName(l, h)}`;
  if (mask === "none") {
    return (
      "No mask: in training, −∞ hid later words, so their scores never counted; unmasked, they take " +
      `${formatPercent(share * 100)} of ${where}: its guess at the next word can read that word.`
    );
  }
  // The row's own numbers: the scores of the keys it may see, and the sum Σ that each later e^0 = 1
  // is divided by (the softmax of the masked row: e^s for each visible key, 1 for each later one).
  const seen = scaled[l][h][i].slice(0, i + 1);
  const top = Math.max(...seen);
  const total = seen.reduce((sum, s) => sum + Math.exp(s), 0) + later;
  const each = weights[l][h][i][i + 1];
  const visible = i === 0 ? "its only visible key (itself) scores" : `its ${i + 1} visible keys score up to`;
  const score = top.toFixed(2); // to two decimals: e^score below, at three digits, is as written
  return (
    "×0: the future scores become 0, not −∞, and e^{0} = 1, so every later position gets the same share. " +
    `In ${where}, ${visible} ${score}, and e^{${score}} = ${num(Math.exp(top))}; each of its ` +
    `${plural(later, "later position")} adds e^{0} = 1 to the row's sum Σ = ${num(total)} and gets 1/Σ = ` +
    `${num(each)}, ${formatPercent(share * 100)} together. Larger visible scores shrink that share, never ` +
    `to 0: were they 0 as well, the later positions would get ${later}/${n} = ` +
    `${formatPercent((later / n) * 100)}.`
  );
}

/** Write the explanation of `data` (the answer under its mask) into `el`. */
export function showExplanation(el, data) {
  const { mask } = data;
  const explain = ZOO_TEXT[mask] ?? (mask === "neg_inf" ? negInfText : leakText);
  setWithPowers(el, explain(data));
}
