import {
  AUDIT_SOURCES,
  AUDIT_STATUSES,
  type AuditFilter,
  type AuditRow,
  type ChainVerification,
  type Decision,
  type Session,
  getDecision,
  listAuditRows,
  verifyAuditChain,
} from './api';
import { type Child, h, newestOnly, present } from './dom';
import { alertBox, sessionEnded } from './feedback';

const COLUMNS = ['#', 'Tool', 'Status', 'Actor', 'Decision', 'Source', 'ms', 'Time'] as const;
const time = (iso: string): string => new Date(iso).toLocaleString();
const shortId = (id: string): string => id.slice(0, 8);
const json = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** The Audit page (admins only): the filterable, cursor-paged audit log, a row's or a decision's detail, and the chain check. */
export function auditView(session: Session, onUnauthorized: () => void): HTMLElement {
  let filter: AuditFilter = {};
  let cursor: string | null = null;
  let shown = 0;
  let loading = false;
  const freshLoads = newestOnly();
  let current = freshLoads.begin();

  const failed = (error: unknown): boolean => {
    if (sessionEnded(error)) onUnauthorized();
    return sessionEnded(error);
  };

  const select = (id: string, values: readonly string[]): HTMLSelectElement =>
    h('select', { id, name: id }, h('option', { value: '' }, 'Any'), ...values.map((value) => h('option', { value }, value)));
  const field = (id: string, label: string, control: HTMLElement): HTMLElement => h('div', {}, h('label', { for: id }, label), control);

  const source = select('audit-source', AUDIT_SOURCES);
  const status = select('audit-status', AUDIT_STATUSES);
  const tool = h('input', { id: 'audit-tool', name: 'tool', autocomplete: 'off', maxlength: '64', placeholder: 'send_email' });
  const actor = h('input', { id: 'audit-actor', name: 'actorId', autocomplete: 'off', maxlength: '36', placeholder: 'user id (UUID)' });
  const from = h('input', { id: 'audit-from', name: 'from', type: 'datetime-local' });
  const to = h('input', { id: 'audit-to', name: 'to', type: 'datetime-local' });
  const filters = h(
    'form',
    { class: 'filters', 'aria-label': 'Audit filters' },
    field('audit-source', 'Source', source),
    field('audit-tool', 'Tool', tool),
    field('audit-status', 'Status', status),
    field('audit-actor', 'Actor', actor),
    field('audit-from', 'From (your time)', from),
    field('audit-to', 'Until (your time)', to),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h('button', { type: 'reset', class: 'secondary' }, 'Clear'),
    ),
  );

  const verifyStatus = h('div', { 'aria-live': 'polite' });
  const verifyButton = h('button', { type: 'button', class: 'secondary', onclick: () => void verify() }, 'Verify integrity');
  const listStatus = h('div', { 'aria-live': 'polite' });
  const summary = h('p', { class: 'summary', 'aria-live': 'polite' });
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'audit-table' },
    h('caption', { class: 'visually-hidden' }, 'Audit rows, newest first'),
    h('thead', {}, h('tr', {}, ...COLUMNS.map((name) => h('th', { scope: 'col' }, name)))),
    body,
  );
  const older = h('button', { type: 'button', class: 'secondary', hidden: true, onclick: () => void load(false) }, 'Show older rows');
  const detail = h('section', { class: 'audit-detail', 'aria-labelledby': 'audit-detail-title' });

  function readFilter(): AuditFilter {
    const isoOf = (input: HTMLInputElement): string | undefined => (input.value ? new Date(input.value).toISOString() : undefined);
    return {
      source: (source.value || undefined) as AuditFilter['source'],
      status: (status.value || undefined) as AuditFilter['status'],
      tool: tool.value.trim() || undefined,
      actorId: actor.value.trim() || undefined,
      from: isoOf(from),
      to: isoOf(to),
    };
  }

  /**
   * The first page for the current filter (`fresh`), or the next older one. A fresh load
   * supersedes any load still under way: only the newest filter's answer is shown.
   */
  async function load(fresh: boolean): Promise<void> {
    if (loading && !fresh) return;
    if (fresh) current = freshLoads.begin();
    const mine = current;
    loading = true;
    older.disabled = true;
    table.setAttribute('aria-busy', 'true');
    try {
      const page = await listAuditRows(session, filter, fresh ? null : cursor);
      if (!mine()) return;
      if (fresh) {
        body.replaceChildren();
        shown = 0;
      }
      body.append(...page.items.map((row) => rowView(row)));
      shown += page.items.length;
      cursor = page.nextCursor;
      listStatus.replaceChildren();
      summary.textContent =
        shown === 0 ? 'No audit rows match these filters.' : `${shown} row${shown === 1 ? '' : 's'}${cursor ? ', older ones below' : ''}.`;
      older.hidden = cursor === null;
    } catch (error) {
      if (mine() && !failed(error)) listStatus.replaceChildren(alertBox(error));
    } finally {
      if (mine()) {
        loading = false;
        older.disabled = false;
        table.removeAttribute('aria-busy');
      }
    }
  }

  /** One row; each cell carries its column name, which narrow screens show in place of the header. */
  function rowView(row: AuditRow): HTMLElement {
    const link = (text: string, label: string, onclick: () => void, extra = ''): HTMLElement =>
      h('button', { type: 'button', class: `link ${extra}`, 'aria-label': label, onclick }, text);
    const cells: Record<(typeof COLUMNS)[number], Child> = {
      '#': String(row.seq),
      Tool: link(row.tool, `Row ${row.seq}: ${row.tool}`, () => showRow(row)),
      Status: h('span', { class: `status ${row.status}` }, row.status, row.errorCode && ` (${row.errorCode})`),
      Actor: link(
        shortId(row.actorId),
        `Show only actor ${row.actorId}`,
        () => {
          actor.value = row.actorId;
          filters.requestSubmit();
        },
        'mono',
      ),
      Decision: row.decisionId
        ? link(shortId(row.decisionId), `Decision of row ${row.seq}`, () => void showDecision(row.decisionId!), 'mono')
        : '—',
      Source: row.source,
      ms: row.durationMs === null ? '—' : String(row.durationMs),
      Time: h('time', { datetime: row.createdAt }, time(row.createdAt)),
    };
    return h('tr', { 'data-seq': String(row.seq) }, ...COLUMNS.map((name) => h('td', { 'data-label': name }, cells[name])));
  }

  function showRow(row: AuditRow): void {
    detail.replaceChildren(
      ...present(
        h('h2', { id: 'audit-detail-title', tabindex: '-1' }, `Row ${row.seq}: ${row.tool}`),
        facts([
          ['Time', time(row.createdAt)],
          ['Source', row.source],
          ['Status', `${row.status}${row.errorCode ? ` (${row.errorCode})` : ''}`],
          ['Duration', row.durationMs === null ? '—' : `${row.durationMs} ms`],
          ['Actor', row.actorId],
          ['Conversation', row.conversationId],
          ['Campaign', row.campaignId],
          ['Decision', row.decisionId],
          ['Pending row', row.pendingSeq === null ? null : String(row.pendingSeq)],
          ['Hash', row.hash],
          ['Previous hash', row.prevHash],
        ]),
        row.decisionId &&
          h('button', { type: 'button', class: 'secondary', onclick: () => void showDecision(row.decisionId!) }, 'Open its decision'),
        h('h3', {}, 'Arguments'),
        h('pre', {}, json(row.arguments)),
        h('h3', {}, 'Result'),
        h('pre', {}, json(row.result)),
        row.securityEvents.length > 0 && h('h3', {}, 'Security events'),
        row.securityEvents.length > 0 && h('pre', {}, json(row.securityEvents)),
      ),
    );
    focusDetail();
  }

  async function showDecision(id: string): Promise<void> {
    detail.setAttribute('aria-busy', 'true');
    try {
      detail.replaceChildren(...decisionView(await getDecision(session, id)));
      focusDetail();
    } catch (error) {
      if (!failed(error)) detail.replaceChildren(h('h2', { id: 'audit-detail-title' }, 'Decision'), alertBox(error));
    } finally {
      detail.removeAttribute('aria-busy');
    }
  }

  function focusDetail(): void {
    const heading = detail.querySelector<HTMLElement>('h2');
    heading?.focus();
    heading?.scrollIntoView({ block: 'nearest' });
  }

  async function verify(): Promise<void> {
    verifyButton.disabled = true;
    verifyStatus.replaceChildren(h('p', {}, 'Checking every row…'));
    try {
      verifyStatus.replaceChildren(verificationView(await verifyAuditChain(session)));
    } catch (error) {
      if (!failed(error)) verifyStatus.replaceChildren(alertBox(error));
    } finally {
      verifyButton.disabled = false;
    }
  }

  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    filter = readFilter();
    void load(true);
  });
  // A reset clears the fields after this event, so read them on the next task.
  filters.addEventListener('reset', () => setTimeout(() => filters.requestSubmit()));

  detail.append(h('h2', { id: 'audit-detail-title' }, 'Details'), h('p', {}, 'Choose a row’s tool or decision to see it here.'));
  void load(true);

  return h(
    'main',
    { class: 'audit', id: 'audit' },
    h(
      'section',
      { 'aria-labelledby': 'audit-title' },
      h('h2', { id: 'audit-title' }, 'Audit log'),
      filters,
      h('div', { class: 'actions' }, verifyButton),
      verifyStatus,
      listStatus,
      summary,
      h('div', { class: 'table-scroll', role: 'region', 'aria-label': 'Audit rows', tabindex: '0' }, table),
      older,
    ),
    detail,
  );
}

