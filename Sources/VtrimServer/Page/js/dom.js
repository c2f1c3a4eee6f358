// The page's elements by id (scripts/page-check.js checks every literal id against index.html), and the top
// bar's message.
export const $ = (id) => document.getElementById(id);

export function status(text) { $("status").textContent = text || ""; }
