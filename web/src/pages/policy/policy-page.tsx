import { useRef, useState } from 'preact/hooks';
import {
  changePolicy,
  type DryRunReport,
  dryRunPolicy,
  getPolicy,
  getPolicyVersion,
  type PolicyProblem,
  type PolicyRules,
  type PolicyVersion,
  policyFile,
  policyProblems,
} from '../../api';
import { saveBlob } from '../../lib/download';
import { errorText } from '../../lib/errors';
import { failureText, useAction, useResource } from '../../lib/use-resource';
import { fullTime } from '../../lib/time';
import { policyFileText, readPolicyFile } from '../../lib/policy-file';
import { currentSession } from '../../state/session';
import { Alert, Button, Card, Field, toast } from '../../ui';
import { DryRunReportView } from './dry-run-report';
import { PolicyVersions } from './policy-versions';

/** How many recorded calls a dry run reads unless the admin asks for another number (the API's own default and bounds). */
const DRY_RUN_CALLS = { default: 1000, max: 10_000 } as const;

/** Why the last action on the editor's text was refused: the file could not be read, or the server named problems. */
type Refusal = { action: 'dry-run' | 'store'; message: string; problems: readonly PolicyProblem[] };

/**
 * The Policy page (admins only, docs/policies.md): the version in force, an editor for the
 * next one as a policy file, a dry run of it over the recorded calls (which writes nothing),
 * storing it with a reason, and the versions stored before. Export and import are files.
 */
export function PolicyPage() {
  const session = currentSession();
  /** The version the editor's text started from. */
  const [basedOn, setBasedOn] = useState<PolicyVersion | null>(null);
  const [text, setText] = useState('');
  const [reason, setReason] = useState('');
  const [calls, setCalls] = useState(String(DRY_RUN_CALLS.default));
  const [report, setReport] = useState<DryRunReport | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const action = useAction<'dry-run' | 'store' | 'download'>();
  const busy = action.busy;
  const [versionsShown, setVersionsShown] = useState(0);
  const fileInput = useRef<HTMLInputElement>(null);

  /** Puts `version`'s rules in the editor, as the starting point of the next version. */
  function edit(version: PolicyVersion) {
    setBasedOn(version);
    setText(policyFileText(version.rules));
    setReport(null);
    setRefusal(null);
  }

  const policy = useResource(async () => {
    const version = await getPolicy(session);
    edit(version);
    return version;
  }, []);
  const inForce = policy.data ?? null;
  const error = policy.error ?? action.error;

  /** The editor's rules, or null with the refusal shown when the file cannot be read. */
  function rulesFor(action: Refusal['action']) {
    const read = readPolicyFile(text);
    if (read.ok) return read.rules;
    setRefusal({ action, message: read.message, problems: [] });
    return null;
  }

  /**
   * Runs `work` on the editor's rules as `which`: a refusal that names problems is shown by the
   * editor (Refused), any other failure as the page's error.
   */
  function onRules(which: Refusal['action'], work: (rules: PolicyRules) => Promise<void>) {
    setRefusal(null);
    const rules = rulesFor(which);
    if (rules === null) return;
    void action.run(which, async () => {
      try {
        await work(rules);
      } catch (failure) {
        const problems = policyProblems(failure);
        if (problems.length === 0) throw failure;
        setRefusal({ action: which, message: errorText(failure), problems });
      }
    });
  }

  function dryRun() {
    setReport(null);
    onRules('dry-run', async (rules) => setReport(await dryRunPolicy(session, rules, Number(calls))));
  }

  const store = () =>
    onRules('store', async (rules) => {
      const stored = await changePolicy(session, rules, reason.trim());
      // Versions between the one this page last knew in force and this one: another admin stored them meanwhile.
      const skipped = inForce !== null && stored.version > inForce.version + 1;
      policy.set(stored);
      edit(stored);
      setReason('');
      setVersionsShown((n) => n + 1);
      toast(`Version ${stored.version} stored: in force on every server now.`);
      if (skipped) {
        action.setError(
          `Another admin stored a version while you edited: yours (${stored.version}) is in force now. Compare them under Versions.`,
        );
      }
    });

  const download = (version: number) =>
    action.run('download', async () => saveBlob(await policyFile(session, version), `bridle-policy-v${version}.yaml`));

  async function openFile(file: File | undefined) {
    if (!file) return;
    const content = await file.text();
    setText(content);
    setReport(null);
    setRefusal(null);
    const read = readPolicyFile(content);
    if (read.ok && read.reason && !reason) setReason(read.reason);
    if (fileInput.current) fileInput.current.value = '';
  }

  async function editVersion(version: number) {
    try {
      edit(await getPolicyVersion(session, version));
      document.getElementById('policy-file')?.focus();
    } catch (failure) {
      action.setError(failureText(failure));
    }
  }

  const reasonTrimmed = reason.trim();
  return (
    <div class="page-body stack">
      <h1 id="policy-title">Policy</h1>
      <p class="muted">
        Which tool calls run, which ask the person or a reviewer, how many, and which are refused: for the chat, MCP clients and outreach
        alike. The first rule that decides a call wins; every call’s audit row names the rule and version.
      </p>
      <Alert message={error} />
      {inForce && <InForce version={inForce} busy={busy === 'download'} onDownload={() => void download(inForce.version)} />}
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
              <Button variant="ghost" size="sm" onClick={() => edit(inForce)}>
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
                onInput={(event) => {
                  setText(event.currentTarget.value);
                  setReport(null);
                }}
              />
            )}
          </Field>
          <Refused refusal={refusal} />
          <form
            class="row policy-dry-run"
            aria-label="Dry run"
            onSubmit={(event) => {
              event.preventDefault();
              dryRun();
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
                  onInput={(event) => setCalls(event.currentTarget.value)}
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
              store();
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
                  onInput={(event) => setReason(event.currentTarget.value)}
                />
              )}
            </Field>
            <Button type="submit" busy={busy === 'store'} disabled={!reasonTrimmed}>
              Store as the next version
            </Button>
          </form>
        </div>
      </Card>
      <PolicyVersions
        key={versionsShown}
        onEdit={(version) => void editVersion(version)}
        onDownload={(version) => void download(version)}
      />
    </div>
  );
}

