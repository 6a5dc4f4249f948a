import { useState } from 'preact/hooks';
import {
  type CampaignDetails,
  type CampaignTask,
  type CycleOutcome,
  type LeadImportReport,
  QUOTA_KINDS,
  type QuotaKind,
  importLeadsCsv,
  runCycle,
  setCampaignRunning,
} from '../../api';
import { errorText } from '../../lib/errors';
import { CAMPAIGN_STATUS, TASK_STATUS, taskKindLabel, labelOf, plural } from '../../lib/labels';
import { reviewEnding, taskStatus } from '../../lib/holds';
import { fullTime } from '../../lib/time';
import { currentSession, handledAuthFailure } from '../../state/session';
import { CampaignSettings } from './campaign-settings';
import { Alert, Badge, Button, Card, EmptyState, Field } from '../../ui';

const QUOTA_LABELS: Record<QuotaKind, string> = {
  profile_lookup: 'Profile look-ups',
  linkedin_message: 'LinkedIn messages',
  email: 'Emails',
};

interface Props {
  campaign: CampaignDetails;
  tasks: readonly CampaignTask[];
  /** Outreach workers running now: none means cycles run only from the button below. */
  workers: number;
  /** Reloads the campaign after a change. */
  onChanged: () => Promise<void>;
}

