// Figure 2, the accounting: the table of costs of h heads against one (head-costs.js) and, below it, the
// key/value cache of a real model (kv-tables.js), two widgets on one figure with one set of exports.

import { Accounting } from "./head-costs.js";
import { KvCache, YOUR_CONFIG } from "./kv-tables.js";

/** Entry point used by main.js. */
export function start(figure, pageData) {
  const widget = new Accounting(figure, pageData);
  widget.start();
  const kv = new KvCache(figure, pageData);
  kv.start();
  // The numbers behind the view, for the figure's export buttons and tables (lib/figure-tools.js).
  figure.exportData = () => {
    const { d, h, n } = widget.state;
    const matrices = [...widget.exportMatrices(), ...kv.exportMatrices()];
    return { d_model: d, heads: h, n, kv_model: kv.state.model ?? YOUR_CONFIG, matrices };
  };
  return widget;
}
