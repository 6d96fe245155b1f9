// Summarises a V8 heap snapshot (docs/performance.md, "Memory"): what the live heap is made of, by
// node type and by constructor; the JavaScript source text V8 keeps, by package; and the largest
// retained sizes (the dominator tree), each with the path that holds it.
//   node --max-old-space-size=4096 scripts/bench/heap-summary.js heap-<pid>.heapsnapshot [top]
// The snapshot is what v8.writeHeapSnapshot wrote (memory-probe.js): live objects only, after a full
// garbage collection, so garbage waiting for the collector is not in it.
import { readFileSync } from 'node:fs';
import console from 'node:console';
import process from 'node:process';

const [file, topText = '30'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node scripts/bench/heap-summary.js <file.heapsnapshot> [top]\n');
  process.exit(2);
}
const TOP = Number(topText);
const { snapshot, nodes, edges, strings } = JSON.parse(readFileSync(file, 'utf8'));
const meta = snapshot.meta;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const [N_TYPE, N_NAME, N_SELF, N_EDGES] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f));
const [E_TYPE, E_NAME, E_TO] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
const nodeTypes = meta.node_types[N_TYPE];
const edgeTypes = meta.edge_types[E_TYPE];
const count = nodes.length / NF;
const typeOf = (i) => nodeTypes[nodes[i * NF + N_TYPE]];
const nameOf = (i) => strings[nodes[i * NF + N_NAME]];
const selfOf = (i) => nodes[i * NF + N_SELF];
const mb = (bytes) => (bytes / 1024 / 1024).toFixed(2).padStart(7);

const firstEdge = new Uint32Array(count + 1);
for (let i = 0; i < count; i++) firstEdge[i + 1] = firstEdge[i] + nodes[i * NF + N_EDGES] * EF;
// Weak references and the snapshot's shortcuts keep nothing alive.
const WEAK = new Set([edgeTypes.indexOf('weak'), edgeTypes.indexOf('shortcut')]);
const strong = (e) => !WEAK.has(edges[e + E_TYPE]);
const edgeName = (e) => {
  const type = edgeTypes[edges[e + E_TYPE]];
  return type === 'element' || type === 'hidden' ? `[${edges[e + E_NAME]}]` : strings[edges[e + E_NAME]];
};

function tally(keyOf) {
  const sums = new Map();
  for (let i = 0; i < count; i++) {
    const key = keyOf(i);
    if (key === null) continue;
    const sum = sums.get(key) ?? { bytes: 0, count: 0 };
    sum.bytes += selfOf(i);
    sum.count += 1;
    sums.set(key, sum);
  }
  return [...sums].sort((a, b) => b[1].bytes - a[1].bytes);
}

let total = 0;
for (let i = 0; i < count; i++) total += selfOf(i);
console.log(`${count} nodes, ${mb(total).trim()} MB live`);
console.log('\nby node type:');
for (const [type, { bytes }] of tally(typeOf)) console.log(`${mb(bytes)} MB  ${type}`);
console.log(`\nby constructor (top ${TOP}):`);
const constructorOf = (i) => (typeOf(i).includes('string') ? '(strings)' : `${typeOf(i)}: ${nameOf(i).slice(0, 60)}`);
for (const [key, sum] of tally(constructorOf).slice(0, TOP))
  console.log(`${mb(sum.bytes)} MB ${String(sum.count).padStart(8)}  ${key}`);

