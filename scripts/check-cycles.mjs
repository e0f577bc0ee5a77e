// Fails when source files import each other in a cycle. Reads every TypeScript source under core/, hooks/
// and plugins/, follows its relative imports (type-only ones too: a cycle of types is a cycle of design),
// and reports each strongly connected group of files with one cycle through it.
//   node scripts/check-cycles.mjs
import { readFileSync, statSync, existsSync } from "node:fs";
import { typescriptSources } from "./sources.mjs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const SOURCE_DIRS = ["core", "hooks", "plugins"];
// `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")`, across line breaks.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g;

/** The source file a relative specifier names: `./x.js` is `./x.ts` in the sources. */
function target(from, specifier) {
  const path = resolve(dirname(from), specifier);
  for (const candidate of [path.replace(/\.js$/, ".ts"), path, `${path}.ts`, join(path, "index.ts")]) if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return undefined;
}

export function importGraph(files) {
  const graph = new Map();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const edges = new Set();
    for (const match of text.matchAll(SPECIFIER)) {
      const to = target(file, match[1]);
      if (to && to.endsWith(".ts")) edges.add(to);
    }
    graph.set(file, [...edges]);
  }
  return graph;
}

/** Tarjan's strongly connected components, iteratively (deep import chains must not overflow the stack). */
export function cycles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const groups = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, edge] = frame;
      const edges = graph.get(node) ?? [];
      if (edge < edges.length) {
        frame[1]++;
        const to = edges[edge];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push([to, 0]);
        } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) !== index.get(node)) continue;
      const group = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || (graph.get(node) ?? []).includes(node)) groups.push(group);
    }
  }
  return groups;
}

/** One cycle through a group, for the report: a shortest path back from the group's first file to itself. */
function cycleThrough(graph, group) {
  const inGroup = new Set(group);
  const start = group.slice().sort()[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of graph.get(node) ?? []) {
      if (!inGroup.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = SOURCE_DIRS.filter((dir) => existsSync(join(root, dir))).flatMap((dir) => typescriptSources(join(root, dir)));
  const graph = importGraph(files);
  const found = cycles(graph);
  if (found.length === 0) {
    console.log(`no import cycles among ${files.length} source files`);
  } else {
    for (const group of found) console.error(`import cycle (${group.length} files): ${cycleThrough(graph, group).map((file) => relative(root, file)).join(" -> ")}`);
    console.error(`\n${found.length} import cycle(s): move what both sides need into a module of its own, or invert the dependency.`);
    process.exit(1);
  }
}
