import { useEffect, useRef, useState } from 'preact/hooks';
import { listPolicyVersions, type PolicyVersionSummary } from '../../api';
import { errorText } from '../../lib/errors';
import { fullTime } from '../../lib/time';
import { routeNumber } from '../../state/route';
import { currentSession, handledAuthFailure } from '../../state/session';
import { Alert, Button, Card, type Column, Table } from '../../ui';

interface Props {
  /** Puts a version's rules in the editor. */
  onEdit: (version: number) => void;
  onDownload: (version: number) => void;
}

/** How many pages of older versions a link to one reads to find it (newest first, so a recent one is on the first). */
const LINKED_VERSION_PAGES = 20;

/**
 * The stored versions, newest first, each to edit a copy of or download; the built-in policy (0)
 * below them. A link to a version (`#policy?version=<n>`, a notification's) marks its row and
 * brings it into view, reading older pages until it is there.
 */
export function PolicyVersions({ onEdit, onDownload }: Props) {
  const session = currentSession();
  const [versions, setVersions] = useState<readonly PolicyVersionSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);
  const linked = routeNumber('version');
  const table = useRef<HTMLDivElement>(null);

  async function load(after: string | null, lookingFor: number | null = null) {
    const mine = ++generation.current;
    setLoading(true);
    try {
      let page = await listPolicyVersions(session, after);
      let items = page.items;
      // Newest first: older pages only while the linked version is older than the oldest read.
      for (let pages = 1; lookingFor !== null && lookingFor > 0 && page.nextCursor && pages < LINKED_VERSION_PAGES; pages++) {
        const oldest = items[items.length - 1]?.version;
        if (oldest === undefined || oldest <= lookingFor) break;
        page = await listPolicyVersions(session, page.nextCursor);
        items = [...items, ...page.items];
      }
      if (mine !== generation.current) return;
      setVersions((current) => (after ? [...current, ...items] : items));
      setCursor(page.nextCursor);
      setError(null);
    } catch (failure) {
      if (mine === generation.current) setError((!handledAuthFailure(failure) && errorText(failure)) || null);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }

  useEffect(() => void load(null, linked), [linked]);

  const found = linked !== null && versions.some((row) => row.version === linked);
  useEffect(() => {
    if (!found) return;
    table.current?.querySelector(`tr[data-key="${linked}"]`)?.scrollIntoView({ block: 'center' });
  }, [found, linked]);

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
      <div class="stack" ref={table}>
        <Alert message={error} />
        {linked !== null && !loading && !found && (
          <p class="notice" role="status">
            {linked === 0
              ? 'Version 0 is the built-in policy: no admin stored it, and “Edit a copy of the built-in policy” shows its rules.'
              : `Version ${linked} is not among the stored versions.`}
          </p>
        )}
        {!loading && versions.length === 0 && !error ? (
          <p class="muted">No admin has stored a policy yet: the built-in one (version 0) is in force.</p>
        ) : (
          <Table
            caption="Stored versions, newest first"
            columns={columns}
            rows={versions}
            rowKey={(row) => String(row.version)}
            selected={linked === null ? null : String(linked)}
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
