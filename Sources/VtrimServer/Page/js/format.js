// Times and sizes as the page shows them.
// A time or a length as the command line writes it: seconds to the millisecond, with the unit ("61.250 s").
export function seconds(t) {
  if (!isFinite(t)) return "–";
  return t.toFixed(3) + " s";
}
// A handle's label: milliseconds, or tenths where the strip leaves little room (`short`).
export function clock(t, short) {
  if (!isFinite(t)) return "–";
  const m = Math.floor(t / 60), s = t - 60 * m, digits = short ? 1 : 3;
  const text = s.toFixed(digits);
  return m + ":" + (parseFloat(text) < 10 ? "0" : "") + text;
}
// A size in binary units, as the command line writes it.
export function bytes(n) {
  if (n < 1024) return n + " bytes";
  if (n < 1 << 20) return (n / 1024).toFixed(1) + " KiB";
  if (n < 1 << 30) return (n / (1 << 20)).toFixed(1) + " MiB";
  return (n / (1 << 30)).toFixed(2) + " GiB";
}
