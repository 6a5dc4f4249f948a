import type { RefObject } from 'preact';
import { AUDIT_SOURCES, AUDIT_STATUSES, type AuditFilter } from '../../api';
import { AUDIT_STATUS, labelOf, SOURCE_LABELS } from '../../lib/labels';
import { Button, Field } from '../../ui';

/** The filters the form holds now, as the API takes them (its times in UTC). */
export function readFilter(form: HTMLFormElement): AuditFilter {
  const data = new FormData(form);
  const text = (name: string) => {
    const value = data.get(name);
    return (typeof value === 'string' && value.trim()) || undefined;
  };
  const iso = (name: string) => (text(name) ? new Date(text(name)!).toISOString() : undefined);
  return {
    source: text('source') as AuditFilter['source'],
    status: text('status') as AuditFilter['status'],
    tool: text('tool'),
    actorEmail: text('actorEmail'),
    from: iso('from'),
    to: iso('to'),
  };
}

/** The filter form: Apply and Clear hand the form's filters to `onApply`. */
export function AuditFilters({ form, onApply }: { form: RefObject<HTMLFormElement | null>; onApply: (filter: AuditFilter) => void }) {
  return (
    <form
      ref={form}
      class="filters"
      aria-label="Audit filters"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(readFilter(form.current!));
      }}
      onReset={() => setTimeout(() => onApply(readFilter(form.current!)))}
    >
      <Field label="Source" id="audit-source">
        {(ids) => (
          <select {...ids} name="source" class="input">
            <option value="">Any</option>
            {AUDIT_SOURCES.map((value) => (
              <option key={value} value={value}>
                {SOURCE_LABELS[value]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Tool" id="audit-tool">
        {(ids) => <input {...ids} name="tool" class="input" autocomplete="off" maxLength={64} placeholder="send_email" />}
      </Field>
      <Field label="Status" id="audit-status">
        {(ids) => (
          <select {...ids} name="status" class="input">
            <option value="">Any</option>
            {AUDIT_STATUSES.map((value) => (
              <option key={value} value={value}>
                {labelOf(AUDIT_STATUS, value).label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Actor email" id="audit-actor">
        {(ids) => (
          <input {...ids} name="actorEmail" type="email" class="input" autocomplete="off" maxLength={254} placeholder="ada@example.com" />
        )}
      </Field>
      <Field label="From (your time)" id="audit-from">
        {(ids) => <input {...ids} name="from" class="input" type="datetime-local" />}
      </Field>
      <Field label="Until (your time)" id="audit-to">
        {(ids) => <input {...ids} name="to" class="input" type="datetime-local" />}
      </Field>
      <div class="row filters-actions">
        <Button type="submit">Apply filters</Button>
        <Button type="reset" variant="secondary">
          Clear
        </Button>
      </div>
    </form>
  );
}
