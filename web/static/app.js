// The switchboard chat page: sign in, send turns, follow each turn's event stream.
//
// Plain browser JavaScript, no build step. The bearer token and the current episode live in
// sessionStorage (this tab only). API paths are relative to the page's address, so that the page
// works wherever a program mounts switchboard (/, /assistant/, ...). Every turn is POSTed to
// v1/turns and its events are read with EventSource from the events_url the server returns
// (prefix included); that URL carries a short-lived turn token because EventSource cannot send
// an Authorization header.
//
// Replies are shown through markdown.js, which builds them from text nodes and elements of its
// own: nothing a model or the context service writes is ever parsed as HTML.
//
// Events carry strictly increasing ids per turn. A reconnect (the browser's own, with
// Last-Event-ID, or ours, with ?lastEventId=) may replay events we already have, so every
// handler runs only for ids above the last one seen: the reply text is never doubled.
'use strict';

(() => {
  const TOKEN_KEY = 'switchboard.token';
  const EPISODE_KEY = 'switchboard.episode';
  const RUNNING_KEY = 'switchboard.running';
  const EVENT_NAMES = ['turn.started', 'status', 'reply.delta', 'reply.completed', 'error', 'turn.completed'];
  const MAX_REOPENS = 5;
  const FADE_MS = 400;

  const OUTCOME_NOTES = {
    degraded: 'Some details may be missing from this answer.',
    failed: 'This answer could not be completed.',
    cancelled: 'Stopped.',
  };

  const $ = (id) => document.getElementById(id);
  const ui = {
    signin: $('signin'), devForm: $('dev-form'), devUser: $('dev-user'),
    tokenForm: $('token-form'), bearer: $('bearer'), signinNotice: $('signin-notice'),
    session: $('session'), who: $('who'), signOut: $('sign-out'), newChat: $('new-chat'),
    chat: $('chat'), transcript: $('transcript'), empty: $('empty'),
    statusLines: $('status-lines'), announcer: $('announcer'),
    composer: $('composer'), message: $('message'), send: $('send'), stop: $('stop'),
  };

  // sessionStorage can throw (privacy modes, sandboxed frames); the page then works in memory.
  const memory = new Map();
  const store = {
    get(k) { try { return sessionStorage.getItem(k); } catch { return memory.get(k) ?? null; } },
    set(k, v) { try { sessionStorage.setItem(k, v); } catch { memory.set(k, v); } },
    del(k) { try { sessionStorage.removeItem(k); } catch { memory.delete(k); } },
  };

  const state = {
    token: store.get(TOKEN_KEY),
    episodeId: store.get(EPISODE_KEY),
    turn: null, // the running turn, see startTurn
  };

  // ---- HTTP ----

  // apiURL resolves an API path ("v1/turns") against the page's own address, so the page keeps
  // working when a program mounts switchboard under a prefix (/assistant/ and so on).
  function apiURL(path) {
    return new URL(path, document.baseURI).href;
  }

  // api calls the JSON API with the bearer token. It never throws: network failures come back
  // as status 0. message is the server's client-facing text, never its error code.
  async function api(method, path, body, extraHeaders = {}) {
    const headers = { Accept: 'application/json', ...extraHeaders };
    if (state.token) headers.Authorization = 'Bearer ' + state.token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res;
    try {
      res = await fetch(apiURL(path), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      return { ok: false, status: 0, data: null, message: 'Could not reach the server. Check your connection and try again.' };
    }
    let data = null;
    try { data = await res.json(); } catch { /* 204 or a non-JSON body */ }
    const message = (data && data.error && typeof data.error.message === 'string')
      ? data.error.message : 'Something went wrong. Please try again.';
    return { ok: res.ok, status: res.status, data, message };
  }

  function newKey() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  }

  // ---- sign-in ----

  function subjectOf(token) {
    try {
      const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
      const sub = JSON.parse(atob(part)).sub;
      return typeof sub === 'string' && sub ? sub : 'you';
    } catch {
      return 'you';
    }
  }

  function showSigninNotice(text) {
    ui.signinNotice.textContent = text;
    ui.signinNotice.hidden = !text;
  }

  function signedIn(token) {
    state.token = token;
    store.set(TOKEN_KEY, token);
    showSigninNotice('');
    ui.who.textContent = subjectOf(token);
    ui.signin.hidden = true;
    ui.session.hidden = false;
    ui.chat.hidden = false;
    ui.message.focus();
    restoreEpisode();
  }

  function signOut(notice = '') {
    abandonTurn();
    state.token = null;
    store.del(TOKEN_KEY);
    forgetEpisode();
    clearTranscript();
    ui.session.hidden = true;
    ui.chat.hidden = true;
    ui.signin.hidden = false;
    showSigninNotice(notice);
    ui.devUser.focus();
  }

  ui.devForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const sub = ui.devUser.value.trim();
    if (!sub) return;
    const btn = ui.devForm.querySelector('button');
    btn.disabled = true;
    const r = await api('POST', 'v1/dev/token', { sub });
    btn.disabled = false;
    if (r.ok && r.data && typeof r.data.token === 'string') {
      signedIn(r.data.token);
    } else if (r.status === 404) {
      showSigninNotice('Dev sign-in is not available on this server. Paste a bearer token instead.');
    } else {
      showSigninNotice(r.message);
    }
  });

  ui.tokenForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const tok = ui.bearer.value.trim().replace(/^Bearer\s+/i, '');
    ui.bearer.value = '';
    if (tok.split('.').length !== 3) {
      showSigninNotice('That does not look like a JWT (three dot-separated parts).');
      return;
    }
    signedIn(tok);
  });

  ui.signOut.addEventListener('click', () => signOut());
  ui.newChat.addEventListener('click', () => {
    if (state.turn) return;
    forgetEpisode();
    clearTranscript();
    ui.message.focus();
  });

  // ---- transcript ----

  function forgetEpisode() {
    state.episodeId = null;
    store.del(EPISODE_KEY);
    store.del(RUNNING_KEY);
  }

  function clearTranscript() {
    clearStatus();
    for (const el of ui.transcript.querySelectorAll('.msg')) el.remove();
    ui.empty.hidden = false;
  }

  // The transcript follows a streaming reply only while the reader is at its end: scrolling
  // up to read something earlier is not undone by the next delta.
  function nearBottom() {
    const el = ui.transcript;
    return el.scrollHeight - el.scrollTop - el.clientHeight < 120;
  }

  function keepScrolled(wasNearBottom) {
    if (wasNearBottom) ui.transcript.scrollTop = ui.transcript.scrollHeight;
  }

  function addUserMessage(text) {
    ui.empty.hidden = true;
    const art = document.createElement('article');
    art.className = 'msg user';
    art.dataset.testid = 'user-message';
    art.setAttribute('aria-label', 'You');
    const bubble = document.createElement('div');
    bubble.className = 'bubble';
    bubble.textContent = text;
    art.append(bubble);
    addToTranscript(art);
    keepScrolled(true);
  }

  // addAssistantMessage returns the view of one assistant reply: the bubble the reply streams
  // into and the article that takes notes, components and the steps list.
  function addAssistantMessage() {
    ui.empty.hidden = true;
    const art = document.createElement('article');
    art.className = 'msg assistant';
    art.dataset.testid = 'assistant-message';
    art.setAttribute('aria-label', 'Assistant');
    const bubble = document.createElement('div');
    bubble.className = 'bubble pending';
    bubble.dataset.testid = 'assistant-bubble';
    const dots = document.createElement('span');
    dots.className = 'typing';
    dots.setAttribute('aria-hidden', 'true');
    dots.append(document.createElement('i'), document.createElement('i'), document.createElement('i'));
    bubble.append(dots);
    art.append(bubble);
    addToTranscript(art);
    keepScrolled(true);
    return { art, bubble };
  }

  // addToTranscript adds a message above the status lines, which thus stay right under the
  // newest message (the answer being typed) instead of at the bottom of a tall window.
  function addToTranscript(el) {
    ui.transcript.insertBefore(el, ui.statusLines);
  }

  // setReply shows the reply so far. The whole text is rendered again on each delta because
  // markup may close only in a later one ("**bo" + "ld**").
  function setReply(view, text) {
    const follow = nearBottom();
    view.bubble.classList.remove('pending');
    view.bubble.replaceChildren(window.switchboardMarkdown.render(text));
    keepScrolled(follow);
  }

  function addNote(view, text, kind) {
    const follow = nearBottom();
    const p = document.createElement('p');
    p.className = 'note ' + kind;
    p.dataset.testid = kind === 'error' ? 'turn-error' : 'turn-note';
    p.textContent = text;
    view.art.append(p);
    keepScrolled(follow);
  }

  function addSteps(view, lines) {
    if (!lines.length) return;
    const details = document.createElement('details');
    details.className = 'steps';
    details.dataset.testid = 'status-history';
    const summary = document.createElement('summary');
    summary.textContent = lines.length === 1 ? '1 step' : lines.length + ' steps';
    const ol = document.createElement('ol');
    for (const line of lines) {
      const li = document.createElement('li');
      li.textContent = line;
      ol.append(li);
    }
    details.append(summary, ol);
    const follow = nearBottom();
    view.art.append(details);
    keepScrolled(follow);
  }

  // ---- components (structured data the sub-agents used; the text reply stands on its own) ----

  function money(amount, currency) {
    try {
      return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
    } catch {
      return String(amount) + (currency ? ' ' + currency : '');
    }
  }

  function card(type, title) {
    const box = document.createElement('section');
    box.className = 'card';
    box.dataset.testid = 'component-' + type;
    const h = document.createElement('h3');
    h.textContent = title;
    box.append(h);
    return box;
  }

  // day shows an ISO date (or timestamp) the way the reply does, in the reader's locale: "Dec 3",
  // with the year only when it is not this year. Anything else is shown as it came.
  function day(iso) {
    const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(iso ?? ''));
    if (!m) return String(iso ?? '');
    const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    const opts = { month: 'short', day: 'numeric' };
    if (d.getFullYear() !== new Date().getFullYear()) opts.year = 'numeric';
    return new Intl.DateTimeFormat(undefined, opts).format(d);
  }

  function row(parent, main, side) {
    const li = document.createElement('li');
    const a = document.createElement('span');
    a.textContent = main;
    li.append(a);
    if (side) {
      const b = document.createElement('span');
      b.className = 'side';
      b.textContent = side;
      li.append(b);
    }
    parent.append(li);
  }

  const renderers = {
    offer_list(data) {
      const all = Array.isArray(data.offers) ? data.offers : [];
      const offers = all.slice(0, 3);
      if (!offers.length) return null;
      const box = card('offer_list', data.matched_query === false ? 'Your current offers' : 'Offers');
      const ul = document.createElement('ul');
      for (const o of offers) {
        const parts = [o.merchant, o.discount_percent ? o.discount_percent + '% off' : '', o.ends ? 'until ' + day(o.ends) : ''];
        row(ul, String(o.title ?? ''), [money(o.price, o.currency), ...parts].filter(Boolean).join(' · '));
      }
      box.append(ul);
      if (all.length > offers.length) {
        const more = document.createElement('p');
        more.className = 'more';
        more.textContent = `${all.length} offers in all`;
        box.append(more);
      }
      return box;
    },
    points_balance(data) {
      if (typeof data.points !== 'number') return null;
      const box = card('points_balance', 'Points');
      const big = document.createElement('p');
      big.className = 'big';
      big.textContent = data.points.toLocaleString();
      box.append(big);
      const ul = document.createElement('ul');
      if (data.pending) row(ul, 'Pending', data.pending.toLocaleString());
      if (data.expiring_soon) row(ul, 'Expiring soon', data.expiring_soon.toLocaleString() + (data.expires_on ? ' on ' + day(data.expires_on) : ''));
      if (ul.childElementCount) box.append(ul);
      return box;
    },
  };

  function addComponents(view, components) {
    if (!Array.isArray(components)) return;
    const seen = new Set();
    const wrap = document.createElement('div');
    wrap.className = 'cards';
    for (const c of components) {
      if (!c || typeof c !== 'object' || !renderers[c.type] || seen.has(c.type) || !c.data) continue;
      const el = renderers[c.type](c.data);
      if (el) { seen.add(c.type); wrap.append(el); }
    }
    if (!wrap.childElementCount) return;
    const follow = nearBottom();
    view.art.append(wrap);
    keepScrolled(follow);
  }

  // ---- status lines: one visible at a time, the previous fades as the next arrives ----

  function fade(el) {
    if (el.classList.contains('leaving')) return;
    el.classList.add('leaving');
    setTimeout(() => el.remove(), FADE_MS);
  }

  function showStatus(text) {
    const follow = nearBottom();
    for (const el of ui.statusLines.children) fade(el);
    const p = document.createElement('p');
    p.className = 'status-line';
    p.dataset.testid = 'status-line';
    p.textContent = text;
    ui.statusLines.append(p);
    keepScrolled(follow);
  }

  function clearStatus() {
    for (const el of ui.statusLines.children) fade(el);
  }

  // ---- composer ----

  // setBusy switches the controls while a turn runs. aria-busy goes on the answer being
  // written (endTurn takes it off), not on the whole transcript: the status lines live in the
  // transcript and must still be announced.
  function setBusy(busy, view) {
    ui.send.disabled = busy;
    ui.newChat.disabled = busy;
    ui.stop.hidden = !busy;
    ui.stop.disabled = false;
    if (view) view.art.setAttribute('aria-busy', 'true');
  }

  // autosize fits the composer to its text. scrollHeight leaves out the border that the
  // border-box height includes, so the border is added back; without it the box is two pixels
  // short and shows a scrollbar. Past the CSS max-height the text scrolls, and only then.
  function autosize() {
    const t = ui.message;
    t.style.height = 'auto';
    const border = t.offsetHeight - t.clientHeight;
    t.style.height = t.scrollHeight + border + 'px';
    t.style.overflowY = t.scrollHeight > t.clientHeight ? 'auto' : 'hidden';
  }

  ui.message.addEventListener('input', autosize);
  window.addEventListener('resize', autosize); // the max-height is relative to the window
  ui.message.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      ui.composer.requestSubmit();
    }
  });

  ui.composer.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = ui.message.value.trim();
    if (!text || state.turn) return;
    ui.message.value = '';
    autosize();
    sendTurn(text);
  });

  ui.stop.addEventListener('click', async () => {
    const turn = state.turn;
    if (!turn || !turn.id) return;
    ui.stop.disabled = true;
    showStatus('Stopping…');
    // The stream reports the end (outcome "cancelled"); a 404 means the turn had already ended.
    const r = await api('DELETE', 'v1/turns/' + encodeURIComponent(turn.id));
    if (!r.ok && r.status !== 404 && state.turn === turn) {
      ui.stop.disabled = false;
      showStatus('Could not stop the answer.');
    }
  });

  // ---- turns ----

  async function sendTurn(text) {
    addUserMessage(text);
    const view = addAssistantMessage();
    const turn = { id: null, eventsURL: null, es: null, lastId: 0, done: false, reply: '', hadError: false, statuses: [], reopens: 0, timer: 0, view };
    state.turn = turn;
    setBusy(true, view);

    const body = { message: text };
    if (state.episodeId) body.episode_id = state.episodeId;
    if (navigator.language && navigator.language.length <= 35) body.locale = navigator.language;
    const r = await api('POST', 'v1/turns', body, { 'Idempotency-Key': newKey() });
    if (state.turn !== turn) return; // signed out meanwhile
    if (r.status === 401) {
      signOut('Your session has ended. Please sign in again.');
      return;
    }
    if (!r.ok || !r.data || !r.data.events_url) {
      setReply(view, '');
      addNote(view, r.message, 'error');
      endTurn(turn);
      return;
    }
    turn.id = r.data.turn_id;
    turn.eventsURL = r.data.events_url;
    rememberEpisode(r.data.episode_id);
    store.set(RUNNING_KEY, JSON.stringify({ id: turn.id, events_url: turn.eventsURL }));
    openStream(turn);
  }

  function rememberEpisode(id) {
    if (typeof id !== 'string' || !id) return;
    state.episodeId = id;
    store.set(EPISODE_KEY, id);
  }

  // openStream follows the turn's events. After our own reopen the server gets the last id we
  // hold as ?lastEventId= (the browser adds the Last-Event-ID header only on its own reconnects).
  function openStream(turn) {
    const url = new URL(turn.eventsURL, document.baseURI);
    if (turn.lastId > 0) url.searchParams.set('lastEventId', String(turn.lastId));
    const es = new EventSource(url.href);
    turn.es = es;
    for (const name of EVENT_NAMES) {
      es.addEventListener(name, (e) => onEvent(turn, es, name, e));
    }
    es.addEventListener('open', () => { if (turn.es === es) turn.reopens = 0; });
    es.addEventListener('error', () => {
      if (turn.done || turn.es !== es) return;
      // CONNECTING: the browser is already retrying with Last-Event-ID. CLOSED: it gave up
      // (the server answered with an error or a non-stream response), so we retry ourselves.
      if (es.readyState === EventSource.CLOSED) scheduleReopen(turn);
    });
  }

  function scheduleReopen(turn) {
    if (turn.es) turn.es.close();
    turn.es = null;
    if (turn.reopens >= MAX_REOPENS) {
      recoverFromStore(turn);
      return;
    }
    const delay = Math.min(8000, 500 * 2 ** turn.reopens);
    turn.reopens++;
    turn.timer = setTimeout(() => { if (!turn.done && state.turn === turn) openStream(turn); }, delay);
  }

  // recoverFromStore is the last resort when the stream cannot be reopened (for example the
  // turn token expired): read the stored turn with the bearer token.
  async function recoverFromStore(turn) {
    const r = await api('GET', 'v1/turns/' + encodeURIComponent(turn.id));
    if (turn.done || state.turn !== turn) return;
    if (r.ok && r.data && r.data.state === 'completed') {
      if (r.data.reply) setReply(turn.view, r.data.reply);
      finishTurn(turn, r.data.outcome || 'ok');
      return;
    }
    if (!turn.reply) setReply(turn.view, '');
    addNote(turn.view, 'The connection to this answer was lost. Please try again in a moment.', 'error');
    finishTurn(turn, 'failed', true);
  }

  function onEvent(turn, es, name, e) {
    if (turn.done || turn.es !== es || state.turn !== turn) return;
    const id = Number(e.lastEventId);
    if (Number.isSafeInteger(id) && id > 0) {
      if (id <= turn.lastId) return; // a replay of something we already applied
      turn.lastId = id;
    }
    let data;
    try { data = JSON.parse(e.data); } catch { return; }
    if (!data || typeof data !== 'object') return;

    switch (name) {
      case 'turn.started':
        rememberEpisode(data.episode_id);
        break;
      case 'status':
        if (typeof data.text === 'string' && data.text) {
          turn.statuses.push(data.text);
          showStatus(data.text);
        }
        break;
      case 'reply.delta':
        if (typeof data.text === 'string' && data.text) {
          clearStatus();
          turn.reply += data.text;
          setReply(turn.view, turn.reply);
        }
        break;
      case 'reply.completed':
        clearStatus();
        if (typeof data.text === 'string') {
          turn.reply = data.text;
          setReply(turn.view, turn.reply);
        }
        addComponents(turn.view, data.components);
        break;
      case 'error':
        if (typeof data.message === 'string' && data.message) {
          turn.hadError = true;
          addNote(turn.view, data.message, 'error');
          ui.announcer.textContent = data.message;
        }
        break;
      case 'turn.completed':
        finishTurn(turn, typeof data.outcome === 'string' ? data.outcome : 'ok');
        break;
    }
  }

  // finishTurn closes the stream (an open EventSource would reconnect after the server ends
  // it) and marks how the turn went.
  function finishTurn(turn, outcome, quiet = false) {
    if (turn.done) return;
    turn.view.art.dataset.outcome = outcome;
    if (!quiet) {
      if (!turn.reply && !turn.hadError) {
        setReply(turn.view, outcome === 'cancelled' ? '' : 'Sorry, I could not answer that this time.');
      }
      if (OUTCOME_NOTES[outcome]) addNote(turn.view, OUTCOME_NOTES[outcome], 'outcome');
    }
    if (turn.view.bubble.classList.contains('pending')) setReply(turn.view, turn.reply);
    if (!turn.view.bubble.textContent) turn.view.bubble.hidden = true;
    addSteps(turn.view, turn.statuses);
    // The rendered text, so that a screen reader does not read out list markers and asterisks.
    if (turn.reply) ui.announcer.textContent = turn.view.bubble.innerText;
    store.del(RUNNING_KEY);
    endTurn(turn);
  }

  function endTurn(turn) {
    turn.done = true;
    clearTimeout(turn.timer);
    if (turn.es) turn.es.close();
    turn.es = null;
    clearStatus();
    turn.view.art.removeAttribute('aria-busy');
    if (state.turn === turn) {
      state.turn = null;
      setBusy(false);
      ui.message.focus();
    }
  }

  // abandonTurn stops following the running turn without cancelling it on the server.
  function abandonTurn() {
    const turn = state.turn;
    if (!turn) return;
    state.turn = null;
    endTurn(turn);
    setBusy(false);
  }

  // ---- restore after a reload ----

  async function restoreEpisode() {
    if (!state.episodeId) return;
    const r = await api('GET', 'v1/episodes/' + encodeURIComponent(state.episodeId));
    if (r.status === 401) { signOut('Your session has ended. Please sign in again.'); return; }
    if (!r.ok || !r.data || !Array.isArray(r.data.turns)) {
      if (r.status === 404) forgetEpisode();
      return;
    }
    if (state.turn || ui.transcript.querySelector('.msg')) return; // the user already started typing
    let running = null;
    try { running = JSON.parse(store.get(RUNNING_KEY) || 'null'); } catch { /* ignore */ }
    if (!r.data.turns.some((t) => t.state === 'running' && running && running.id === t.turn_id)) {
      store.del(RUNNING_KEY);
    }
    const details = [];
    for (const t of r.data.turns) {
      if (t.state === 'running' && running && running.id === t.turn_id) {
        resumeTurn(t, running.events_url);
        continue;
      }
      addUserMessage(String(t.message ?? ''));
      const view = addAssistantMessage();
      setReply(view, String(t.reply ?? ''));
      if (!view.bubble.textContent) view.bubble.hidden = true;
      if (t.state === 'running') addNote(view, 'Still answering… reload to see the result.', 'outcome');
      else if (OUTCOME_NOTES[t.outcome]) addNote(view, OUTCOME_NOTES[t.outcome], 'outcome');
      if (t.outcome) view.art.dataset.outcome = t.outcome;
      if (t.state === 'completed') details.push({ id: t.turn_id, view });
    }
    // Cards and steps are in each turn's event log, which the server keeps: replay the recent
    // turns' logs (a finished turn's stream ends after turn.completed).
    for (const d of details.slice(-RESTORE_DETAILS)) await restoreDetails(d.id, d.view);
  }

  // RESTORE_DETAILS bounds how many earlier turns get their cards and steps back on a reload.
  const RESTORE_DETAILS = 20;

  async function restoreDetails(turnId, view) {
    let text;
    try {
      const res = await fetch(apiURL('v1/turns/' + encodeURIComponent(turnId) + '/events'), {
        headers: { Accept: 'text/event-stream', Authorization: 'Bearer ' + state.token },
      });
      if (!res.ok) return;
      text = await res.text();
    } catch {
      return; // the reply is shown already; the details are a bonus
    }
    const statuses = [];
    let components = null;
    for (const frame of text.split(/\r?\n\r?\n/)) {
      let name = 'message';
      const data = [];
      for (const line of frame.split(/\r?\n/)) {
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      let v;
      try { v = JSON.parse(data.join('\n')); } catch { continue; }
      if (!v || typeof v !== 'object') continue;
      if (name === 'status' && typeof v.text === 'string' && v.text) statuses.push(v.text);
      if (name === 'reply.completed') components = v.components;
    }
    addComponents(view, components);
    addSteps(view, statuses);
  }

  // resumeTurn follows a turn that was running when the page was reloaded, from its first event.
  function resumeTurn(t, eventsURL) {
    addUserMessage(String(t.message ?? ''));
    const view = addAssistantMessage();
    const turn = { id: t.turn_id, eventsURL, es: null, lastId: 0, done: false, reply: '', hadError: false, statuses: [], reopens: 0, timer: 0, view };
    state.turn = turn;
    setBusy(true, view);
    openStream(turn);
  }

  // ---- start ----

  if (state.token) signedIn(state.token);
  else ui.devUser.focus();
})();
