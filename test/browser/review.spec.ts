import type { Page } from 'playwright-core';
import request from 'supertest';
import { SweepStaleActionsUseCase } from '../../src/application/outreach/sweep-stale-actions.use-case';
import { ShiftedClock } from '../fakes/fixed-clock';
import { signUpAndIn, uniqueEmail } from '../support/accounts';
import { signUpAdmin } from '../support/admins';
import { type ConsoleSession, gone, openConsole, pageUntil, shown, eventually } from '../support/browser';
import { cyclesUntilIdle, startedCampaign } from '../support/outreach';

// A campaign that reviews every action: each one waits in the review queue until approved
// (as drafted or edited) or rejected, and the timeline shows what was really sent. Last, an
// admin decides a draft a policy rule escalated (the server's clock moved on, not waited for).
describe('web console review queue in Chromium', () => {
  let session: ConsoleSession;
  let page: Page;
  let origin: string;
  const clock = new ShiftedClock();
  const checkpoint = (name: string) => session.checkpoint(name);

  beforeAll(async () => {
    session = await openConsole('review-', {}, { clock });
    ({ page, origin } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
  });

  /** Opens the campaign, runs one cycle per expected outcome, and checks each. */
  async function runCycles(expected: readonly string[]) {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('button', { name: /Reviewed outreach/ }).click();
    await shown(page.getByRole('heading', { name: 'Reviewed outreach' }));
    for (const [index, outcome] of expected.entries()) {
      await page.getByRole('button', { name: 'Run one cycle' }).click();
      await pageUntil(
        page,
        `document.querySelector('.outcome[data-cycle="${index + 1}"]') !== null && document.querySelector('.campaign-detail [aria-busy]') === null`,
      );
      await eventually(() => page.locator('.outcome').getAttribute('data-outcome')).toBe(outcome);
    }
  }

  const openReview = async () => {
    await page.getByRole('link', { name: 'Review' }).click();
    await shown(page.getByRole('heading', { name: 'Review queue' }));
  };

  it('holds every action for review, sends the approved one as approved or edited, and never the rejected one', async () => {
    await session.signUp(uniqueEmail(), 'correct horse battery');
    const { token, userId } = await session.stored();
    const headers = { authorization: `Bearer ${token}` };
    const created = await page.request.post(`${origin}/api/${userId}/campaigns`, {
      headers,
      data: { name: 'Reviewed outreach', approvalMode: 'all', brief: { offer: 'a faster release pipeline', senderName: 'Ada' } },
    });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const lead = { name: 'Grace Hopper', linkedinUrl: 'https://www.linkedin.com/in/grace-hopper/', email: 'grace@example.com' };
    expect((await page.request.post(`${origin}/api/${userId}/campaigns/${id}/leads`, { headers, data: { leads: [lead] } })).status()).toBe(
      201,
    );
    expect((await page.request.post(`${origin}/api/${userId}/campaigns/${id}/start`, { headers })).status()).toBe(200);

    await openReview();
    await shown(page.getByText('Nothing waits for review.'));
    await checkpoint('empty-queue');

    // The look-up is drafted, not run.
    await runCycles(['awaiting_review']);
    await shown(page.locator('.timeline .step').filter({ hasText: 'Awaiting review' }));
    await openReview();
    const lookup = page.locator('.draft').filter({ hasText: 'Look up profile for Grace Hopper' });
    await shown(lookup);
    await checkpoint('lookup-drafted');
    await lookup.getByRole('button', { name: 'Approve' }).click();
    await shown(page.getByText('Nothing waits for review.'));

    // The approved look-up runs; the message is drafted; edited, it is what goes out.
    await runCycles(['completed', 'awaiting_review']);
    await openReview();
    const message = page.locator('.draft').filter({ hasText: 'LinkedIn message for Grace Hopper' });
    await shown(message);
    const edited = 'Hi Grace, a short note from Ada: may I show you a faster release pipeline? 15 minutes next week?';
    await message.getByLabel('Message').fill(edited);
    await checkpoint('message-edited');
    await message.getByRole('button', { name: 'Save and approve' }).click();
    await gone(message);

    // The email is drafted and rejected: it never goes out.
    await runCycles(['completed', 'awaiting_review']);
    await openReview();
    const email = page.locator('.draft').filter({ hasText: 'Email for Grace Hopper' });
    await shown(email);
    await eventually(() => email.getByLabel('Subject').inputValue()).not.toBe('');
    await email.getByRole('button', { name: 'Reject' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Reject this email?' });
    await shown(dialog);
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await shown(page.getByText('Nothing waits for review.'));

    // Nothing is left: the campaign completes; the timeline shows the edited message and no email.
    await runCycles(['campaign_completed']);
    const steps = page.locator('.timeline .step');
    await eventually(() => steps.filter({ hasText: 'LinkedIn message' }).locator('.sent-text').textContent()).toBe(edited);
    await eventually(() => steps.filter({ hasText: 'Email' }).locator('.badge').textContent()).toBe('Cancelled');
    await eventually(() => steps.filter({ hasText: 'Email' }).locator('.sent').count()).toBe(0);
    await checkpoint('reviewed-campaign');
    expect(session.foreignRequests()).toEqual([]);
  }, 240_000);

  it('edits the brief and the review mode on the campaign page', async () => {
    await page.getByLabel('Campaign name').fill('Second round');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await shown(page.getByRole('heading', { name: 'Second round' }));
    await page.getByLabel('Offer').fill('a faster release pipeline');
    await page.getByLabel('Review before sending').selectOption('first_n');
    await page.getByLabel('How many of each kind').fill('2');
    await page.getByLabel('Tone').fill('warm and brief');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await shown(page.getByText('Campaign settings saved'));
    const { token, userId } = await session.stored();
    const campaigns = (await (
      await page.request.get(`${origin}/api/${userId}/campaigns`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      items: { name: string; approvalMode: string; approvalFirstN: number; brief: { tone: string | null; offer: string | null } }[];
    };
    expect(campaigns.items.find((campaign) => campaign.name === 'Second round')).toMatchObject({
      approvalMode: 'first_n',
      approvalFirstN: 2,
      brief: { tone: 'warm and brief', offer: 'a faster release pipeline' },
    });
  }, 60_000);

  it('shows an admin the drafts a policy rule escalated to the admins, and decides one in its owner’s stead', async () => {
    const admin = await signUpAdmin({ app: session.app, http: origin });
    const rule = {
      name: 'email-review',
      tools: ['send_email'],
      effect: 'ask-reviewer',
      reviewer: { timeoutMinutes: 60, fallback: 'escalate' },
    };
    await request(origin)
      .put('/admin/policy')
      .set(admin.auth)
      .send({ rules: [rule], reason: 'Email is reviewed' })
      .expect(200);
    const owner = await signUpAndIn(origin);
    const lead = { name: 'Ada Byron', linkedinUrl: 'https://www.linkedin.com/in/ada-byron/', email: 'ada@partner.test' };
    const campaignId = await startedCampaign(origin, owner, 'Escalated outreach', [lead]);
    await cyclesUntilIdle(origin, owner, campaignId);
    const ownDrafts = async () =>
      (await request(origin).get(`/api/${owner.userId}/outreach/drafts`).set(owner.auth).expect(200)).body as {
        items: { id: string; action: string; status: string; reviewerId: string | null; escalatedAt: string | null }[];
      };
    const [held] = (await ownDrafts()).items;
    expect(held).toEqual(expect.objectContaining({ action: 'send_email', status: 'awaiting_review', escalatedAt: null }));

    // The owner's hour passes: the sweeper hands the email to the admins.
    clock.advance(61 * 60_000);
    await session.app.get(SweepStaleActionsUseCase).run();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await openReview();
    const escalated = page.getByRole('region', { name: 'Escalated to admins' });
    const card = escalated.locator('.draft').filter({ hasText: 'Email for Ada Byron' });
    await shown(card);
    await eventually(() => card.textContent()).toContain(`${owner.email}’s · Escalated outreach`);
    await shown(card.getByText('Escalated to admins'));
    await checkpoint('escalated-draft');
    await card.getByRole('button', { name: 'Approve' }).click();
    await gone(card);
    await shown(escalated.getByText('No draft is escalated to the admins.'));
    // Approved as the owner would have, the admin named as its reviewer.
    expect((await ownDrafts()).items.find((draft) => draft.id === held.id)).toEqual(
      expect.objectContaining({ status: 'approved', reviewerId: admin.userId, escalatedAt: expect.any(String) }),
    );
  }, 120_000);
});
