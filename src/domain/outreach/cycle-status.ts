/** How an outreach cycle ended: its decision-log row's status. */
export type CycleStatus =
  /** No task was due and no campaign was ready to complete. */
  | 'idle'
  /** The action ran and its effect was verified: the task is Completed. */
  | 'completed'
  /** The task waits (cooldown, quota, backoff, fresh session) and will run again. */
  | 'deferred'
  /** The task is Failed or Cancelled, with the reason. */
  | 'failed'
  /** The action may have happened but this cannot be verified: a person reviews it. */
  | 'unknown'
  /** The action is held as a draft for its owner's review (review before send): nothing was sent. */
  | 'awaiting_review'
  | 'campaign_completed';
