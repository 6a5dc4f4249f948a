import { addTaskTool } from './descriptors/add-task.tool';
import { completeTaskTool } from './descriptors/complete-task.tool';
import { deleteTaskTool } from './descriptors/delete-task.tool';
import { listTasksTool } from './descriptors/list-tasks.tool';
import { updateTaskTool } from './descriptors/update-task.tool';
import type { TodoTool } from './todo-tool';

/** Bridle's todo tools, in the order they are listed and offered. A new tool is one descriptor and one line here. */
export const TODO_TOOL_LIST: readonly TodoTool[] = [addTaskTool, listTasksTool, completeTaskTool, updateTaskTool, deleteTaskTool];
