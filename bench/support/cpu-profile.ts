import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Self time of a V8 `.cpuprofile` (written by `node --cpu-prof`), summed per function
 * (name + file:line) and per package (`node_modules/<pkg>`, `src/<layer>` for the built
 * service in dist/, node core, or V8's pseudo frames such as GC and idle).
 *
 * Standalone: `node dist-bench/bench/support/cpu-profile.js <file.cpuprofile> [top]`.
 */

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileEntry {
  readonly name: string;
  readonly ms: number;
  /** Of all sampled time, idle included. */
  readonly pct: number;
  /** Of the time the main thread was busy (idle excluded). */
  readonly busyPct: number;
}

export interface ProfileSummary {
  readonly file: string;
  readonly wallMs: number;
  readonly sampledMs: number;
  readonly idleMs: number;
  readonly busyMs: number;
  readonly samples: number;
  readonly byFunction: readonly ProfileEntry[];
  readonly byPackage: readonly ProfileEntry[];
  /** Like byPackage, but node core and native frames are charged to their nearest caller in a package or src/. */
  readonly byCallerPackage: readonly ProfileEntry[];
  /** Functions of the service itself (src/), by total time: their own plus everything they called. */
  readonly repoInclusive: readonly ProfileEntry[];
}

const PSEUDO = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

/** Where a frame's code lives: a package, a layer of the service, node core, or a V8 pseudo frame. */
export function packageOf(frame: CallFrame, root: string): string {
  if (PSEUDO.has(frame.functionName) && frame.url === '') return frame.functionName;
  const url = frame.url.replace(/^file:\/\//, '');
  if (url === '') return '(native / no url)';
  if (url.startsWith('node:')) return 'node core';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  for (const built of [join(root, 'dist') + '/', join(root, 'dist-bench', 'src') + '/']) {
    if (url.startsWith(built)) {
      const rest = url.slice(built.length);
      const slash = rest.indexOf('/');
      return slash < 0 ? `src/${rest.replace(/\.js$/, '.ts')}` : `src/${rest.slice(0, slash)}`;
    }
  }
  if (url.startsWith(root + '/')) return url.slice(root.length + 1);
  return url;
}

function functionOf(frame: CallFrame, root: string): string {
  if (frame.url === '') return frame.functionName || '(anonymous)';
  const url = frame.url.replace(/^file:\/\//, '');
  const short = url.startsWith(root + '/') ? url.slice(root.length + 1).replace(/^node_modules\//, '') : url;
  return `${frame.functionName || '(anonymous)'} ${short}:${frame.lineNumber + 1}`;
}

export function analyseCpuProfile(file: string, root: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) byId.set(node.id, node);

  // Sample i lasts from its timestamp to the next one (the last one to endTime), as DevTools counts.
  const selfUs = new Map<number, number>();
  let timestamp = profile.startTime;
  const stamps: number[] = [];
  for (const delta of profile.timeDeltas) {
    timestamp += delta;
    stamps.push(timestamp);
  }
  for (let i = 0; i < profile.samples.length; i++) {
    const next = i + 1 < stamps.length ? stamps[i + 1] : profile.endTime;
    const duration = Math.max(0, next - stamps[i]);
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + duration);
  }

  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const isOwnerless = (pkg: string) => pkg === 'node core' || pkg === '(native / no url)';

  const perFunction = new Map<string, number>();
  const perPackage = new Map<string, number>();
  const perCallerPackage = new Map<string, number>();
  const repoInclusive = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  let sampledUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    sampledUs += us;
    if (node.callFrame.functionName === '(idle)' && node.callFrame.url === '') idleUs += us;
    const pkg = packageOf(node.callFrame, root);
    add(perFunction, functionOf(node.callFrame, root), us);
    add(perPackage, pkg, us);

    // Walk the stack once (bounded by the tree's depth): the owner of core/native time, and
    // every distinct src/ function on the stack.
    let owner = isOwnerless(pkg) ? undefined : pkg;
    const seen = new Set<string>();
    for (let current: number | undefined = id, depth = 0; current !== undefined && depth < 10_000; depth++) {
      const frame = byId.get(current)?.callFrame;
      if (!frame) break;
      const framePkg = packageOf(frame, root);
      if (owner === undefined && !isOwnerless(framePkg) && framePkg !== '(root)') owner = framePkg;
      if (framePkg.startsWith('src/')) seen.add(functionOf(frame, root));
      current = parent.get(current);
    }
    add(perCallerPackage, owner ?? pkg, us);
    for (const fn of seen) add(repoInclusive, fn, us);
  }
  const busyUs = sampledUs - idleUs;
  const entries = (map: Map<string, number>): ProfileEntry[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({
        name,
        ms: round(us / 1000, 1),
        pct: round((100 * us) / Math.max(1, sampledUs), 2),
        busyPct: name === '(idle)' ? 0 : round((100 * us) / Math.max(1, busyUs), 2),
      }));
  return {
    file,
    wallMs: round((profile.endTime - profile.startTime) / 1000, 1),
    sampledMs: round(sampledUs / 1000, 1),
    idleMs: round(idleUs / 1000, 1),
    busyMs: round(busyUs / 1000, 1),
    samples: profile.samples.length,
    byFunction: entries(perFunction),
    byPackage: entries(perPackage),
    byCallerPackage: entries(perCallerPackage),
    repoInclusive: entries(repoInclusive),
  };
}

export function formatProfile(summary: ProfileSummary, top = 25): string {
  const lines: string[] = [
    `cpu profile ${summary.file}`,
    `  wall ${fmt(summary.wallMs)} ms, sampled ${fmt(summary.sampledMs)} ms (${summary.samples} samples), ` +
      `main thread busy ${fmt(summary.busyMs)} ms, idle ${fmt(summary.idleMs)} ms`,
    '  % all = share of all sampled time; % busy = share of the time the main thread was not idle.',
    '  Samples are wall-clock: time blocked or preempted inside a syscall (e.g. writev) counts as that function.',
  ];
  const table = (title: string, rows: readonly ProfileEntry[], column = 'self ms'): void => {
    lines.push('', `  top ${top} ${title}`, `  ${column.padStart(9)} ${'% all'.padStart(6)} ${'% busy'.padStart(6)}  name`);
    for (const row of rows.slice(0, top)) {
      lines.push(`  ${fmt(row.ms).padStart(9)} ${row.pct.toFixed(1).padStart(6)} ${row.busyPct.toFixed(1).padStart(6)}  ${row.name}`);
    }
  };
  table('by self time, per function', summary.byFunction);
  table('by self time, per package', summary.byPackage);
  table('by self time, per package, node core and native frames charged to their calling package', summary.byCallerPackage);
  table('functions of the service (src/) by TOTAL time, callees included (rows overlap)', summary.repoInclusive, 'total ms');
  return lines.join('\n');
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function fmt(value: number): string {
  return value.toFixed(1);
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node dist-bench/bench/support/cpu-profile.js <file.cpuprofile> [top]\n');
    process.exitCode = 2;
  } else {
    const top = Number(process.argv[3] ?? 25);
    process.stdout.write(`${formatProfile(analyseCpuProfile(file, join(__dirname, '..', '..', '..')), top)}\n`);
  }
}
