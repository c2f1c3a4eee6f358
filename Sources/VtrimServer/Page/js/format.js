// Times and sizes as the page shows them.
export function seconds(t) {
  if (!isFinite(t)) return "–";
  const m = Math.floor(t / 60), s = t - 60 * m;
  return (m > 0 ? m + ":" + (s < 10 ? "0" : "") : "") + s.toFixed(m > 0 ? 2 : 3);
}
// A handle's label: milliseconds, or tenths where the strip leaves little room (`short`).
export function clock(t, short) {
  if (!isFinite(t)) return "–";
  const m = Math.floor(t / 60), s = t - 60 * m, digits = short ? 1 : 3;
  const text = s.toFixed(digits);
  return m + ":" + (parseFloat(text) < 10 ? "0" : "") + text;
}
export function bytes(n) { return n > 1 << 20 ? (n / (1 << 20)).toFixed(1) + " MiB" : Math.round(n / 1024) + " KiB"; }