function InForce({ version, busy, onDownload }: { version: PolicyVersion; busy: boolean; onDownload: () => void }) {
  return (
    <Card
      title={`In force: version ${version.version}`}
      actions={
        <Button variant="secondary" size="sm" busy={busy} onClick={onDownload}>
          Download file
        </Button>
      }
    >
      <p class="policy-in-force" data-version={version.version}>
        {version.builtIn ? (
          'The built-in policy: today’s rules, until an admin stores one.'
        ) : (
          <>
            Stored {version.createdAt ? fullTime(version.createdAt) : ''} by {version.authorEmail}: “{version.reason}”.
          </>
        )}{' '}
        {version.rules.length === 1 ? '1 rule.' : `${version.rules.length} rules.`}
      </p>
    </Card>
  );
}

/** Why the editor's policy was refused, every problem by rule; nothing was stored or tried. */
function Refused({ refusal }: { refusal: Refusal | null }) {
  if (!refusal) return null;
  const what = refusal.action === 'store' ? 'Nothing was stored.' : 'Nothing was tried.';
  return (
    <div class="error policy-problems" role="alert">
      <p>
        {refusal.problems.length > 0
          ? `${refusal.problems.length === 1 ? 'One problem' : `${refusal.problems.length} problems`} in this policy. ${what}`
          : `${refusal.message} ${what}`}
      </p>
      {refusal.problems.length > 0 && (
        <ol>
          {refusal.problems.map((problem, index) => (
            <li key={index}>
              <strong>
                {problem.position === null ? 'The policy' : `Rule ${problem.position}${problem.rule ? ` (${problem.rule})` : ''}`}
              </strong>
              {', '}
              <code>{problem.field}</code>: {problem.message}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