// Source text: a node with a `source` edge to a string is a Script, named by its file.
const packageOf = (name) => {
  if (name === '') return '(generated: new Function, eval)';
  const inModules = name.split('node_modules/').at(-1);
  if (inModules !== name)
    return inModules
      .split('/')
      .slice(0, inModules.startsWith('@') ? 2 : 1)
      .join('/');
  if (/[/\\]dist[/\\]/.test(name)) return 'the project (dist/)';
  return name.startsWith('node:') ? 'node:*' : name.slice(0, 40);
};
const sources = new Map();
for (let i = 0; i < count; i++) {
  for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) {
    const to = edges[e + E_TO] / NF;
    if (edgeName(e) !== 'source' || !typeOf(to).includes('string')) continue;
    const key = packageOf(nameOf(i));
    const sum = sources.get(key) ?? { bytes: 0, count: 0 };
    sum.bytes += selfOf(to);
    sum.count += 1;
    sources.set(key, sum);
  }
}
const sourceTotal = [...sources.values()].reduce((sum, { bytes }) => sum + bytes, 0);
console.log(`\nsource text kept, ${mb(sourceTotal).trim()} MB, by package (top ${TOP}):`);
for (const [key, sum] of [...sources].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, TOP)) {
  console.log(`${mb(sum.bytes)} MB ${String(sum.count).padStart(6)} scripts  ${key}`);
}

// Dominators (Cooper, Harvey and Kennedy's iteration over a reverse post-order) from the root, node 0.
const order = new Int32Array(count).fill(-1);
const postOrder = new Uint32Array(count);
let visited = 0;
const cursor = new Uint32Array(firstEdge.subarray(0, count));
const stack = [0];
order[0] = -2;
while (stack.length > 0) {
  const v = stack.at(-1);
  let descended = false;
  while (cursor[v] < firstEdge[v + 1]) {
    const e = cursor[v];
    cursor[v] += EF;
    const w = edges[e + E_TO] / NF;
    if (!strong(e) || order[w] !== -1) continue;
    order[w] = -2;
    stack.push(w);
    descended = true;
    break;
  }
  if (!descended) {
    stack.pop();
    order[v] = visited;
    postOrder[visited++] = v;
  }
}
const predecessors = Array.from({ length: count }, () => []);
for (let i = 0; i < count; i++) {
  for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) if (strong(e)) predecessors[edges[e + E_TO] / NF].push(i);
}
const idom = new Int32Array(count).fill(-1);
idom[0] = 0;
const intersect = (a, b) => {
  while (a !== b) {
    while (order[a] < order[b]) a = idom[a];
    while (order[b] < order[a]) b = idom[b];
  }
  return a;
};
for (let changed = true; changed;) {
  changed = false;
  for (let k = visited - 2; k >= 0; k--) {
    const v = postOrder[k];
    let dominator = -1;
    for (const u of predecessors[v]) {
      if (order[u] < 0 || idom[u] === -1) continue;
      dominator = dominator === -1 ? u : intersect(u, dominator);
    }
    if (dominator !== -1 && idom[v] !== dominator) {
      idom[v] = dominator;
      changed = true;
    }
  }
}
const retained = new Float64Array(count);
for (let k = 0; k < visited; k++) {
  const v = postOrder[k];
  retained[v] += selfOf(v);
  if (v !== 0) retained[idom[v]] += retained[v];
}
const label = (i) => (typeOf(i) === 'object' || typeOf(i) === 'closure' ? nameOf(i).slice(0, 30) : typeOf(i));
const edgeBetween = (from, to) => {
  for (let e = firstEdge[from]; e < firstEdge[from + 1]; e += EF)
    if (edges[e + E_TO] / NF === to) return edgeName(e).slice(0, 30);
  return '?';
};
const pathTo = (v) => {
  const steps = [];
  for (let x = v; x !== 0 && steps.length < 6; x = idom[x]) steps.unshift(`${label(idom[x])}.${edgeBetween(idom[x], x)}`);
  return steps.join(' > ');
};
const largest = [];
for (let v = 1; v < count; v++) if (order[v] >= 0 && retained[v] > 256 * 1024) largest.push(v);
largest.sort((a, b) => retained[b] - retained[a]);
console.log(`\nlargest retained sizes (top ${TOP}):`);
for (const v of largest.slice(0, TOP))
  console.log(`${mb(retained[v])} MB  ${typeOf(v)}: ${nameOf(v).slice(0, 50)}  <- ${pathTo(v)}`);
