import { Module } from '@nestjs/common';
import { TodoTools } from '../application/todo/tools/todo-tools';

/**
 * The todo tools' registry (TodoTools): every part that knows a todo tool reads it (the
 * toolbox, the policy, the chat, the REST tool route). The built-in tools; a test registers
 * one more by providing `TodoTools.builtIn.with([tool])` in its place.
 */
@Module({
  providers: [{ provide: TodoTools, useValue: TodoTools.builtIn }],
  exports: [TodoTools],
})
export class TodoToolsModule {}