export function CampaignDetail({ campaign, tasks, workers, onChanged }: Props) {
  const session = currentSession();
  const [busy, setBusy] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<CycleOutcome | null>(null);
  const [cycles, setCycles] = useState(0);
  const [report, setReport] = useState<LeadImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const running = campaign.status === 'active';
  const completed = campaign.status === 'completed';
  const status = labelOf(CAMPAIGN_STATUS, campaign.status);
  const todo = campaign.tasks.Pending + campaign.tasks.InProgress;

  async function act(name: string, work: () => Promise<void>) {
    setBusy(name);
    setError(null);
    try {
      await work();
    } catch (failure) {
      if (!handledAuthFailure(failure)) setError(errorText(failure));
    } finally {
      setBusy(null);
    }
    await onChanged();
  }

  async function importFile(event: SubmitEvent) {
    event.preventDefault();
    const file = (event.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>('input[type=file]')?.files?.[0];
    if (!file) return;
    await act('import', async () => setReport(await importLeadsCsv(session, campaign.id, await file.text())));
  }

  return (
    <section class="campaign-detail stack" aria-labelledby="campaign-title">
      <header class="spread">
        <div class="row">
          <h2 id="campaign-title">{campaign.name}</h2>
          <Badge tone={status.tone}>{status.label}</Badge>
        </div>
        <div class="row">
          <Button
            busy={busy === 'toggle'}
            disabled={completed || busy !== null}
            variant={running ? 'secondary' : 'primary'}
            onClick={() => void act('toggle', async () => void (await setCampaignRunning(session, campaign.id, !running)))}
          >
            {running ? 'Pause' : 'Start'}
          </Button>
          <Button
            variant="secondary"
            busy={busy === 'cycle'}
            disabled={!running || busy !== null}
            onClick={() =>
              void act('cycle', async () => {
                setOutcome(await runCycle(session, campaign.id));
                setCycles((n) => n + 1);
              })
            }
          >
            Run one cycle
          </Button>
        </div>
      </header>
      <p class="campaign-status" data-status={campaign.status}>
        {plural(campaign.leads, 'lead')} · {campaign.tasks.Completed} done · {todo} to do · {campaign.tasks.Failed} failed
        {campaign.tasks.AwaitingReview > 0 && ` · ${campaign.tasks.AwaitingReview} awaiting review`}
        {campaign.tasks.Cancelled > 0 && ` · ${campaign.tasks.Cancelled} cancelled`}
      </p>
      {running &&
        (workers > 0 ? (
          <p class="notice worker-status" data-workers={workers}>
            An outreach worker is running this campaign: cycles run by themselves.
          </p>
        ) : (
          <p class="notice warning worker-status" data-workers="0">
            No outreach worker is running: this campaign moves only when you press “Run one cycle”.
          </p>
        ))}
      <Alert message={error} />
      {outcome && <OutcomeCard outcome={outcome} cycle={cycles} />}
      <CampaignSettings campaign={campaign} onSaved={onChanged} />
      <Card title={`Today's quota (${campaign.usage.day} UTC)`} level={3}>
        <div class="gauges">
          {QUOTA_KINDS.map((kind) => {
            const { used, limit } = campaign.usage.kinds[kind].campaign;
            const id = `gauge-${kind}`;
            return (
              <div class="gauge" key={kind}>
                <label for={id}>
                  {QUOTA_LABELS[kind]}: {used} / {limit}
                </label>
                <meter id={id} min={0} max={Math.max(limit, 1)} value={used} high={limit * 0.8} optimum={0} />
              </div>
            );
          })}
        </div>
      </Card>
      <Card title="Import leads" level={3}>
        <form class="inline-form" onSubmit={(event) => void importFile(event)}>
          <Field label="Leads CSV file (name, linkedinUrl, email)" id="leads-file">
            {(ids) => <input {...ids} class="input" name="leads" type="file" accept=".csv,text/csv" required />}
          </Field>
          <Button type="submit" variant="secondary" busy={busy === 'import'} disabled={completed || busy !== null}>
            Import leads
          </Button>
        </form>
        {report && <ImportReport report={report} />}
      </Card>
      <Card title="Task timeline" level={3}>
        <Timeline tasks={tasks} />
      </Card>
    </section>
  );
}

function ImportReport({ report }: { report: LeadImportReport }) {
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
function OutcomeCard({ outcome, cycle }: { outcome: CycleOutcome; cycle: number }) {
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

function Timeline({ tasks }: { tasks: readonly CampaignTask[] }) {
  if (tasks.length === 0) return <EmptyState title="No leads yet.">Import a CSV of leads to plan their steps.</EmptyState>;
  const byLead = new Map<string, CampaignTask[]>();
  for (const task of tasks) byLead.set(task.leadId, [...(byLead.get(task.leadId) ?? []), task]);
  return (
    <ul class="plain timeline">
      {/* By name: the leads of one import share their creation time, so the API's order among them is not theirs. */}
      {[...byLead.values()]
        .sort((a, b) => a[0].leadName.localeCompare(b[0].leadName, undefined, { numeric: true }))
        .map((steps) => (
          <li key={steps[0].leadId} class="lead">
            <h4>{steps[0].leadName}</h4>
            <ol class="plain steps">
              {steps
                .sort((a, b) => a.step - b.step)
                .map((task) => {
                  const status = taskStatus(task);
                  return (
                    <li key={task.id} class={`step step-${task.status}`}>
                      <div class="spread">
                        <span class="step-kind">{taskKindLabel(task.type)}</span>
                        <Badge tone={status.tone}>{status.label}</Badge>
                      </div>
                      {task.sent && (
                        <blockquote class="sent" aria-label={`${taskKindLabel(task.type)} sent to ${task.sent.recipient}`}>
                          <p class="muted small">
                            To {task.sent.recipient}
                            {task.sent.subject && ` · ${task.sent.subject}`}
                          </p>
                          <p class="sent-text">{task.sent.text}</p>
                        </blockquote>
                      )}
                      {task.status === 'Completed' && task.type !== 'ScrapeProfile' && (
                        <p class="muted small step-verified">
                          Verified{typeof task.output?.messageId === 'string' && `: the channel holds it as ${task.output.messageId}`}
                        </p>
                      )}
                      {task.lastError &&
                        (reviewEnding(task.lastError) ? (
                          <p class="step-note small muted">{reviewEnding(task.lastError)}</p>
                        ) : (
                          <p class="step-error small">{task.lastError}</p>
                        ))}
                      {task.completedAt && (
                        <p class="muted small">
                          <time dateTime={task.completedAt}>{fullTime(task.completedAt)}</time>
                        </p>
                      )}
                    </li>
                  );
                })}
            </ol>
          </li>
        ))}
    </ul>
  );
}
