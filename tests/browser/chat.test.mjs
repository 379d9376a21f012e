// Browser test of the chat page: a real switchboard server (dev mode, memory store, offline
// model, embedded demo CCS) driven through Debian's headless Chromium with playwright-core.
//
// Run from this folder: npm ci && node --test chat.test.mjs
// Uses out/switchboard when it exists (go build -o out/switchboard ./cmd/switchboard), else
// `go run ./cmd/switchboard`. CHROMIUM overrides the browser path (default /usr/bin/chromium).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { repo, startServer } from '../lib/server.mjs';

const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const devSecret = 'browser-test-dev-secret-0123456789abcdef';
const question = 'any deals on running shoes? and how many points do I have?';

// Things that must never reach a user: API error codes, HTTP status talk, Go internals.
const rawErrorText = /\b(internal|invalid_[a-z_]+|not_found|unauthenticated|principal_mismatch|missing_principal|idempotency_conflict|client_closed|too_large|version_mismatch|bad_signature|partial\[\])\b|\bHTTP\s?[45]\d\d\b|\bstatus(?: code)? [45]\d\d\b|goroutine \d|panic:|\.go:\d+|\{"error"/i;

let server; // { proc, base, output() }
let context;
let userDataDir;



before(async () => {
  server = await startServer({ devSecret });
  userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'switchboard-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1100, height: 820 },
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
});

after(async () => {
  try {
    if (context) await context.close();
  } finally {
    await server.stop();
    if (userDataDir) await fs.rm(userDataDir, { recursive: true, force: true });
  }
});

// openPage opens the chat page in a new tab (fresh sessionStorage) and records page errors.
async function openPage() {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${server.base}/`);
  return { page, problems };
}

async function signIn(page) {
  const user = page.getByTestId('signin-user');
  assert.equal(await user.inputValue(), 'alice', 'the User field defaults to alice');
  await user.fill('alice');
  await page.getByTestId('signin-dev').click();
  await page.getByTestId('message-input').waitFor({ state: 'visible' });
  assert.equal(await page.getByTestId('signed-in-as').innerText(), 'Signed in as alice');
}

// watchStatusLines records every status line the page shows, however briefly.
async function watchStatusLines(page) {
  await page.evaluate(() => {
    window.__statusSeen = [];
    const box = document.querySelector('[data-testid="status-lines"]');
    new MutationObserver((muts) => {
      for (const m of muts) {
        for (const n of m.addedNodes) {
          if (n.dataset && n.dataset.testid === 'status-line') window.__statusSeen.push(n.textContent);
        }
      }
    }).observe(box, { childList: true });
  });
}

async function send(page, text) {
  const input = page.getByTestId('message-input');
  await input.fill(text);
  await input.press('Enter');
}

const finished = (page, n) => page.locator('[data-testid="assistant-message"][data-outcome]').nth(n - 1);

test('a turn streams status lines and a reply about offers and points', { timeout: 240_000 }, async () => {
  const { page, problems } = await openPage();
  const consoleErrors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  try {
    await signIn(page);
    assert.equal(await page.getByTestId('status-lines').getAttribute('aria-live'), 'polite');
    await watchStatusLines(page);

    await send(page, question);
    await finished(page, 1).waitFor({ timeout: 120_000 });

    const seen = await page.evaluate(() => window.__statusSeen);
    assert.ok(seen.length >= 1, `at least one status line, saw ${JSON.stringify(seen)}`);
    assert.ok(seen.every((t) => t.trim() !== ''), `status lines have text: ${JSON.stringify(seen)}`);

    const reply = await page.getByTestId('assistant-bubble').first().innerText();
    assert.match(reply, /offer|deal|discount/i, `reply mentions offers: ${reply}`);
    assert.match(reply, /points?\b/i, `reply mentions points: ${reply}`);
    // The offline model lists offers as "- " lines: the page shows them as a list.
    const items = await page.getByTestId('assistant-bubble').first().locator('ul > li').count();
    assert.ok(items >= 2, `the offers are a list of at least 2 items, got ${items}`);
    assert.doesNotMatch(reply, /^- /m, `no raw "- " markers: ${reply}`);
    assert.equal(await page.getByTestId('user-message').first().innerText(), question);

    assert.ok(await page.getByTestId('stop').isHidden(), 'Stop hides when the turn ends');
    assert.ok(await page.getByTestId('send').isEnabled(), 'Send is enabled again');
    await page.locator('[data-testid="status-lines"] [data-testid="status-line"]').first()
      .waitFor({ state: 'detached' }); // the last status faded with the reply

    const bodyText = await page.locator('body').innerText();
    assert.doesNotMatch(bodyText, rawErrorText, 'no raw error codes in the page');
    const cards = await page.locator('[data-testid^="component-"]').allInnerTexts();
    assert.ok(cards.length >= 1, 'the answer has cards');
    for (const c of cards) assert.doesNotMatch(c, /\d{4}-\d{2}-\d{2}/, `card dates read like the reply's: ${c}`);

    await page.setViewportSize({ width: 1100, height: 1060 }); // the whole exchange in one picture
    await page.getByTestId('message-input').blur();
    // The test run's artifact goes to out/; the README's picture is refreshed on request
    // (UPDATE_SCREENSHOT=1), so that running the tests leaves the work tree clean.
    const shots = [path.join(repo, 'out', 'browser', 'chat.png')];
    if (process.env.UPDATE_SCREENSHOT === '1') shots.push(path.join(repo, 'docs', 'screenshots', 'chat.png'));
    for (const shot of shots) {
      await fs.mkdir(path.dirname(shot), { recursive: true });
      await page.screenshot({ path: shot });
    }

    // A second turn stays in the same episode.
    const episode = await page.evaluate(() => sessionStorage.getItem('switchboard.episode'));
    assert.ok(episode, 'the episode id is kept');
    await send(page, 'thanks! which of those ends soonest?');
    await finished(page, 2).waitFor({ timeout: 120_000 });
    assert.equal(await page.evaluate(() => sessionStorage.getItem('switchboard.episode')), episode);
    const stored = await page.evaluate(async (id) => {
      const res = await fetch('/v1/episodes/' + encodeURIComponent(id), {
        headers: { Authorization: 'Bearer ' + sessionStorage.getItem('switchboard.token') },
      });
      return { status: res.status, body: await res.json() };
    }, episode);
    assert.equal(stored.status, 200);
    assert.deepEqual(stored.body.turns.map((t) => t.message), [question, 'thanks! which of those ends soonest?']);
    assert.doesNotMatch(await page.locator('body').innerText(), rawErrorText);

    // A reload keeps the tab's session and shows the stored conversation again, with the
    // cards and steps each answer had.
    const firstReply = await page.getByTestId('assistant-bubble').first().innerText();
    const first = page.getByTestId('assistant-message').first();
    const cardsBefore = await first.locator('[data-testid^="component-"]').count();
    const stepsBefore = await first.locator('[data-testid="status-history"] li').count();
    assert.ok(cardsBefore >= 1 && stepsBefore >= 1, `the first answer has cards (${cardsBefore}) and steps (${stepsBefore})`);
    await page.reload();
    await page.getByTestId('assistant-message').nth(1).waitFor();
    assert.equal(await page.getByTestId('user-message').count(), 2);
    assert.equal(await page.getByTestId('assistant-bubble').first().innerText(), firstReply);
    await first.locator('[data-testid="status-history"]').waitFor();
    assert.equal(await first.locator('[data-testid^="component-"]').count(), cardsBefore, 'cards after a reload');
    assert.equal(await first.locator('[data-testid="status-history"] li').count(), stepsBefore, 'steps after a reload');

    assert.deepEqual(problems, []);
    assert.deepEqual(consoleErrors, []);
  } catch (err) {
    err.message += `\n--- server output (tail) ---\n${server.output().slice(-4000)}`;
    throw err;
  } finally {
    await page.close();
  }
});

