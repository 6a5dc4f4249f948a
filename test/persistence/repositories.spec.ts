import { openDatabase } from '../../src/infrastructure/persistence/database';
import { PostgresTaskRepository } from '../../src/infrastructure/persistence/repositories/postgres-task.repository';
import { PostgresUserRepository } from '../../src/infrastructure/persistence/repositories/postgres-user.repository';
import { EmailAlreadyRegisteredError } from '../../src/domain/identity/user';
import { UpdateTaskUseCase } from '../../src/application/todo/update-task.use-case';
import { TASKS_PER_USER_MAX, type TaskChanges, type TaskDraft, draftTask } from '../../src/domain/todo/task';
import { useTestDatabase } from '../support/test-database';
import { undoMigrationsDownTo, useOpenDatabase } from '../support/persistence';
import { aNewUser } from '../factories/users';

describe(`repositories on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'PGlite'}`, () => {
  const db = useOpenDatabase();
  let users: PostgresUserRepository;
  let tasks: PostgresTaskRepository;
  const now = new Date('2026-11-22T09:00:00.000Z');

  beforeAll(() => {
    users = new PostgresUserRepository(db.database);
    tasks = new PostgresTaskRepository(db.database);
  });

  const addTask = async (userId: string, draft: TaskDraft) => (await tasks.add(userId, draft, now, TASKS_PER_USER_MAX))!;
  const newUser = (email: string) => users.create(aNewUser({ email }));

  describe(PostgresUserRepository.name, () => {
    it('creates, finds by email and id, and updates the role', async () => {
      const created = await newUser('find-me@example.com');
      expect(created).toMatchObject({ email: 'find-me@example.com', role: 'user', passwordHash: 'scrypt$x' });
      expect(created.createdAt).toBeInstanceOf(Date);
      await users.updateRole(created.id, 'admin');
      await expect(users.findByEmail('find-me@example.com')).resolves.toMatchObject({ id: created.id, role: 'admin' });
      await expect(users.findById(created.id)).resolves.toMatchObject({ email: 'find-me@example.com' });
      await expect(users.findByEmail('nobody@example.com')).resolves.toBeNull();
    });

    it('starts at credentials version 0, and changes the password only at the expected version, moving it on by one', async () => {
      const created = await newUser('rotate@example.com');
      expect(created.credentialsVersion).toBe(0);
      await expect(users.changePassword(created.id, 'scrypt$new', 1)).resolves.toBeNull();
      await expect(users.changePassword(created.id, 'scrypt$new', 0)).resolves.toMatchObject({
        id: created.id,
        passwordHash: 'scrypt$new',
        credentialsVersion: 1,
      });
      await expect(users.changePassword(created.id, 'scrypt$stale', 0)).resolves.toBeNull();
      await expect(users.findById(created.id)).resolves.toMatchObject({ passwordHash: 'scrypt$new', credentialsVersion: 1 });
    });

    it('lets exactly one of several racing password changes win', async () => {
      const created = await newUser('race-password@example.com');
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => users.changePassword(created.id, `scrypt$${i}`, 0)));
      expect(results.filter((result) => result !== null)).toHaveLength(1);
      await expect(users.findById(created.id)).resolves.toMatchObject({ credentialsVersion: 1 });
    });

    it('lets exactly one of several racing sign-ups with one email win', async () => {
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => newUser('race@example.com')));
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost.map((r) => r.reason as unknown)).toEqual(Array(4).fill(expect.any(EmailAlreadyRegisteredError)));
    });
  });

  describe(PostgresTaskRepository.name, () => {
    it('numbers 50 concurrent adds for one user 1..50 with no gap or repeat', async () => {
      const user = await newUser('busy@example.com');
      const added = await Promise.all(Array.from({ length: 50 }, (_, i) => addTask(user.id, draftTask({ title: `task ${i}` }))));
      expect(added.map((t) => t.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    });

    it('keeps numbering per user and never reuses a deleted number', async () => {
      const ada = await newUser('ada@example.com');
      const bob = await newUser('bob@example.com');
      await addTask(ada.id, draftTask({ title: 'one' }));
      await addTask(ada.id, draftTask({ title: 'two' }));
      await expect(addTask(bob.id, draftTask({ title: 'bob one' }))).resolves.toMatchObject({ number: 1 });
      await expect(tasks.remove(ada.id, 2)).resolves.toMatchObject({ number: 2, title: 'two' });
      await expect(addTask(ada.id, draftTask({ title: 'three' }))).resolves.toMatchObject({ number: 3 });
    });

    it("round-trips every field, filters by status, and cannot reach another user's task", async () => {
      const carol = await newUser('carol@example.com');
      const dave = await newUser('dave@example.com');
      const milk = await addTask(carol.id, draftTask({ title: 'Milk', description: '2 l', priority: 'high' }));
      await addTask(carol.id, draftTask({ title: 'Bread' }));
      const later = new Date('2026-11-22T10:00:00.000Z');
      await expect(tasks.replace(milk, { ...milk, completed: true, completedAt: later, updatedAt: later })).resolves.toBe(true);

      await expect(tasks.findByNumber(carol.id, 1)).resolves.toEqual({
        ...milk,
        completed: true,
        completedAt: later,
        updatedAt: later,
      });
      expect((await tasks.list(carol.id, 'completed')).map((t) => t.title)).toEqual(['Milk']);
      expect((await tasks.list(carol.id, 'pending')).map((t) => t.title)).toEqual(['Bread']);
      expect((await tasks.list(carol.id, 'all')).map((t) => t.number)).toEqual([1, 2]);

      await expect(tasks.findByNumber(dave.id, 1)).resolves.toBeNull();
      await expect(tasks.remove(dave.id, 1)).resolves.toBeNull();
      const stored = (await tasks.findByNumber(carol.id, 1))!;
      await expect(tasks.replace({ ...stored, userId: dave.id }, { ...stored, userId: dave.id, title: 'hijacked' })).resolves.toBe(false);
      await expect(tasks.findByNumber(carol.id, 1)).resolves.toMatchObject({ title: 'Milk' });
    });

    it('replaces a task only while it still holds what was read (compare and set)', async () => {
      const erin = await newUser('erin@example.com');
      const read = await addTask(erin.id, draftTask({ title: 'Tea' }));
      const later = new Date('2026-11-22T10:00:00.000Z');
      // Stale in any one field (null-able ones included), or gone: nothing is written.
      await expect(tasks.replace({ ...read, description: 'green' }, { ...read, title: 'x' })).resolves.toBe(false);
      await expect(tasks.replace({ ...read, completedAt: later }, { ...read, title: 'x' })).resolves.toBe(false);
      await expect(tasks.replace({ ...read, updatedAt: later }, { ...read, title: 'x' })).resolves.toBe(false);
      await expect(tasks.findByNumber(erin.id, 1)).resolves.toEqual(read);
      const renamed = { ...read, title: 'Green tea', description: 'sencha', updatedAt: later };
      await expect(tasks.replace(read, renamed)).resolves.toBe(true);
      await expect(tasks.replace(read, { ...read, priority: 'high' })).resolves.toBe(false);
      await expect(tasks.findByNumber(erin.id, 1)).resolves.toEqual(renamed);
      await tasks.remove(erin.id, 1);
      await expect(tasks.replace(renamed, { ...renamed, title: 'ghost' })).resolves.toBe(false);
    });

    it('adds nothing once the user has the most tasks allowed, and makes room again on a delete', async () => {
      const gina = await newUser('gina@example.com');
      const draft = draftTask({ title: 'Stamp' });
      for (let i = 0; i < 3; i++) await expect(tasks.add(gina.id, draft, now, 3)).resolves.toMatchObject({ number: i + 1 });
      await expect(tasks.add(gina.id, draft, now, 3)).resolves.toBeNull();
      expect(await tasks.list(gina.id, 'all')).toHaveLength(3);
      await tasks.remove(gina.id, 2);
      // The refused add took no number: the next one is 4.
      await expect(tasks.add(gina.id, draft, now, 3)).resolves.toMatchObject({ number: 4 });
      await expect(tasks.add('00000000-0000-4000-8000-000000000000', draft, now, 3)).rejects.toThrow(/unknown user/);
    });

    it('holds the limit exactly when 20 adds race for the last 5 places', async () => {
      const hank = await newUser('hank@example.com');
      const added = await Promise.all(Array.from({ length: 20 }, (_, i) => tasks.add(hank.id, draftTask({ title: `t${i}` }), now, 5)));
      expect(added.filter((task) => task !== null)).toHaveLength(5);
      expect(await tasks.list(hank.id, 'all')).toHaveLength(5);
      // A remove that finds nothing frees no place.
      await expect(tasks.remove(hank.id, 99)).resolves.toBeNull();
      await expect(tasks.add(hank.id, draftTask({ title: 'late' }), now, 5)).resolves.toBeNull();
    });

    it("counts a user's existing tasks when the task_count migration runs (and undoes cleanly)", async () => {
      const ivy = await newUser('ivy@example.com');
      for (const title of ['a', 'b', 'c']) await addTask(ivy.id, draftTask({ title }));
      await tasks.remove(ivy.id, 2);
      // Undone with the migrations that came after it, then all run again.
      await undoMigrationsDownTo(db.database, 'TaskCount1764288000000');
      await db.database.runMigrations();
      const [row] = await db.database.query<{ task_count: number }[]>(`SELECT task_count FROM users WHERE id = $1`, [ivy.id]);
      expect(row.task_count).toBe(2);
      await expect(tasks.add(ivy.id, draftTask({ title: 'd' }), now, 3)).resolves.toMatchObject({ number: 4 });
      await expect(tasks.add(ivy.id, draftTask({ title: 'e' }), now, 3)).resolves.toBeNull();
    });

    it('removes tasks as shown all together, or none of them when one was renamed or removed since', async () => {
      const jo = await newUser('jo@example.com');
      for (const title of ['a', 'b', 'c', 'd']) await addTask(jo.id, draftTask({ title }));
      const shown = [
        { number: 1, title: 'a' },
        { number: 2, title: 'b' },
        { number: 3, title: 'c' },
      ];
      await tasks.remove(jo.id, 2);
      await expect(tasks.removeAsShown(jo.id, shown)).resolves.toEqual({
        removed: false,
        current: [expect.objectContaining({ number: 1, title: 'a' }), expect.objectContaining({ number: 3, title: 'c' })],
      });
      const stale = (await tasks.findByNumber(jo.id, 3))!;
      await tasks.replace(stale, { ...stale, title: 'c2' });
      await expect(tasks.removeAsShown(jo.id, [shown[0], shown[2]])).resolves.toMatchObject({
        removed: false,
        current: [
          { number: 1, title: 'a' },
          { number: 3, title: 'c2' },
        ],
      });
      expect((await tasks.list(jo.id, 'all')).map((t) => t.number)).toEqual([1, 3, 4]);

      const removed = await tasks.removeAsShown(jo.id, [
        { number: 3, title: 'c2' },
        { number: 1, title: 'a' },
      ]);
      expect(removed).toEqual({
        removed: true,
        tasks: [expect.objectContaining({ number: 1, title: 'a', userId: jo.id }), expect.objectContaining({ number: 3, title: 'c2' })],
      });
      expect((await tasks.list(jo.id, 'all')).map((t) => t.number)).toEqual([4]);
      // Only what was removed left the count: two more fit under a limit of 3.
      await expect(tasks.add(jo.id, draftTask({ title: 'e' }), now, 3)).resolves.toMatchObject({ number: 5 });
      await expect(tasks.add(jo.id, draftTask({ title: 'f' }), now, 3)).resolves.toMatchObject({ number: 6 });
      await expect(tasks.add(jo.id, draftTask({ title: 'g' }), now, 3)).resolves.toBeNull();
    });

    it('lets a delete racing a removal as shown win or lose whole: never a part of the list', async () => {
      for (let round = 0; round < 5; round++) {
        const max = await newUser(`max${round}@example.com`);
        const shown = [];
        for (const title of ['a', 'b', 'c']) shown.push({ number: (await addTask(max.id, draftTask({ title }))).number, title });
        const [asShown, single] = await Promise.all([tasks.removeAsShown(max.id, shown), tasks.remove(max.id, 2)]);
        const left = (await tasks.list(max.id, 'all')).map((t) => t.number);
        if (asShown.removed) expect({ single, left }).toEqual({ single: null, left: [] });
        else expect({ single: single?.number, left }).toEqual({ single: 2, left: [1, 3] });
        const [row] = await db.database.query<{ task_count: number }[]>(`SELECT task_count FROM users WHERE id = $1`, [max.id]);
        expect(row.task_count).toBe(left.length);
      }
    });

    it("removes a whole list of the most tasks allowed in one call, and never another user's", async () => {
      const kim = await newUser('kim@example.com');
      const lee = await newUser('lee@example.com');
      const shown = [];
      for (let i = 1; i <= TASKS_PER_USER_MAX; i++)
        shown.push({ number: i, title: (await addTask(kim.id, draftTask({ title: `t${i}` }))).title });
      await addTask(lee.id, draftTask({ title: 't1' }));
      await expect(tasks.removeAsShown(lee.id, shown.slice(0, 1).concat({ number: 2, title: 't2' }))).resolves.toMatchObject({
        removed: false,
      });
      const removed = await tasks.removeAsShown(kim.id, shown);
      expect(removed.removed && removed.tasks).toHaveLength(TASKS_PER_USER_MAX);
      expect(await tasks.list(kim.id, 'all')).toEqual([]);
      expect((await tasks.list(lee.id, 'all')).map((t) => t.title)).toEqual(['t1']);
    });

    it('keeps every field of four updates that all read the task before any of them wrote', async () => {
      const frank = await newUser('frank@example.com');
      await addTask(frank.id, draftTask({ title: 'Plan trip' }));
      // Each update's first read waits until all four have read: every write but one then meets a changed row.
      let reads = 0;
      let allRead!: () => void;
      const barrier = new Promise<void>((resolve) => (allRead = resolve));
      const racing = Object.create(tasks) as PostgresTaskRepository;
      racing.findByNumber = async (userId, taskNumber) => {
        const task = await tasks.findByNumber(userId, taskNumber);
        if (reads < 4 && ++reads === 4) allRead();
        await barrier;
        return task;
      };
      const clock = { now: () => new Date('2026-11-22T11:00:00.000Z') };
      const update = new UpdateTaskUseCase(racing, clock);
      const changes: TaskChanges[] = [{ title: 'Plan the trip' }, { description: 'Lisbon' }, { priority: 'high' }, { completed: true }];
      await Promise.all(changes.map((change) => update.execute({ userId: frank.id, number: 1, changes: change })));
      await expect(tasks.findByNumber(frank.id, 1)).resolves.toMatchObject({
        title: 'Plan the trip',
        description: 'Lisbon',
        priority: 'high',
        completed: true,
      });
    });
  });
});

describe('opening one fresh database from several processes at once', () => {
  const testDb = useTestDatabase({ fresh: true });

  it(
    process.env.TEST_POSTGRES_URL
      ? 'migrates exactly once while three replicas start together'
      : 'lets exactly one opener have the embedded folder',
    async () => {
      const results = await Promise.allSettled([1, 2, 3].map(() => openDatabase(testDb.settings)));
      const opened = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      try {
        expect(opened).toHaveLength(testDb.kind === 'server' ? 3 : 1);
        const applied = await opened[0].query<unknown[]>('SELECT * FROM migrations');
        expect(applied).toHaveLength(opened[0].migrations.length);
      } finally {
        await Promise.all(opened.map((database) => database.destroy()));
      }
    },
  );
});
