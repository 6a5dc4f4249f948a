import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type Campaign,
  type CampaignDetails,
  type CampaignTask,
  createCampaign,
  getCampaign,
  getOutreachStatus,
  listCampaignTasks,
  listCampaigns,
} from '../../api';
import { errorText } from '../../lib/errors';
import { CAMPAIGN_STATUS, labelOf } from '../../lib/labels';
import { routeId } from '../../state/route';
import { currentSession, handledAuthFailure } from '../../state/session';
import { Alert, Badge, Button, Card, EmptyState, TextField } from '../../ui';
import { CampaignDetail } from './campaign-detail';

/** The Campaigns page: list and create on one side, the chosen campaign on the other. */
export function CampaignsPage() {
  const session = currentSession();
  const [campaigns, setCampaigns] = useState<readonly Campaign[] | null>(null);
  const [selected, setSelected] = useState<{ campaign: CampaignDetails; tasks: readonly CampaignTask[]; workers: number } | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [detailError, setDetailError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);

  async function refreshList() {
    try {
      setCampaigns(await listCampaigns(session));
    } catch (failure) {
      if (!handledAuthFailure(failure)) setError(errorText(failure));
    }
  }

  async function open(id: string) {
    setDetailError(null);
    try {
      const [campaign, tasks, status] = await Promise.all([
        getCampaign(session, id),
        listCampaignTasks(session, id),
        getOutreachStatus(session),
      ]);
      setSelected({ campaign, tasks, workers: status.activeWorkers });
      void refreshList();
    } catch (failure) {
      if (!handledAuthFailure(failure)) setDetailError(errorText(failure));
    }
  }

  useEffect(() => void refreshList(), []);

  // A link to a campaign (`#campaigns?campaign=<id>`, a notification's) opens its detail; an id not of the person's says so.
  const linked = routeId('campaign');
  const revealLinked = useRef(false);
  useEffect(() => {
    if (!linked) return;
    revealLinked.current = true;
    void open(linked);
  }, [linked]);
  // On a narrow screen the detail is below the list: the linked campaign is brought into view.
  useEffect(() => {
    if (!selected || !revealLinked.current) return;
    revealLinked.current = false;
    document.getElementById('campaign-title')?.scrollIntoView({ block: 'start' });
  }, [selected]);

  async function create(event: SubmitEvent) {
    event.preventDefault();
    setCreating(true);
    setError(null);
    try {
      const campaign = await createCampaign(session, name);
      setName('');
      await open(campaign.id);
    } catch (failure) {
      if (!handledAuthFailure(failure)) setError(errorText(failure));
    } finally {
      setCreating(false);
    }
  }

  return (
    <div class="page-body campaigns-layout">
      <section class="stack" aria-labelledby="campaigns-title">
        <h1 id="campaigns-title">Campaigns</h1>
        <form class="inline-form" onSubmit={(event) => void create(event)}>
          <TextField
            label="Campaign name"
            id="campaign-name"
            name="name"
            autocomplete="off"
            maxLength={120}
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <Button type="submit" busy={creating}>
            Create campaign
          </Button>
        </form>
        <Alert message={error} />
        {campaigns === null ? (
          <p class="muted small">Loading campaigns…</p>
        ) : campaigns.length === 0 ? (
          <EmptyState title="No campaigns yet.">
            <p>Create one, import leads as CSV, and start it: each cycle takes one checked, audited action.</p>
          </EmptyState>
        ) : (
          <ul class="plain campaign-list">
            {campaigns.map((campaign) => {
              const status = labelOf(CAMPAIGN_STATUS, campaign.status);
              return (
                <li key={campaign.id}>
                  <button
                    type="button"
                    class="campaign-item"
                    aria-current={campaign.id === selected?.campaign.id ? 'true' : undefined}
                    onClick={() => void open(campaign.id)}
                  >
                    <span class="campaign-name">{campaign.name}</span>
                    <Badge tone={status.tone}>{status.label}</Badge>
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      {detailError ? (
        <Card title="Campaign">
          <Alert message={detailError} />
        </Card>
      ) : selected ? (
        <CampaignDetail
          key={selected.campaign.id}
          campaign={selected.campaign}
          tasks={selected.tasks}
          workers={selected.workers}
          onChanged={() => open(selected.campaign.id)}
        />
      ) : (
        <Card title="Campaign">
          <p class="muted">Create a campaign or choose one from the list.</p>
        </Card>
      )}
    </div>
  );
}
