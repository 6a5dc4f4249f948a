import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  callService,
  ROOT,
  type RunningService,
  signUpOnService,
  spawnService,
  START_NODE_FLAGS,
  startService,
  useBuiltService,
} from '../support/built-service';
import { testDataRoot } from '../support/test-database';
import { processState, spawnUnreaped, untilZombie } from '../support/unreaped';

/**
 * The built service as a newcomer runs it: `node dist/main.js` (the bundle npm run build
 * makes) with no configuration but a data folder and a free port, driven over real HTTP.
 */
const OUT_DIR = join(ROOT, 'dist-test');
const MAIN = join(OUT_DIR, 'main.js');

type Service = RunningService;

function run(env: Record<string, string>) {
  return spawnService(MAIN, env);
}

function start(dataDir: string): Promise<Service> {
  return startService(MAIN, { BRIDLE_DATA_DIR: dataDir });
}

async function stop(service: Service): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => service.child.on('exit', (code) => resolve(code)));
  service.child.kill('SIGTERM');
  return exited;
}

const call = callService;

describe('the service as a process', () => {
  useBuiltService(OUT_DIR);
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(testDataRoot(), 'bridle-process-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts on embedded defaults, refuses a second process, stops cleanly on SIGTERM and keeps data', async () => {
    const first = await start(dataDir);
    let running: Service | undefined = first;
    try {
      expect(await call(first, 'GET', '/health')).toEqual({ status: 200, body: { status: 'ok', database: 'up' } });
      expect((await call(first, 'GET', '/docs-json')).body).toMatchObject({ openapi: expect.stringMatching(/^3\./) });
      const credentials = { email: 'keep@example.com', password: 'long enough' };
      expect((await call(first, 'POST', '/auth/register', credentials)).status).toBe(201);
      const { accessToken, userId } = (await call(first, 'POST', '/auth/login', credentials)).body as {
        accessToken: string;
        userId: string;
      };
      expect((await call(first, 'POST', `/api/${userId}/tasks`, { title: 'Survive a restart' }, accessToken)).status).toBe(201);

      const second = run({ BRIDLE_DATA_DIR: dataDir });
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(`Bridle could not start: The data folder ${dataDir} is in use by another Bridle process`);
      expect((await call(first, 'GET', '/health')).status).toBe(200);

      running = undefined;
      expect(await stop(first)).toBe(0);
      expect(first.output()).toContain('Shut down cleanly');
      // The logs record each request by id, and never a password or a token.
      expect(first.output()).toMatch(/"req":\{"id":"[\w-]+","method":"POST","url":"\/auth\/login"\}/);
      expect(first.output()).not.toContain(credentials.password);
      expect(first.output()).not.toContain(accessToken);
      expect(existsSync(join(dataDir, 'bridle.lock'))).toBe(false);

      running = await start(dataDir);
      const relogin = (await call(running, 'POST', '/auth/login', credentials)).body as { accessToken: string };
      const tasks = await call(running, 'GET', `/api/${userId}/tasks`, undefined, relogin.accessToken);
      expect(tasks.body).toEqual([expect.objectContaining({ number: 1, title: 'Survive a restart' })]);
      // The token from before the restart still works: the generated secret was kept.
      expect((await call(running, 'GET', '/auth/me', undefined, accessToken)).status).toBe(200);
      expect(await stop(running)).toBe(0);
      running = undefined;
    } finally {
      running?.child.kill('SIGKILL');
    }
  }, 120_000);

  it('starts again at once after a SIGKILL, while the killed process is not yet reaped, with its data', async () => {
    // The first service as a supervisor slow to reap leaves it: once killed, a zombie with its pid.
    const first = spawnUnreaped([process.execPath, ...START_NODE_FLAGS, MAIN], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', BRIDLE_DATA_DIR: dataDir },
    });
    let second: Service | undefined;
    try {
      const pid = await first.pid;
      const deadline = Date.now() + 60_000;
      let port: string | undefined;
      while (!(port = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(first.output())?.[1])) {
        if (Date.now() > deadline) throw new Error(`the first service did not start:\n${first.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const firstService = { baseUrl: `http://127.0.0.1:${port}` };
      const credentials = { email: 'killed@example.com', password: 'long enough' };
      const { accessToken, userId } = await signUpOnService(firstService, credentials);
      expect((await call(firstService, 'POST', `/api/${userId}/tasks`, { title: 'Outlive a SIGKILL' }, accessToken)).status).toBe(201);

      process.kill(pid, 'SIGKILL');
      await untilZombie(pid);
      // Its lock file still names it, and its pid still answers kill(pid, 0).
      expect(JSON.parse(await readFile(join(dataDir, 'bridle.lock'), 'utf8'))).toMatchObject({ pid });

      second = await start(dataDir);
      expect(await call(second, 'GET', '/health')).toEqual({ status: 200, body: { status: 'ok', database: 'up' } });
      const relogin = (await call(second, 'POST', '/auth/login', credentials)).body as { accessToken: string };
      const tasks = await call(second, 'GET', `/api/${userId}/tasks`, undefined, relogin.accessToken);
      expect(tasks.body).toEqual([expect.objectContaining({ number: 1, title: 'Outlive a SIGKILL' })]);
      expect(await processState(pid)).toBe('Z');
      expect(await stop(second)).toBe(0);
      second = undefined;
    } finally {
      second?.child.kill('SIGKILL');
      await first.end();
    }
  }, 120_000);

  it('keeps a pending deletion across a restart and runs it exactly once on "yes delete"', async () => {
    let service: Service | undefined = await start(dataDir);
    try {
      const credentials = { email: 'chat@example.com', password: 'long enough' };
      await call(service, 'POST', '/auth/register', credentials);
      const { accessToken: token, userId } = (await call(service, 'POST', '/auth/login', credentials)).body as {
        accessToken: string;
        userId: string;
      };
      const chat = async (message: string, conversationId?: string) =>
        (await call(service!, 'POST', `/api/${userId}/chat`, { message, conversationId }, token)).body as {
          conversationId: string;
          response: string;
        };
      const titles = async () =>
        ((await call(service!, 'GET', `/api/${userId}/tasks`, undefined, token)).body as { title: string }[]).map((t) => t.title);

      const added = await chat('add buy milk');
      expect(added.response).toBe("Got it! Added 'Buy milk' to your list. Anything else?");
      expect(await titles()).toEqual(['Buy milk']);
      const { conversationId } = added;
      expect((await chat("what's on my list?", conversationId)).response).toBe('Here are your tasks:\n1. ☐ Buy milk');
      expect((await chat('delete buy milk', conversationId)).response).toBe(
        "Do you really want to delete 'Buy milk'? Reply 'yes delete' to confirm.",
      );
      expect(await titles()).toEqual(['Buy milk']);

      expect(await stop(service)).toBe(0);
      service = await start(dataDir);

      expect((await chat('yes delete', conversationId)).response).toBe("I've removed 'Buy milk' from your tasks.");
      expect(await titles()).toEqual([]);
      expect((await chat('yes delete', conversationId)).response).toBe("There's nothing waiting for your confirmation right now.");
      expect(await stop(service)).toBe(0);
      service = undefined;
    } finally {
      service?.child.kill('SIGKILL');
    }
  }, 120_000);

  it('works a started campaign to completion by itself on the embedded defaults, and says a worker runs', async () => {
    const service = await start(dataDir);
    try {
      const credentials = { email: 'outreach@example.com', password: 'long enough' };
      expect((await call(service, 'POST', '/auth/register', credentials)).status).toBe(201);
      const { accessToken, userId } = (await call(service, 'POST', '/auth/login', credentials)).body as {
        accessToken: string;
        userId: string;
      };
      const api = `/api/${userId}`;
      expect((await call(service, 'GET', `${api}/outreach/status`, undefined, accessToken)).body).toEqual({ activeWorkers: 1 });
      const { id } = (await call(service, 'POST', `${api}/campaigns`, { name: 'By itself' }, accessToken)).body as { id: string };
      const leads = [1, 2].map((n) => ({
        name: `Lead ${n}`,
        linkedinUrl: `https://www.linkedin.com/in/itself-${n}/`,
        email: `itself${n}@example.com`,
      }));
      expect((await call(service, 'POST', `${api}/campaigns/${id}/leads`, { leads }, accessToken)).status).toBe(201);
      expect((await call(service, 'POST', `${api}/campaigns/${id}/start`, undefined, accessToken)).status).toBe(200);
      // Nobody runs a cycle: the worker in the server process does.
      let campaign: { status: string; tasks: Record<string, number> } | undefined;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
        campaign = (await call<typeof campaign>(service, 'GET', `${api}/campaigns/${id}`, undefined, accessToken)).body;
        if (campaign?.status === 'completed') break;
      }
      expect(campaign).toMatchObject({ status: 'completed', tasks: { Completed: 6 } });
    } finally {
      await stop(service);
    }
  }, 120_000);

  it('loads no npm package twice: each is either in the bundle or loaded from node_modules', async () => {
    const loadedFile = join(dataDir, 'loaded-packages.txt');
    const service = await startService(MAIN, {
      BRIDLE_DATA_DIR: dataDir,
      NODE_OPTIONS: `--require ${join(ROOT, 'test', 'support', 'loaded-packages-probe.cjs')}`,
      LOADED_PACKAGES_FILE: loadedFile,
    });
    try {
      // What loads packages lazily: the API reference, validation, the web console, a chat turn.
      expect((await call(service, 'GET', '/docs-json')).status).toBe(200);
      expect((await fetch(`${service.baseUrl}/docs`)).status).toBe(200);
      expect((await fetch(`${service.baseUrl}/`)).status).toBe(200);
      expect((await call(service, 'POST', '/auth/register', { email: 'not an email', password: 'long enough' })).status).toBe(400);
      const credentials = { email: 'twice@example.com', password: 'long enough' };
      expect((await call(service, 'POST', '/auth/register', credentials)).status).toBe(201);
      const { accessToken, userId } = (await call(service, 'POST', '/auth/login', credentials)).body as {
        accessToken: string;
        userId: string;
      };
      expect((await call(service, 'POST', `/api/${userId}/chat`, { message: 'add water plants' }, accessToken)).status).toBe(200);
    } finally {
      expect(await stop(service)).toBe(0);
    }
    const loaded = (await readFile(loadedFile, 'utf8')).split('\n');
    const bundled = JSON.parse(await readFile(join(OUT_DIR, 'server', 'bundled-packages.json'), 'utf8')) as string[];
    // The probe saw what stays outside the bundle, and the bundle holds the framework.
    expect(loaded).toEqual(expect.arrayContaining(['class-transformer', 'class-validator', 'express', 'pg', '@electric-sql/pglite']));
    expect(bundled).toEqual(expect.arrayContaining(['@nestjs/core', 'typeorm', '@modelcontextprotocol/sdk']));
    expect(loaded.filter((name) => bundled.includes(name))).toEqual([]);
  }, 120_000);

  it('refuses to start on bad configuration, naming the variable', async () => {
    const { output, exited } = run({ BRIDLE_DATA_DIR: dataDir, PORT: 'eighty' });
    expect(await exited).toBe(1);
    expect(output()).toContain('Bridle could not start: Invalid configuration: PORT must be a whole number');

    const keyless = run({ BRIDLE_DATA_DIR: dataDir, LLM_PROVIDER: 'openai', OPENAI_MODEL: 'gpt-4o-mini' });
    expect(await keyless.exited).toBe(1);
    expect(keyless.output()).toContain(
      'Bridle could not start: Invalid configuration: OPENAI_API_KEY is required when LLM_PROVIDER=openai',
    );
  });
});
