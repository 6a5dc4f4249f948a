import {
  type Campaign,
  type CampaignDetails,
  type CampaignTask,
  type CycleOutcome,
  type LeadImportReport,
  QUOTA_KINDS,
  type QuotaKind,
  type Session,
  createCampaign,
  getCampaign,
  importLeadsCsv,
  listCampaignTasks,
  listCampaigns,
  runCycle,
  setCampaignRunning,
} from './api';
import { h, newestOnly } from './dom';
import { alertBox, sessionEnded } from './feedback';

const KIND_LABELS: Record<QuotaKind, string> = {
  profile_lookup: 'Profile look-ups',
  linkedin_message: 'LinkedIn messages',
  email: 'Emails',
};

/** The Campaigns page: list and create on one side, the chosen campaign's detail on the other. */
export function campaignsView(session: Session, onUnauthorized: () => void): HTMLElement {
  let selectedId: string | undefined;
  let busy = false;

  const list = h('ul', { class: 'plain campaign-list' });
  const listStatus = h('div', { 'aria-live': 'polite' });
  const nameInput = h('input', { id: 'campaign-name', name: 'name', autocomplete: 'off', maxlength: '200', required: true });
  const createForm = h(
    'form',
    { class: 'inline-form' },
    h('div', {}, h('label', { for: 'campaign-name' }, 'Campaign name'), nameInput),
    h('button', { type: 'submit' }, 'Create campaign'),
  );
  const detail = h('section', { 'aria-labelledby': 'campaign-title', class: 'campaign-detail' });

  function failed(error: unknown): boolean {
    if (sessionEnded(error)) onUnauthorized();
    return sessionEnded(error);
  }

  async function refreshList(): Promise<void> {
    try {
      const campaigns = await listCampaigns(session);
      listStatus.replaceChildren();
      list.replaceChildren(...(campaigns.length === 0 ? [h('li', {}, 'No campaigns yet.')] : campaigns.map((c) => campaignItem(c))));
    } catch (error) {
      if (!failed(error)) listStatus.replaceChildren(alertBox(error));
    }
  }

  function campaignItem(campaign: Campaign): HTMLElement {
    return h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          'aria-current': String(campaign.id === selectedId),
          onclick: () => {
            importStatus.replaceChildren();
            cycleStatus.replaceChildren();
            void openCampaign(campaign.id);
          },
        },
        h('span', { class: 'name' }, campaign.name),
        h('span', { class: `badge ${campaign.status}` }, campaign.status),
      ),
    );
  }

  createForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      try {
        const campaign = await createCampaign(session, nameInput.value);
        nameInput.value = '';
        listStatus.replaceChildren();
        await openCampaign(campaign.id);
      } catch (error) {
        if (!failed(error)) listStatus.replaceChildren(alertBox(error));
      }
    })();
  });

  const shownCampaign = newestOnly();

  async function openCampaign(id: string): Promise<void> {
    selectedId = id;
    void refreshList();
    const current = shownCampaign.begin();
    detail.setAttribute('aria-busy', 'true');
    try {
      const [campaign, tasks] = await Promise.all([getCampaign(session, id), listCampaignTasks(session, id)]);
      if (current()) detail.replaceChildren(...detailView(campaign, tasks));
    } catch (error) {
      if (current() && !failed(error)) detail.replaceChildren(h('h2', { id: 'campaign-title' }, 'Campaign'), alertBox(error));
    } finally {
      if (current()) detail.removeAttribute('aria-busy');
    }
  }

  const importStatus = h('div', { 'aria-live': 'polite' });
  const cycleStatus = h('div', { 'aria-live': 'polite', class: 'cycle-outcome' });

  function detailView(campaign: CampaignDetails, tasks: CampaignTask[]): Node[] {
    const running = campaign.status === 'active';
    const completed = campaign.status === 'completed';
    const fileInput = h('input', { id: 'leads-file', name: 'leads', type: 'file', accept: '.csv,text/csv', required: true });
    const importForm = h(
      'form',
      { class: 'inline-form' },
      h('div', {}, h('label', { for: 'leads-file' }, 'Leads CSV file (name, linkedinUrl, email)'), fileInput),
      h('button', { type: 'submit', disabled: completed }, 'Import leads'),
    );
    importForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const file = fileInput.files?.[0];
      if (!file) return;
      void (async () => {
        try {
          const report = await importLeadsCsv(session, campaign.id, await file.text());
          await openCampaign(campaign.id);
          importStatus.replaceChildren(importReport(report));
        } catch (error) {
          if (!failed(error)) importStatus.replaceChildren(alertBox(error));
        }
      })();
    });

    const toggle = h(
      'button',
      {
        type: 'button',
        disabled: completed,
        onclick: () =>
          void act(async () => {
            await setCampaignRunning(session, campaign.id, !running);
            cycleStatus.replaceChildren();
          }),
      },
      running ? 'Pause' : 'Start',
    );
    const cycle = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        disabled: !running,
        onclick: () =>
          void act(async () => {
            const outcome = await runCycle(session, campaign.id);
            cycleStatus.replaceChildren(outcomeView(outcome));
          }),
      },
      'Run one cycle',
    );

    return [
      h('h2', { id: 'campaign-title' }, campaign.name),
      h(
        'p',
        { class: 'campaign-status' },
        'Status: ',
        h('strong', { 'data-status': campaign.status }, campaign.status),
        ` · ${campaign.leads} lead${campaign.leads === 1 ? '' : 's'}`,
        ` · tasks: ${campaign.tasks.Completed} completed, ${campaign.tasks.Pending + campaign.tasks.InProgress} to do, ${campaign.tasks.Failed} failed`,
      ),
      h('div', { class: 'actions' }, toggle, cycle),
      cycleStatus,
      h('h3', {}, `Today's quota (${campaign.usage.day} UTC)`),
      h('div', { class: 'gauges' }, ...QUOTA_KINDS.map((kind) => gauge(campaign, kind))),
      h('h3', {}, 'Import leads'),
      importForm,
      importStatus,
      h('h3', {}, 'Task timeline'),
      timeline(tasks),
    ];
  }

  async function act(work: () => Promise<void>): Promise<void> {
    if (busy || !selectedId) return;
    busy = true;
    detail.querySelectorAll<HTMLButtonElement>('.actions button').forEach((button) => (button.disabled = true));
    const id = selectedId;
    let problem: unknown = null;
    try {
      await work();
    } catch (error) {
      if (failed(error)) return;
      problem = error;
    } finally {
      busy = false;
    }
    await openCampaign(id);
    if (problem) cycleStatus.replaceChildren(alertBox(problem));
    detail.querySelector<HTMLButtonElement>('.actions button:not(:disabled)')?.focus();
  }

  void refreshList();
  detail.append(h('h2', { id: 'campaign-title' }, 'Campaign'), h('p', {}, 'Create a campaign or choose one from the list.'));

  return h(
    'main',
    { class: 'campaigns', id: 'campaigns' },
    h('section', { 'aria-labelledby': 'campaigns-title' }, h('h2', { id: 'campaigns-title' }, 'Campaigns'), createForm, listStatus, list),
    detail,
  );
}

