import type { ComponentChildren } from 'preact';
import type { AuditRow, Decision } from '../../api';
import { AUDIT_STATUS, labelOf, plural } from '../../lib/labels';
import { fullTime } from '../../lib/time';
import { Badge } from '../../ui';

const pretty = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function Facts({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {rows
        .filter(([, value]) => value !== null && value !== undefined)
        .flatMap(([term, value]) => [<dt key={`t${term}`}>{term}</dt>, <dd key={`d${term}`}>{value}</dd>])}
    </dl>
  );
}

function StatusBadge({ status, code }: { status: string; code?: string | null }) {
  const { label, tone } = labelOf(AUDIT_STATUS, status);
  return (
    <Badge tone={tone}>
      {label}
      {code ? ` (${code})` : ''}
    </Badge>
  );
}

/** One audit row as stored (redacted), with its place in the chain. */
export function RowDetail({ row }: { row: AuditRow }) {
  return (
    <div class="stack">
      <Facts
        rows={[
          ['Time', fullTime(row.createdAt)],
          ['Actor', row.actorEmail ? `${row.actorEmail} (${row.actorId})` : row.actorId],
          ['Source', row.source],
          ['Status', <StatusBadge status={row.status} code={row.errorCode} />],
          ['Duration', row.durationMs === null ? null : `${row.durationMs} ms`],
          ['Conversation', row.conversationId],
          ['Campaign', row.campaignId],
          ['Decision', row.decisionId],
          ['Pending row', row.pendingSeq === null ? null : String(row.pendingSeq)],
          [
            'Hash',
            row.chain === 'outside' ? (
              'Outside the log: this row was written around the audit log’s triggers (numbered like another row, or neither linked into the chain nor waiting for it). Verify fails on it.'
            ) : row.hash === null ? (
              'Not linked into the chain yet (the sealer does it within a second)'
            ) : (
              <span class="mono hash">{row.hash}</span>
            ),
          ],
          ['Previous hash', row.prevHash && <span class="mono hash">{row.prevHash}</span>],
        ]}
      />
      <h3>Arguments</h3>
      <pre>{pretty(row.arguments)}</pre>
      <h3>Result</h3>
      <pre>{pretty(row.result)}</pre>
      {row.securityEvents.length > 0 && (
        <>
          <h3>Security events</h3>
          <pre>{pretty(row.securityEvents)}</pre>
        </>
      )}
    </div>
  );
}

/** A chat turn or outreach cycle: its model usage and every tool call it made. */
export function DecisionDetail({ decision }: { decision: Decision }) {
  return (
    <div class="stack">
      <Facts
        rows={[
          ['Time', fullTime(decision.createdAt)],
          ['Status', decision.status],
          ['Actor', decision.actorEmail ? `${decision.actorEmail} (${decision.actorId})` : decision.actorId],
          ['Conversation', decision.conversationId],
          ['Message', decision.message?.content],
          ['Question asked', decision.clarificationQuestion],
          ['Campaign', decision.campaignId],
          ['Model', `${decision.provider} / ${decision.model} · ${plural(decision.iterations, 'call')}`],
          ['Tokens', `${decision.promptTokens} prompt + ${decision.completionTokens} completion`],
          ['Cost', decision.cost === null ? null : `$${decision.cost.toFixed(6)}`],
          ['Duration', `${decision.durationMs} ms`],
          ['Failure', decision.failureClass],
        ]}
      />
      <h3>Tool calls ({decision.toolCalls.length})</h3>
      {decision.toolCalls.length === 0 ? (
        <p class="muted">This decision called no tool.</p>
      ) : (
        <ol class="plain stack tool-calls">
          {decision.toolCalls.map((row) => (
            <li key={row.seq}>
              <details class="tool-card">
                <summary>
                  <span class="tool-card-text mono">
                    {row.tool} · #{row.seq}
                    {row.durationMs === null ? '' : ` · ${row.durationMs} ms`}
                  </span>
                  <StatusBadge status={row.status} />
                </summary>
                <p class="tool-card-label">Arguments</p>
                <pre>{pretty(row.arguments)}</pre>
                <p class="tool-card-label">Result</p>
                <pre>{pretty(row.result)}</pre>
                {row.errorCode && <p class="small">Error: {row.errorCode}</p>}
                {row.errorMessage && <p class="small">Told: {row.errorMessage}</p>}
              </details>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
