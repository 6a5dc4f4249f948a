import { useState } from 'preact/hooks';
import { type Task, completeTask, updateTask } from '../../api';
import { PRIORITY_TONE } from '../../lib/labels';
import { currentSession } from '../../state/session';
import { replaceTask } from '../../state/tasks';
import { Badge, Button } from '../../ui';

interface RowProps {
  task: Task;
  onChange: (work: () => Promise<void>) => Promise<void>;
  onDelete: () => void;
}

/** One task of the panel: tick it, edit its title in place, or ask to delete it. */
export function TaskRow({ task, onChange, onDelete }: RowProps) {
  const session = currentSession();
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(task.title);
  const [busy, setBusy] = useState(false);
  // What the person just ticked shows at once; the list's answer replaces it (or, on a refusal, the reload does).
  const [ticked, setTicked] = useState<boolean | null>(null);
  const done = ticked ?? task.completed;
  const checkboxId = `task-${task.number}-done`;

  const run = (work: () => Promise<void>) => {
    setBusy(true);
    void onChange(work).finally(() => setBusy(false));
  };

  const toggle = () => {
    setTicked(!task.completed);
    run(async () => {
      try {
        replaceTask(
          task.completed ? await updateTask(session, task.number, { completed: false }) : await completeTask(session, task.number),
        );
      } finally {
        setTicked(null);
      }
    });
  };

  const save = () => {
    const next = title.trim();
    setEditing(false);
    if (!next || next === task.title) return setTitle(task.title);
    run(async () => replaceTask(await updateTask(session, task.number, { title: next })));
  };

  return (
    <li class={`task${done ? ' is-done' : ''}`} data-number={task.number}>
      <input id={checkboxId} type="checkbox" checked={done} disabled={busy} onChange={toggle} />
      {editing ? (
        <input
          class="input task-edit"
          aria-label={`Title of task ${task.number}`}
          value={title}
          maxLength={200}
          ref={(element) => element?.focus()}
          onInput={(event) => setTitle(event.currentTarget.value)}
          onBlur={save}
          onKeyDown={(event) => {
            if (event.key === 'Enter') save();
            if (event.key === 'Escape') {
              setTitle(task.title);
              setEditing(false);
            }
          }}
        />
      ) : (
        <label for={checkboxId} class="task-title">
          <span class="task-number">{task.number}.</span> {task.title}
          {done && <span class="visually-hidden"> (done)</span>}
        </label>
      )}
      <Badge tone={PRIORITY_TONE[task.priority] ?? 'neutral'}>{task.priority}</Badge>
      <div class="task-actions">
        <Button variant="ghost" size="sm" aria-label={`Edit '${task.title}'`} disabled={busy} onClick={() => setEditing(true)}>
          Edit
        </Button>
        <Button variant="ghost" size="sm" class="danger-text" aria-label={`Delete '${task.title}'`} disabled={busy} onClick={onDelete}>
          Delete
        </Button>
      </div>
    </li>
  );
}
