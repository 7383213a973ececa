// mulino gui: the engine behind the page, through one JSON API
// (src/web/api.rs): `mulino gui`'s own (`POST api/<call>`), or the engine
// in WebAssembly in a worker (the static folder), which answers the same
// calls with the same Rust code (mulino-engine.mjs, `startApi`); the
// page's <meta name="mulino-engine"> says which. Actions are queued one
// after the other; errors and notices are shown here too. Loaded before
// app.js, whose state (`ui`) it uses.
'use strict';

// -------------------------------------------------------------------- API

class ApiError extends Error {
  constructor(message, code) { super(message); this.code = code; }
}

// The engine in WebAssembly (the static folder), once started.
let wasmEngine = null;

async function post(call, body) {
  if (ENGINE !== 'server') return postToWorker(call, body);
  let response;
  try {
    response = await fetch('api/' + call, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (_) {
    throw new ApiError('The server does not answer. Is `mulino gui` still running?', 'offline');
  }
  let data;
  try { data = await response.json(); } catch (_) {
    throw new ApiError('The server answered ' + response.status + ' without JSON.', 'bad_answer');
  }
  if (!response.ok) throw new ApiError(data.error || ('error ' + response.status), data.code);
  return data;
}

// A call answered by the engine in WebAssembly: the same answers as the
// server's, with the same statuses.
async function postToWorker(call, body) {
  let answer;
  try {
    answer = await wasmEngine.call(call, body);
  } catch (e) {
    throw new ApiError(e.message + '. Reload the page to start the engine again.', 'offline');
  }
  const data = answer.body;
  if (answer.status !== 200) throw new ApiError(data.error || ('error ' + answer.status), data.code);
  return data;
}

// Starts the engine in WebAssembly. It shares memory with the page (a
// search hears `stop` while it runs), which browsers allow only to a
// cross-origin isolated page; a static host does not send the headers
// that isolate it, so the page's service worker (sw.js) adds them, and
// keeps the folder for use offline. The first visit registers it and
// loads the page again under it, once.
async function startWasmEngine() {
  if (!window.crossOriginIsolated) {
    const sw = window.isSecureContext && navigator.serviceWorker;
    if (sw && !sessionStorage.getItem(ISOLATING_KEY)) {
      sessionStorage.setItem(ISOLATING_KEY, '1');
      $('status').textContent = 'Setting up the page for the engine…';
      try {
        await sw.register('sw.js');
        await sw.ready;
        // Loaded again as a navigation, not a reload: in Chromium 148 a
        // reload of the entry that `location.reload()` left here gave a
        // page that was not isolated, and ignored its own reload.
        location.replace(location.href);
        return new Promise(() => {}); // the page goes
      } catch (_) { /* said below */ }
    }
    sessionStorage.removeItem(ISOLATING_KEY);
    throw new ApiError('The engine cannot run here: the page is not cross-origin isolated, '
      + 'which the engine in WebAssembly needs (it shares memory with the page). '
      + 'Serve this folder with a web server, for instance `python3 -m http.server` in it, '
      + 'and open it on localhost or over https, in a browser that allows service workers '
      + '(not from a file, and not in a private window where they are off).', 'isolation');
  }
  sessionStorage.removeItem(ISOLATING_KEY);
  // A newer sw.js replaces the old one on its own.
  if (navigator.serviceWorker) navigator.serviceWorker.register('sw.js').catch(() => {});
  $('status').textContent = 'Starting the engine…';
  const { startApi } = await import('./mulino-engine.mjs');
  wasmEngine = await startApi();
}

// A new server-side session holding the saved game (or a fresh one).
async function openSession(saved) {
  let st;
  try {
    st = await post('session', saved || {});
  } catch (e) {
    if (!saved) throw e;
    try {
      // The game without its graph, should only the graph be refused.
      st = await post('session', Object.assign({}, saved, { evals: null }));
    } catch (_) {
      showError('The saved game could not be restored (' + e.message + '); a new game starts.');
      st = await post('session', {});
    }
  }
  ui.session = st.session;
  return st;
}

// An API call on this tab's session; a session the server forgot (it
// restarted) is rebuilt from the game the page holds, then tried again.
async function api(call, fields) {
  const body = Object.assign({ session: ui.session }, fields || {});
  try {
    return await post(call, body);
  } catch (e) {
    if (e.code !== 'unknown_session') throw e;
    await openSession(gameToRestore());
    body.session = ui.session;
    return post(call, body);
  }
}

// Queues one action: actions run one after the other, none is dropped,
// and errors are shown on the page, unless `failed` shows it itself
// (returns true).
function act(call, fields, after, failed) {
  ui.pending++;
  ui.chain = ui.chain.then(async () => {
    const seq = ++ui.sent;
    try {
      const st = await api(call, fields);
      hideError();
      apply(st, seq);
      if (after) after(st);
    } catch (e) {
      if (!(failed && failed(e) === true)) showError(e.message);
      render();
    } finally {
      ui.pending--;
    }
  }).then(drive);
}

// --------------------------------------------------------------- messages

function showError(text) {
  const el = $('error');
  el.textContent = text;
  el.hidden = false;
}

function hideError() { $('error').hidden = true; }

// A refused FEN, said beside its box (and the box brought into view).
function showFenError(text) {
  const el = $('fen-error');
  el.textContent = text;
  el.hidden = false;
  el.scrollIntoView({ block: 'nearest' });
}

function hideFenError() { $('fen-error').hidden = true; }

function notice(text) {
  $('notice').textContent = text;
  setTimeout(() => { if ($('notice').textContent === text) $('notice').textContent = ''; }, 3000);
}
