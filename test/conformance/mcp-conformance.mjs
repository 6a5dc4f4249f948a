// `npm run test:conformance`: the MCP conformance suite (@modelcontextprotocol/conformance,
// the exact version in package.json) against Bridle's POST /mcp, on 127.0.0.1 only.
//
// Builds src/ and starts it as the e2e suite's process tests do (test/support/built-service.ts:
// embedded PGlite in a temporary data folder, the offline model), registers an account, makes
// a personal access token for the task tools (tasks:write), then runs two requirement sets of
// the suite, each as `conformance server --requirements <revision>` would: the server
// scenarios the revision scores (`conformance list --server --requirements <revision>`), at
// that revision's wire. 2026-07-28 speaks the stateless 2026 envelope; 2025-11-25 initializes
// a session. Each scenario runs in its own process with a time limit (`--scenario <name>
// --spec-version <revision> --force`, which is what --requirements runs for each one), four at
// a time. A scenario passes when it has a successful check and no failed one; one with only
// warnings checked nothing. Scenarios a revision runs but does not score (extensions, pending)
// are not run (but see CONFORMANCE_UNSCORED). Each result is compared with
// test/conformance/expected-<revision>.json, which maps every scored scenario to one of:
//   "pass" or "pass: <note>"                  it must pass;
//   "pass except <check id> <check id>…: <why>"
//                                             every check but those must pass, and those must
//                                             still fail (a scenario mixing protocol checks with
//                                             a few on reference fixtures: server-stateless);
//   "needs-reference-fixture: <why>"          it uses a tool, prompt or resource only the
//                                             suite's reference server has (test_*), so it may
//                                             fail or check nothing;
//   "not-applicable: <reason>"                it may fail or check nothing, for that reason;
//   "not-applicable until <feature>: <reason>"
//                                             the same while Bridle does not declare <feature>:
//                                             a key of the capabilities it answers initialize
//                                             with (logging, completions, resources, prompts…),
//                                             one of their flags set to true (resources.subscribe)
//                                             or `sessions` (it gives an Mcp-Session-Id).
// Exits 1 when a scenario expected to pass does not, when a fixture or not-applicable one
// passes or its feature is now declared, or when the suite and a list name different
// scenarios; prints a table per revision either way. CONFORMANCE_VERBOSE=1 also prints every
// check (failures and warnings in full) and, on failure, Bridle's output;
// CONFORMANCE_REQUIREMENTS=2026-07-28 runs one set only; CONFORMANCE_UNSCORED=1 also runs,
// unjudged, the server scenarios a set runs but does not score (extensions, pending).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, createServer } from 'node:http';
import Module, { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';

const root = fileURLToPath(new URL('../..', import.meta.url));
const REVISIONS = (process.env.CONFORMANCE_REQUIREMENTS ?? '2026-07-28,2025-11-25').split(',');
const expectedPath = (revision) => join(root, 'test', 'conformance', `expected-${revision}.json`);
const suiteCli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const suiteVersion = JSON.parse(
  readFileSync(join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json'), 'utf8'),
).version;
const SCENARIO_TIMEOUT_MS = 60_000;
const PARALLEL = 4;
const verbose = process.env.CONFORMANCE_VERBOSE === '1';
const started = Date.now();

// test/support loads as the tests load it: compiled by swc with the repository's one configuration.
const swc = { ...JSON.parse(readFileSync(join(root, 'test', 'support', 'swc.json'), 'utf8')), swcrc: false, configFile: false };
Module._extensions['.ts'] = (module, filename) => {
  module._compile(transformSync(readFileSync(filename, 'utf8'), { ...swc, filename }).code, filename);
};
const require = createRequire(import.meta.url);
const { buildService, removeBuild, startService, callService } = require(join(root, 'test', 'support', 'built-service.ts'));
const { testDataRoot } = require(join(root, 'test', 'support', 'test-database.ts'));

const buildDir = join(root, 'dist-test-conformance');
const dataDir = mkdtempSync(join(testDataRoot(), 'bridle-conformance-'));
const resultsDir = mkdtempSync(join(testDataRoot(), 'bridle-conformance-results-'));
let service;
let proxy;
let exitCode = 1;
try {
  await buildService(buildDir);
  service = await startService(join(buildDir, 'main.js'), {
    BRIDLE_DATA_DIR: dataDir,
    // The suite is one user's burst of a few hundred requests; the limit has tests of its own.
    MCP_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const token = await personalAccessToken(service);
  proxy = await startAuthorizingProxy(new URL(service.baseUrl), token);
  const mcpUrl = `${proxy.origin}/mcp`;
  const declared = await declaredFeatures(mcpUrl);
  let failed = false;
  for (const revision of REVISIONS) {
    const expected = JSON.parse(readFileSync(expectedPath(revision), 'utf8')).scenarios;
    const { scored: scenarios, unscored } = await listServerScenarios(revision);
    const extra = process.env.CONFORMANCE_UNSCORED === '1' ? unscored : [];
    const results = await mapParallel([...scenarios, ...extra], PARALLEL, (scenario) => runScenario(scenario, revision, mcpUrl));
    const rows = results.map((result) =>
      extra.includes(result.scenario)
        ? { scenario: result.scenario, got: result.got, verdict: 'n/a', note: `not scored by ${revision}: ${result.why}`, unscored: true }
        : judge(result, expected[result.scenario], declared, revision),
    );
    for (const stale of Object.keys(expected).filter((name) => !scenarios.includes(name))) {
      rows.push({
        scenario: stale,
        got: '-',
        verdict: 'STALE',
        note: `not scored by ${revision} in the suite ${suiteVersion}: remove it from expected-${revision}.json`,
      });
    }
    printTable(revision, rows, declared);
    if (verbose) printFailures(results);
    if (rows.some((row) => row.verdict !== 'ok' && row.verdict !== 'n/a')) {
      failed = true;
      process.stdout.write(
        `\nFAILED: see the rows above (expected list: ${expectedPath(revision)}; CONFORMANCE_VERBOSE=1 for every failing check)\n`,
      );
    }
  }
  exitCode = failed ? 1 : 0;
  if (failed && verbose) process.stdout.write(`\nBridle's output:\n${service.output()}\n`);
} catch (error) {
  process.stderr.write(`mcp-conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  if (service) process.stderr.write(`\nBridle's output:\n${service.output()}\n`);
} finally {
  proxy?.server.close();
  if (service) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  removeBuild(buildDir);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(resultsDir, { recursive: true, force: true });
}
process.stdout.write(`\nmcp-conformance: ${Math.round((Date.now() - started) / 1000)} s\n`);
process.exit(exitCode);

/** A personal access token for the task tools, as a person makes one for an MCP client that takes a header. */
async function personalAccessToken(running) {
  const credentials = { email: 'conformance@example.com', password: 'conformance suite password' };
  const registered = await callService(running, 'POST', '/auth/register', credentials);
  if (registered.status !== 201) throw new Error(`POST /auth/register answered ${registered.status}: ${JSON.stringify(registered.body)}`);
  const login = await callService(running, 'POST', '/auth/login', credentials);
  if (login.status !== 200) throw new Error(`POST /auth/login answered ${login.status}: ${JSON.stringify(login.body)}`);
  const { userId, accessToken } = login.body;
  const made = await callService(
    running,
    'POST',
    `/api/${userId}/tokens`,
    { name: 'MCP conformance', scopes: ['tasks:write'] },
    accessToken,
  );
  if (made.status !== 201) throw new Error(`POST /api/:userId/tokens answered ${made.status}: ${JSON.stringify(made.body)}`);
  return made.body.token;
}

/**
 * The suite's `server` command takes only a URL (no header option, in 0.1 or 0.2: every
 * scenario builds its client from the URL alone), and /mcp needs a bearer token. This proxy on
 * 127.0.0.1 adds `Authorization: Bearer <token>` to every request and passes everything else
 * through as it came, Host and Origin included (the DNS-rebinding scenario sends forged ones
 * and expects Bridle to refuse them), streaming the answer back unbuffered (SSE).
 */
function startAuthorizingProxy(target, token) {
  const server = createServer((req, res) => {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => res.destroy(error));
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}

/** What Bridle declares in its initialize answer: capability keys (and `resources.subscribe`…), and `sessions`. */
async function declaredFeatures(mcpUrl) {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bridle-conformance-probe', version: '1' } },
    }),
  });
  const text = await res.text();
  // A JSON answer, or one SSE event whose data line holds it.
  const json = JSON.parse(res.headers.get('content-type')?.includes('text/event-stream') ? /^data: (.*)$/m.exec(text)[1] : text);
  const capabilities = json.result?.capabilities;
  if (!capabilities) throw new Error(`initialize answered ${res.status}: ${text.slice(0, 500)}`);
  const features = new Set();
  for (const [key, value] of Object.entries(capabilities)) {
    features.add(key);
    for (const [flag, on] of Object.entries(value ?? {})) if (on === true) features.add(`${key}.${flag}`);
  }
  if (res.headers.get('mcp-session-id')) features.add('sessions');
  return features;
}

/** The server scenarios a revision scores: the list's first section, up to its first blank line. */
async function listServerScenarios(revision) {
  const { stdout, code } = await runNode([suiteCli, 'list', '--server', '--requirements', revision], 30_000);
  const section = /^Server scenarios[^\n]*\n((?:\s+- \S+\n)+)/m.exec(stdout);
  const scored = section ? [...section[1].matchAll(/- (\S+)/g)].map((match) => match[1]) : [];
  if (code !== 0 || scored.length === 0)
    throw new Error(`conformance list --server --requirements ${revision} failed (exit ${code}):\n${stdout}`);
  const unscored = [...(stdout.split(/^Run and reported, but never scored/m)[1] ?? '').matchAll(/- (\S+) \[server\]/g)].map((m) => m[1]);
  return { scored, unscored };
}

/** One scenario in its own process, so that a scenario that hangs costs its time limit and no more. */
async function runScenario(scenario, revision, mcpUrl) {
  const outputDir = join(resultsDir, revision, scenario);
  const { stdout, code, timedOut } = await runNode(
    [suiteCli, 'server', '--url', mcpUrl, '--scenario', scenario, '--spec-version', revision, '--force', '-o', outputDir],
    SCENARIO_TIMEOUT_MS,
  );
  let checks = [];
  try {
    const [dir] = readdirSync(outputDir);
    checks = JSON.parse(readFileSync(join(outputDir, dir, 'checks.json'), 'utf8'));
  } catch {
    // No checks.json: the scenario crashed or timed out before writing one.
  }
  return { scenario, revision, checks, code, timedOut, stdout, ...outcome({ checks, code, timedOut, stdout }) };
}

/** The suite's verdict on one run (`got`: pass, fail, or none when it checked nothing), leaving out the failures of `ignored` check ids. */
function outcome({ checks, code, timedOut, stdout }, ignored = []) {
  const failures = checks.filter((check) => check.status === 'FAILURE' && !ignored.includes(check.id));
  const warning = checks.find((check) => check.status === 'WARNING');
  const succeeded = checks.some((check) => check.status === 'SUCCESS');
  if (timedOut) return { got: 'fail', why: `timed out after ${SCENARIO_TIMEOUT_MS / 1000} s`, failures };
  if (failures.length > 0)
    return { got: 'fail', why: `${failures[0].id}: ${failures[0].errorMessage ?? failures[0].description}`, failures };
  // The suite exits 1 for a failed check, ignored ones included.
  if (checks.length === 0 || (code !== 0 && ignored.length === 0)) {
    return { got: 'fail', why: `no checks (exit ${code}): ${stdout.trim().split('\n').slice(-3).join(' / ')}`, failures };
  }
  if (!succeeded) {
    const said = warning ? `${warning.id}: ${warning.details?.message ?? warning.errorMessage ?? warning.description}` : 'only INFO checks';
    return { got: 'none', why: `checked nothing (${said})`, failures };
  }
  return { got: 'pass', why: '', failures };
}

function judge(result, expectation, declared, revision) {
  const row = (verdict, note) => ({ scenario: result.scenario, got: result.got, verdict, note });
  const file = `expected-${revision}.json`;
  if (expectation === undefined) return row('NEW', `not in ${file}: add it${result.got === 'pass' ? ' as "pass"' : ` (${result.why})`}`);
  const pass = /^pass(?:: (.+))?$/s.exec(expectation);
  if (pass) return result.got === 'pass' ? row('ok', pass[1] ?? '') : row('FAIL', result.why);
  const except = /^pass except ([\w.-]+(?: [\w.-]+)*): (.+)$/s.exec(expectation);
  if (except) {
    const ignored = except[1].split(' ');
    const rest = outcome(result, ignored);
    if (rest.got !== 'pass') return row('FAIL', rest.why);
    const passing = ignored.filter((id) => !result.checks.some((check) => check.id === id && check.status === 'FAILURE'));
    if (passing.length > 0) return row('STALE', `${passing.join(', ')} no longer fail: take them out of the "pass except" in ${file}`);
    return row('ok', `all but ${ignored.length} checks: ${except[2]}`);
  }
  const fixture = /^needs-reference-fixture: (.+)$/s.exec(expectation);
  if (fixture) return result.got === 'pass' ? row('STALE', `passes now: mark it "pass" in ${file}`) : row('n/a', fixture[1]);
  const notApplicable = /^not-applicable(?: until ([\w.]+))?: (.+)$/s.exec(expectation);
  if (!notApplicable)
    return row(
      'BAD',
      `${file}: write "pass", "pass: <note>", "pass except <check id>…: <why>", "needs-reference-fixture: <why>", "not-applicable: <reason>" or "not-applicable until <feature>: <reason>"`,
    );
  const [, until, reason] = notApplicable;
  if (result.got === 'pass') return row('STALE', `passes now: mark it "pass" in ${file}`);
  if (until !== undefined && declared.has(until)) return row('STALE', `Bridle now declares ${until}, so it applies: ${result.why}`);
  return row('n/a', reason);
}

function printTable(revision, rows, declared) {
  const width = Math.max(...rows.map((r) => r.scenario.length));
  const line = (scenario, got, verdict, note) => `${scenario.padEnd(width)}  ${got.padEnd(4)}  ${verdict.padEnd(7)}  ${note}`;
  process.stdout.write(
    `\nMCP conformance ${suiteVersion}, requirements ${revision}, against Bridle's /mcp (declares: ${[...declared].sort().join(', ')})\n\n`,
  );
  process.stdout.write(`${line('scenario', 'got', 'verdict', 'note')}\n`);
  for (const row of rows) process.stdout.write(`${line(row.scenario, row.got, row.verdict, truncate(row.note, 110))}\n`);
  const scored = rows.filter((r) => !r.unscored && r.got !== '-');
  const count = (verdict) => rows.filter((r) => r.verdict === verdict && !r.unscored).length;
  const toLook = rows.filter((r) => r.verdict !== 'ok' && r.verdict !== 'n/a').length;
  process.stdout.write(
    `\n${revision}: ${scored.filter((r) => r.got === 'pass').length} of ${scored.length} scored scenarios pass with no failed check; ` +
      `${count('ok')} as expected, ${count('n/a')} fixture or not applicable, ${toLook} to look at\n`,
  );
}

/** Every check's id and status, every failed check and warning in full, and the suite's output of a scenario that has neither and did not pass. */
function printFailures(results) {
  for (const result of results) {
    process.stdout.write(`\n--- ${result.scenario} (${result.revision}): ${result.got}\n`);
    for (const check of result.checks) process.stdout.write(`  ${check.status.padEnd(7)}  ${check.id}\n`);
    const told = result.checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
    for (const check of told) process.stdout.write(`${JSON.stringify(check, null, 2)}\n`);
    if (told.length === 0 && result.got !== 'pass') process.stdout.write(result.stdout);
  }
}

function truncate(text, max) {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function runNode(args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stdout += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, code, timedOut });
    });
  });
}

async function mapParallel(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
