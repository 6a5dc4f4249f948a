import { useState } from 'preact/hooks';
import { type Task, createTask, deleteTask } from '../../api';
import { errorText } from '../../lib/errors';
import { plural } from '../../lib/labels';
import { useAction } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { refreshTasks, tasks, tasksError } from '../../state/tasks';
import { Alert, Button, Dialog, EmptyState, toast } from '../../ui';
import { TaskRow } from './task-row';

type Filter = 'all' | 'pending' | 'done';
const FILTERS: Record<Filter, string> = { all: 'All', pending: 'Pending', done: 'Done' };

/** The task list beside the chat: tick, edit in place, delete after a confirmation, filter. */
export function TaskPanel() {
  const session = currentSession();
  const [filter, setFilter] = useState<Filter>('all');
  const [toDelete, setToDelete] = useState<Task | null>(null);
  const action = useAction<'change'>();
  const [newTitle, setNewTitle] = useState('');
  const list = tasks.value;
  const shown = (list ?? []).filter((task) => filter === 'all' || task.completed === (filter === 'done'));
  const pending = (list ?? []).filter((task) => !task.completed).length;

  /** Runs a change; a refusal is shown in the panel, and the list is reloaded either way. */
  async function change(work: () => Promise<void>) {
    if (!(await action.run('change', work))) await refreshTasks(session);
  }

  const confirmDelete = (task: Task) =>
    void change(async () => {
      setToDelete(null);
      await deleteTask(session, task.number);
      toast(`Deleted '${task.title}'`);
      await refreshTasks(session);
    });

  return (
    <aside class="tasks-panel" aria-labelledby="tasks-title">
      <div class="spread">
        <h2 id="tasks-title">Tasks</h2>
        {list && <span class="muted small">{plural(pending, 'pending task')}</span>}
      </div>
      <div class="segmented" role="group" aria-label="Show tasks">
        {(Object.keys(FILTERS) as Filter[]).map((name) => (
          <button key={name} type="button" aria-pressed={filter === name} onClick={() => setFilter(name)}>
            {FILTERS[name]}
          </button>
        ))}
      </div>
      <Alert message={action.error ?? (tasksError.value ? errorText(tasksError.value) : null)} />
      {list === null ? (
        <p class="muted small">Loading your tasks…</p>
      ) : shown.length === 0 ? (
        <EmptyState title={list.length === 0 ? 'No tasks yet.' : `No ${filter === 'done' ? 'done' : 'pending'} tasks.`}>
          {list.length === 0 && <p>Add one below, or ask the assistant.</p>}
        </EmptyState>
      ) : (
        <ul class="plain task-list" aria-label="Your tasks">
          {shown.map((task) => (
            <TaskRow key={task.number} task={task} onChange={change} onDelete={() => setToDelete(task)} />
          ))}
        </ul>
      )}
      <form
        class="add-task"
        onSubmit={(event) => {
          event.preventDefault();
          const title = newTitle.trim();
          if (!title) return;
          void change(async () => {
            await createTask(session, title);
            setNewTitle('');
            await refreshTasks(session);
          });
        }}
      >
        <label for="new-task" class="visually-hidden">
          New task
        </label>
        <input
          id="new-task"
          class="input"
          placeholder="Add a task"
          maxLength={200}
          autocomplete="off"
          value={newTitle}
          onInput={(event) => setNewTitle(event.currentTarget.value)}
        />
        <Button type="submit" variant="secondary" disabled={newTitle.trim() === ''}>
          Add
        </Button>
      </form>
      <Dialog
        open={toDelete !== null}
        role="alertdialog"
        title={toDelete ? `Delete '${toDelete.title}'?` : 'Delete task?'}
        onClose={() => setToDelete(null)}
        actions={
          <>
            <Button variant="danger" onClick={() => toDelete && confirmDelete(toDelete)}>
              Yes, delete
            </Button>
            <Button variant="secondary" onClick={() => setToDelete(null)}>
              Cancel
            </Button>
          </>
        }
      >
        <p>Task {toDelete?.number} goes for good: this cannot be undone. Its number is not reused.</p>
      </Dialog>
    </aside>
  );
}
