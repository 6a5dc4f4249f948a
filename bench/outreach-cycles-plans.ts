import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { round } from './outreach-cycles-config';
import { type Server, setUp, startWorker, until } from './outreach-cycles-setup';

// ---------------------------------------------------------------- plans

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export interface StatementPlan {
  readonly statement: string;
  readonly ms: number;
  readonly planningMs: number;
  readonly buffers: number;
  /** Rows the plan's scans produced or filtered out, times their loops: what it read. */
  readonly rowsRead: number;
  readonly scans: string[];
  /** Every node of the plan, indented, with the rows it produced or filtered out. */
  readonly nodes: string[];
  readonly triggerMs: number;
  /** Each trigger that fired: its name, table, time and calls (foreign-key checks included). */
  readonly triggers: string[];
}

export function label(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 110 ? `${flat.slice(0, 109)}…` : flat;
}

function scansOf(node: PlanNode, into: { rows: number; scans: string[]; nodes: string[] }, depth = 0): void {
  const loops = node['Actual Loops'] ?? 1;
  const read = ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * loops;
  const target = [node['Relation Name'], node['Index Name'] && `using ${node['Index Name']}`].filter(Boolean).join(' ');
  const line = `${node['Node Type']}${target ? ` on ${target}` : ''}: ${read} rows${loops > 1 ? ` (${loops} loops)` : ''}`;
  into.nodes.push(`${'  '.repeat(depth)}${line}`);
  if (/Scan/.test(node['Node Type'])) {
    into.rows += read;
    into.scans.push(line);
  }
  for (const child of node.Plans ?? []) scansOf(child, into, depth + 1);
}

interface PlanTrigger {
  readonly 'Trigger Name': string;
  readonly Relation?: string;
  readonly Time: number;
  readonly Calls: number;
}

interface Captured {
  readonly text: string;
  readonly plan?: [{ Plan: PlanNode; 'Execution Time': number; 'Planning Time': number; Triggers?: PlanTrigger[] }];
  readonly error?: string;
}

/** What each statement of a captured cycle cost (transaction control has no plan). */
function summarise(captured: readonly Captured[]): StatementPlan[] {
  return captured
    .filter((statement) => statement.plan || statement.error)
    .map(({ text, plan, error }) => {
      if (!plan)
        return {
          statement: `${label(text)} (not explained: ${error})`,
          ms: 0,
          planningMs: 0,
          buffers: 0,
          rowsRead: 0,
          scans: [],
          nodes: [],
          triggerMs: 0,
          triggers: [],
        };
      const [result] = plan;
      const found = { rows: 0, scans: [] as string[], nodes: [] as string[] };
      scansOf(result.Plan, found);
      return {
        statement: label(text),
        ms: round(result['Execution Time'], 3),
        planningMs: round(result['Planning Time'], 3),
        buffers: (result.Plan['Shared Hit Blocks'] ?? 0) + (result.Plan['Shared Read Blocks'] ?? 0),
        rowsRead: found.rows,
        scans: found.scans,
        nodes: found.nodes,
        triggerMs: round(
          (result.Triggers ?? []).reduce((sum, trigger) => sum + trigger.Time, 0),
          3,
        ),
        triggers: (result.Triggers ?? []).map(
          (trigger) => `${trigger['Trigger Name']} on ${trigger.Relation ?? '?'}: ${round(trigger.Time, 3)} ms, ${trigger.Calls} calls`,
        ),
      };
    });
}

export interface PlansResult {
  readonly tasks: number;
  readonly statementsInCycle: number;
  readonly fresh: StatementPlan[];
  readonly analyzed: StatementPlan[];
}

/**
 * Each statement of one worker's fifth cycle on a freshly imported campaign, explained as it
 * ran (bench/outreach-statements.ts): with no statistics yet, then, by another worker, after ANALYZE.
 */
export async function plans(server: Server, size: number): Promise<PlansResult> {
  const tag = randomBytes(4).toString('hex');
  const setup = await setUp(server, size, tag);
  const dir = await mkdtemp(join(tmpdir(), 'bridle-outreach-capture-'));
  const capture = async (name: string): Promise<Captured[]> => {
    const file = join(dir, name);
    const worker = startWorker(setup, { OUTREACH_BENCH_CAPTURE: file });
    await until(() => Promise.resolve(existsSync(file)), 'a captured cycle', 10 * 60_000, [worker]);
    await worker.stop();
    return JSON.parse(readFileSync(file, 'utf8')) as Captured[];
  };
  try {
    await setup.start();
    const fresh = await capture('fresh.json');
    await setup.db.query('ANALYZE');
    const analyzed = await capture('analyzed.json');
    return { tasks: setup.tasks, statementsInCycle: fresh.length, fresh: summarise(fresh), analyzed: summarise(analyzed) };
  } finally {
    await setup.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}
