import { useRef } from 'preact/hooks';
import type { PolicyVersion } from '../../api';
import { Button, Card, Field } from '../../ui';
import { DryRunReportView } from './dry-run-report';
import { Refused } from './refused';
import { DRY_RUN_CALLS, type PolicyEditor } from './use-policy-editor';

interface Props {
  editor: PolicyEditor;
  inForce: PolicyVersion | null;
  busy: 'dry-run' | 'store' | 'download' | null;
  onDryRun: () => void;
  onStore: () => void;
}

/** The editor of the next version: open a file or start from one, a dry run over the recorded calls, store it with a reason. */
export function NextVersion({ editor, inForce, busy, onDryRun, onStore }: Props) {
  const { basedOn, text, reason, calls, report, refusal } = editor;
  const fileInput = useRef<HTMLInputElement>(null);

  async function openFile(file: File | undefined) {
    if (!file) return;
    editor.open(await file.text());
    if (fileInput.current) fileInput.current.value = '';
  }

  return (
    <Card
      title="Next version"
      actions={
        <>
          <input
            ref={fileInput}
            id="policy-open"
            type="file"
            class="visually-hidden"
            // Reached through the button beside it: one tab stop, not two.
            tabIndex={-1}
            accept=".yaml,.yml,.json,application/yaml,application/json"
            aria-label="Open a policy file"
            onChange={(event) => void openFile(event.currentTarget.files?.[0])}
          />
          <Button variant="secondary" size="sm" onClick={() => fileInput.current?.click()}>
            Open a file…
          </Button>
          {inForce && basedOn?.version !== inForce.version && (
            <Button variant="ghost" size="sm" onClick={() => editor.edit(inForce)}>
              Start again from version {inForce.version}
            </Button>
          )}
        </>
      }
    >
      <div class="stack">
        <Field
          label="Policy file (YAML or JSON)"
          id="policy-file"
          hint={
            basedOn
              ? `A copy of version ${basedOn.version}${basedOn.builtIn ? ' (built in)' : ''}: nothing changes until you store it. The rule language is in docs/policies.md.`
              : undefined
          }
        >
          {(ids) => (
            <textarea
              {...ids}
              class="input mono policy-editor"
              rows={18}
              spellcheck={false}
              autocomplete="off"
              value={text}
              onInput={(event) => editor.write(event.currentTarget.value)}
            />
          )}
        </Field>
        <Refused refusal={refusal} />
        <form
          class="row policy-dry-run"
          aria-label="Dry run"
          onSubmit={(event) => {
            event.preventDefault();
            onDryRun();
          }}
        >
          <Field label="Recorded calls to try it on" id="policy-calls">
            {(ids) => (
              <input
                {...ids}
                class="input"
                type="number"
                required
                min={1}
                max={DRY_RUN_CALLS.max}
                step={1}
                value={calls}
                onInput={(event) => editor.setCalls(event.currentTarget.value)}
              />
            )}
          </Field>
          <Button type="submit" variant="secondary" busy={busy === 'dry-run'}>
            Dry run
          </Button>
        </form>
        {report && <DryRunReportView report={report} />}
        <form
          class="row policy-store"
          aria-label="Store"
          onSubmit={(event) => {
            event.preventDefault();
            onStore();
          }}
        >
          <Field label="Why (kept with the version and in the audit log)" id="policy-reason" class="grow">
            {(ids) => (
              <input
                {...ids}
                class="input"
                required
                maxLength={500}
                autocomplete="off"
                value={reason}
                onInput={(event) => editor.setReason(event.currentTarget.value)}
              />
            )}
          </Field>
          <Button type="submit" busy={busy === 'store'} disabled={!reason.trim()}>
            Store as the next version
          </Button>
        </form>
      </div>
    </Card>
  );
}