// sse renders events as an SSE body; retry keeps the browser's reconnects fast.
function sse(events, retry = 100) {
  let out = `retry: ${retry}\n\n`;
  for (const [id, name, data] of events) out += `id: ${id}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  return out;
}

const sseHeaders = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' };

// fakeTurn answers POST /v1/turns with a turn whose events the test serves itself.
async function fakeTurn(page, turnID) {
  await page.route(/\/v1\/turns$/, (route) => {
    if (route.request().method() !== 'POST') return route.fallback();
    return route.fulfill({
      status: 202,
      contentType: 'application/json',
      body: JSON.stringify({ turn_id: turnID, episode_id: 'ep-fake', events_url: `/v1/turns/${turnID}/events?token=tt` }),
    });
  });
}

test('replayed events after reconnects are applied once', { timeout: 60_000 }, async () => {
  const { page, problems } = await openPage();
  try {
    await signIn(page);
    await fakeTurn(page, 't-replay');
    const requests = [];
    // Playwright's route does not see the Last-Event-ID header that Chromium adds on its own
    // reconnects (it is set below the interception layer), so only the page's query is checked.
    await page.route(/\/v1\/turns\/t-replay\/events\?/, (route) => {
      requests.push(new URL(route.request().url()).searchParams.get('lastEventId'));
      switch (requests.length) {
        case 1: // the stream ends early: the browser reconnects by itself with Last-Event-ID
          return route.fulfill({ status: 200, headers: sseHeaders, body: sse([
            [1, 'turn.started', { turn_id: 't-replay', episode_id: 'ep-fake' }],
            [2, 'status', { text: 'Looking up your offers', sources: [{ agent_id: 'deals', event: 'deals.searching' }] }],
            [3, 'reply.delta', { text: 'Hello ' }],
          ]) });
        case 2: // the server refuses: EventSource gives up (CLOSED) and the page reopens
          return route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"code":"unavailable","message":"busy"}}' });
        default: // replays from the start of what it had, duplicates included
          return route.fulfill({ status: 200, headers: sseHeaders, body: sse([
            [2, 'status', { text: 'Looking up your offers', sources: [{ agent_id: 'deals', event: 'deals.searching' }] }],
            [3, 'reply.delta', { text: 'Hello ' }],
            [4, 'reply.delta', { text: 'world' }],
            [5, 'turn.completed', { turn_id: 't-replay', outcome: 'degraded' }],
          ]) });
      }
    });

    await send(page, 'hello?');
    await finished(page, 1).waitFor();

    assert.equal(await page.getByTestId('assistant-bubble').innerText(), 'Hello world');
    assert.equal(await finished(page, 1).getAttribute('data-outcome'), 'degraded');
    assert.match(await page.getByTestId('turn-note').innerText(), /may be missing/);
    assert.equal(await page.locator('[data-testid="status-history"] li').count(), 1, 'the replayed status is shown once');
    assert.deepEqual(requests, [null, null, '3'], 'lastEventId query per request: only the page\'s own reopen sets it');
    // After turn.completed the EventSource is closed: no further reconnects, even with retry: 100.
    await page.waitForTimeout(600);
    assert.equal(requests.length, 3, 'no reconnect after turn.completed');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('Stop cancels the running turn', { timeout: 60_000 }, async () => {
  const { page, problems } = await openPage();
  try {
    await signIn(page);
    await fakeTurn(page, 't-stop');
    let cancelled = false;
    let authorization = null;
    await page.route(/\/v1\/turns\/t-stop$/, (route) => {
      if (route.request().method() !== 'DELETE') return route.fallback();
      authorization = route.request().headers().authorization ?? null;
      cancelled = true;
      return route.fulfill({ status: 204 });
    });
    await page.route(/\/v1\/turns\/t-stop\/events\?/, (route) => {
      if (!cancelled) {
        // Still running: nothing new yet, the browser keeps reconnecting.
        return route.fulfill({ status: 200, headers: sseHeaders, body: sse([
          [1, 'turn.started', { turn_id: 't-stop', episode_id: 'ep-fake' }],
          [2, 'status', { text: 'Thinking', sources: [] }],
        ], 200) });
      }
      return route.fulfill({ status: 200, headers: sseHeaders, body: sse([
        [3, 'error', { message: 'The answer was stopped.', is_final: true }],
        [4, 'turn.completed', { turn_id: 't-stop', outcome: 'cancelled' }],
      ]) });
    });

    await send(page, 'tell me everything');
    const stop = page.getByTestId('stop');
    await stop.waitFor({ state: 'visible' });
    await page.getByTestId('status-line').first().waitFor();
    await stop.click();
    await finished(page, 1).waitFor();

    assert.ok(cancelled, 'DELETE /v1/turns/t-stop was sent');
    assert.match(authorization ?? '', /^Bearer \S+\.\S+\.\S+$/);
    assert.equal(await finished(page, 1).getAttribute('data-outcome'), 'cancelled');
    assert.equal(await page.getByTestId('turn-error').innerText(), 'The answer was stopped.');
    assert.ok(await stop.isHidden());
    assert.ok(await page.getByTestId('send').isEnabled());
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the sign-in card keeps off the edges of a 390 px phone screen', { timeout: 30_000 }, async () => {
  const page = await context.newPage();
  try {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.base}/`);
    const box = await page.getByTestId('signin').boundingBox();
    assert.ok(box, 'the sign-in card is shown');
    assert.ok(box.x >= 8, `left margin ${box.x}px, want at least 8px`);
    assert.ok(390 - (box.x + box.width) >= 8, `right margin ${390 - (box.x + box.width)}px, want at least 8px`);
  } finally {
    await page.close();
  }
});

