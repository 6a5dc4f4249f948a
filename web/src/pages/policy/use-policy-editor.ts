import { useState } from 'preact/hooks';
import type { DryRunReport, PolicyProblem, PolicyVersion } from '../../api';
import { policyFileText, readPolicyFile } from '../../lib/policy-file';

/** How many recorded calls a dry run reads unless the admin asks for another number (the API's own default and bounds). */
export const DRY_RUN_CALLS = { default: 1000, max: 10_000 } as const;

/** Why the last action on the editor's text was refused: the file could not be read, or the server named problems. */
export type Refusal = { action: 'dry-run' | 'store'; message: string; problems: readonly PolicyProblem[] };

export type PolicyEditor = ReturnType<typeof usePolicyEditor>;

/** The next version as the admin writes it: its text, where it started, its reason, and what a dry run or a refusal said of it. */
export function usePolicyEditor() {
  /** The version the editor's text started from. */
  const [basedOn, setBasedOn] = useState<PolicyVersion | null>(null);
  const [text, setText] = useState('');
  const [reason, setReason] = useState('');
  const [calls, setCalls] = useState(String(DRY_RUN_CALLS.default));
  const [report, setReport] = useState<DryRunReport | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);

  /** Puts `version`'s rules in the editor, as the starting point of the next version. */
  function edit(version: PolicyVersion) {
    setBasedOn(version);
    setText(policyFileText(version.rules));
    setReport(null);
    setRefusal(null);
  }

  /** A file's content in the editor; its reason too, when it holds one and none is typed yet. */
  function open(content: string) {
    setText(content);
    setReport(null);
    setRefusal(null);
    const read = readPolicyFile(content);
    if (read.ok && read.reason && !reason) setReason(read.reason);
  }

  /** The editor's rules, or null with the refusal shown when the file cannot be read. */
  function rulesFor(action: Refusal['action']) {
    const read = readPolicyFile(text);
    if (read.ok) return read.rules;
    setRefusal({ action, message: read.message, problems: [] });
    return null;
  }

  /** What the admin typed: a dry run's report was about the text before. */
  function write(next: string) {
    setText(next);
    setReport(null);
  }

  return { basedOn, text, reason, calls, report, refusal, edit, open, rulesFor, write, setReason, setCalls, setReport, setRefusal };
}
