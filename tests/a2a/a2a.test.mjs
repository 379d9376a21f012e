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
import { randomUUID } from 'node:crypto';
import { JsonRpcTransport, TaskNotFoundError, TaskNotCancelableError } from '@a2a-js/sdk/client';
import { startServer } from '../lib/server.mjs';

const devSecret = 'a2a-test-dev-secret-0123456789abcdefgh';

let server; // { proc, base, output(), exited() }
let token;



before(async () => {
  server = await startServer({ devSecret });
  const res = await fetch(`${server.base}/v1/dev/token`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sub: 'alice' }),
  });
  assert.equal(res.status, 200, 'dev token');
  ({ token } = await res.json());
});

after(() => server.stop());

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
