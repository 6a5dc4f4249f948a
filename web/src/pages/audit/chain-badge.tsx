import type { ChainVerification } from '../../api';
import { plural } from '../../lib/labels';
import { Badge } from '../../ui';

/** What the last chain check found: not checked, under way, intact, or where it breaks. */
export function ChainBadge({ chain }: { chain: ChainVerification | 'checking' | null }) {
  if (chain === null) return <Badge tone="neutral">Chain not checked</Badge>;
  if (chain === 'checking') return <Badge tone="info">Checking every row…</Badge>;
  if (chain.verified) {
    return (
      <span data-verified="true">
        <Badge tone="success" title={chain.headHash ? `Head hash ${chain.headHash}` : undefined}>
          Chain intact · {plural(chain.checkedRows, 'row')}
        </Badge>
      </span>
    );
  }
  return (
    <span data-verified="false" role="alert">
      <Badge tone="danger">Chain broken at row {chain.firstBadSeq ?? '?'}</Badge>
    </span>
  );
}
