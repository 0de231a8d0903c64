// Figure 6's Future leak meter: the share of attention on later positions under the mask chosen, against even
// attention's share (the thin mark), and in its fold each row's own share.

import { formatPercent, meterValue, pct, uniformLeak } from "./numbers.js";

/** Write the answer's leak into the meter, the dock's line and the per-row list's `rowItems`. */
export function showMeter(el, data, rowItems) {
  const n = data.tokens.length;
  const percent = (data.future_leak ?? 0) * 100; // null only when no row has weights
  const text = formatPercent(percent);
  const meter = el.meter;
  meter.setAttribute("aria-valuenow", meterValue(percent));
  meter.setAttribute(
    "aria-valuetext",
    `${percent > 0 && percent < 0.1 ? "less than 0.1%" : text} of attention goes to the future`,
  );
  meter.dataset.leak = String(data.future_leak);
  el.meterFill.style.setProperty("--share", String(data.future_leak));
  el.meterValue.textContent = text;
  el.dockLeak.textContent = `· future leak ${text}`;
  const uniform = uniformLeak(n);
  el.meterYardstick.style.setProperty("--share", String(uniform));
  el.yardstick.textContent =
    `Share of attention on later positions. Thin mark: even attention over n = ${n} positions, ` +
    `(n−1)/(2n) = ${n - 1}/${2 * n} = ${formatPercent(uniform * 100)}.`;

  data.row_future_shares.forEach((share, i) => {
    const item = rowItems[i];
    if (!item) return;
    item.fill.style.setProperty("--share", String(share ?? 0));
    item.value.textContent = pct(share);
    item.li.dataset.share = String(share ?? NaN);
    item.li.setAttribute(
      "aria-label",
      `${item.token}: ${share === null ? "NaN in every map, no share" : pct(share)} on later positions` +
        (i === n - 1 ? " (the last position has nothing after it)" : ""),
    );
  });
}
