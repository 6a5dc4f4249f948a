import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import {
  DESCRIPTION_MAX_LENGTH,
  type Task,
  TASK_NUMBER_MAX,
  TASK_PRIORITIES,
  TASK_STATUS_FILTERS,
  type TaskPriority,
  type TaskStatusFilter,
  TITLE_MAX_LENGTH,
} from '../../../domain/todo/task';
import { Optional, OptionalOrNull, ToInteger } from '../shared/fields';

// class-validator reports the decorator nearest the property first (stopAtFirstError), so
// the type check sits nearest and a wrong type is reported as such, not as a length.
const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

export class CreateTaskRequestDto {
  @ApiProperty({ example: 'Buy milk', minLength: 1, maxLength: TITLE_MAX_LENGTH })
  @Transform(trim)
  @MaxLength(TITLE_MAX_LENGTH)
  @MinLength(1, { message: 'title must not be empty' })
  @IsString()
  title!: string;

  @ApiPropertyOptional({ type: String, example: 'Two litres, semi-skimmed', maxLength: DESCRIPTION_MAX_LENGTH, nullable: true })
  @OptionalOrNull()
  @MaxLength(DESCRIPTION_MAX_LENGTH)
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ enum: TASK_PRIORITIES, default: 'medium' })
  @Optional()
  @IsIn(TASK_PRIORITIES)
  priority?: TaskPriority;
}

export class UpdateTaskRequestDto {
  @ApiPropertyOptional({ example: 'Buy oat milk', minLength: 1, maxLength: TITLE_MAX_LENGTH })
  @Optional()
  @Transform(trim)
  @MaxLength(TITLE_MAX_LENGTH)
  @MinLength(1, { message: 'title must not be empty' })
  @IsString()
  title?: string;

  @ApiPropertyOptional({ type: String, maxLength: DESCRIPTION_MAX_LENGTH, nullable: true, description: 'null clears it' })
  @OptionalOrNull()
  @MaxLength(DESCRIPTION_MAX_LENGTH)
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ enum: TASK_PRIORITIES })
  @Optional()
  @IsIn(TASK_PRIORITIES)
  priority?: TaskPriority;

  @ApiPropertyOptional({ description: 'false reopens a completed task' })
  @Optional()
  @IsBoolean()
  completed?: boolean;
}

export class ListTasksQueryDto {
  @ApiPropertyOptional({
    enum: TASK_STATUS_FILTERS,
    default: 'all',
    description: 'Which tasks: all, only the pending or only the completed ones',
  })
  @Optional()
  @IsIn(TASK_STATUS_FILTERS)
  status?: TaskStatusFilter;
}

export class UserPathDto {
  @ApiProperty({ format: 'uuid', description: 'Must be the id of the authenticated user' })
  @IsString()
  userId!: string;
}

export class TaskPathDto extends UserPathDto {
  @ApiProperty({ description: 'The per-user task number', minimum: 1, example: 1 })
  @ToInteger()
  @Max(TASK_NUMBER_MAX)
  @Min(1)
  @IsInt({ message: 'number must be a whole number' })
  number!: number;
}

export class TaskResponseDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 1, description: 'Per-user number, stable for the life of the task' })
  number!: number;

  @ApiProperty({ example: 'Buy milk' })
  title!: string;

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @ApiProperty({ enum: TASK_PRIORITIES })
  priority!: TaskPriority;

  @ApiProperty()
  completed!: boolean;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completedAt!: string | null;

  static of(task: Task): TaskResponseDto {
    return {
      id: task.id,
      number: task.number,
      title: task.title,
      description: task.description,
      priority: task.priority,
      completed: task.completed,
      createdAt: task.createdAt.toISOString(),
      updatedAt: task.updatedAt.toISOString(),
      completedAt: task.completedAt?.toISOString() ?? null,
    };
  }
}
