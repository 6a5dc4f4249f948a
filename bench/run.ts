import { benchPasswordHash } from './password-hash.bench';
import { benchPolicyEvaluation } from './policy-evaluation.bench';
import { benchToolArguments } from './tool-arguments.bench';

/** Runs every benchmark in turn and prints one line each. `npm run bench`. */
async function main(): Promise<void> {
  for (const bench of [benchPasswordHash, benchToolArguments, benchPolicyEvaluation]) process.stdout.write(`${await bench()}\n`);
}

void main();