function gauge(campaign: CampaignDetails, kind: QuotaKind): HTMLElement {
  const { used, limit } = campaign.usage.kinds[kind].campaign;
  const id = `gauge-${kind}`;
  return h(
    'div',
    { class: 'gauge' },
    h('label', { for: id }, `${KIND_LABELS[kind]}: ${used} / ${limit}`),
    h('meter', { id, min: '0', max: String(Math.max(limit, 1)), value: String(used), high: String(limit * 0.8), optimum: '0' }),
  );
}

function importReport(report: LeadImportReport): HTMLElement {
  return h(
    'div',
    { class: 'notice import-report' },
    h(
      'p',
      {},
      `${report.imported} imported, ${report.duplicates.length} duplicate${report.duplicates.length === 1 ? '' : 's'}, ${report.errors.length} error${report.errors.length === 1 ? '' : 's'}.`,
    ),
    report.duplicates.length > 0 &&
      h('ul', {}, ...report.duplicates.map((d) => h('li', {}, `${d.line === null ? '' : `Line ${d.line}: `}duplicate ${d.linkedinUrl}`))),
    report.errors.length > 0 &&
      h(
        'ul',
        { class: 'row-errors' },
        ...report.errors.map((e) => h('li', {}, `Line ${e.line}${e.field ? ` (${e.field})` : ''}: ${e.message}`)),
      ),
  );
}

function outcomeView(outcome: CycleOutcome): HTMLElement {
  const rows: [string, string][] = [
    ['Status', `${outcome.status}${outcome.code ? ` (${outcome.code})` : ''}`],
    ['Message', outcome.message],
  ];
  if (outcome.task) rows.push(['Task', `${outcome.task.type} for ${outcome.task.leadName} · ${outcome.task.status}`]);
  if (outcome.proposal) {
    rows.push(['Proposed action', `${outcome.proposal.action} (by ${outcome.proposal.by}): ${outcome.proposal.reason}`]);
  }
  if (outcome.validation && !outcome.validation.accepted) {
    rows.push(['Validation', `refused: ${outcome.validation.problems.join('; ')}`]);
  }
  if (outcome.execution) {
    rows.push([
      'Execution',
      `${outcome.execution.status}${outcome.execution.errorCode ? ` (${outcome.execution.errorCode})` : ''} · ${outcome.execution.durationMs} ms`,
    ]);
  }
  rows.push([
    'Verification',
    outcome.verification ? `${outcome.verification.verified ? 'verified' : 'not verified'}: ${outcome.verification.detail}` : '—',
  ]);
  return h(
    'div',
    { class: 'outcome' },
    h('h3', {}, 'Last cycle'),
    h('dl', {}, ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)])),
  );
}

function timeline(tasks: CampaignTask[]): HTMLElement {
  if (tasks.length === 0) return h('p', {}, 'No leads yet.');
  const byLead = new Map<string, CampaignTask[]>();
  for (const task of tasks) byLead.set(task.leadId, [...(byLead.get(task.leadId) ?? []), task]);
  return h(
    'ul',
    { class: 'plain timeline' },
    ...[...byLead.values()]
      .sort((a, b) => a[0].leadName.localeCompare(b[0].leadName, undefined, { numeric: true }))
      .map((steps) =>
        h(
          'li',
          {},
          h('h4', {}, steps[0].leadName),
          h(
            'ol',
            {},
            ...steps
              .sort((a, b) => a.step - b.step)
              .map((task) =>
                h(
                  'li',
                  { class: `step ${task.status}` },
                  h('span', {}, task.type),
                  h('span', { class: 'step-status' }, task.status),
                  task.lastError && h('span', { class: 'step-error' }, task.lastError),
                ),
              ),
          ),
        ),
      ),
  );
}
