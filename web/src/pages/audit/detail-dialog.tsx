import type { AuditRow, Decision } from '../../api';
import { Alert, Button, Dialog } from '../../ui';
import { DecisionDetail, RowDetail } from './audit-detail';

export type Detail = { kind: 'row'; row: AuditRow } | { kind: 'decision'; decision: Decision } | { kind: 'error'; message: string };

/** The side panel with a row's or a decision's detail, or why the decision could not be read. */
export function DetailDialog({
  detail,
  onDecision,
  onClose,
}: {
  detail: Detail | null;
  onDecision: (id: string) => void;
  onClose: () => void;
}) {
  return (
    <Dialog
      open={detail !== null}
      placement="side"
      title={
        detail?.kind === 'row'
          ? `Row ${detail.row.seq}: ${detail.row.tool}`
          : detail?.kind === 'decision'
            ? `Decision: ${detail.decision.decisionType}`
            : 'Details'
      }
      onClose={onClose}
      actions={
        <>
          {detail?.kind === 'row' && detail.row.decisionId && (
            <Button variant="secondary" onClick={() => onDecision(detail.row.decisionId!)}>
              Open its decision
            </Button>
          )}
          <Button variant="ghost" onClick={onClose}>
            Close
          </Button>
        </>
      }
    >
      {detail?.kind === 'row' && <RowDetail row={detail.row} />}
      {detail?.kind === 'decision' && <DecisionDetail decision={detail.decision} />}
      <Alert message={detail?.kind === 'error' && detail.message} />
    </Dialog>
  );
}
