import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { SealAuditChainUseCase } from '../../src/application/audit/seal-audit-chain.use-case';
import { addTasks } from '../factories/tasks';
import { type SignedInUser, uniqueEmail } from '../support/accounts';
import { runVerifier } from '../support/audit-verifier';
import { type ConsoleSession, eventually, gone, openConsole, shown } from '../support/browser';

const KEY = generateKeyPairSync('ed25519');
const PRIVATE_PEM = KEY.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
const PUBLIC_PEM = KEY.publicKey.export({ format: 'pem', type: 'spki' }) as string;
const PAGE_SIZE = 25;

// Settings → Your activity: a person's own audited actions, newest first, a page at
// a time, each with a receipt to download that the offline verifier accepts with the public key
// alone; a row no checkpoint covers yet says so in its row, in the server's words.
describe('web console activity and receipts in Chromium', () => {
  let session: ConsoleSession;
  let page: Page;
  let folder: string;

  beforeAll(async () => {
    // A checkpoint every 100 links (the least allowed), so that the test can write one.
    session = await openConsole('activity-', { AUDIT_CHECKPOINT_ROWS: '100', AUDIT_SIGNING_KEY: PRIVATE_PEM });
    ({ page } = session);
    folder = await mkdtemp(join(tmpdir(), 'bridle-activity-'));
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('lists the actions, downloads a confirmed delete’s receipt that verifies offline, and says when a row is not provable yet', async () => {
    const email = uniqueEmail();
    await session.signUp(email, 'correct horse battery');
    const { token, userId } = await session.stored();
    const person: SignedInUser = { userId, email, token, auth: { Authorization: `Bearer ${token}` } };
    const rows = page.locator('.table tbody tr');

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'See your activity and receipts' }).click();
    await shown(page.getByRole('heading', { name: 'Your activity', level: 1 }));
    await shown(page.getByText('Nothing recorded yet.'));

    // A delete confirmed in the chat, then 100 more rows of the person's and a checkpoint over them all.
    const chat = async (message: string, conversationId?: string) =>
      (await request(session.origin).post(`/api/${userId}/chat`).set(person.auth).send({ message, conversationId }).expect(200)).body as {
        conversationId: string;
        response: string;
      };
    await addTasks(session.origin, person, 'Call the dentist', 'Buy milk');
    const asked = await chat('delete task 1');
    expect((await chat('yes delete', asked.conversationId)).response).toMatch(/removed/);
    const database = session.app.get(DataSource);
    await database.query(
      `INSERT INTO audit_log (source, actor_id, tool, arguments, status)
         SELECT 'mcp', $1, 'add_task', jsonb_build_object('title', 'filler ' || n), 'succeeded' FROM generate_series(1, 100) n`,
      [userId],
    );
    await session.app.get(SealAuditChainUseCase).run({ waitForOtherSealer: true });
    // One more, after it: linked into the chain, but under no checkpoint until 100 more links.
    await chat('add a task to call Ada Lovelace');
    const listed = async () =>
      (await request(session.origin).get(`/api/${userId}/audit/receipts`).set(person.auth).expect(200)).body as {
        items: { seq: number; tool: string; status: string; chain: string }[];
      };
    const [newest] = await eventually(async () => (await listed()).items.slice(0, 1)).toMatchObject([
      { tool: 'add_task', status: 'succeeded', chain: 'linked' },
    ]);
    const [{ total }] = await database.query<{ total: number }[]>('SELECT count(*)::int AS total FROM audit_log WHERE actor_id = $1', [
      userId,
    ]);

    await page.reload();
    await shown(page.getByRole('heading', { name: 'Your activity', level: 1 }));
    await eventually(() => rows.count()).toBe(PAGE_SIZE);
    const first = rows.first();
    await eventually(() => first.locator('td[data-label="What"]').textContent()).toBe('Add a task');
    await eventually(() => first.locator('td[data-label="Source"]').textContent()).toBe('Chat');
    await eventually(() => first.locator('td[data-label="Outcome"]').textContent()).toBe('Succeeded');
    await eventually(() => first.locator('td[data-label="#"]').textContent()).toBe(String(newest.seq));

    await page.getByRole('button', { name: `Download receipt ${newest.seq}`, exact: true }).click();
    const note = first.getByRole('status');
    await shown(note);
    await eventually(() => note.textContent()).toMatch(/^This row \(chain position \d+\) is not under a signed checkpoint yet/);
    await session.checkpoint('not-yet');

    // Older pages down to the delete, each asked for with the cursor.
    for (let expected = PAGE_SIZE; expected < total; expected += PAGE_SIZE) {
      await eventually(() => rows.count()).toBe(expected);
      await page.getByRole('button', { name: 'Load more' }).click();
    }
    await eventually(() => rows.count()).toBe(total);
    await gone(page.getByRole('button', { name: 'Load more' }));
    const deleted = rows
      .filter({ has: page.locator('td[data-label="What"]', { hasText: 'Delete a task' }) })
      .filter({ hasText: 'Succeeded' });
    const [seqText] = await eventually(() => deleted.locator('td[data-label="#"]').allTextContents()).toHaveLength(1);
    const seq = Number(seqText);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: `Download receipt ${seq}`, exact: true }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe(`bridle-receipt-${seq}.json`);
    const receipt = JSON.parse(await readFile(await saved.path(), 'utf8')) as {
      format: string;
      seq: number;
      row: Record<string, unknown>;
      personal?: { arguments: unknown };
    };
    expect(receipt).toMatchObject({ format: 'bridle-receipt/v1', seq, row: { tool: 'delete_task', status: 'succeeded', actorId: userId } });
    expect(receipt.personal).toMatchObject({ arguments: expect.any(Object) });

    // What the page saved is what the verifier accepts, with the public key alone.
    const receiptFile = join(folder, `bridle-receipt-${seq}.json`);
    await saved.saveAs(receiptFile);
    const publicKey = join(folder, 'audit-key.pem');
    await writeFile(publicKey, PUBLIC_PEM);
    expect(await runVerifier(['--receipt', receiptFile, '--public-key', publicKey])).toMatchObject({
      status: 0,
      report: { ok: true, problems: [] },
    });
  }, 180_000);
});
