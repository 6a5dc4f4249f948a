import { spawnSync } from 'node:child_process';
import request from 'supertest';

const SAMPLE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*",?)*\})? (-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|[Nn][Aa][Nn]|\+Inf|-Inf))( \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"/g;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/**
 * Parses Prometheus text format 0.0.4 strictly: every line is a comment or one sample. Values
 * are read as Prometheus reads them (Go's ParseFloat): prom-client writes NaN as `Nan`, e.g.
 * the event-loop lag before its first measurement.
 */
export function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/.test(line)) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not Prometheus text: ${JSON.stringify(line)}`);
    samples.set(`${match[1]}${match[2] ?? ''}`, Number(match[3]));
  }
  return samples;
}

/** One sample of the app's /metrics now (0 when absent), by its full key: `name{label="value"}`. */
export async function metricSample(http: string, key: string): Promise<number> {
  const res = await request(http).get('/metrics').expect(200);
  return parsePrometheus(res.text).get(key) ?? 0;
}

interface Sample {
  readonly name: string;
  readonly labels: ReadonlyMap<string, string>;
  readonly value: number;
}

interface Family {
  help: boolean;
  type: string | null;
  readonly samples: Sample[];
}

const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];
/** promtool's unit rules, in the units a Node.js service might be tempted by: base units only, spelled out. */
const NON_BASE_UNIT =
  /_(?:milliseconds|microseconds|nanoseconds|minutes|hours|days|ms|us|ns|sec|secs|kilobytes|megabytes|gigabytes|kb|mb|gb|percent)(?:_|$)/;

/**
 * The rules of `promtool check metrics` (client_golang's promlint) that this service could
 * break, and those of the text format it relies on, so that CI checks them where promtool is
 * not installed. An empty list: nothing to complain about.
 */
export function lintPrometheus(text: string): string[] {
  const problems: string[] = [];
  const families = new Map<string, Family>();
  const familyNamed = (name: string): Family => {
    const known = families.get(name);
    if (known) return known;
    const created: Family = { help: false, type: null, samples: [] };
    families.set(name, created);
    return created;
  };
  const seen = new Set<string>();

  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      if (!METRIC_NAME.test(name)) problems.push(`${name}: not a valid metric name`);
      const family = familyNamed(name);
      if (kind === 'HELP') {
        if (family.help) problems.push(`${name}: more than one HELP`);
        if (rest.trim() === '') problems.push(`${name}: no help text`);
        family.help = true;
      } else {
        if (family.type !== null) problems.push(`${name}: more than one TYPE`);
        if (family.samples.length > 0) problems.push(`${name}: TYPE after its samples`);
        if (!TYPES.has(rest)) problems.push(`${name}: unknown TYPE ${JSON.stringify(rest)}`);
        family.type = rest;
      }
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) {
      problems.push(`not a sample: ${JSON.stringify(line)}`);
      continue;
    }
    const key = `${match[1]}${match[2] ?? ''}`;
    if (seen.has(key)) problems.push(`${key}: sample repeated`);
    seen.add(key);
    const labels = new Map([...(match[2] ?? '').matchAll(LABEL)].map(([, label, value]) => [label, value] as const));
    const sample: Sample = { name: match[1], labels, value: Number(match[3]) };
    const family = familyOf(families, sample.name);
    if (family === undefined) problems.push(`${sample.name}: sample without HELP and TYPE`);
    else family[1].samples.push(sample);
  }

  for (const [name, family] of families) problems.push(...lintFamily(name, family));
  return problems;
}

/** The family a sample belongs to: its own name, or a histogram's or summary's for their suffixes. */
function familyOf(families: Map<string, Family>, sample: string): [string, Family] | undefined {
  for (const suffix of HISTOGRAM_SUFFIXES) {
    const base = sample.endsWith(suffix) ? families.get(sample.slice(0, -suffix.length)) : undefined;
    if (base && (base.type === 'histogram' || base.type === 'summary')) return [sample.slice(0, -suffix.length), base];
  }
  const own = families.get(sample);
  return own ? [sample, own] : undefined;
}

function lintFamily(name: string, family: Family): string[] {
  const problems: string[] = [];
  if (!family.help) problems.push(`${name}: no help text`);
  if (family.type === null) problems.push(`${name}: no TYPE`);
  if (family.type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: counter metrics should have "_total" suffix`);
  if (family.type !== 'counter' && name.endsWith('_total')) problems.push(`${name}: non-counter metrics should not have "_total" suffix`);
  if (/[a-z][A-Z]/.test(name)) problems.push(`${name}: metric names should be written in 'snake_case' not 'camelCase'`);
  if (NON_BASE_UNIT.test(name)) problems.push(`${name}: use base units (seconds, bytes, ratios), spelled out`);
  for (const sample of family.samples) {
    for (const label of sample.labels.keys()) {
      if (/[a-z][A-Z]/.test(label)) problems.push(`${name}: label names should be written in 'snake_case' not 'camelCase'`);
      if (label.startsWith('__')) problems.push(`${name}: label ${label} is reserved`);
      if (label === 'le' && family.type !== 'histogram') problems.push(`${name}: only histogram buckets may have the label le`);
      if (label === 'quantile' && family.type !== 'summary') problems.push(`${name}: only summaries may have the label quantile`);
    }
    if (family.type !== 'histogram' && family.type !== 'summary' && sample.name !== name) {
      problems.push(`${sample.name}: sample of ${name} under another name`);
    }
  }
  if (family.type === 'histogram') problems.push(...lintHistogram(name, family.samples));
  return problems;
}

