import type { CampaignTask } from '../../api';
import { reviewEnding, taskStatus } from '../../lib/holds';
import { taskKindLabel } from '../../lib/labels';
import { fullTime } from '../../lib/time';
import { Badge, EmptyState } from '../../ui';

/** Each lead's steps in order, with what was sent, verified, refused or cancelled. */
export function Timeline({ tasks }: { tasks: readonly CampaignTask[] }) {
  if (tasks.length === 0) return <EmptyState title="No leads yet.">Import a CSV of leads to plan their steps.</EmptyState>;
  const byLead = new Map<string, CampaignTask[]>();
  for (const task of tasks) byLead.set(task.leadId, [...(byLead.get(task.leadId) ?? []), task]);
  return (
    <ul class="plain timeline">
      {/* By name: the leads of one import share their creation time, so the API's order among them is not theirs. */}
      {[...byLead.values()]
        .sort((a, b) => a[0].leadName.localeCompare(b[0].leadName, undefined, { numeric: true }))
        .map((steps) => (
          <li key={steps[0].leadId} class="lead">
            <h4>{steps[0].leadName}</h4>
            <ol class="plain steps">
              {steps
                .sort((a, b) => a.step - b.step)
                .map((task) => {
                  const status = taskStatus(task);
                  return (
                    <li key={task.id} class={`step step-${task.status}`}>
                      <div class="spread">
                        <span class="step-kind">{taskKindLabel(task.type)}</span>
                        <Badge tone={status.tone}>{status.label}</Badge>
                      </div>
                      {task.sent && (
                        <blockquote class="sent" aria-label={`${taskKindLabel(task.type)} sent to ${task.sent.recipient}`}>
                          <p class="muted small">
                            To {task.sent.recipient}
                            {task.sent.subject && ` · ${task.sent.subject}`}
                          </p>
                          <p class="sent-text">{task.sent.text}</p>
                        </blockquote>
                      )}
                      {task.status === 'Completed' && task.type !== 'ScrapeProfile' && (
                        <p class="muted small step-verified">
                          Verified{typeof task.output?.messageId === 'string' && `: the channel holds it as ${task.output.messageId}`}
                        </p>
                      )}
                      {task.lastError &&
                        (reviewEnding(task.lastError) ? (
                          <p class="step-note small muted">{reviewEnding(task.lastError)}</p>
                        ) : (
                          <p class="step-error small">{task.lastError}</p>
                        ))}
                      {task.completedAt && (
                        <p class="muted small">
                          <time dateTime={task.completedAt}>{fullTime(task.completedAt)}</time>
                        </p>
                      )}
                    </li>
                  );
                })}
            </ol>
          </li>
        ))}
    </ul>
  );
}
