// AG-UI test of POST /agui with the protocol's reference client, @ag-ui/client's HttpAgent,
// against a real switchboard server (dev mode, memory store, offline model, embedded demo CCS).
// HttpAgent checks every event against @ag-ui/core's schemas and its verifier (run lifecycle,
// steps, text messages), so a malformed stream fails the run.
//
// Run from this folder: npm ci && node --test agui.test.mjs
// Uses out/switchboard when it exists (go build -o out/switchboard ./cmd/switchboard), else
// `go run ./cmd/switchboard`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { startServer } from '../lib/server.mjs';

const devSecret = 'agui-test-dev-secret-0123456789abcdef';
const twoIntents = 'any deals on running shoes? and how many points do I have?';

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

function newAgent(threadId) {
  return new HttpAgent({ url: `${server.base}/agui`, headers: { Authorization: `Bearer ${token}` }, threadId });
}

// run sends text as the next user message of the agent's thread and records every event the
// client applied. onEvent may abort the run.
async function run(agent, text, onEvent = () => {}) {
  agent.addMessage({ id: randomUUID(), role: 'user', content: text });
  const events = [];
  const result = await agent.runAgent({}, {
    onEvent: ({ event }) => { events.push(event); onEvent(event, agent); },
  });
  return { events, result };
}

const types = (events) => events.map((e) => e.type);
const steps = (events) => events.filter((e) => e.type === 'STEP_STARTED').map((e) => e.stepName).sort();
const assistantTexts = (agent) => agent.messages.filter((m) => m.role === 'assistant').map((m) => m.content);

// turnEnd follows a turn's own event stream (GET /v1/turns/{id}/events) to turn.completed and
// returns its outcome: a signal, not a timer, says when the turn is over.
async function turnEnd(turnId) {
  const res = await fetch(`${server.base}/v1/turns/${encodeURIComponent(turnId)}/events`, {
    headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
  });
  assert.equal(res.status, 200, 'turn events');
  const body = await res.text(); // ends with the turn
  const block = body.split('\n\n').find((b) => b.includes('event:turn.completed') || b.includes('event: turn.completed'));
  assert.ok(block, `turn.completed in ${body}`);
  const data = block.split('\n').find((l) => l.startsWith('data:')).slice(5);
  return JSON.parse(data).outcome;
}

async function setFaults(faults) {
  const res = await fetch(`${server.base}/v1/dev/ccs-faults`, {
    method: faults ? 'PUT' : 'DELETE',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: faults ? JSON.stringify(faults) : undefined,
  });
  assert.equal(res.status, 204, 'dev faults');
}

const thread = randomUUID();

test('a run streams a two-intent reply as AG-UI events', { timeout: 120_000 }, async () => {
  const agent = newAgent(thread);
  const { events } = await run(agent, twoIntents);

  const t = types(events);
  assert.equal(t[0], 'RUN_STARTED');
  assert.equal(t.at(-1), 'RUN_FINISHED');
  assert.equal(events[0].threadId, thread);
  assert.deepEqual(steps(events), ['rewards', 'shop'], 'one step per sub-agent asked');
  assert.ok(t.indexOf('STEP_STARTED') < t.indexOf('TEXT_MESSAGE_START'), 'steps start before the reply');
  assert.ok(t.lastIndexOf('STEP_FINISHED') < t.indexOf('TEXT_MESSAGE_START'), 'steps finish before the reply');
  assert.ok(t.filter((x) => x === 'TEXT_MESSAGE_CONTENT').length >= 2, `the reply is streamed in pieces: ${t}`);
  assert.ok(t.includes('ACTIVITY_SNAPSHOT'), 'status lines arrive as activity');
  assert.deepEqual(events.at(-1).outcome, { type: 'success' });

  const [reply] = assistantTexts(agent);
  assert.match(reply, /offer|deal|discount/i, `reply mentions offers: ${reply}`);
  assert.match(reply, /points?\b/i, `reply mentions points: ${reply}`);
  const status = agent.messages.find((m) => m.role === 'activity');
  assert.equal(status?.activityType, 'status');
  assert.ok(status.content.text.length > 0 && status.content.sources.length > 0, JSON.stringify(status));
});

test('aborting a run mid-way cancels its turn', { timeout: 120_000 }, async () => {
  await setFaults({ 'points.balance': { hang: true } }); // rewards waits until cancelled
  try {
    const agent = newAgent(randomUUID());
    let turnId;
    let aborted = false;
    const { events } = await run(agent, 'how many points do I have?', (event, a) => {
      if (event.type === 'RUN_STARTED') turnId = event.metadata.turnId;
      if (event.type === 'STEP_STARTED' && event.stepName === 'rewards' && !aborted) {
        aborted = true;
        a.abortRun();
      }
    });
    assert.ok(aborted, `the rewards step started: ${types(events)}`);
    assert.ok(!types(events).includes('RUN_FINISHED'), 'the run did not finish on its own');
    assert.equal(await turnEnd(turnId), 'cancelled', 'the server cancelled the abandoned turn');
  } finally {
    await setFaults(null);
  }
});

test('a second run on the same thread sees the first', { timeout: 120_000 }, async () => {
  const followUp = "what about bob's?";
  // Alone, the follow-up names no vertical: no sub-agent is asked.
  const alone = await run(newAgent(randomUUID()), followUp);
  assert.deepEqual(steps(alone.events), [], 'a follow-up with no history');

  // On the first test's thread it leans on the earlier question, which the server kept.
  const agent = newAgent(thread);
  const { events } = await run(agent, followUp);
  assert.deepEqual(steps(events), ['rewards', 'shop'], 'the follow-up is routed by the thread\'s first run');

  const res = await fetch(`${server.base}/v1/episodes/${encodeURIComponent(thread)}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  const episode = await res.json();
  assert.deepEqual(episode.turns.map((x) => x.message), [twoIntents, followUp]);
});

test("another user's thread of the same id is a thread of their own", { timeout: 60_000 }, async () => {
  const res = await fetch(`${server.base}/v1/dev/token`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sub: 'bob' }),
  });
  const bob = (await res.json()).token;
  const messages = async (tok) => {
    const ep = await fetch(`${server.base}/v1/episodes/${encodeURIComponent(thread)}`, {
      headers: { Authorization: `Bearer ${tok}` },
    });
    assert.equal(ep.status, 200);
    return (await ep.json()).turns.map((x) => x.message);
  };
  const alices = await messages(token);
  const agent = new HttpAgent({ url: `${server.base}/agui`, headers: { Authorization: `Bearer ${bob}` }, threadId: thread });
  const { events } = await run(agent, 'how many points do I have?');
  assert.equal(events.at(-1).type, 'RUN_FINISHED', `bob's run: ${types(events)}`);
  assert.deepEqual(await messages(bob), ['how many points do I have?'], "bob's thread holds his run only");
  assert.deepEqual(await messages(token), alices, "alice's thread is as it was");
});