function facts(rows: [string, string | null][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    ...rows.filter(([, value]) => value !== null).flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

function decisionView(decision: Decision): Node[] {
  const tokens = `${decision.promptTokens} prompt + ${decision.completionTokens} completion`;
  return [
    h('h2', { id: 'audit-detail-title', tabindex: '-1' }, `Decision: ${decision.decisionType}`),
    facts([
      ['Time', time(decision.createdAt)],
      ['Status', decision.status],
      ['Actor', decision.actorId],
      ['Conversation', decision.conversationId],
      ['Campaign', decision.campaignId],
      ['Model', `${decision.provider} / ${decision.model} · ${decision.iterations} call${decision.iterations === 1 ? '' : 's'}`],
      ['Tokens', tokens],
      ['Cost', decision.cost === null ? null : `$${decision.cost.toFixed(6)}`],
      ['Duration', `${decision.durationMs} ms`],
      ['Failure', decision.failureClass],
    ]),
    h('h3', {}, `Tool calls (${decision.toolCalls.length})`),
    decision.toolCalls.length === 0
      ? h('p', {}, 'This decision called no tool.')
      : h(
          'ol',
          { class: 'plain tool-calls' },
          ...decision.toolCalls.map((row) =>
            h(
              'li',
              {},
              h(
                'details',
                { class: 'tool-card' },
                h(
                  'summary',
                  {},
                  h('strong', {}, row.tool),
                  ` · #${row.seq} · `,
                  h('span', { class: `status ${row.status}` }, row.status),
                  row.durationMs === null ? '' : ` · ${row.durationMs} ms`,
                ),
                h(
                  'pre',
                  {},
                  `arguments: ${json(row.arguments)}\nresult: ${json(row.result)}${row.errorCode ? `\nerror: ${row.errorCode}` : ''}`,
                ),
              ),
            ),
          ),
        ),
  ];
}

function verificationView(result: ChainVerification): HTMLElement {
  if (result.verified) {
    return h(
      'p',
      { class: 'notice', 'data-verified': 'true' },
      `Chain verified: ${result.checkedRows} row${result.checkedRows === 1 ? '' : 's'} checked, every link and hash holds.`,
      result.headHash && h('span', { class: 'mono hash' }, ` Head hash ${result.headHash}`),
    );
  }
  return h(
    'p',
    { class: 'error', role: 'alert', 'data-verified': 'false' },
    `Chain broken at row ${result.firstBadSeq ?? '?'}: that row was altered, or one before it was deleted (${result.checkedRows} rows checked).`,
  );
}
