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
import { CAMPAIGN_STATUS, labelOf, plural } from '../../lib/labels';
import { useAction } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { Alert, Badge, Button, Card, Field } from '../../ui';
import { CampaignSettings } from './campaign-settings';
import { ImportReport, OutcomeCard } from './reports';
import { Timeline } from './timeline';

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
  const { busy, error, run } = useAction<'toggle' | 'cycle' | 'import'>();
  const [outcome, setOutcome] = useState<CycleOutcome | null>(null);
  const [cycles, setCycles] = useState(0);
  const [report, setReport] = useState<LeadImportReport | null>(null);
  const running = campaign.status === 'active';
  const completed = campaign.status === 'completed';
  const status = labelOf(CAMPAIGN_STATUS, campaign.status);
  const todo = campaign.tasks.Pending + campaign.tasks.InProgress;

  /** Runs a change; the campaign is read again whether it went through or not. */
  async function act(name: 'toggle' | 'cycle' | 'import', work: () => Promise<void>) {
    await run(name, work);
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
