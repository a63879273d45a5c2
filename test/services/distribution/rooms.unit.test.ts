import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { REPOSITORY_ROOT } from '../../support/workspaces.js';

/**
 * The distribution service is built of rooms, one folder per concept (leads, buyers, selling, intake,
 * ...), and imports between rooms run one way: a room never reaches, directly or around a loop, back
 * into a room that uses it. A file at the top of src/ is a room of its own.
 */
const SRC = path.join(REPOSITORY_ROOT, 'services/distribution/src');

/** Storage keeps the key ring, and a frozen migration encrypts with it: the one loop the service has. */
const KNOWN_LOOP = ['db', 'security'];

function roomOf(file: string): string {
  const [first] = path.relative(SRC, file).split(path.sep);
  return first!;
}

/** Room -> the rooms its files import (relative imports only; packages are judged elsewhere). */
function roomImports(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const files = readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
  for (const file of files) {
    const from = roomOf(file);
    const targets = graph.get(from) ?? new Set<string>();
    graph.set(from, targets);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/\bfrom\s+'(\.\.?\/[^']+)'/g)) {
      const to = roomOf(path.resolve(path.dirname(file), specifier!).replace(/\.js$/, '.ts'));
      if (to !== from) targets.add(to);
    }
  }
  return graph;
}

/** The rooms that reach one another both ways: Tarjan's strongly connected components of two or more. */
function loops(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (room: string): void => {
    index.set(room, index.size);
    low.set(room, index.get(room)!);
    stack.push(room);
    for (const next of graph.get(room) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(room, Math.min(low.get(room)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(room, Math.min(low.get(room)!, index.get(next)!));
    }
    if (low.get(room) !== index.get(room)) return;
    const component: string[] = [];
    for (let top = stack.pop()!; ; top = stack.pop()!) {
      component.push(top);
      if (top === room) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const room of graph.keys()) if (!index.has(room)) visit(room);
  return found;
}

describe('the rooms of the distribution service', () => {
  const graph = roomImports();

  it('are read: selling uses buyers and leads, and the engine has its own room', () => {
    expect(graph.get('selling')).to.include.members(['buyers', 'leads']);
    expect(readdirSync(path.join(SRC, 'selling'))).to.include.members([
      'ping-tree.ts',
      'post-order.ts',
      'post-journal.ts',
      'sale-record.ts',
      'lead-recovery.ts',
      'lead-resolution.ts',
    ]);
  });

  it('import one another one way', () => {
    expect(loops(graph)).to.deep.equal([KNOWN_LOOP]);
  });

  it('keep what a lead is and what a buyer is apart from the engine that sells', () => {
    expect([...graph.get('leads')!]).to.not.include.members(['buyers', 'selling', 'intake']);
    for (const room of ['buyers', 'leads']) expect([...graph.get(room)!], room).to.not.include('selling');
    expect([...graph.get('selling')!]).to.not.include.members(['intake', 'grpc', 'observability']);
  });

  it('finds a loop when there is one (the check can fail)', () => {
    const looped = new Map(graph);
    looped.set('buyers', new Set([...graph.get('buyers')!, 'selling']));
    expect(loops(looped).flat()).to.include.members(['buyers', 'selling']);
  });
});
