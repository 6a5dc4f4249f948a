import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ShownTask } from '../../../domain/todo/deletion';
import type { Task, TaskDraft, TaskStatusFilter } from '../../../domain/todo/task';
import { TaskRepository } from '../../../application/todo/ports/task-repository.port';

/** Every column, named as the domain Task's properties: rows come back as Tasks. */
export const TASK_COLUMNS = `id, user_id AS "userId", number, title, description, priority, completed,
  created_at AS "createdAt", updated_at AS "updatedAt", completed_at AS "completedAt"`;

@Injectable()
export class PostgresTaskRepository extends TaskRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async add(userId: string, draft: TaskDraft, now: Date, maxTasks: number): Promise<Task | null> {
    // One statement: the counter update row-locks the user, so concurrent adds for one
    // user queue up and each takes the next number; a failed insert rolls the counter back.
    // The limit is checked on that locked row, so racing adds cannot pass it either.
    const rows = await this.dataSource.query<Task[]>(
      `WITH next AS (
         UPDATE users SET task_counter = task_counter + 1, task_count = task_count + 1
         WHERE id = $1 AND task_count < $6
         RETURNING task_counter
       )
       INSERT INTO tasks (user_id, number, title, description, priority, completed, created_at, updated_at)
       SELECT $1, task_counter, $2, $3, $4, false, $5, $5 FROM next
       RETURNING ${TASK_COLUMNS}`,
      [userId, draft.title, draft.description, draft.priority, now, maxTasks],
    );
    if (rows.length > 0) return rows[0];
    const user = await this.dataSource.query<unknown[]>(`SELECT 1 FROM users WHERE id = $1`, [userId]);
    if (user.length === 0) throw new Error(`Cannot add a task for unknown user ${userId}`);
    return null;
  }

  async list(userId: string, status: TaskStatusFilter): Promise<Task[]> {
    const rows = await this.dataSource.query<Task[]>(
      `SELECT ${TASK_COLUMNS} FROM tasks
       WHERE user_id = $1 ${status === 'all' ? '' : 'AND completed = $2'} ORDER BY number`,
      status === 'all' ? [userId] : [userId, status === 'completed'],
    );
    return rows;
  }

  async findByNumber(userId: string, taskNumber: number): Promise<Task | null> {
    const rows = await this.dataSource.query<Task[]>(
      `SELECT ${TASK_COLUMNS} FROM tasks WHERE user_id = $1 AND number = $2`,
      [userId, taskNumber],
    );
    return rows.length === 0 ? null : rows[0];
  }

  async replace(read: Task, updated: Task): Promise<boolean> {
    // The row must still hold every mutable field as read; one statement, so no lock is held across a round trip.
    const [, changed] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE tasks SET title = $3, description = $4, priority = $5, completed = $6, updated_at = $7, completed_at = $8
       WHERE id = $1 AND user_id = $2
         AND title = $9 AND description IS NOT DISTINCT FROM $10 AND priority = $11 AND completed = $12
         AND updated_at = $13 AND completed_at IS NOT DISTINCT FROM $14`,
      [
        read.id,
        read.userId,
        updated.title,
        updated.description,
        updated.priority,
        updated.completed,
        updated.updatedAt,
        updated.completedAt,
        read.title,
        read.description,
        read.priority,
        read.completed,
        read.updatedAt,
        read.completedAt,
      ],
    );
    return changed === 1;
  }

  async remove(userId: string, taskNumber: number): Promise<Task | null> {
    const rows = await this.dataSource.query<Task[]>(
      `WITH removed AS (DELETE FROM tasks WHERE user_id = $1 AND number = $2 RETURNING ${TASK_COLUMNS}),
            counted AS (UPDATE users SET task_count = task_count - 1 WHERE id = $1 AND EXISTS (SELECT 1 FROM removed))
       SELECT * FROM removed`,
      [userId, taskNumber],
    );
    return rows.length === 0 ? null : rows[0];
  }

  async removeAsShown(
    userId: string,
    shown: readonly ShownTask[],
  ): Promise<{ removed: true; tasks: Task[] } | { removed: false; current: Task[] }> {
    const byNumber = new Map(shown.map((task) => [task.number, task.title]));
    if (byNumber.size === 0) return { removed: true, tasks: [] };
    // One statement. The named rows are locked first (in number order, so two such deletes
    // queue rather than deadlock); a rename or delete that committed before the lock is seen,
    // one that comes after waits. Only if every number still holds its title are they deleted.
    const rows = await this.dataSource.query<(Task & { intact: boolean })[]>(
      `WITH shown AS (SELECT * FROM unnest($2::int[], $3::text[]) AS s(number, title)),
            locked AS (
              SELECT ${TASK_COLUMNS} FROM tasks WHERE user_id = $1 AND number = ANY($2::int[]) ORDER BY number FOR UPDATE
            ),
            intact AS (
              SELECT count(*) = $4 AND count(*) = count(*) FILTER (WHERE l.title = s.title) AS ok
              FROM locked l JOIN shown s ON s.number = l.number
            ),
            removed AS (DELETE FROM tasks WHERE id IN (SELECT id FROM locked) AND (SELECT ok FROM intact) RETURNING id),
            counted AS (
              UPDATE users SET task_count = task_count - (SELECT count(*) FROM removed)
              WHERE id = $1 AND (SELECT ok FROM intact)
            )
       SELECT locked.*, (SELECT ok FROM intact) AS intact FROM locked ORDER BY number`,
      [userId, [...byNumber.keys()], [...byNumber.values()], byNumber.size],
    );
    const tasks = rows.map(({ intact: _, ...task }) => task);
    return rows.length > 0 && rows[0].intact ? { removed: true, tasks } : { removed: false, current: tasks };
  }
}
