import { useEffect, useRef } from 'preact/hooks';
import { listPolicyVersions, type PolicyVersionSummary, type Session } from '../../api';
import { fullTime } from '../../lib/time';
import { type Page, usePages } from '../../lib/use-resource';
import { routeNumber } from '../../state/route';
import { currentSession } from '../../state/session';
import { Alert, Button, Card, type Column, Table } from '../../ui';

interface Props {
  /** Puts a version's rules in the editor. */
  onEdit: (version: number) => void;
  onDownload: (version: number) => void;
}

/** How many pages of older versions a link to one reads to find it (newest first, so a recent one is on the first). */
const LINKED_VERSION_PAGES = 20;

/** The first page, and while `lookingFor` is older than the oldest read, the pages after it. */
async function firstPages(session: Session, lookingFor: number | null): Promise<Page<PolicyVersionSummary>> {
  let page = await listPolicyVersions(session, null);
  let items = page.items;
  // Newest first: older pages only while the linked version is older than the oldest read.
  for (let pages = 1; lookingFor !== null && lookingFor > 0 && page.nextCursor && pages < LINKED_VERSION_PAGES; pages++) {
    const oldest = items[items.length - 1]?.version;
    if (oldest === undefined || oldest <= lookingFor) break;
    page = await listPolicyVersions(session, page.nextCursor);
    items = [...items, ...page.items];
  }
  return { items, nextCursor: page.nextCursor };
}

/**
 * The stored versions, newest first, each to edit a copy of or download; the built-in policy (0)
 * below them. A link to a version (`#policy?version=<n>`, a notification's) marks its row and
 * brings it into view, reading older pages until it is there.
 */
export function PolicyVersions({ onEdit, onDownload }: Props) {
  const session = currentSession();
  const linked = routeNumber('version');
  const table = useRef<HTMLDivElement>(null);
  const list = usePages((cursor) => (cursor ? listPolicyVersions(session, cursor) : firstPages(session, linked)), [linked]);
  const { items: versions, cursor, loading, error } = list;

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
          <Button variant="secondary" busy={loading} onClick={() => void list.more()}>
            Show older versions
          </Button>
        )}
      </div>
    </Card>
  );
}
