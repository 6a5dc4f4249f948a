import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import type { Task, TaskDraft, TaskStatusFilter } from '../../../domain/todo/task';
import { TaskRepository } from '../../../application/todo/ports/task-repository.port';
import { TaskRecord } from '../records/task.record';

/** Every column, named as TaskRecord's properties, for raw statements with RETURNING. */
const TASK_COLUMNS = `id, user_id AS "userId", number, title, description, priority, completed,
  created_at AS "createdAt", updated_at AS "updatedAt", completed_at AS "completedAt"`;

@Injectable()
export class TypeOrmTaskRepository extends TaskRepository {
  private readonly tasks: Repository<TaskRecord>;

  constructor(private readonly dataSource: DataSource) {
    super();
    this.tasks = dataSource.getRepository(TaskRecord);
  }

  async add(userId: string, draft: TaskDraft, now: Date): Promise<Task> {
    // One statement: the counter update row-locks the user, so concurrent adds for one
    // user queue up and each takes the next number; a failed insert rolls the counter back.
    const rows = await this.dataSource.query<TaskRecord[]>(
      `WITH next AS (
         UPDATE users SET task_counter = task_counter + 1 WHERE id = $1 RETURNING task_counter
       )
       INSERT INTO tasks (user_id, number, title, description, priority, completed, created_at, updated_at)
       SELECT $1, task_counter, $2, $3, $4, false, $5, $5 FROM next
       RETURNING ${TASK_COLUMNS}`,
      [userId, draft.title, draft.description, draft.priority, now],
    );
    if (rows.length === 0) throw new Error(`Cannot add a task for unknown user ${userId}`);
    return toTask(rows[0]);
  }

  async list(userId: string, status: TaskStatusFilter): Promise<Task[]> {
    const records = await this.tasks.find({
      where: status === 'all' ? { userId } : { userId, completed: status === 'completed' },
      order: { number: 'ASC' },
    });
    return records.map(toTask);
  }

  async findByNumber(userId: string, taskNumber: number): Promise<Task | null> {
    const record = await this.tasks.findOneBy({ userId, number: taskNumber });
    return record ? toTask(record) : null;
  }

  async save(task: Task): Promise<void> {
    await this.tasks.update(
      { id: task.id, userId: task.userId },
      {
        title: task.title,
        description: task.description,
        priority: task.priority,
        completed: task.completed,
        updatedAt: task.updatedAt,
        completedAt: task.completedAt,
      },
    );
  }

  async remove(userId: string, taskNumber: number): Promise<Task | null> {
    // For DELETE … RETURNING the postgres driver answers [rows, affected count].
    const [rows] = await this.dataSource.query<[TaskRecord[], number]>(
      `DELETE FROM tasks WHERE user_id = $1 AND number = $2 RETURNING ${TASK_COLUMNS}`,
      [userId, taskNumber],
    );
    return rows.length === 0 ? null : toTask(rows[0]);
  }
}

function toTask(record: TaskRecord): Task {
  return {
    id: record.id,
    userId: record.userId,
    number: record.number,
    title: record.title,
    description: record.description,
    priority: record.priority,
    completed: record.completed,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    completedAt: record.completedAt,
  };
}
