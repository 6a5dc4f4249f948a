import type { Refusal } from './use-policy-editor';

/** Why the editor's policy was refused, every problem by rule; nothing was stored or tried. */
export function Refused({ refusal }: { refusal: Refusal | null }) {
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
