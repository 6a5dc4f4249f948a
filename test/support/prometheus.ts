import request from 'supertest';

/**
 * Parses Prometheus text format 0.0.4 strictly: every line is a comment or one sample. Values
 * are read as Prometheus reads them (Go's ParseFloat): prom-client writes NaN as `Nan`, e.g.
 * the event-loop lag before its first measurement.
 */
export function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const sample =
    /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*",?)*\})? (-?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|[Nn][Aa][Nn]|\+Inf|-Inf))( \d+)?$/;
  for (const line of text.split('\n')) {
    if (line === '' || /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/.test(line)) continue;
    const match = sample.exec(line);
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
