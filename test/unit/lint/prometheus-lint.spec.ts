import { lintPrometheus, promtoolCheck } from '../../support/prometheus';

/**
 * lintPrometheus holds /metrics to promtool's rules where promtool is not installed.
 * Each fixture breaks one rule; where promtool is on PATH, it must refuse the same fixtures
 * (those it checks), so the two cannot drift apart unnoticed.
 */
const help = (name: string, type: string) => `# HELP ${name} Something\n# TYPE ${name} ${type}\n`;
const histogram = (...lines: string[]) => help('d_seconds', 'histogram') + lines.join('\n') + '\n';

const BROKEN: [string, string, RegExp, boolean][] = [
  ['a counter without _total', `${help('requests', 'counter')}requests 1\n`, /should have "_total" suffix/, true],
  ['a gauge with _total', `${help('open_total', 'gauge')}open_total 1\n`, /should not have "_total" suffix/, true],
  ['a second HELP', `# HELP a_total A\n${help('a_total', 'counter')}a_total 1\n`, /more than one HELP/, true],
  ['a second TYPE', `${help('a_total', 'counter')}# TYPE a_total counter\na_total 1\n`, /more than one TYPE/, true],
  ['a TYPE after the samples', `# HELP a_total A\na_total 1\n# TYPE a_total counter\n`, /TYPE after its samples/, true],
  ['no HELP', `# TYPE a_total counter\na_total 1\n`, /no help text/, true],
  ['no HELP and no TYPE', `a_total 1\n`, /sample without HELP and TYPE/, true],
  ['a name that starts with a digit', `${help('1a_total', 'counter')}1a_total 1\n`, /not a valid metric name/, true],
  ['camelCase', `${help('httpRequests_total', 'counter')}httpRequests_total 1\n`, /snake_case/, true],
  ['milliseconds', `${help('d_milliseconds', 'gauge')}d_milliseconds 1\n`, /base units/, true],
  ['le on a gauge', `${help('g', 'gauge')}g{le="1"} 1\n`, /only histogram buckets may have the label le/, true],
  ['a sample repeated', `${help('a_total', 'counter')}a_total 1\na_total 2\n`, /sample repeated/, false],
  [
    'a bucket without le',
    histogram('d_seconds_bucket 1', 'd_seconds_bucket{le="+Inf"} 1', 'd_seconds_sum 1', 'd_seconds_count 1'),
    /without le/,
    false,
  ],
  ['no +Inf bucket', histogram('d_seconds_bucket{le="1"} 1', 'd_seconds_sum 1', 'd_seconds_count 1'), /no le="\+Inf" bucket/, false],
  ['no _sum', histogram('d_seconds_bucket{le="+Inf"} 1', 'd_seconds_count 1'), /no _sum/, false],
  ['no _count', histogram('d_seconds_bucket{le="+Inf"} 1', 'd_seconds_sum 1'), /no _count/, false],
  [
    'a _count unlike +Inf',
    histogram('d_seconds_bucket{le="+Inf"} 2', 'd_seconds_sum 1', 'd_seconds_count 1'),
    /is not the \+Inf bucket's/,
    false,
  ],
  [
    'buckets that shrink',
    histogram('d_seconds_bucket{le="1"} 2', 'd_seconds_bucket{le="+Inf"} 1', 'd_seconds_sum 1', 'd_seconds_count 1'),
    /not cumulative/,
    false,
  ],
];

const CLEAN = [
  help('a_total', 'counter'),
  'a_total{kind="x"} 1',
  help('d_seconds', 'histogram'),
  'd_seconds_bucket{le="0.5",route="/a/:id"} 0',
  'd_seconds_bucket{le="1",route="/a/:id"} 2',
  'd_seconds_bucket{le="+Inf",route="/a/:id"} 3',
  'd_seconds_sum{route="/a/:id"} 4.5',
  'd_seconds_count{route="/a/:id"} 3',
  help('g', 'gauge'),
  'g Nan',
  '',
].join('\n');

describe(lintPrometheus.name, () => {
  it('has nothing to say about well-formed text', () => {
    expect(lintPrometheus(CLEAN)).toEqual([]);
    const promtool = promtoolCheck(CLEAN);
    if (promtool) expect(promtool).toEqual({ status: 0, output: '' });
  });

  it.each(BROKEN)('refuses %s', (_, text, problem, promtoolRefuses) => {
    expect(lintPrometheus(text)).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
    const promtool = promtoolCheck(text);
    if (promtool && promtoolRefuses) expect(promtool.status).not.toBe(0);
  });
});
