// A2A test of POST /a2a with the @a2a-js/sdk client (0.3.14, A2A v0.3) against a real
// switchboard server (dev mode, memory store, offline model, embedded demo CCS): the task's
// history and historyLength, the specification's errors as the SDK's typed errors, a required
// role, and tasks/resubscribe on a finished task.
//
// Run from this folder: npm ci && node --test a2a.test.mjs
// Uses out/switchboard when it exists (go build -o out/switchboard ./cmd/switchboard), else
// `go run ./cmd/switchboard`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonRpcTransport, TaskNotFoundError, TaskNotCancelableError } from '@a2a-js/sdk/client';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const devSecret = 'a2a-test-dev-secret-0123456789abcdefgh';

let server; // { proc, base, output(), exited() }
let token;

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// startServer runs the service in its own process group so that stopServer also ends the
// binary that `go run` starts.
async function startServer() {
  const port = await freePort();
  const addr = `127.0.0.1:${port}`;
  const bin = path.join(repo, 'out', 'switchboard');
  const [cmd, args] = existsSync(bin)
    ? [bin, ['serve', '--addr', addr]]
    : ['go', ['run', './cmd/switchboard', 'serve', '--addr', addr]];
  const proc = spawn(cmd, args, {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SWITCHBOARD_STORE_DRIVER: 'memory', SWITCHBOARD_DEV_SECRET: devSecret },
  });
  let log = '';
  const keep = (b) => { log = (log + b.toString()).slice(-20000); };
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  let exited = null;
  proc.on('exit', (code, signal) => { exited = { code, signal }; });
  server = { proc, base: `http://${addr}`, output: () => log, exited: () => exited };

  const deadline = Date.now() + 180_000; // go run may compile first
  for (;;) {
    if (exited) throw new Error(`server exited early (${JSON.stringify(exited)}):\n${log}`);
    try {
      const res = await fetch(`${server.base}/healthz`);
      if (res.ok) return;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`server not healthy in time:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function stopServer() {
  const s = server;
  if (!s || s.exited()) return;
  const gone = new Promise((r) => s.proc.once('exit', r));
  try { process.kill(-s.proc.pid, 'SIGTERM'); } catch { return; }
  const timer = setTimeout(() => { try { process.kill(-s.proc.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
  await gone;
  clearTimeout(timer);
}

process.on('exit', () => {
  if (server && !server.exited()) {
    try { process.kill(-server.proc.pid, 'SIGKILL'); } catch { /* gone */ }
  }
});

before(async () => {
  await startServer();
  const res = await fetch(`${server.base}/v1/dev/token`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sub: 'alice' }),
  });
  assert.equal(res.status, 200, 'dev token');
  ({ token } = await res.json());
});

after(stopServer);

// client is the SDK's JSON-RPC transport for the user of token, at the URL the card names.
async function client(tok) {
  const card = await (await fetch(`${server.base}/.well-known/agent-card.json`)).json();
  assert.equal(card.protocolVersion, '0.3.0');
  const fetchImpl = (url, init = {}) => fetch(url, { ...init, headers: { ...(init.headers || {}), Authorization: `Bearer ${tok}` } });
  return new JsonRpcTransport({ endpoint: card.url, fetchImpl });
}

const ask = (text, extra = {}) => ({
  message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }], ...extra },
});

test('a task carries its history; historyLength keeps the newest', { timeout: 120_000 }, async () => {
  const alice = await client(token);
  const task = await alice.sendMessage(ask('how many points do I have?'));
  assert.equal(task.kind, 'task');
  assert.equal(task.status.state, 'completed');
  assert.deepEqual(task.history.map((m) => m.role), ['user', 'agent']);
  assert.equal(task.history[0].parts[0].text, 'how many points do I have?');

  const newest = await alice.getTask({ id: task.id, historyLength: 1 });
  assert.deepEqual(newest.history.map((m) => m.role), ['agent']);
  const none = await alice.getTask({ id: task.id, historyLength: 0 });
  assert.equal((none.history ?? []).length, 0);
  await assert.rejects(alice.getTask({ id: task.id, historyLength: -1 }), /Invalid parameters \(Code: -32602\)/);
});

test("errors are the specification's, with the detail in data", { timeout: 120_000 }, async () => {
  const alice = await client(token);
  await assert.rejects(alice.getTask({ id: 'turn_nope' }), (err) => err instanceof TaskNotFoundError && err.message === 'Task not found');
  const done = await alice.sendMessage(ask('what tier am i in?'));
  await assert.rejects(alice.cancelTask({ id: done.id }), (err) => err instanceof TaskNotCancelableError && err.message === 'Task cannot be canceled');
  const noRole = { message: { kind: 'message', messageId: randomUUID(), parts: [{ kind: 'text', text: 'hi' }] } };
  await assert.rejects(alice.sendMessage(noRole), /Invalid parameters \(Code: -32602\).*role is required/);
});

test('resubscribing to a finished task sends its snapshot and its final status only', { timeout: 120_000 }, async () => {
  const alice = await client(token);
  const streamed = [];
  for await (const ev of alice.sendMessageStream(ask('any deals on running shoes?'))) streamed.push(ev);
  assert.equal(streamed[0].kind, 'task');
  const last = streamed.at(-1);
  assert.ok(last.kind === 'status-update' && last.final && last.status.state === 'completed', JSON.stringify(last));

  const replay = [];
  for await (const ev of alice.resubscribeTask({ id: streamed[0].id })) replay.push(`${ev.kind}:${ev.status?.state}${ev.final ? ':final' : ''}`);
  assert.deepEqual(replay, ['task:completed', 'status-update:completed:final']);
});
