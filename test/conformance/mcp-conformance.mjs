// `npm run test:conformance`: the MCP conformance suite (@modelcontextprotocol/conformance,
// the exact version in package.json) against Bridle's POST /mcp, on 127.0.0.1 only.
//
// Builds src/ and starts it as the e2e suite's process tests do (test/support/built-service.ts:
// embedded PGlite in a temporary data folder, the offline model), registers an account, makes
// a personal access token for the task tools (tasks:write), then runs every server scenario the suite lists, each in its own
// process with a time limit. A scenario passes when it has a successful check and no failed
// one; one with only warnings checked nothing. Each result is compared with
// test/conformance/expected.json, which maps every scenario to one of:
//   "pass" or "pass: <note>"                  it must pass;
//   "not-applicable: <reason>"                it may fail or check nothing, for that reason;
//   "not-applicable until <feature>: <reason>"
//                                             the same while Bridle does not declare <feature>:
//                                             a key of the capabilities it answers initialize
//                                             with (logging, completions, resources, prompts…),
//                                             one of their flags set to true (resources.subscribe)
//                                             or `sessions` (it gives an Mcp-Session-Id).
// Exits 1 when a scenario expected to pass does not, when a not-applicable one passes or its
// feature is now declared, or when the suite and the list name different scenarios; prints a
// table either way. CONFORMANCE_VERBOSE=1 also prints every failing check and Bridle's output.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, createServer } from 'node:http';
import Module, { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';

const root = fileURLToPath(new URL('../..', import.meta.url));
const expectedPath = join(root, 'test', 'conformance', 'expected.json');
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
  const expected = JSON.parse(readFileSync(expectedPath, 'utf8')).scenarios;
  const scenarios = await listServerScenarios();
  const results = await mapParallel(scenarios, PARALLEL, (scenario) => runScenario(scenario, mcpUrl));
  const rows = results.map((result) => judge(result, expected[result.scenario], declared));
  for (const stale of Object.keys(expected).filter((name) => !scenarios.includes(name))) {
    rows.push({ scenario: stale, got: '-', verdict: 'STALE', note: `not in the suite ${suiteVersion}: remove it from expected.json` });
  }
  printTable(rows, declared);
  if (verbose) printFailures(results);
  exitCode = rows.some((row) => row.verdict !== 'ok' && row.verdict !== 'n/a') ? 1 : 0;
  if (exitCode !== 0) {
    process.stdout.write(`\nFAILED: see the rows above (expected list: ${expectedPath}; CONFORMANCE_VERBOSE=1 for every failing check)\n`);
    if (verbose) process.stdout.write(`\nBridle's output:\n${service.output()}\n`);
  }
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
 * The suite's `server` command takes only a URL (no header option in 0.1.x: every scenario
 * builds its client from the URL alone), and /mcp needs a bearer token. This proxy on
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

async function listServerScenarios() {
  const { stdout, code } = await runNode([suiteCli, 'list', '--server'], 30_000);
  const names = [...stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
  if (code !== 0 || names.length === 0) throw new Error(`conformance list --server failed (exit ${code}):\n${stdout}`);
  return names;
}

/** One scenario in its own process, so that a scenario that hangs costs its time limit and no more. */
async function runScenario(scenario, mcpUrl) {
  const outputDir = join(resultsDir, scenario);
  const { stdout, code, timedOut } = await runNode(
    [suiteCli, 'server', '--url', mcpUrl, '--scenario', scenario, '-o', outputDir],
    SCENARIO_TIMEOUT_MS,
  );
  let checks = [];
  try {
    const [dir] = readdirSync(outputDir);
    checks = JSON.parse(readFileSync(join(outputDir, dir, 'checks.json'), 'utf8'));
  } catch {
    // No checks.json: the scenario crashed or timed out before writing one.
  }
  const failures = checks.filter((check) => check.status === 'FAILURE');
  const warning = checks.find((check) => check.status === 'WARNING');
  const succeeded = checks.some((check) => check.status === 'SUCCESS');
  if (timedOut) return { scenario, got: 'fail', why: `timed out after ${SCENARIO_TIMEOUT_MS / 1000} s`, failures, stdout };
  if (failures.length > 0) {
    return { scenario, got: 'fail', why: `${failures[0].id}: ${failures[0].errorMessage ?? failures[0].description}`, failures, stdout };
  }
  if (checks.length === 0 || code !== 0) {
    return { scenario, got: 'fail', why: `no checks (exit ${code}): ${stdout.trim().split('\n').slice(-3).join(' / ')}`, failures, stdout };
  }
  if (!succeeded) {
    const said = warning ? `${warning.id}: ${warning.details?.message ?? warning.errorMessage ?? warning.description}` : 'only INFO checks';
    return { scenario, got: 'none', why: `checked nothing (${said})`, failures, stdout };
  }
  return { scenario, got: 'pass', why: '', failures, stdout };
}

function judge(result, expectation, declared) {
  const row = (verdict, note) => ({ scenario: result.scenario, got: result.got, verdict, note });
  if (expectation === undefined)
    return row('NEW', `not in expected.json: add it${result.got === 'pass' ? ' as "pass"' : ` (${result.why})`}`);
  const pass = /^pass(?:: (.+))?$/s.exec(expectation);
  if (pass) return result.got === 'pass' ? row('ok', pass[1] ?? '') : row('FAIL', result.why);
  const notApplicable = /^not-applicable(?: until ([\w.]+))?: (.+)$/s.exec(expectation);
  if (!notApplicable)
    return row(
      'BAD',
      'expected.json: write "pass", "pass: <note>", "not-applicable: <reason>" or "not-applicable until <feature>: <reason>"',
    );
  const [, until, reason] = notApplicable;
  if (result.got === 'pass') return row('STALE', 'passes now: mark it "pass" in expected.json');
  if (until !== undefined && declared.has(until)) return row('STALE', `Bridle now declares ${until}, so it applies: ${result.why}`);
  return row('n/a', reason);
}

function printTable(rows, declared) {
  const width = Math.max(...rows.map((r) => r.scenario.length));
  const line = (scenario, got, verdict, note) => `${scenario.padEnd(width)}  ${got.padEnd(4)}  ${verdict.padEnd(7)}  ${note}`;
  process.stdout.write(`\nMCP conformance ${suiteVersion} against Bridle's /mcp (declares: ${[...declared].sort().join(', ')})\n\n`);
  process.stdout.write(`${line('scenario', 'got', 'verdict', 'note')}\n`);
  for (const row of rows) process.stdout.write(`${line(row.scenario, row.got, row.verdict, truncate(row.note, 110))}\n`);
  const count = (verdict) => rows.filter((r) => r.verdict === verdict).length;
  process.stdout.write(`\n${count('ok')} pass, ${count('n/a')} not applicable, ${rows.length - count('ok') - count('n/a')} to look at\n`);
}

function printFailures(results) {
  for (const result of results.filter((r) => r.got !== 'pass')) {
    process.stdout.write(`\n--- ${result.scenario}\n`);
    for (const check of result.failures) process.stdout.write(`${JSON.stringify(check, null, 2)}\n`);
    if (result.failures.length === 0) process.stdout.write(result.stdout);
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
