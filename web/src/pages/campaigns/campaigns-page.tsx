import { useEffect, useRef, useState } from 'preact/hooks';
import { createCampaign, getCampaign, getOutreachStatus, listCampaignTasks, listCampaigns } from '../../api';
import { CAMPAIGN_STATUS, labelOf } from '../../lib/labels';
import { useAction, useResource } from '../../lib/use-resource';
import { routeId } from '../../state/route';
import { currentSession } from '../../state/session';
import { Alert, Badge, Button, Card, EmptyState, TextField } from '../../ui';
import { CampaignDetail } from './campaign-detail';
import './campaigns.css';

/** The Campaigns page: list and create on one side, the chosen campaign on the other. */
export function CampaignsPage() {
  const session = currentSession();
  const list = useResource(() => listCampaigns(session), []);
  const campaigns = list.data ?? null;
  const [name, setName] = useState('');
  const creating = useAction<'create'>();
  /** The campaign chosen, and how many times it was asked for: each time reads it again. */
  const [chosen, setChosen] = useState<{ id: string; times: number } | null>(null);
  const detail = useResource(async () => {
    if (!chosen) return null;
    const [campaign, tasks, status] = await Promise.all([
      getCampaign(session, chosen.id),
      listCampaignTasks(session, chosen.id),
      getOutreachStatus(session),
    ]);
    void list.reload();
    return { campaign, tasks, workers: status.activeWorkers };
  }, [chosen]);
  const selected = detail.data ?? null;
  const open = (id: string) => setChosen((current) => ({ id, times: (current?.times ?? 0) + 1 }));

  // A link to a campaign (`#campaigns?campaign=<id>`, a notification's) opens its detail; an id not of the person's says so.
  const linked = routeId('campaign');
  const revealLinked = useRef(false);
  useEffect(() => {
    if (!linked) return;
    revealLinked.current = true;
    open(linked);
  }, [linked]);
  // On a narrow screen the detail is below the list: the linked campaign is brought into view.
  useEffect(() => {
    if (!selected || !revealLinked.current) return;
    revealLinked.current = false;
    document.getElementById('campaign-title')?.scrollIntoView({ block: 'start' });
  }, [selected]);

  function create(event: SubmitEvent) {
    event.preventDefault();
    void creating.run('create', async () => {
      const campaign = await createCampaign(session, name);
      setName('');
      open(campaign.id);
    });
  }

  return (
    <div class="page-body campaigns-layout">
      <section class="stack" aria-labelledby="campaigns-title">
        <h1 id="campaigns-title">Campaigns</h1>
        <form class="inline-form" onSubmit={create}>
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
          <Button type="submit" busy={creating.busy === 'create'}>
            Create campaign
          </Button>
        </form>
        <Alert message={list.error ?? creating.error} />
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
                    onClick={() => open(campaign.id)}
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
      {detail.error ? (
        <Card title="Campaign">
          <Alert message={detail.error} />
        </Card>
      ) : selected ? (
        <CampaignDetail
          key={selected.campaign.id}
          campaign={selected.campaign}
          tasks={selected.tasks}
          workers={selected.workers}
          onChanged={detail.reload}
        />
      ) : (
        <Card title="Campaign">
          <p class="muted">Create a campaign or choose one from the list.</p>
        </Card>
      )}
    </div>
  );
}
