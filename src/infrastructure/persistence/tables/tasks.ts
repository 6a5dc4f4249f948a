import { z } from 'zod';
import { TASK_PRIORITIES, type Task } from '../../../domain/todo/task';
import { raw } from '../sql';

/** Every column, named as the domain Task's properties: rows come back as Tasks. */
export const TASK_COLUMNS = raw(`id, user_id AS "userId", number, title, description, priority, completed,
  created_at AS "createdAt", updated_at AS "updatedAt", completed_at AS "completedAt"`);

/** A row of TASK_COLUMNS. */
export const TASK_ROW = z.object({
  id: z.string(),
  userId: z.string(),
  number: z.number().int(),
  title: z.string(),
  description: z.string().nullable(),
  priority: z.enum(TASK_PRIORITIES),
  completed: z.boolean(),
  createdAt: z.date(),
  updatedAt: z.date(),
  completedAt: z.date().nullable(),
}) satisfies z.ZodType<Task>;
