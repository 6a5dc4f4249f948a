import { useState } from 'preact/hooks';
import { changePolicy, dryRunPolicy, getPolicy, getPolicyVersion, type PolicyRules, policyFile, policyProblems } from '../../api';
import { saveBlob } from '../../lib/download';
import { errorText } from '../../lib/errors';
import { failureText, useAction, useResource } from '../../lib/use-resource';
import { currentSession } from '../../state/session';
import { Alert, toast } from '../../ui';
import { InForce } from './in-force';
import { NextVersion } from './next-version';
import { PolicyVersions } from './policy-versions';
import { type Refusal, usePolicyEditor } from './use-policy-editor';
import './policy.css';

/**
 * The Policy page (admins only, docs/policies.md): the version in force, an editor for the
 * next one as a policy file, a dry run of it over the recorded calls (which writes nothing),
 * storing it with a reason, and the versions stored before. Export and import are files.
 */
export function PolicyPage() {
  const session = currentSession();
  const editor = usePolicyEditor();
  const { edit, reason, calls, setRefusal } = editor;
  const action = useAction<'dry-run' | 'store' | 'download'>();
  const [versionsShown, setVersionsShown] = useState(0);

  const policy = useResource(async () => {
    const version = await getPolicy(session);
    edit(version);
    return version;
  }, []);
  const inForce = policy.data ?? null;
  const error = policy.error ?? action.error;

  /**
   * Runs `work` on the editor's rules as `which`: a refusal that names problems is shown by the
   * editor (Refused), any other failure as the page's error.
   */
  function onRules(which: Refusal['action'], work: (rules: PolicyRules) => Promise<void>) {
    setRefusal(null);
    const rules = editor.rulesFor(which);
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
    editor.setReport(null);
    onRules('dry-run', async (rules) => editor.setReport(await dryRunPolicy(session, rules, Number(calls))));
  }

  const store = () =>
    onRules('store', async (rules) => {
      const stored = await changePolicy(session, rules, reason.trim());
      // Versions between the one this page last knew in force and this one: another admin stored them meanwhile.
      const skipped = inForce !== null && stored.version > inForce.version + 1;
      policy.set(stored);
      edit(stored);
      editor.setReason('');
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

  async function editVersion(version: number) {
    try {
      edit(await getPolicyVersion(session, version));
      document.getElementById('policy-file')?.focus();
    } catch (failure) {
      action.setError(failureText(failure));
    }
  }

  return (
    <div class="page-body stack">
      <h1 id="policy-title">Policy</h1>
      <p class="muted">
        Which tool calls run, which ask the person or a reviewer, how many, and which are refused: for the chat, MCP clients and outreach
        alike. The first rule that decides a call wins; every call’s audit row names the rule and version.
      </p>
      <Alert message={error} />
      {inForce && <InForce version={inForce} busy={action.busy === 'download'} onDownload={() => void download(inForce.version)} />}
      <NextVersion editor={editor} inForce={inForce} busy={action.busy} onDryRun={dryRun} onStore={store} />
      <PolicyVersions
        key={versionsShown}
        onEdit={(version) => void editVersion(version)}
        onDownload={(version) => void download(version)}
      />
    </div>
  );
}