/** Per label set: cumulative `_bucket`s with `le`, up to `le="+Inf"`, which `_count` equals, and a `_sum`. */
function lintHistogram(name: string, samples: readonly Sample[]): string[] {
  const problems: string[] = [];
  const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const sample of samples) {
    const rest = [...sample.labels].filter(([label]) => label !== 'le');
    const key = `{${rest.map(([label, value]) => `${label}="${value}"`).join(',')}}`;
    const one = series.get(key) ?? { buckets: [] };
    series.set(key, one);
    if (sample.name === `${name}_bucket`) {
      const le = sample.labels.get('le');
      if (le === undefined) problems.push(`${name}_bucket${key}: a bucket without le`);
      else one.buckets.push([le === '+Inf' ? Infinity : Number(le), sample.value]);
    } else if (sample.name === `${name}_sum`) one.sum = sample.value;
    else if (sample.name === `${name}_count`) one.count = sample.value;
    else problems.push(`${sample.name}: not a sample of histogram ${name} (_bucket, _sum, _count)`);
    if (sample.name !== `${name}_bucket` && sample.labels.has('le')) problems.push(`${sample.name}: le on a sample other than a bucket`);
  }
  for (const [labels, { buckets, sum, count }] of series) {
    const at = `${name}${labels}`;
    const inf = buckets.find(([le]) => le === Infinity);
    if (inf === undefined) problems.push(`${at}: no le="+Inf" bucket`);
    if (sum === undefined) problems.push(`${at}: no _sum`);
    if (count === undefined) problems.push(`${at}: no _count`);
    else if (inf !== undefined && inf[1] !== count) problems.push(`${at}: _count ${count} is not the +Inf bucket's ${inf[1]}`);
    const sorted = [...buckets].sort(([a], [b]) => a - b);
    if (sorted.some(([le], i) => Number.isNaN(le) || (i > 0 && le === sorted[i - 1][0]))) problems.push(`${at}: le not distinct numbers`);
    if (sorted.some(([, value], i) => i > 0 && value < sorted[i - 1][1])) problems.push(`${at}: buckets not cumulative`);
  }
  return problems;
}

/**
 * `promtool check metrics` on `text`: its exit status and what it printed, or null when
 * promtool is not on PATH (Debian's `prometheus` package has it; .ci/run installs it when it can).
 */
export function promtoolCheck(text: string): { status: number | null; output: string } | null {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
  if (run.error) {
    if ('code' in run.error && run.error.code === 'ENOENT') return null;
    throw run.error;
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
