// The page's own checks, run by node before the browser tests (scripts/serve-tests). Every module in js/
// parses as a module (as `node --check` does), is at most 400 lines, and has a name SwiftPM can embed;
// every import names a module and an export it has; every module is reached from the scripts index.html
// loads and is served (PageAssets.swift), and every export is imported somewhere — a module or export
// nothing uses is dead code, and a module missing from PageAssets is a 404 only a browser would see.
// Every element looked up by id exists in index.html; and a few house rules that keep the page's bugs out
// of sight of no one: strict equality only, no `var`, no console output.
// Usage: node scripts/page-check.js Sources/VtrimServer/Page
"use strict";
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");

const folder = process.argv[2] || "Sources/VtrimServer/Page";
const maximumLines = 400;
const html = fs.readFileSync(path.join(folder, "index.html"), "utf8");
const assets = fs.readFileSync(path.join(folder, "PageAssets.swift"), "utf8");
const names = fs.readdirSync(path.join(folder, "js")).filter((name) => name.endsWith(".js")).sort();
const modules = new Map(names.map((name) => [name, fs.readFileSync(path.join(folder, "js", name), "utf8")]));
const problems = [];

// The two forms the page writes, and so the only ones this reads: `import { a, b } from "./name.js";` and
// `export function|async function|const|let|class name`.
const importPattern = /^import\s*\{([^}]*)\}\s*from\s*"([^"]*)";/gm;
const exportPattern = /^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+([\w$]+)/gm;
const lineOf = (text, index) => text.slice(0, index).split("\n").length;

const exported = new Map(); // module → its exports
const imports = new Map(); // module → [{ line, from, names }]
for (const [name, text] of modules) {
  exported.set(name, new Set([...text.matchAll(exportPattern)].map((m) => m[1])));
  imports.set(name, [...text.matchAll(importPattern)].map((m) => ({
    line: lineOf(text, m.index), from: m[2], names: m[1].split(",").map((s) => s.trim().split(/\s+as\s+/)[0]).filter(Boolean),
  })));
  text.split("\n").forEach((line, index) => {
    if (/^import\b/.test(line) && !/^import\s*\{/.test(line)) problems.push(`js/${name}:${index + 1}: write imports as import { a, b } from "./name.js";`);
    if (/^export\b/.test(line) && !/^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s/.test(line)) {
      problems.push(`js/${name}:${index + 1}: write exports as export function|const|let|class name`);
    }
  });
}

const ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
const used = new Set(); // "module:name" of every import
for (const [name, text] of modules) {
  // SwiftPM names an embedded file's constant after it (main.js: PackageResources.main_js).
  if (!/^[a-z]+(-[a-z]+)*\.js$/.test(name)) problems.push(`js/${name}: name modules with lowercase letters and dashes (SwiftPM makes a Swift name of it)`);
  const constant = "PackageResources." + name.replace(/[.-]/g, "_");
  if (!assets.includes(`"${name}"`) || !assets.includes(constant)) problems.push(`js/${name}: not served: PageAssets.modules has no "${name}": ${constant}`);

  const parsed = spawnSync(process.execPath, ["--input-type=module", "--check"], { input: text, encoding: "utf8" });
  if (parsed.status !== 0) {
    const line = (parsed.stderr.match(/^\[stdin\]:(\d+)/m) || [])[1];
    const error = (parsed.stderr.match(/^\w*Error\b.*$/m) || [parsed.stderr.trim() || "node --check failed"])[0];
    problems.push(`js/${name}${line ? ":" + line : ""}: does not parse as a module: ${error}`);
  }
  const lines = text.replace(/\n$/, "").split("\n");
  if (lines.length > maximumLines) problems.push(`js/${name}: ${lines.length} lines (at most ${maximumLines}: split it by what its parts do)`);

  for (const { line, from, names: wanted } of imports.get(name)) {
    const target = (from.match(/^\.\/([^/]+)$/) || [])[1];
    if (!target || !modules.has(target)) { problems.push(`js/${name}:${line}: imports "${from}", which is no module of js/ (write "./name.js")`); continue; }
    for (const wantedName of wanted) {
      used.add(`${target}:${wantedName}`);
      if (!exported.get(target).has(wantedName)) problems.push(`js/${name}:${line}: imports ${wantedName}, which ${target} does not export`);
    }
  }

  lines.forEach((line, index) => {
    const where = `js/${name}:${index + 1}`;
    for (const match of line.matchAll(/\$\("([^"]+)"\)/g)) {
      if (!ids.has(match[1])) problems.push(`${where}: $("${match[1]}") names no element of index.html`);
    }
    const code = line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""').replace(/\/\/.*$/, "");
    if (/[^=!<>]==[^=]|!=[^=]/.test(code)) problems.push(`${where}: loose equality (use === or !==)`);
    if (/(^|[^\w.])var\s/.test(code)) problems.push(`${where}: var (use const or let)`);
    if (/\bconsole\.(log|debug|info)\(/.test(code)) problems.push(`${where}: console output left in`);
  });
}

for (const [name, names] of exported) {
  for (const exportName of names) if (!used.has(`${name}:${exportName}`)) problems.push(`js/${name}: exports ${exportName}, which no module imports`);
}

// index.html loads its scripts as modules of js/; the others are reached through their imports.
const reached = new Set();
for (const match of html.matchAll(/<script\b[^>]*>/g)) {
  const tag = match[0], source = (tag.match(/\ssrc="([^"]+)"/) || [])[1];
  const entry = source && (source.match(/^\/js\/([^/]+)$/) || [])[1];
  if (!entry || !modules.has(entry) || !/\stype="module"/.test(tag)) { problems.push(`index.html: ${tag} is not <script type="module" src="/js/NAME.js"> of a module in js/`); continue; }
  const waiting = [entry];
  while (waiting.length) {
    const next = waiting.pop();
    if (reached.has(next) || !modules.has(next)) continue;
    reached.add(next);
    for (const { from } of imports.get(next)) waiting.push(from.replace(/^\.\//, ""));
  }
}
if (reached.size) for (const name of names) if (!reached.has(name)) problems.push(`js/${name}: neither index.html nor any module it loads imports it`);

for (const match of html.matchAll(/<(script|link)\b[^>]*(src|href)="([^"]+)"/g)) {
  if (/^https?:/.test(match[3])) problems.push(`index.html: loads ${match[3]} from another site (the page is self-contained)`);
}

if (problems.length) {
  console.error(problems.map((p) => "page-check: " + p).join("\n"));
  process.exit(1);
}
console.error(`page-check: ${names.length} modules in js/ parse (at most ${maximumLines} lines each), every import resolves, ` +
              `each is served and reached from index.html; ${ids.size} ids in index.html, every $() lookup resolves; house rules hold`);