// fakeEvents serves the events of a fake turn: events() is called per request, so a test can
// change what the stream holds between the browser's reconnects.
async function fakeEvents(page, turnID, events, retry = 100) {
  await page.route(new RegExp(`/v1/turns/${turnID}/events\\?`), (route) =>
    route.fulfill({ status: 200, headers: sseHeaders, body: sse(events(), retry) }));
}

// replyTurn runs one fake turn that answers text (and components) and waits until it ends.
async function replyTurn(page, turnID, text, components = []) {
  await fakeTurn(page, turnID);
  await fakeEvents(page, turnID, () => [
    [1, 'turn.started', { turn_id: turnID, episode_id: 'ep-fake' }],
    [2, 'reply.delta', { text }],
    [3, 'reply.completed', { text, components }],
    [4, 'turn.completed', { turn_id: turnID, outcome: 'ok' }],
  ]);
  await send(page, 'show me');
  await finished(page, 1).waitFor();
  return page.getByTestId('assistant-bubble').first();
}

test('reply markup shows as paragraphs, lists, emphasis and links', { timeout: 60_000 }, async () => {
  const { page, problems } = await openPage();
  try {
    await signIn(page);
    const bubble = await replyTurn(page, 't-markup', [
      'I found 2 offers:',
      '- **Nike Pegasus 41**: $104.00, 20% off',
      '- *Adidas Samba* at [Foot Locker](https://example.com/samba?ref=1)',
      '  still in stock, `SAMBA-42`',
      '',
      '1. first',
      '2. second',
      '   - nested',
      '',
      'More at https://example.com/offers. Keep snake_case_names and 2 * 3 * 4 as they are.',
    ].join('\n'));

    const shape = await bubble.evaluate((b) => {
      const tree = (el) => Array.from(el.children, (c) => c.tagName.toLowerCase() + (c.children.length ? `(${tree(c)})` : '')).join(' ');
      return tree(b);
    });
    assert.equal(shape, 'p ul(li(strong) li(em a br code)) ol(li li(ul(li))) p(a)');
    assert.deepEqual(await bubble.locator('ul').first().locator('> li').allInnerTexts(), [
      'Nike Pegasus 41: $104.00, 20% off',
      'Adidas Samba at Foot Locker\nstill in stock, SAMBA-42',
    ]);
    const links = await bubble.locator('a').evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.rel, a.target, a.textContent]));
    assert.deepEqual(links, [
      ['https://example.com/samba?ref=1', 'noopener noreferrer', '_blank', 'Foot Locker'],
      ['https://example.com/offers', 'noopener noreferrer', '_blank', 'https://example.com/offers'],
    ]);
    assert.match(await bubble.locator('p').last().innerText(), /snake_case_names and 2 \* 3 \* 4 as they are\.$/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('hostile reply and card text stays inert text', { timeout: 60_000 }, async () => {
  const { page, problems } = await openPage();
  try {
    await signIn(page);
    await page.evaluate(() => { window.__pwned = []; });
    const hostile = [
      'Hi <img src=x onerror="window.__pwned.push(1)"> there',
      '<script>window.__pwned.push(2)</script>',
      '[click me](javascript:window.__pwned.push(3)) and [again](JaVaScRiPt:alert(1))',
      '[data](data:text/html,<script>alert(1)</script>) [relative](/v1/dev/token) [proto](//evil.example/x)',
      'javascript:alert(4) and <a href="javascript:alert(5)">raw link</a>',
      '- **<b onclick="alert(6)">bold <i>*[nested](javascript:alert(7))*</i></b>**',
      '- [**[inner](https://example.com/in)**](https://example.com/out)',
      '- https://example.com/" onmouseover="window.__pwned.push(8)',
      '<iframe srcdoc="<script>parent.__pwned.push(9)</script>"></iframe>',
      '*'.repeat(3000) + '['.repeat(3000) + '_'.repeat(3000),
    ].join('\n');
    const card = { type: 'offer_list', data: { offers: [
      { title: '<img src=x onerror="window.__pwned.push(10)">', merchant: '<b>shop</b>', price: 1, currency: 'USD' },
    ] } };
    const bubble = await replyTurn(page, 't-hostile', hostile, [card]);
    const msg = page.getByTestId('assistant-message').first();

    const found = await msg.evaluate((art) => {
      const bubble = art.querySelector('[data-testid="assistant-bubble"]');
      const allowed = new Set(['P', 'UL', 'OL', 'LI', 'STRONG', 'EM', 'CODE', 'PRE', 'A', 'BR']);
      return {
        tags: [...new Set(Array.from(bubble.querySelectorAll('*'), (e) => e.tagName))].filter((t) => !allowed.has(t)),
        handlers: Array.from(art.querySelectorAll('*')).flatMap((e) => e.getAttributeNames().filter((n) => /^on|^srcdoc$/i.test(n))),
        dangerous: art.querySelectorAll('img, script, iframe, object, embed, svg, b, i').length,
        links: Array.from(bubble.querySelectorAll('a'), (a) => [a.getAttribute('href'), a.rel, a.textContent]),
        pwned: window.__pwned,
      };
    });
    assert.deepEqual(found.tags, [], 'only the renderer\'s own elements in the bubble');
    assert.deepEqual(found.handlers, [], 'no event handler attributes');
    assert.equal(found.dangerous, 0, 'no elements from the text');
    assert.deepEqual(found.links, [
      ['https://example.com/out', 'noopener noreferrer', 'inner'],
      ['https://example.com/', 'noopener noreferrer', 'https://example.com/'],
    ], 'only the http(s) links, and no link inside a link');
    assert.deepEqual(found.pwned, []);

    const text = await bubble.innerText();
    for (const literal of ['<img src=x onerror="window.__pwned.push(1)">', '<script>window.__pwned.push(2)</script>',
      'click me and again', 'javascript:alert(4)', '<a href="javascript:alert(5)">raw link</a>', 'data relative proto',
      '<b onclick="alert(6)">bold <i>nested</i></b>']) {
      assert.ok(text.includes(literal), `the reply shows ${JSON.stringify(literal)} as text:\n${text.slice(0, 800)}`);
    }
    assert.ok(text.includes('*'.repeat(100)) && text.includes('['.repeat(100)), 'unmatched markup stays as text');
    assert.equal(await msg.getByTestId('component-offer_list').locator('li span').first().innerText(),
      '<img src=x onerror="window.__pwned.push(10)">');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('on a 1920x1080 screen the status line sits next to the typing indicator', { timeout: 60_000 }, async () => {
  const { page, problems } = await openPage();
  try {
    await page.setViewportSize({ width: 1920, height: 1080 });
    await signIn(page);
    await fakeTurn(page, 't-status');
    let done = false;
    await fakeEvents(page, 't-status', () => done ? [
      [3, 'reply.delta', { text: 'Done.' }],
      [4, 'turn.completed', { turn_id: 't-status', outcome: 'ok' }],
    ] : [
      [1, 'turn.started', { turn_id: 't-status', episode_id: 'ep-fake' }],
      [2, 'status', { text: 'Looking up your offers', sources: [] }],
    ], 200);

    await send(page, 'any deals?');
    const line = page.locator('[data-testid="status-lines"] [data-testid="status-line"]').first();
    await line.waitFor({ state: 'visible' });
    await page.waitForFunction(() => !document.getAnimations().some((a) => a.playState === 'running' && a.animationName === 'rise'));
    const dots = page.getByTestId('assistant-bubble').locator('.typing');
    const [d, s, b] = [await dots.boundingBox(), await line.boundingBox(), await page.getByTestId('assistant-bubble').boundingBox()];
    assert.ok(d && s && b, 'typing indicator and status line are shown');
    const gap = s.y - (d.y + d.height);
    assert.ok(gap >= 0 && gap <= 40, `status line starts ${gap}px below the typing indicator, want 0..40 (dots ${JSON.stringify(d)}, line ${JSON.stringify(s)})`);
    assert.ok(Math.abs(s.x - b.x) <= 24, `status line starts at x=${s.x}, the reply bubble at x=${b.x}`);
    assert.ok(s.y + s.height <= 1080, 'the status line is on screen');

    done = true;
    await finished(page, 1).waitFor();
    await line.waitFor({ state: 'detached' });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the composer shows no scrollbar after a send', { timeout: 60_000 }, async () => {
  const { page, problems } = await openPage();
  try {
    await signIn(page);
    const input = page.getByTestId('message-input');
    const measure = () => input.evaluate((t) => ({ scrollHeight: t.scrollHeight, clientHeight: t.clientHeight, height: t.offsetHeight }));
    const before = await measure();
    await replyTurn(page, 't-composer', 'Hello.');
    const after = await measure();
    assert.ok(after.scrollHeight <= after.clientHeight, `after the first send: scrollHeight ${after.scrollHeight} > clientHeight ${after.clientHeight}`);
    assert.equal(after.height, before.height, 'the empty composer is as tall as before the send');

    // It grows with a long message, up to its cap, and shrinks back when emptied.
    await input.fill('line\n'.repeat(4) + 'end');
    const grown = await measure();
    assert.ok(grown.height > before.height, `grows for 5 lines: ${grown.height}px, was ${before.height}px`);
    assert.ok(grown.scrollHeight <= grown.clientHeight, `no scrollbar at 5 lines: ${JSON.stringify(grown)}`);
    await input.fill('');
    assert.equal((await measure()).height, before.height, 'shrinks back when emptied');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the reply renderer keeps to its own elements on random markup', { timeout: 60_000 }, async () => {
  const { page, problems } = await openPage();
  try {
    // Seeded, so that a failure repeats; the pieces are what the renderer looks for.
    const bad = await page.evaluate(() => {
      const pieces = ['*', '**', '_', '__', '`', '```\n', '[', ']', '(', ')', '](', '\\', '\n', '\n\n', ' ', '  ', '- ', '1. ',
        '# ', 'https://', 'http://a.example/', 'javascript:', 'data:', '<img src=x onerror=alert(1)>', '<a href="x">', '</a>',
        '"', '.', 'word', 'x', '\t'];
      let seed = 0x2545f491;
      const next = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed; };
      const allowed = new Set(['P', 'UL', 'OL', 'LI', 'STRONG', 'EM', 'CODE', 'PRE', 'A', 'BR']);
      const found = [];
      for (let n = 0; n < 3000 && found.length < 5; n++) {
        let text = '';
        const len = next() % 60;
        for (let k = 0; k < len; k++) text += pieces[next() % pieces.length];
        let box;
        try {
          box = document.createElement('div');
          box.append(window.switchboardMarkdown.render(text));
        } catch (err) {
          found.push({ text, problem: String(err) });
          continue;
        }
        for (const e of box.querySelectorAll('*')) {
          let problem = '';
          if (!allowed.has(e.tagName)) problem = 'element ' + e.tagName;
          else if (e.getAttributeNames().some((a) => !['href', 'rel', 'target', 'start', 'class'].includes(a))) problem = 'attributes ' + e.getAttributeNames();
          else if (e.tagName === 'A' && (!/^https?:\/\//.test(e.getAttribute('href')) || e.rel !== 'noopener noreferrer' || e.parentElement.closest('a'))) problem = 'link ' + e.outerHTML;
          if (problem) { found.push({ text, problem }); break; }
        }
      }
      return found;
    });
    assert.deepEqual(bad, []);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

// An embedding program mounts switchboard under a prefix of its own (http.StripPrefix, see
// prefixserver): the page loads its assets, signs in, runs a turn over its event stream and
// restores the conversation after a reload, every request staying under the prefix.
test('the page works mounted under a path prefix', { timeout: 300_000 }, async () => {
  const mounted = await startServer({ devSecret, goPackage: './tests/browser/prefixserver', healthPath: '/assistant/healthz' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
  const outside = [];
  page.on('request', (req) => {
    const u = new URL(req.url());
    if (u.origin === mounted.base && !u.pathname.startsWith('/assistant/') && u.pathname !== '/assistant') outside.push(`${req.method()} ${u.pathname}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()} ${new URL(res.url()).pathname}`);
  });
  try {
    // Without the trailing slash the embedding mux redirects to the page.
    await page.goto(`${mounted.base}/assistant`);
    assert.equal(new URL(page.url()).pathname, '/assistant/');
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.topbar')).display), 'flex',
      'the style sheet applies');
    await signIn(page);
    await send(page, question);
    await finished(page, 1).waitFor({ timeout: 120_000 });
    const reply = await page.getByTestId('assistant-bubble').first().innerText();
    assert.match(reply, /offer|deal|discount/i, `reply mentions offers: ${reply}`);
    assert.ok(await page.locator('[data-testid^="component-"]').count() >= 1, 'the answer has cards');

    // A reload reads the episode and the turn's events back through the prefix.
    await page.reload();
    await page.getByTestId('assistant-message').first().locator('[data-testid="status-history"]').waitFor();
    assert.equal(await page.getByTestId('assistant-bubble').first().innerText(), reply);

    assert.deepEqual(outside, [], 'no request leaves the prefix');
    assert.deepEqual(problems, []);
  } catch (err) {
    err.message += `\n--- server output (tail) ---\n${mounted.output().slice(-4000)}`;
    throw err;
  } finally {
    await page.close();
    await mounted.stop();
  }
});
