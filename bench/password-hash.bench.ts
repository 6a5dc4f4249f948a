import { performance } from 'node:perf_hooks';
import { ScryptPasswordHasher } from '../src/infrastructure/security/scrypt-password-hasher';

/** The cost of one hash and one verification with the production parameters. */
export async function benchPasswordHash(): Promise<string> {
  const hasher = new ScryptPasswordHasher();
  const rounds = 20;
  const hash = await hasher.hash('warm-up password');
  let started = performance.now();
  for (let i = 0; i < rounds; i++) await hasher.hash(`password ${i}`);
  const hashMs = (performance.now() - started) / rounds;
  started = performance.now();
  for (let i = 0; i < rounds; i++) await hasher.verify('warm-up password', hash);
  const verifyMs = (performance.now() - started) / rounds;
  return `password hash (scrypt N=32768 r=8 p=3): hash ${hashMs.toFixed(1)} ms, verify ${verifyMs.toFixed(1)} ms (mean of ${rounds})`;
}
