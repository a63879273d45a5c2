// node dist/test/bench/profile-summary.js FILE.cpuprofile [TOP] [WINDOW_S]
// What a CPU profile (node --cpu-prof, e.g. through BENCH_NODE_ARGS) spent its time on: the functions
// with the most self time, the same by package or leadflow directory, and our functions by total time.
// WINDOW_S keeps only the samples of the last WINDOW_S seconds before the last 1.5 s (a scenario's
// measured run, before the processes stop), leaving start-up out.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const STOP_MARGIN_US = 1_500_000;

function frameName({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  return `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
}

function groupOf({ functionName, url }: ProfileNode['callFrame']): string {
  const library = /node_modules\/(@[^/]+\/[^/]+|[^/]+)/.exec(url);
  if (library) return library[1]!;
  if (url.includes('/dist/')) return `leadflow:${url.split('/dist/')[1]!.split('/').slice(0, -1).join('/')}`;
  return url || functionName;
}

function add(totals: Map<string, number>, key: string, us: number): void {
  totals.set(key, (totals.get(key) ?? 0) + us);
}

function main(): void {
  const [file, top = '30', windowS] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary FILE.cpuprofile [TOP] [WINDOW_S]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const end = profile.endTime - STOP_MARGIN_US;
  const start = windowS ? end - Number(windowS) * 1_000_000 : -Infinity;

  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= start && (!windowS || at <= end))
      selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  });

  const self = new Map<string, number>();
  const groups = new Map<string, number>();
  const total = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    add(self, frameName(frame), us);
    add(groups, groupOf(frame), us);
    const seen = new Set<string>();
    for (let node: number | undefined = id; node !== undefined; node = parents.get(node)) {
      const ancestor = nodes.get(node)!.callFrame;
      const name = frameName(ancestor);
      if (ancestor.url.includes('/dist/') && !seen.has(name)) add(total, name, us);
      seen.add(name);
    }
  }

  const print = (title: string, totals: Map<string, number>, count: number) => {
    console.log(`--- ${title}`);
    for (const [name, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, count)) {
      console.log(
        `${((100 * us) / busyUs).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`,
      );
    }
  };
  console.log(
    `busy ${(busyUs / 1000).toFixed(0)} ms, idle ${(idleUs / 1000).toFixed(0)} ms; shares are of the busy time`,
  );
  print('self time', self, Number(top));
  print('by package or leadflow directory', groups, 20);
  print('leadflow functions, total time (with what they call)', total, 30);
}

main();
