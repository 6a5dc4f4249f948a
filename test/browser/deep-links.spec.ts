import type { Page } from 'playwright-core';
import request from 'supertest';
import { SweepStaleActionsUseCase } from '../../src/application/outreach/sweep-stale-actions.use-case';
import { ShiftedClock } from '../fakes/fixed-clock';
import { type SignedInUser, uniqueEmail } from '../support/accounts';
import { signUpAdmin } from '../support/admins';
import { type ConsoleSession, eventually, openConsole, shown } from '../support/browser';
import { cyclesUntilIdle, leads, startedCampaign } from '../support/outreach';
import { WORDS_OF_A_NO } from '../support/words-of-a-no';

const PASSWORD = 'correct horse battery';

/**
 * A link to a draft (`#review?draft=<id>`, as a notification gives it) opens the review queue
 * on that draft: its card in view, marked and focused, nothing decided by following it; a
 * person signed out signs in and lands on it; a draft nobody reviewed in time reads as
 * expired there and in its campaign, never as refused. Each lead's message is held by a policy
 * rule for an hour, after which it expires and its task is cancelled (fallback reject).
 */
describe('web console deep links in Chromium', () => {
  let session: ConsoleSession;
  let page: Page;
  let origin: string;
  let owner: SignedInUser;
  let campaignId: string;
  /** The owner's drafts, newest first, as the queue lists them. */
  let drafts: { id: string; status: string; lead: { name: string } }[];
  const clock = new ShiftedClock();

  const draftOf = async (id: string) =>
    (await request(origin).get(`/api/${owner.userId}/outreach/drafts/${id}`).set(owner.auth).expect(200)).body as { status: string };

  beforeAll(async () => {
    session = await openConsole('links-', {}, { clock });
    ({ page, origin } = session);
    const admin = await signUpAdmin({ app: session.app, http: origin });
    const rule = {
      name: 'messages-reviewed',
      tools: ['linkedin_send_message'],
      sources: ['outreach'],
      effect: 'ask-reviewer',
      reviewer: { timeoutMinutes: 60, fallback: 'reject' },
    };
    const stored = await request(origin)
      .put('/admin/policy')
      .set(admin.auth)
      .send({ rules: [rule], reason: 'Messages are reviewed' });
    expect({ status: stored.status, body: stored.body as unknown }).toMatchObject({ status: 200 });

    const email = uniqueEmail();
    await session.signUp(email, PASSWORD);
    const { token, userId } = await session.stored();
    owner = { userId, email, token, auth: { Authorization: `Bearer ${token}` } };
    campaignId = await startedCampaign(origin, owner, 'Linked outreach', leads(6, 'linked', { email: false }));
    await cyclesUntilIdle(origin, owner, campaignId);
    drafts = (
      (await request(origin).get(`/api/${owner.userId}/outreach/drafts?status=awaiting_review`).set(owner.auth).expect(200)).body as {
        items: typeof drafts;
      }
    ).items;
    expect(drafts).toHaveLength(6);
  }, 180_000);

  afterAll(async () => {
    await session?.close();
  });

  /** The draft the page marked as the link's, and whether it has the focus and is on screen. */
  const linkedSeen = () =>
    page.evaluate<{ id: string | null; focused: boolean; onScreen: boolean }>(`(() => {
      const item = document.querySelector('.linked-draft');
      if (!item) return { id: null, focused: false, onScreen: false };
      const box = item.getBoundingClientRect();
      return { id: item.id, focused: document.activeElement === item, onScreen: box.bottom > 0 && box.top < window.innerHeight };
    })()`);

  it('opens the review queue on the linked draft, in view, marked and focused, and decides nothing', async () => {
    // The oldest of six: the last card, below the fold on a phone.
    const target = drafts[drafts.length - 1];
    await page.goto(`${origin}/#review?draft=${target.id}`);
    await shown(page.getByRole('heading', { name: 'Review queue' }));
    await eventually(linkedSeen).toEqual({ id: `draft-${target.id}`, focused: true, onScreen: true });
    await eventually(() => page.locator('.linked-draft').textContent()).toContain(`LinkedIn message for ${target.lead.name}`);
    await session.checkpoint('linked-draft');
    expect(await draftOf(target.id)).toMatchObject({ status: 'awaiting_review' });

    // Hostile links are ignored: the queue as it is, nothing marked, nothing said about a draft.
    for (const hostile of ['not-a-draft', 'a'.repeat(5000), `${target.id}'"><script>`]) {
      await page.goto(`${origin}/#review?draft=${encodeURIComponent(hostile)}`);
      await shown(page.locator('.draft').first());
      await eventually(() => page.locator('.linked-draft, .linked-outcome').count()).toBe(0);
    }
    await eventually(() => page.getByRole('alert').count()).toBe(0);
  }, 120_000);

  it('lands a person who follows a link signed out on the linked draft once they sign in', async () => {
    const target = drafts[2];
    await page.getByRole('button', { name: 'Sign out' }).click();
    await shown(page.getByLabel('Password'));
    await page.goto(`${origin}/#review?draft=${target.id}`);
    await shown(page.getByText('Sign in to see what the link you followed leads to.'));
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await shown(page.getByRole('heading', { name: 'Review queue' }));
    await eventually(linkedSeen).toEqual({ id: `draft-${target.id}`, focused: true, onScreen: true });
    await eventually(() => page.evaluate<string>('location.hash')).toBe(`#review?draft=${target.id}`);
    expect(await draftOf(target.id)).toMatchObject({ status: 'awaiting_review' });
  }, 120_000);

  it('says a linked draft nobody reviewed in time expired, and its campaign shows the step expired', async () => {
    const target = drafts[0];
    // The rule's hour passes undecided: the sweep expires the drafts and cancels their tasks.
    clock.advance(61 * 60_000);
    await session.app.get(SweepStaleActionsUseCase).run();
    expect(await draftOf(target.id)).toMatchObject({ status: 'expired' });

    await page.goto(`${origin}/#review?draft=${target.id}`);
    const outcome = page.locator('.linked-outcome');
    await shown(outcome);
    await eventually(() => outcome.locator('.badge').textContent()).toBe('Expired');
    const said = await eventually(() => outcome.textContent()).toContain('It expired undecided: nobody reviewed it before');
    expect(said).not.toMatch(WORDS_OF_A_NO);
    await eventually(() => page.evaluate<string | null>('document.activeElement?.id ?? null')).toBe('linked-outcome-title');
    await session.checkpoint('linked-expired-draft');

    // Its campaign, by the notice's link: the message step expired, its task cancelled, in those words.
    await outcome.getByRole('link', { name: 'Open its campaign' }).click();
    await shown(page.getByRole('heading', { name: 'Linked outreach' }));
    const step = page.locator('.lead').filter({ hasText: target.lead.name }).locator('.step').filter({ hasText: 'LinkedIn message' });
    await eventually(() => step.locator('.badge').textContent()).toBe('Expired');
    const note = await eventually(() => step.textContent()).toContain('Its draft expired undecided: nobody reviewed it in time');
    expect(note).not.toMatch(WORDS_OF_A_NO);
    await eventually(() => page.evaluate<string>('location.hash')).toBe(`#campaigns?campaign=${campaignId}`);
  }, 120_000);
});
