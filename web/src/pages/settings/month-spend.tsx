import { monthSpend, type MonthSpend } from '../../api';
import { useResource } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { Alert, Card } from '../../ui';

/** "€8.12": an amount the server rounded to the cent, in its currency's sign. */
function money(amount: number, currency: string): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount);
}

/** "December 2026" for "2026-12": the UTC month the server counts in. */
function monthName(month: string): string {
  return new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`));
}

/**
 * What the person's chat cost this month (GET /auth/me's chatBudget.month): the spend, and
 * against their budget, its share. Nothing is shown when the server prices no model.
 */
export function MonthSpendCard() {
  const session = currentSession();
  const { data: spend, error } = useResource(() => monthSpend(session), [session.token]);

  if (spend === null) return null;
  return (
    <Card title="Assistant spend">
      <div class="stack">
        <Alert message={error} />
        {spend === undefined && !error && <p class="muted">Loading…</p>}
        {spend && <Spend spend={spend} />}
      </div>
    </Card>
  );
}

function Spend({ spend }: { spend: MonthSpend }) {
  const { currency, budget, percent } = spend;
  return (
    <>
      <p>
        {budget === null
          ? `${money(spend.spent, currency)} spent in ${monthName(spend.month)}.`
          : `${money(spend.spent, currency)} of your ${money(budget, currency)} budget spent in ${monthName(spend.month)} (${percent ?? 0} %).`}
      </p>
      {budget !== null && (
        <progress class="budget" max={100} value={Math.min(percent ?? 0, 100)} aria-label="Share of this month's budget spent" />
      )}
      <p class="muted small">Counted at this server’s prices, calls under way included. A new month starts on the 1st, UTC.</p>
    </>
  );
}
