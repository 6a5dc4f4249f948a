import type { DryRunReport, PolicyEffect } from '../../api';
import { labelOf, plural, POLICY_EFFECT } from '../../lib/labels';
import { fullTime } from '../../lib/time';
import { Badge, type Column, Table } from '../../ui';

type Change = DryRunReport['changes'][number];
type Example = Change['examples'][number];

const EFFECTS: readonly PolicyEffect[] = ['allow', 'ask-person', 'ask-reviewer', 'limit', 'deny'];
const SOURCE_LABELS: Record<Example['source'], string> = { chat: 'Chat', mcp: 'MCP', outreach: 'Outreach', api: 'API' };

const effect = (value: PolicyEffect) => {
  const { label, tone } = labelOf(POLICY_EFFECT, value);
  return <Badge tone={tone}>{label}</Badge>;
};

const EXAMPLE_COLUMNS: Column<Example>[] = [
  { key: 'seq', header: '#', nowrap: true, cell: (example) => String(example.seq) },
  { key: 'time', header: 'Time', nowrap: true, cell: (example) => <time dateTime={example.at}>{fullTime(example.at)}</time> },
  { key: 'source', header: 'Source', cell: (example) => SOURCE_LABELS[example.source] ?? example.source },
  { key: 'tool', header: 'Tool', cell: (example) => <span class="mono">{example.tool}</span> },
  {
    key: 'actor',
    header: 'Actor',
    cell: (example) =>
      example.actorEmail ?? (
        <span class="muted" title={example.actorId}>
          deleted account
        </span>
      ),
  },
];

/** What a dry run found: how each policy decides the calls read, and each change with its newest examples. */
export function DryRunReportView({ report }: { report: DryRunReport }) {
  const counts = EFFECTS.map((value) => ({ value, now: report.effects.now[value], candidate: report.effects.candidate[value] })).filter(
    (row) => row.now > 0 || row.candidate > 0,
  );
  return (
    <section class="dry-run-report stack" aria-labelledby="dry-run-title" data-changed={report.changed}>
      <h3 id="dry-run-title">Dry run</h3>
      <p class="dry-run-summary" aria-live="polite">
        {report.calls === 0
          ? 'No tool calls are recorded yet: there is nothing to try it on.'
          : `Of the newest ${plural(report.calls, 'recorded call')} (${fullTime(report.from!)} to ${fullTime(report.to!)}), ` +
            `${report.changed === 0 ? 'none' : report.changed} would be decided differently than by version ${report.versionInForce}.`}
      </p>
      {counts.length > 0 && (
        <Table
          caption="Calls by effect, in force and with this policy"
          columns={[
            { key: 'effect', header: 'Effect', cell: (row) => effect(row.value) },
            { key: 'now', header: `Version ${report.versionInForce}`, nowrap: true, cell: (row) => String(row.now) },
            { key: 'candidate', header: 'This policy', nowrap: true, cell: (row) => String(row.candidate) },
          ]}
          rows={counts}
          rowKey={(row) => row.value}
        />
      )}
      {report.changes.map((change) => (
        <details key={`${change.from} ${change.to} ${change.rule ?? ''}`} class="dry-run-change">
          <summary>
            {effect(change.from)} → {effect(change.to)}
            {change.rule ? (
              <>
                {' '}
                by <span class="mono">{change.rule}</span>
              </>
            ) : (
              ' (no rule matches)'
            )}
            : {plural(change.calls, 'call')}
          </summary>
          <Table
            caption={`The newest ${plural(change.examples.length, 'call')} of this change`}
            columns={EXAMPLE_COLUMNS}
            rows={change.examples}
            rowKey={(example) => String(example.seq)}
          />
        </details>
      ))}
      <ul class="dry-run-notes muted">
        {report.notes.map((note) => (
          <li key={note}>{note}</li>
        ))}
      </ul>
    </section>
  );
}
