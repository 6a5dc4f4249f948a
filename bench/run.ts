import { benchPasswordHash } from './password-hash.bench';

/** Runs every benchmark in turn and prints one line each. `npm run bench`. */
async function main(): Promise<void> {
  for (const bench of [benchPasswordHash]) process.stdout.write(`${await bench()}\n`);
}

void main();
