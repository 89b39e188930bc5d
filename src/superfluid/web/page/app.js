// superfluid chat page. Talks to the web listener's session API (docs/web.md):
// JSON-RPC over POST /web/rpc with replies as SSE over POST /web/stream, or
// everything over one WebSocket at /web/ws when the address has ?transport=ws.
'use strict';
(() => {
  const THEME_KEY = 'superfluid.theme';
  const root = document.documentElement;
  const darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

  function storedTheme() {
    try { return localStorage.getItem(THEME_KEY); } catch { return null; }
  }
  function currentTheme() {
    const t = storedTheme();
    if (t === 'dark' || t === 'light') return t;
    return darkQuery && darkQuery.matches ? 'dark' : 'light';
  }
  function applyTheme(theme) {
    root.classList.toggle('dark', theme === 'dark');
    root.classList.toggle('light', theme !== 'dark');
    const button = document.getElementById('theme-toggle');
    if (button) {
      button.setAttribute('aria-label', theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme');
      button.title = button.getAttribute('aria-label');
      button.textContent = theme === 'dark' ? '\u2600' : '\u263E';
    }
  }
  // Before the body is parsed, so the page never flashes the wrong theme.
  applyTheme(currentTheme());

  // ---- transports --------------------------------------------------------------
  class RpcError extends Error {
    constructor(message, code, data) { super(message); this.code = code; this.data = data; }
  }
  class AuthError extends Error {
    constructor(message = 'Not signed in') { super(message); }
  }

  function rpcResult(body) {
    if (!body || typeof body !== 'object') throw new RpcError('Bad response from the server', -32603);
    if (body.error) throw new RpcError(body.error.message || 'Request failed', body.error.code, body.error.data);
    return body.result;
  }

  function postJson(path, body, signal) {
    return fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  }

  // Feeds text chunks; calls onEvent(type, data) for each complete SSE event.
  function sseParser(onEvent) {
    let buffer = '';
    return (chunk) => {
      buffer = (buffer + chunk).replace(/\r\n/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let type = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (!line || line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          let value = colon < 0 ? '' : line.slice(colon + 1);
          if (value.startsWith(' ')) value = value.slice(1);
          if (field === 'event') type = value;
          else if (field === 'data') data.push(value);
        }
        if (!data.length) continue;
        let parsed;
        try { parsed = JSON.parse(data.join('\n')); } catch { continue; }
        onEvent(type, parsed);
      }
    };
  }

  // Both clients: call(method, params) -> Promise<result>;
  // follow(messageId, onEvent, onEnd) -> {close()}; onEnd(sawDone) when the stream stops by itself.
  function httpClient() {
    let seq = 0;
    return {
      kind: 'sse',
      async call(method, params = {}) {
        const res = await postJson('/web/rpc', { jsonrpc: '2.0', id: ++seq, method, params });
        if (res.status === 401) throw new AuthError();
        let body;
        try { body = await res.json(); } catch { throw new RpcError(`HTTP ${res.status}`, -32603); }
        return rpcResult(body);
      },
      follow(messageId, onEvent, onEnd) {
        const abort = new AbortController();
        let closed = false;
        let sawDone = false;
        (async () => {
          try {
            const res = await postJson('/web/stream', { message_id: messageId }, abort.signal);
            if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
            const reader = res.body.getReader();
            const decoder = new TextDecoder();
            const feed = sseParser((type, data) => {
              if (closed) return;
              if (type === 'done') sawDone = true;
              onEvent(type, data);
            });
            for (;;) {
              const { value, done } = await reader.read();
              if (done || closed) break;
              feed(decoder.decode(value, { stream: true }));
            }
          } catch {
            // ended below
          }
          if (!closed) onEnd(sawDone);
        })();
        return { close() { closed = true; abort.abort(); } };
      },
    };
  }

  function wsClient() {
    let socket = null;
    let opening = null;
    let seq = 0;
    const pending = new Map(); // request id -> {resolve, reject}
    const streams = new Map(); // message id -> {events, handlers, done}

    const streamOf = (id) => {
      let s = streams.get(id);
      if (!s) { s = { events: [], handlers: new Set(), done: false }; streams.set(id, s); }
      return s;
    };

    function deliver(params) {
      const { type, ...data } = params;
      const id = data.message_id;
      if (!id) return;
      const s = streamOf(id);
      s.events.push([type, data]);
      if (type === 'done') {
        s.done = true;
        setTimeout(() => { if (streams.get(id) === s) streams.delete(id); }, 60000);
      }
      for (const h of s.handlers) h.event(type, data);
      if (type === 'done') for (const h of s.handlers) h.end(true);
    }

    function onMessage(text) {
      let msg;
      try { msg = JSON.parse(text); } catch { return; }
      for (const m of Array.isArray(msg) ? msg : [msg]) {
        if (!m || typeof m !== 'object') continue;
        if (m.method === 'message.event' && m.params) { deliver(m.params); continue; }
        const p = pending.get(m.id);
        if (!p) continue;
        pending.delete(m.id);
        try { p.resolve(rpcResult(m)); } catch (err) { p.reject(err); }
      }
    }

    function connect() {
      if (socket && socket.readyState === WebSocket.OPEN) return Promise.resolve(socket);
      if (opening) return opening;
      opening = new Promise((resolve, reject) => {
        const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
        const sock = new WebSocket(`${scheme}://${location.host}/web/ws`);
        let opened = false;
        sock.onopen = () => { opened = true; socket = sock; opening = null; resolve(sock); };
        sock.onmessage = (ev) => onMessage(ev.data);
        sock.onclose = (ev) => {
          if (socket === sock) socket = null;
          const auth = ev.code === 4401 || ev.code === 4001 || ev.code === 1008;
          const err = auth ? new AuthError() : new Error('The connection to the server was lost');
          for (const p of pending.values()) p.reject(err);
          pending.clear();
          for (const [id, s] of streams) {
            if (s.done) continue;
            streams.delete(id);
            for (const h of s.handlers) h.end(false);
          }
          if (opened) return;
          opening = null;
          if (auth) { reject(err); return; }
          // The handshake failed: a missing cookie looks the same as a dead server, so ask.
          fetch('/web/health', { credentials: 'same-origin' })
            .then((r) => (r.ok ? new AuthError() : new Error('The server cannot be reached')),
              () => new Error('The server cannot be reached'))
            .then(reject);
        };
      });
      return opening;
    }

    async function call(method, params = {}) {
      const sock = await connect();
      const id = ++seq;
      const result = await new Promise((resolve, reject) => {
        if (sock.readyState !== WebSocket.OPEN) { reject(new Error('The connection to the server was lost')); return; }
        pending.set(id, { resolve, reject });
        sock.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
      // message.send over the socket subscribes to its reply: events may already be here.
      if (method === 'message.send' && result && result.message) streamOf(result.message.id);
      return result;
    }

    function follow(messageId, onEvent, onEnd) {
      const known = streams.has(messageId);
      const s = streamOf(messageId);
      for (const [type, data] of s.events) onEvent(type, data);
      if (s.done) { onEnd(true); return { close() {} }; }
      const h = { event: onEvent, end: onEnd };
      s.handlers.add(h);
      if (!known) {
        call('message.subscribe', { message_id: messageId }).catch(() => {
          if (s.handlers.delete(h)) onEnd(false);
        });
      }
      return { close() { s.handlers.delete(h); } };
    }

    return { kind: 'ws', call, follow };
  }

  const params = new URLSearchParams(location.search);
  const client = params.get('transport') === 'ws' ? wsClient() : httpClient();

  // ---- state and DOM helpers ----------------------------------------------------
  const state = {
    sessions: [],
    sessionId: null,
    views: new Map(), // message id -> view
    active: null, // {view, handle, sessionId}
    streaming: false,
    sending: false,
    stick: true,
    loadToken: null,
  };
  let els = {};

  function h(tag, className, text) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (text !== undefined) el.textContent = text;
    return el;
  }
  function button(className, label, text) {
    const b = h('button', className, text);
    b.type = 'button';
    b.setAttribute('aria-label', label);
    b.title = label;
    return b;
  }

  let noticeTimer = 0;
  function notice(text) {
    els.noticeText.textContent = text;
    els.notice.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { els.notice.hidden = true; }, 8000);
  }
  function handleError(err) {
    if (err instanceof AuthError) { showLogin(); return; }
    if (err instanceof RpcError && err.code === -32002) notice('A reply is already being written in this chat.');
    else notice(err && err.message ? err.message : String(err));
  }

  // ---- login ---------------------------------------------------------------------
  async function login(token) {
    const res = await postJson('/web/login', { token });
    return res.ok;
  }
  function showLogin(message) {
    stopFollowing();
    els.app.hidden = true;
    els.login.hidden = false;
    els.loginError.textContent = message || '';
    els.loginError.hidden = !message;
    els.tokenInput.focus();
  }
  function showApp() {
    els.login.hidden = true;
    els.app.hidden = false;
    els.composer.focus();
  }
  async function enter() {
    try {
      await loadSessions();
    } catch (err) {
      if (err instanceof AuthError) { showLogin(state.loginFailed ? 'That token was not accepted.' : ''); return; }
      showApp();
      handleError(err);
      return;
    }
    showApp();
    loadModels();
  }
  async function submitLogin(ev) {
    ev.preventDefault();
    const token = els.tokenInput.value.trim();
    if (!token) { showLogin('Enter the access token.'); return; }
    els.loginButton.disabled = true;
    try {
      if (await login(token)) {
        els.tokenInput.value = '';
        els.loginError.hidden = true;
        state.loginFailed = false;
        await enter();
      } else {
        showLogin('That token was not accepted.');
      }
    } catch {
      showLogin('The server cannot be reached.');
    } finally {
      els.loginButton.disabled = false;
    }
  }

  // ---- sessions ------------------------------------------------------------------
  async function loadSessions() {
    const r = await client.call('session.list', { limit: 200 });
    state.sessions = (r && r.sessions) || [];
    state.sessions.sort((a, b) => (b.updated_at || 0) - (a.updated_at || 0));
    renderSessions();
    const current = state.sessions.find((s) => s.id === state.sessionId);
    if (current) setTitle(current.title);
  }
  function refreshSessions() {
    return loadSessions().catch(handleError);
  }

  function renderSessions() {
    if (els.sessionList.querySelector('.session-rename-input')) { state.renderLater = true; return; }
    state.renderLater = false;
    els.sessionList.replaceChildren(...state.sessions.map((s) => {
      const li = h('li', 'session');
      li.dataset.sessionId = s.id;
      const title = h('button', 'session-title', s.title || 'Untitled');
      title.type = 'button';
      title.title = s.title || 'Untitled';
      li.append(title, button('session-rename', 'Rename chat', '\u270E'), button('session-delete', 'Delete chat', '\u00D7'));
      if (s.id === state.sessionId) {
        li.classList.add('selected');
        li.setAttribute('aria-current', 'true');
      }
      return li;
    }));
  }

  function setTitle(title) {
    els.title.textContent = title || 'New chat';
    document.title = title ? `${title} \u2013 superfluid` : 'superfluid';
  }

  function startRename(li) {
    const id = li.dataset.sessionId;
    const session = state.sessions.find((s) => s.id === id);
    const titleButton = li.querySelector('.session-title');
    if (!session || !titleButton || li.querySelector('.session-rename-input')) return;
    const input = h('input', 'session-rename-input');
    input.type = 'text';
    input.value = session.title || '';
    input.setAttribute('aria-label', 'Chat title');
    titleButton.hidden = true;
    li.insertBefore(input, titleButton);
    input.focus();
    input.select();
    let finished = false;
    const finish = async (save) => {
      if (finished) return;
      finished = true;
      const title = input.value.trim();
      input.remove();
      titleButton.hidden = false;
      if (save && title && title !== session.title) {
        titleButton.textContent = title;
        try {
          Object.assign(session, await client.call('session.rename', { session_id: id, title }));
        } catch (err) { handleError(err); }
        if (id === state.sessionId) setTitle(session.title);
      }
      renderSessions();
    };
    input.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') { ev.preventDefault(); finish(true); }
      else if (ev.key === 'Escape') { ev.preventDefault(); ev.stopPropagation(); finish(false); }
    });
    input.addEventListener('blur', () => finish(true));
  }

  async function deleteSession(id) {
    try {
      await client.call('session.delete', { session_id: id });
    } catch (err) { handleError(err); return; }
    state.sessions = state.sessions.filter((s) => s.id !== id);
    if (state.sessionId === id) newChat();
    renderSessions();
  }

  function newChat() {
    stopFollowing();
    state.sessionId = null;
    state.loadToken = null;
    clearMessages();
    setTitle('');
    renderSessions();
    els.composer.focus();
  }

  async function selectSession(id) {
    stopFollowing();
    state.sessionId = id;
    const token = {};
    state.loadToken = token;
    renderSessions();
    clearMessages();
    const known = state.sessions.find((s) => s.id === id);
    setTitle(known && known.title);
    let session;
    try {
      session = await client.call('session.get', { session_id: id });
    } catch (err) { handleError(err); return; }
    if (state.loadToken !== token) return;
    setTitle(session.title);
    syncModel(session.model);
    const messages = session.messages || [];
    for (const m of messages) addMessage(m);
    state.stick = true;
    scrollToBottom();
    const last = messages[messages.length - 1];
    if (last && last.state === 'streaming') followReply(state.views.get(last.id), id);
  }

  // ---- models --------------------------------------------------------------------
  async function loadModels() {
    let r;
    try { r = await client.call('models.list'); } catch (err) { handleError(err); return; }
    const previous = els.modelPicker.value;
    const ids = ((r && r.models) || []).map((m) => m.id);
    els.modelPicker.replaceChildren(...ids.map((id) => {
      const o = h('option', '', id);
      o.value = id;
      return o;
    }));
    const pick = [previous, r && r.default, ids[0]].find((id) => id && ids.includes(id));
    if (pick) els.modelPicker.value = pick;
  }
  function syncModel(model) {
    if (model && [...els.modelPicker.options].some((o) => o.value === model)) els.modelPicker.value = model;
  }
  function withModel(p) {
    if (els.modelPicker.value) p.model = els.modelPicker.value;
    return p;
  }

  // ---- messages ------------------------------------------------------------------
  const PARTS = ['reasoning', 'content', 'tools', 'label', 'error', 'stats', 'actions', 'edit'];

  function part(view, key, make) {
    let node = view.parts[key];
    if (!node && make) {
      node = make();
      view.parts[key] = node;
      const next = PARTS.slice(PARTS.indexOf(key) + 1).map((k) => view.parts[k]).find(Boolean);
      view.el.insertBefore(node, next || null);
    }
    return node;
  }
  function drop(view, key) {
    const node = view.parts[key];
    if (node) { node.remove(); delete view.parts[key]; }
  }

  function clearMessages() {
    state.views.clear();
    els.messages.replaceChildren();
  }

  function addMessage(msg) {
    const m = { content: '', reasoning: '', tool_calls: [], ...msg };
    if (!Array.isArray(m.tool_calls)) m.tool_calls = [];
    const el = h('div', 'message');
    el.dataset.messageId = m.id;
    el.dataset.role = m.role;
    const view = { msg: m, el, parts: {}, shown: null };
    part(view, 'content', () => h('div', 'message-content'));
    part(view, 'actions', () => {
      const bar = h('div', 'message-actions');
      bar.append(button('action copy', 'Copy message', 'Copy'));
      if (m.role === 'user') bar.append(button('action edit', 'Edit message', 'Edit'));
      else bar.append(button('action regenerate', 'Regenerate reply', 'Regenerate'));
      bar.append(button('action fork', 'Fork chat from here', 'Fork'));
      return bar;
    });
    state.views.set(m.id, view);
    els.messages.append(el);
    update(view);
    return view;
  }

  function statsText(m) {
    const u = m.usage || {};
    const out = [];
    if (u.completion_tokens != null) out.push(`${u.completion_tokens} tokens`);
    if (m.tokens_per_second != null && Number.isFinite(Number(m.tokens_per_second))) {
      out.push(`${Number(m.tokens_per_second).toFixed(1)} tok/s`);
    }
    if (u.cached_tokens != null) out.push(`${u.cached_tokens} warm`);
    return out.join(' \u00B7 ');
  }

  function prettyArguments(text, done) {
    if (!done) return text;
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
  }

  function update(view) {
    const m = view.msg;
    const streaming = m.state === 'streaming';
    view.el.dataset.state = m.state || 'done';

    if (m.reasoning) {
      const details = part(view, 'reasoning', () => {
        const d = h('details', 'reasoning');
        d.append(h('summary', '', 'Reasoning'), h('div', 'reasoning-content'));
        return d;
      });
      details.querySelector('.reasoning-content').textContent = m.reasoning;
      const open = streaming && !m.content && !m.tool_calls.length;
      if (open !== view.reasoningOpen) { details.open = open; view.reasoningOpen = open; }
    } else drop(view, 'reasoning');

    const content = view.parts.content;
    if (view.shown !== m.content) {
      view.shown = m.content;
      if (m.role === 'assistant') {
        content.innerHTML = window.superfluidMarkdown.render(m.content || '');
      } else {
        const lines = String(m.content || '').split('\n');
        content.replaceChildren(...lines.flatMap((line, i) => (i ? [h('br'), line] : [line])));
      }
    }

    const calls = m.tool_calls.filter(Boolean);
    if (calls.length) {
      const box = part(view, 'tools', () => h('div', 'tool-calls'));
      while (box.children.length > calls.length) box.lastElementChild.remove();
      calls.forEach((call, i) => {
        let block = box.children[i];
        if (!block) {
          block = h('div', 'tool-call');
          block.append(h('div', 'tool-call-name'), h('pre', 'tool-call-arguments'));
          box.append(block);
        }
        block.querySelector('.tool-call-name').textContent = call.name || 'tool';
        block.querySelector('.tool-call-arguments').textContent = prettyArguments(call.arguments || '', !streaming);
      });
    } else drop(view, 'tools');

    const label = m.state === 'cancelled' ? 'stopped' : m.state === 'cut' ? 'cut off: the server stopped' : '';
    if (label) part(view, 'label', () => h('div', 'message-label')).textContent = label;
    else drop(view, 'label');

    if (m.error) {
      const e = m.error;
      const text = typeof e === 'string' ? e : (e.message || e.code || 'The reply failed');
      part(view, 'error', () => {
        const d = h('div', 'message-error');
        d.setAttribute('role', 'alert');
        return d;
      }).textContent = `Error: ${text}`;
    } else drop(view, 'error');

    const stats = m.role === 'assistant' ? statsText(m) : '';
    if (stats) part(view, 'stats', () => h('div', 'message-stats')).textContent = stats;
    else drop(view, 'stats');
  }

  // Streaming updates are batched; `done` renders at once.
  const dirty = new Set();
  let flushTimer = 0;
  function schedule(view, now) {
    dirty.add(view);
    if (now) { flush(); return; }
    if (!flushTimer) flushTimer = setTimeout(flush, 30);
  }
  function flush() {
    clearTimeout(flushTimer);
    flushTimer = 0;
    for (const view of dirty) update(view);
    dirty.clear();
    if (state.stick) scrollToBottom();
  }
  function nearBottom() {
    const m = els.messages;
    return m.scrollHeight - m.scrollTop - m.clientHeight < 48;
  }
  function scrollToBottom() {
    els.messages.scrollTop = els.messages.scrollHeight;
  }

  function applyEvent(view, type, d) {
    const m = view.msg;
    switch (type) {
      case 'start':
        // A stream replays a reply from its first event: start again from nothing.
        Object.assign(m, { content: '', reasoning: '', tool_calls: [], error: null, usage: null, tokens_per_second: null, state: 'streaming' });
        if (d.model) m.model = d.model;
        break;
      case 'reasoning': m.reasoning = (m.reasoning || '') + (d.text || ''); break;
      case 'text': m.content = (m.content || '') + (d.text || ''); break;
      case 'tool_call': {
        const i = Number.isInteger(d.index) ? d.index : m.tool_calls.length;
        const call = m.tool_calls[i] || (m.tool_calls[i] = { id: '', name: '', arguments: '' });
        if (d.id) call.id = d.id;
        if (d.name) call.name = d.name;
        if (d.arguments) call.arguments += d.arguments;
        break;
      }
      case 'usage':
        m.usage = { prompt_tokens: d.prompt_tokens, completion_tokens: d.completion_tokens, cached_tokens: d.cached_tokens };
        if (d.tokens_per_second != null) m.tokens_per_second = d.tokens_per_second;
        break;
      case 'error': m.error = { code: d.code, message: d.message }; break;
      case 'done':
        m.state = d.state || 'done';
        if (d.finish_reason) m.finish_reason = d.finish_reason;
        break;
      default: return;
    }
    schedule(view, type === 'done');
  }

  // ---- following replies -----------------------------------------------------------
  function setStreaming(on) {
    state.streaming = on;
    document.body.dataset.streaming = on ? 'true' : 'false';
    els.stop.hidden = !on;
    els.send.disabled = on;
    els.messages.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  function stopFollowing() {
    if (state.active) { state.active.handle.close(); state.active = null; }
    if (els.stop) setStreaming(false);
  }

  function followReply(view, sessionId) {
    if (!view) return;
    stopFollowing();
    setStreaming(true);
    const active = { view, sessionId, handle: null };
    state.active = active;
    active.handle = client.follow(view.msg.id, (type, data) => {
      if (state.active !== active) return;
      applyEvent(view, type, data);
      if (type === 'done') {
        active.handle && active.handle.close();
        state.active = null;
        setStreaming(false);
        refreshSessions();
      }
    }, (sawDone) => {
      if (state.active === active && !sawDone) reconcile(active);
    });
  }

  // The stream stopped without `done`: ask the server how the reply stands.
  async function reconcile(active) {
    const { view, sessionId } = active;
    state.active = null;
    let found = null;
    try {
      const s = await client.call('session.get', { session_id: sessionId });
      found = (s.messages || []).find((x) => x.id === view.msg.id) || null;
    } catch (err) { handleError(err); }
    if (state.sessionId !== sessionId || state.active) return;
    if (found) { Object.assign(view.msg, found); schedule(view, true); }
    view.retries = (view.retries || 0) + 1;
    if (found && found.state === 'streaming' && view.retries <= 5) {
      setTimeout(() => {
        if (state.sessionId === sessionId && !state.active && view.el.isConnected) followReply(view, sessionId);
      }, 1000);
      return;
    }
    setStreaming(false);
    refreshSessions();
  }

  async function stopReply() {
    const active = state.active;
    if (!active) return;
    try {
      await client.call('message.cancel', { message_id: active.view.msg.id });
    } catch (err) { handleError(err); }
  }

  // ---- sending -------------------------------------------------------------------
  function showReply(result, sessionId) {
    if (result.user_message) addMessage(result.user_message);
    const view = addMessage(result.message);
    state.stick = true;
    scrollToBottom();
    followReply(view, sessionId);
  }

  function removeFrom(messageId) {
    const view = state.views.get(messageId);
    let el = view ? view.el : null;
    while (el) {
      const next = el.nextElementSibling;
      state.views.delete(el.dataset.messageId);
      el.remove();
      el = next;
    }
  }

  async function sendComposer() {
    const text = els.composer.value;
    if (!text.trim() || state.streaming || state.sending) return;
    state.sending = true;
    els.composer.value = '';
    autosize();
    try {
      let sid = state.sessionId;
      if (!sid) {
        const title = text.trim().replace(/\s+/g, ' ').slice(0, 60);
        const session = await client.call('session.create', withModel({ title }));
        state.sessions.unshift(session);
        state.sessionId = sid = session.id;
        state.loadToken = null;
        renderSessions();
        setTitle(session.title);
      }
      const result = await client.call('message.send', withModel({ session_id: sid, content: text }));
      if (state.sessionId === sid) showReply(result, sid);
    } catch (err) {
      if (!els.composer.value) { els.composer.value = text; autosize(); }
      handleError(err);
    } finally {
      state.sending = false;
    }
  }

  async function resend(view, content) {
    const sid = state.sessionId;
    if (!sid) return;
    const p = withModel({ session_id: sid, truncate_from: view.msg.id });
    if (content !== undefined) p.content = content;
    let result;
    try { result = await client.call('message.send', p); } catch (err) { handleError(err); return false; }
    if (state.sessionId !== sid) return true;
    stopFollowing();
    removeFrom(view.msg.id);
    showReply(result, sid);
    return true;
  }

  function startEdit(view) {
    if (view.parts.edit) { view.parts.edit.querySelector('textarea').focus(); return; }
    const form = part(view, 'edit', () => h('form', 'edit-form'));
    const area = h('textarea', 'edit-input');
    area.value = view.msg.content || '';
    area.setAttribute('aria-label', 'Edit message');
    area.rows = Math.min(12, Math.max(2, area.value.split('\n').length));
    const save = h('button', 'edit-save', 'Save');
    save.type = 'submit';
    const cancel = h('button', 'edit-cancel', 'Cancel');
    cancel.type = 'button';
    const row = h('div', 'edit-buttons');
    row.append(cancel, save);
    form.append(area, row);
    view.el.classList.add('editing');
    const close = () => { drop(view, 'edit'); view.el.classList.remove('editing'); };
    const commit = async () => {
      if (!area.value.trim()) return;
      save.disabled = true;
      if (await resend(view, area.value)) return;
      save.disabled = false;
    };
    form.addEventListener('submit', (ev) => { ev.preventDefault(); commit(); });
    cancel.addEventListener('click', close);
    area.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') { ev.preventDefault(); ev.stopPropagation(); close(); }
      else if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); commit(); }
    });
    area.focus();
  }

  async function fork(view) {
    const sid = state.sessionId;
    if (!sid) return;
    let session;
    try {
      session = await client.call('session.fork', { session_id: sid, message_id: view.msg.id });
    } catch (err) { handleError(err); return; }
    state.sessions = [session, ...state.sessions.filter((s) => s.id !== session.id)];
    await selectSession(session.id);
    refreshSessions();
  }

  async function copyText(text, btn) {
    let ok = false;
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch {
      try {
        const area = h('textarea', 'clipboard-helper');
        area.value = text;
        document.body.append(area);
        area.select();
        ok = document.execCommand('copy');
        area.remove();
      } catch { /* silently nothing */ }
    }
    if (ok && btn) {
      const old = btn.textContent;
      btn.textContent = 'Copied';
      setTimeout(() => { btn.textContent = old; }, 1200);
    }
  }

  function autosize() {
    const c = els.composer;
    c.style.height = 'auto';
    c.style.height = `${Math.min(c.scrollHeight, 240)}px`;
  }

  // ---- wiring --------------------------------------------------------------------
  function bind() {
    els.loginForm.addEventListener('submit', submitLogin);
    els.newSession.addEventListener('click', newChat);
    els.themeToggle.addEventListener('click', () => {
      const next = root.classList.contains('dark') ? 'light' : 'dark';
      try { localStorage.setItem(THEME_KEY, next); } catch { /* private mode */ }
      applyTheme(next);
    });
    if (darkQuery && darkQuery.addEventListener) {
      darkQuery.addEventListener('change', () => { if (!storedTheme()) applyTheme(currentTheme()); });
    }
    els.noticeClose.addEventListener('click', () => { els.notice.hidden = true; });

    els.sessionList.addEventListener('click', (ev) => {
      const li = ev.target.closest('li.session');
      if (!li) return;
      if (ev.target.closest('.session-rename')) startRename(li);
      else if (ev.target.closest('.session-delete')) deleteSession(li.dataset.sessionId);
      else if (ev.target.closest('.session-title')) selectSession(li.dataset.sessionId);
    });

    els.messages.addEventListener('scroll', () => { state.stick = nearBottom(); });
    els.messages.addEventListener('click', (ev) => {
      const btn = ev.target.closest('button');
      if (!btn) return;
      if (btn.classList.contains('code-copy')) {
        const code = btn.closest('.code-block').querySelector('code');
        copyText(code ? code.textContent : '', btn);
        return;
      }
      const el = btn.closest('.message');
      const view = el && state.views.get(el.dataset.messageId);
      if (!view) return;
      if (btn.classList.contains('copy')) copyText(view.msg.content || '', btn);
      else if (btn.classList.contains('edit')) startEdit(view);
      else if (btn.classList.contains('regenerate')) resend(view);
      else if (btn.classList.contains('fork')) fork(view);
    });

    els.composerForm.addEventListener('submit', (ev) => { ev.preventDefault(); sendComposer(); });
    els.composer.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); sendComposer(); }
    });
    els.composer.addEventListener('input', autosize);
    els.stop.addEventListener('click', stopReply);

    document.addEventListener('keydown', (ev) => {
      if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && ev.key.toLowerCase() === 'k') {
        if (els.app.hidden) return;
        ev.preventDefault();
        els.composer.focus();
      } else if (ev.key === 'Escape' && state.streaming && !ev.defaultPrevented) {
        ev.preventDefault();
        stopReply();
      }
    });
  }

  async function boot() {
    const $ = (id) => document.getElementById(id);
    els = {
      login: $('login'), loginForm: $('login-form'), tokenInput: $('token-input'),
      loginButton: $('login-button'), loginError: $('login-error'),
      app: $('app'), newSession: $('new-session'), sessionList: $('session-list'),
      modelPicker: $('model-picker'), themeToggle: $('theme-toggle'), title: $('session-title'),
      messages: $('messages'), composerForm: $('composer-form'), composer: $('composer'),
      send: $('send'), stop: $('stop'), notice: $('notice'), noticeText: $('notice-text'),
      noticeClose: $('notice-close'),
    };
    document.body.dataset.transport = client.kind;
    setStreaming(false);
    applyTheme(currentTheme());
    bind();

    window.addEventListener('hashchange', () => { if (tokenFromHash() !== null) loginFromHash().then(enter); });
    await loginFromHash();
    await enter();
  }

  function tokenFromHash() {
    const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
    if (!match) return null;
    try { return decodeURIComponent(match[1]); } catch { return match[1]; }
  }
  // #token=... from the address serve printed: trade it for the cookie, then drop it from the address.
  async function loginFromHash() {
    const token = tokenFromHash();
    if (token === null) return;
    try { state.loginFailed = !(await login(token)); } catch { state.loginFailed = true; }
    history.replaceState(null, '', location.pathname + location.search);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();
