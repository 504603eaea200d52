#!/usr/bin/env node
// The house drawn from the imports (issue 28): the runtime imports between the source files of apps/ and libs/
// (not `import type`, not specs, not the dashboard's generated client), then every circle among them (strongly
// connected components) and every import that reaches into another library's files instead of its index
// (`@app/<lib>` resolves to libs/<lib>/src/index.ts). `node scripts/import-graph.mjs` prints both and exits 1 when
// either is not empty; `--dot` prints the libraries' graph in Graphviz's language instead.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
/**
 * Files a library offers besides its index: worker-thread code imports them so as not to load the index (and with
 * it NestJS and sharp) into every thread.
 */
const PUBLIC_ENTRIES = new Set(['libs/image-pipeline/src/planes.ts']);
const SKIP = [/\.spec\.ts$/, /\.e2e-spec\.ts$/, /\.d\.ts$/, /apps\/dashboard\/src\/client\//, /\/node_modules\//];

function sources(folder) {
  const out = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'dist') out.push(...sources(path));
    } else if (path.endsWith('.ts') && !SKIP.some((pattern) => pattern.test(path))) out.push(path);
  }
  return out;
}

/** Runtime import specifiers of a file: `import ... from`, `export ... from`, bare `import '...'`, `require`. */
function importsOf(text) {
  const found = [];
  const statement = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gms;
  for (const match of text.matchAll(statement)) {
    if (match[2]) continue;
    // `import { type A, type B } from` is a type import too
    const names = match[3]
      .replace(/^\{|\}$/g, '')
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    if (match[3].startsWith('{') && names.length > 0 && names.every((name) => name.startsWith('type '))) continue;
    found.push(match[4]);
  }
  for (const match of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) found.push(match[1]);
  return found;
}

function resolveFile(from, specifier) {
  let base;
  if (specifier.startsWith('.')) base = resolve(dirname(from), specifier);
  else if (specifier.startsWith('@app/')) {
    const [, lib, ...rest] = specifier.split('/');
    base = join(ROOT, 'libs', lib, 'src', ...(rest.length ? rest : ['index']));
  } else return undefined;
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** `libs/<name>` or `apps/<name>`: the package a file belongs to. */
function packageOf(file) {
  const [top, name] = relative(ROOT, file).split('/');
  return `${top}/${name}`;
}

export function importGraph() {
  const files = [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))];
  const edges = new Map();
  const reaching = [];
  for (const file of files) {
    const targets = new Set();
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolveFile(file, specifier);
      if (!target || !/^(apps|libs)\//.test(relative(ROOT, target))) continue;
      targets.add(target);
      const own = packageOf(file);
      const other = packageOf(target);
      const deep =
        specifier.startsWith('@app/') && specifier.split('/').length > 2 && !PUBLIC_ENTRIES.has(relative(ROOT, target));
      const relativeAcross = specifier.startsWith('.') && own !== other && !PUBLIC_ENTRIES.has(relative(ROOT, target));
      if (deep || relativeAcross) reaching.push(`${relative(ROOT, file)} -> ${specifier}`);
    }
    edges.set(file, [...targets]);
  }
  return { files, edges, circles: circlesOf(files, edges), reaching };
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function circlesOf(files, edges) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const indices = new Map();
  const low = new Map();
  const circles = [];
  const visit = (file) => {
    indices.set(file, index);
    low.set(file, index++);
    stack.push(file);
    on.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!indices.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (on.has(target)) low.set(file, Math.min(low.get(file), indices.get(target)));
    }
    if (low.get(file) !== indices.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      on.delete(member);
      component.push(relative(ROOT, member));
    } while (member !== file);
    if (component.length > 1 || (edges.get(file) ?? []).includes(file)) circles.push(component.sort());
  };
  for (const file of files) if (!indices.has(file)) visit(file);
  return circles;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { files, edges, circles, reaching } = importGraph();
  if (process.argv.includes('--dot')) {
    const pairs = new Set();
    for (const [file, targets] of edges)
      for (const target of targets)
        if (packageOf(file) !== packageOf(target)) pairs.add(`"${packageOf(file)}" -> "${packageOf(target)}"`);
    console.log(`digraph atelier {\n  ${[...pairs].sort().join(';\n  ')};\n}`);
  } else {
    console.log(
      `${files.length} files; ${circles.length} circle(s); ${reaching.length} import(s) into another package's files`,
    );
    for (const circle of circles) console.log(`circle: ${circle.join(' <-> ')}`);
    for (const line of reaching) console.log(`reaches in: ${line}`);
    process.exitCode = circles.length + reaching.length > 0 ? 1 : 0;
  }
}
