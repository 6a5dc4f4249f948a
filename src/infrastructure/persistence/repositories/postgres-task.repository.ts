import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import type { ShownTask } from '../../../domain/todo/deletion';
import type { Task, TaskDraft, TaskStatusFilter } from '../../../domain/todo/task';
import { TaskRepository } from '../../../application/todo/ports/task-repository.port';
import { changeRows, empty, exists, selectRow, selectRows, sql } from '../sql';
import { TASK_COLUMNS, TASK_ROW } from '../tables/tasks';

/** A task named in a delete-as-shown, and whether all of them were still as shown. */
const SHOWN_TASK_ROW = TASK_ROW.extend({ intact: z.boolean() });

@Injectable()
export class PostgresTaskRepository extends TaskRepository {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async add(userId: string, draft: TaskDraft, now: Date, maxTasks: number): Promise<Task | null> {
    // One statement: the counter update row-locks the user, so concurrent adds for one
    // user queue up and each takes the next number; a failed insert rolls the counter back.
    // The limit is checked on that locked row, so racing adds cannot pass it either.
    const task = await selectRow(
      this.dataSource,
      sql`WITH next AS (
            UPDATE users SET task_counter = task_counter + 1, task_count = task_count + 1
            WHERE id = ${userId} AND task_count < ${maxTasks}
            RETURNING task_counter
          )
          INSERT INTO tasks (user_id, number, title, description, priority, completed, created_at, updated_at)
          SELECT ${userId}, task_counter, ${draft.title}, ${draft.description}, ${draft.priority}, false, ${now}, ${now} FROM next
          RETURNING ${TASK_COLUMNS}`,
      TASK_ROW,
    );
    if (task) return task;
    if (!(await exists(this.dataSource, sql`SELECT 1 FROM users WHERE id = ${userId}`)))
      throw new Error(`Cannot add a task for unknown user ${userId}`);
    return null;
  }

  list(userId: string, status: TaskStatusFilter): Promise<Task[]> {
    const completed = status === 'all' ? empty : sql`AND completed = ${status === 'completed'}`;
    return selectRows(
      this.dataSource,
      sql`SELECT ${TASK_COLUMNS} FROM tasks WHERE user_id = ${userId} ${completed} ORDER BY number`,
      TASK_ROW,
    );
  }

  findByNumber(userId: string, taskNumber: number): Promise<Task | null> {
    return selectRow(
      this.dataSource,
      sql`SELECT ${TASK_COLUMNS} FROM tasks WHERE user_id = ${userId} AND number = ${taskNumber}`,
      TASK_ROW,
    );
  }

  async replace(read: Task, updated: Task): Promise<boolean> {
    // The row must still hold every mutable field as read; one statement, so no lock is held across a round trip.
    const changed = await changeRows(
      this.dataSource,
      sql`UPDATE tasks
          SET title = ${updated.title}, description = ${updated.description}, priority = ${updated.priority},
              completed = ${updated.completed}, updated_at = ${updated.updatedAt}, completed_at = ${updated.completedAt}
          WHERE id = ${read.id} AND user_id = ${read.userId}
            AND title = ${read.title} AND description IS NOT DISTINCT FROM ${read.description}
            AND priority = ${read.priority} AND completed = ${read.completed}
            AND updated_at = ${read.updatedAt} AND completed_at IS NOT DISTINCT FROM ${read.completedAt}`,
    );
    return changed === 1;
  }

  remove(userId: string, taskNumber: number): Promise<Task | null> {
    return selectRow(
      this.dataSource,
      sql`WITH removed AS (DELETE FROM tasks WHERE user_id = ${userId} AND number = ${taskNumber} RETURNING ${TASK_COLUMNS}),
               counted AS (UPDATE users SET task_count = task_count - 1 WHERE id = ${userId} AND EXISTS (SELECT 1 FROM removed))
          SELECT * FROM removed`,
      TASK_ROW,
    );
  }

  async removeAsShown(
    userId: string,
    shown: readonly ShownTask[],
  ): Promise<{ removed: true; tasks: Task[] } | { removed: false; current: Task[] }> {
    const byNumber = new Map(shown.map((task) => [task.number, task.title]));
    if (byNumber.size === 0) return { removed: true, tasks: [] };
    const numbers = [...byNumber.keys()];
    // One statement. The named rows are locked first (in number order, so two such deletes
    // queue rather than deadlock); a rename or delete that committed before the lock is seen,
    // one that comes after waits. Only if every number still holds its title are they deleted.
    const rows = await selectRows(
      this.dataSource,
      sql`WITH shown AS (SELECT * FROM unnest(${numbers}::int[], ${[...byNumber.values()]}::text[]) AS s(number, title)),
               locked AS (
                 SELECT ${TASK_COLUMNS} FROM tasks WHERE user_id = ${userId} AND number = ANY(${numbers}::int[]) ORDER BY number FOR UPDATE
               ),
               intact AS (
                 SELECT count(*) = ${byNumber.size} AND count(*) = count(*) FILTER (WHERE l.title = s.title) AS ok
                 FROM locked l JOIN shown s ON s.number = l.number
               ),
               removed AS (DELETE FROM tasks WHERE id IN (SELECT id FROM locked) AND (SELECT ok FROM intact) RETURNING id),
               counted AS (
                 UPDATE users SET task_count = task_count - (SELECT count(*) FROM removed)
                 WHERE id = ${userId} AND (SELECT ok FROM intact)
               )
          SELECT locked.*, (SELECT ok FROM intact) AS intact FROM locked ORDER BY number`,
      SHOWN_TASK_ROW,
    );
    const tasks = rows.map(({ intact: _, ...task }) => task);
    return rows.length > 0 && rows[0].intact ? { removed: true, tasks } : { removed: false, current: tasks };
  }
}
