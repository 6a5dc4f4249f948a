import { useEffect, useRef, useState } from 'preact/hooks';
import { listPolicyVersions, type PolicyVersionSummary } from '../../api';
import { errorText } from '../../lib/errors';
import { fullTime } from '../../lib/time';
import { currentSession, handledAuthFailure } from '../../state/session';
import { Alert, Button, Card, type Column, Table } from '../../ui';

interface Props {
  /** Puts a version's rules in the editor. */
  onEdit: (version: number) => void;
  onDownload: (version: number) => void;
}

/** The stored versions, newest first, each to edit a copy of or download; the built-in policy (0) below them. */
export function PolicyVersions({ onEdit, onDownload }: Props) {
  const session = currentSession();
  const [versions, setVersions] = useState<readonly PolicyVersionSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);

  async function load(after: string | null) {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const page = await listPolicyVersions(session, after);
      if (mine !== generation.current) return;
      setVersions((current) => (after ? [...current, ...page.items] : page.items));
      setCursor(page.nextCursor);
      setError(null);
    } catch (failure) {
      if (mine === generation.current) setError((!handledAuthFailure(failure) && errorText(failure)) || null);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }

  useEffect(() => void load(null), []);

  const columns: Column<PolicyVersionSummary>[] = [
    { key: 'version', header: 'Version', nowrap: true, cell: (row) => String(row.version) },
    { key: 'time', header: 'Stored', nowrap: true, cell: (row) => <time dateTime={row.createdAt}>{fullTime(row.createdAt)}</time> },
    { key: 'author', header: 'By', cell: (row) => row.authorEmail },
    { key: 'reason', header: 'Why', cell: (row) => row.reason },
    { key: 'rules', header: 'Rules', nowrap: true, cell: (row) => String(row.rules) },
    {
      key: 'actions',
      header: 'Actions',
      cell: (row) => (
        <span class="row">
          <Button variant="secondary" size="sm" aria-label={`Edit a copy of version ${row.version}`} onClick={() => onEdit(row.version)}>
            Edit a copy
          </Button>
          <Button variant="ghost" size="sm" aria-label={`Download version ${row.version}`} onClick={() => onDownload(row.version)}>
            Download
          </Button>
        </span>
      ),
    },
  ];

  return (
    <Card
      title="Versions"
      actions={
        <Button variant="ghost" size="sm" onClick={() => onEdit(0)}>
          Edit a copy of the built-in policy
        </Button>
      }
    >
      <div class="stack">
        <Alert message={error} />
        {!loading && versions.length === 0 && !error ? (
          <p class="muted">No admin has stored a policy yet: the built-in one (version 0) is in force.</p>
        ) : (
          <Table
            caption="Stored versions, newest first"
            columns={columns}
            rows={versions}
            rowKey={(row) => String(row.version)}
            busy={loading}
          />
        )}
        {cursor && (
          <Button variant="secondary" busy={loading} onClick={() => void load(cursor)}>
            Show older versions
          </Button>
        )}
      </div>
    </Card>
  );
}
