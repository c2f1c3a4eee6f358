// The page's own checks, run by node before the browser tests (scripts/serve-tests): app.js parses (as
// `node --check` does), every element it looks up by id exists in index.html, and a few house rules that
// keep the page's bugs out of sight of no one: strict equality only, no `var`, no console output.
// Usage: node scripts/page-check.js Sources/VtrimServer/Page
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const folder = process.argv[2] || "Sources/VtrimServer/Page";
const script = fs.readFileSync(path.join(folder, "app.js"), "utf8");
const html = fs.readFileSync(path.join(folder, "index.html"), "utf8");
const problems = [];

try {
  new vm.Script(script, { filename: "app.js" });
} catch (error) {
  problems.push(`app.js does not parse: ${error.message}`);
}

const ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
const lines = script.split("\n");
lines.forEach((line, index) => {
  const where = `app.js:${index + 1}`;
  for (const match of line.matchAll(/\$\("([^"]+)"\)/g)) {
    if (!ids.has(match[1])) problems.push(`${where}: $("${match[1]}") names no element of index.html`);
  }
  const code = line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""').replace(/\/\/.*$/, "");
  if (/[^=!<>]==[^=]|!=[^=]/.test(code)) problems.push(`${where}: loose equality (use === or !==)`);
  if (/(^|[^\w.])var\s/.test(code)) problems.push(`${where}: var (use const or let)`);
  if (/\bconsole\.(log|debug|info)\(/.test(code)) problems.push(`${where}: console output left in`);
});

for (const match of html.matchAll(/<(script|link)\b[^>]*(src|href)="([^"]+)"/g)) {
  if (/^https?:/.test(match[3])) problems.push(`index.html: loads ${match[3]} from another site (the page is self-contained)`);
}

if (problems.length) {
  console.error(problems.map((p) => "page-check: " + p).join("\n"));
  process.exit(1);
}
console.error(`page-check: app.js parses; ${ids.size} ids in index.html, every $() lookup resolves; house rules hold`);
