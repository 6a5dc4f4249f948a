import type { CycleOutcome, LeadImportReport } from '../../api';
import { taskKindLabel, TASK_STATUS, labelOf, plural } from '../../lib/labels';
import { Card } from '../../ui';

/** What importing a CSV came to: how many leads, and each duplicate and refused line. */
export function ImportReport({ report }: { report: LeadImportReport }) {
  return (
    <div class="notice import-report" role="status">
      <p>
        {report.imported} imported, {plural(report.duplicates.length, 'duplicate')}, {plural(report.errors.length, 'error')}.
      </p>
      {report.duplicates.length > 0 && (
        <ul>
          {report.duplicates.map((d, i) => (
            <li key={i}>
              {d.line === null ? '' : `Line ${d.line}: `}duplicate {d.linkedinUrl}
            </li>
          ))}
        </ul>
      )}
      {report.errors.length > 0 && (
        <ul class="row-errors">
          {report.errors.map((e, i) => (
            <li key={i}>
              Line {e.line}
              {e.field ? ` (${e.field})` : ''}: {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The last cycle's outcome; `cycle` counts the cycles run from this page (data-cycle, for the tests). */
export function OutcomeCard({ outcome, cycle }: { outcome: CycleOutcome; cycle: number }) {
  const rows: [string, string][] = [['Result', outcome.message]];
  if (outcome.task) {
    rows.push([
      'Task',
      `${taskKindLabel(outcome.task.type)} for ${outcome.task.leadName} · ${labelOf(TASK_STATUS, outcome.task.status).label}`,
    ]);
  }
  if (outcome.proposal) rows.push(['Proposed', `${outcome.proposal.action} (by ${outcome.proposal.by}): ${outcome.proposal.reason}`]);
  if (outcome.validation && !outcome.validation.accepted) rows.push(['Refused', outcome.validation.problems.join('; ')]);
  if (outcome.execution) {
    rows.push([
      'Execution',
      `${outcome.execution.status}${outcome.execution.errorCode ? ` (${outcome.execution.errorCode})` : ''} · ${outcome.execution.durationMs} ms`,
    ]);
  }
  if (outcome.verification) {
    rows.push(['Verification', `${outcome.verification.verified ? 'verified' : 'not verified'}: ${outcome.verification.detail}`]);
  }
  return (
    <div class="outcome" data-outcome={outcome.status} data-cycle={cycle}>
      <Card title="Last cycle" level={3}>
        <dl class="facts">{rows.flatMap(([term, value]) => [<dt key={`t${term}`}>{term}</dt>, <dd key={`d${term}`}>{value}</dd>])}</dl>
      </Card>
    </div>
  );
}
