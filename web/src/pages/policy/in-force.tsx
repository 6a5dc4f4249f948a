import type { PolicyVersion } from '../../api';
import { fullTime } from '../../lib/time';
import { Button, Card } from '../../ui';

/** The version in force: who stored it, when and why, and its file to download. */
export function InForce({ version, busy, onDownload }: { version: PolicyVersion; busy: boolean; onDownload: () => void }) {
  return (
    <Card
      title={`In force: version ${version.version}`}
      actions={
        <Button variant="secondary" size="sm" busy={busy} onClick={onDownload}>
          Download file
        </Button>
      }
    >
      <p class="policy-in-force" data-version={version.version}>
        {version.builtIn ? (
          'The built-in policy: today’s rules, until an admin stores one.'
        ) : (
          <>
            Stored {version.createdAt ? fullTime(version.createdAt) : ''} by {version.authorEmail}: “{version.reason}”.
          </>
        )}{' '}
        {version.rules.length === 1 ? '1 rule.' : `${version.rules.length} rules.`}
      </p>
    </Card>
  );
}
