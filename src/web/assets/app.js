// mulino gui: the page. It keeps no rules of its own: the engine's side
// sends the legal whole turns, and a click sequence (from, to, removals)
// is matched against them (board.js draws the board and takes its
// clicks). The game is saved in the browser's storage after every change
// and restored on reload, even after a server restart.
//
// One page, two engines behind the same JSON API (src/web/api.rs):
// `mulino gui` serves it with its own engine (`POST api/<call>`), and the
// static folder (target/web/, scripts/build-web.sh) with the engine in
// WebAssembly in a worker, which answers the same calls with the same
// Rust code (mulino-engine.mjs, `startApi`). The page's <meta
// name="mulino-engine"> says which.
'use strict';

const SAVE_KEY = 'mulino.gui.game.v1';
const CONFIG_KEY = 'mulino.gui.config.v1';
const SESSION_KEY = 'mulino.gui.session.v1';
const POLL_MS = 150;
const AUTO_EVAL_MS = 300;
// The page reloaded once under its service worker (static folder).
const ISOLATING_KEY = 'mulino.gui.isolating.v1';

// `server` (`mulino gui`) or `wasm` (the static folder).
const ENGINE = (document.querySelector('meta[name="mulino-engine"]') || {}).content || 'wasm';

const $ = (id) => document.getElementById(id);

const ui = {
  session: null,
  st: null,          // the last state from the server
  clicks: [],        // points clicked towards the next turn
  chain: Promise.resolve(), // user actions, one after the other
  pending: 0,        // actions queued or on their way
  sent: 0,           // requests sent, numbered
  applied: 0,        // the number of the request whose state is shown
  pollTimer: null,
  paused: false,     // the engine waits for "Engine move" after an undo
  analysing: false,  // Analyse pressed: each position is analysed until "Stop analysis"
  seen: new Map(),   // the last lines seen for each position, by positionKey
  listKey: null,     // the move list's last scroll target
  config: {
    white: 'human', black: 'engine', level: '8', movetime: '1000',
    multipv: '1', flip: false, autoEval: true,
  },
};

// ---------------------------------------------------------------- storage

function loadJson(storage, key) {
  try { return JSON.parse(storage.getItem(key) || 'null'); } catch (_) { return null; }
}

function saveJson(storage, key, value) {
  try { storage.setItem(key, JSON.stringify(value)); } catch (_) { /* private mode */ }
}

function saveGame() {
  if (!ui.st) return;
  const game = {
    variant: ui.st.variant, fen: ui.st.start_fen, moves: ui.st.moves, redo: ui.st.redo,
  };
  saveJson(sessionStorage, SAVE_KEY, game);
  saveJson(localStorage, SAVE_KEY, game);
  saveJson(sessionStorage, SESSION_KEY, ui.session);
}

function saveConfig() {
  saveJson(localStorage, CONFIG_KEY, ui.config);
}

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
    showError('The saved game could not be restored (' + e.message + '); a new game starts.');
    st = await post('session', {});
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
    const game = ui.st ? { variant: ui.st.variant, fen: ui.st.start_fen, moves: ui.st.moves, redo: ui.st.redo } : null;
    await openSession(game);
    body.session = ui.session;
    return post(call, body);
  }
}

// Queues one action: actions run one after the other, none is dropped,
// and errors are shown on the page (and `failed` called).
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
      showError(e.message);
      if (failed) failed(e);
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

function notice(text) {
  $('notice').textContent = text;
  setTimeout(() => { if ($('notice').textContent === text) $('notice').textContent = ''; }, 3000);
}

// ------------------------------------------------------------------ moves

// `d6-d5xb4xa1` as {text, from, to, rem}.
function parseMove(text) {
  const parts = text.split('x');
  const step = parts.shift();
  let from = null, to = null;
  if (step.includes('-')) [from, to] = step.split('-');
  else if (step) to = step;
  return { text, from, to, rem: parts };
}

// The points a turn is clicked as: from, to, then the removals.
function stepOf(m) { return [m.from, m.to].filter(Boolean); }

function legalMoves() { return ui.st ? ui.st.legal.map(parseMove) : []; }

// Whether the clicks so far begin turn `m` (removals in any order).
function matches(m, clicks) {
  const step = stepOf(m);
  for (let i = 0; i < clicks.length; i++) {
    if (i < step.length) {
      if (clicks[i] !== step[i]) return false;
    } else if (!m.rem.includes(clicks[i]) || clicks.indexOf(clicks[i]) !== i) {
      return false;
    }
  }
  return true;
}

function candidates(clicks) { return legalMoves().filter((m) => matches(m, clicks)); }

function turnLength(m) { return stepOf(m).length + m.rem.length; }

// The points that may be clicked next, each with what a click there does.
function nextTargets(clicks) {
  const out = new Map();
  for (const m of candidates(clicks)) {
    const step = stepOf(m);
    if (clicks.length < step.length) {
      const p = step[clicks.length];
      const kind = (clicks.length === 0 && m.from) ? 'piece' : 'empty';
      out.set(p, kind);
    } else {
      for (const r of m.rem) if (!clicks.includes(r)) out.set(r, 'remove');
    }
  }
  return out;
}

function controller(side) { return side === 'white' ? ui.config.white : ui.config.black; }

function humanToMove() {
  return ui.st && !ui.st.outcome && controller(ui.st.side) === 'human';
}

// The pieces that can move, while none is picked or while one is (to
// pick another instead); none once the step is made.
function movablePieces() {
  const c = ui.clicks;
  const picked = c.length === 1 && candidates(c).some((m) => m.from === c[0]);
  if (c.length > 1 || (c.length === 1 && !picked)) return [];
  return [...nextTargets([])].filter(([, kind]) => kind === 'piece').map(([p]) => p);
}

function clickPoint(p) {
  // A click while a request is on its way still counts: the move is
  // queued behind it.
  if (!ui.st || !humanToMove()) return;
  hideError();
  const targets = nextTargets(ui.clicks);
  if (targets.has(p)) {
    ui.clicks = ui.clicks.concat([p]);
  } else if (ui.clicks.length && nextTargets([]).has(p) && !(ui.clicks.length === 1 && ui.clicks[0] === p)) {
    ui.clicks = [p]; // another piece, or a fresh start
  } else {
    ui.clicks = [];
    render();
    return;
  }
  const cands = candidates(ui.clicks);
  const done = cands.find((m) => turnLength(m) === ui.clicks.length);
  const longer = cands.some((m) => turnLength(m) > ui.clicks.length);
  if (done && !longer) {
    ui.paused = false;
    act('move', { move: done.text });
  } else {
    render();
  }
}

// ------------------------------------------------------------------- flow

// Shows a state, unless a later request's state is already shown.
function apply(st, seq) {
  if (seq < ui.applied) return;
  ui.applied = seq;
  if (!ui.st || ui.st.fen !== st.fen || ui.st.moves.length !== st.moves.length) ui.clicks = [];
  ui.st = st;
  remember(st);
  saveGame();
  render();
  schedulePoll();
}

function schedulePoll() {
  clearTimeout(ui.pollTimer);
  if (ui.st && ui.st.search) ui.pollTimer = setTimeout(poll, POLL_MS);
}

async function poll() {
  if (ui.pending) { schedulePoll(); return; }
  const seq = ++ui.sent;
  try {
    apply(await api('state'), seq);
  } catch (e) {
    showError(e.message);
    clearTimeout(ui.pollTimer);
    ui.pollTimer = setTimeout(poll, 2000);
  }
  drive();
}

// Starts what should happen next by itself: the engine's move, the
// analysis of a new position while the analysis is on (after a move, an
// undo or a redo), or a short evaluation of the position for the graph.
function drive() {
  const st = ui.st;
  if (!st || ui.pending || st.search || st.outcome) return;
  const engine = controller(st.side) === 'engine';
  if (engine && !ui.paused) {
    act('go', { purpose: 'play', level: Number(ui.config.level), movetime: Number(ui.config.movetime) });
    return;
  }
  if (ui.analysing) {
    startAnalysis();
    return;
  }
  if (engine) return;
  if (ui.config.autoEval && st.evals[st.moves.length] == null && ui.clicks.length === 0) {
    act('go', { purpose: 'analyse', movetime: AUTO_EVAL_MS });
  }
}

// The side to move after `ply` turns of the line (played, then undone),
// as the server says: a rule may give one side two turns in a row, so
// it is never worked out from the ply count. `null` past the line's end.
function sideAt(ply) {
  const st = ui.st;
  if (ply === st.moves.length) return st.side;
  const t = st.turns[ply];
  return t ? t.side : null;
}

// Against the engine, undo goes back to the last position where the
// human was to move, and redo forward to the next: whole turns of both.
function againstEngine() { return controller('white') !== controller('black'); }

function undoCount() {
  const n = ui.st.moves.length;
  if (!againstEngine()) return 1;
  for (let p = n - 1; p >= 0; p--) if (controller(sideAt(p)) === 'human') return n - p;
  return 1;
}

function redoCount() {
  const n = ui.st.moves.length;
  const r = ui.st.redo.length;
  if (!againstEngine()) return 1;
  for (let k = 1; k < r; k++) {
    const side = sideAt(n + k);
    if (side === null || controller(side) === 'human') return k;
  }
  return Math.max(r, 1);
}

// Jumps to the position after `ply` turns (a click in the move list).
function goToPly(ply) {
  const n = ui.st.moves.length;
  ui.paused = true;
  if (ply < n) act('undo', { count: n - ply });
  else if (ply > n) act('redo', { count: ply - n });
}

// ------------------------------------------------------------- the rest

function hand(side) {
  const st = ui.st;
  const idx = side === 'white' ? 0 : 1;
  const box = document.createDocumentFragment();
  const label = document.createElement('span');
  label.textContent = (side === 'white' ? 'White' : 'Black') + ' (' + controller(side) + ')';
  if (st.side === side && !st.outcome) label.className = 'to-move';
  box.appendChild(label);
  const stones = document.createElement('span');
  stones.className = 'stones';
  for (let i = 0; i < st.in_hand[idx]; i++) {
    const s = document.createElement('span');
    s.className = 'stone ' + side;
    stones.appendChild(s);
  }
  box.appendChild(stones);
  const count = document.createElement('span');
  count.textContent = st.in_hand[idx] ? st.in_hand[idx] + ' in hand' : 'none in hand';
  box.appendChild(count);
  return box;
}

function statusText() {
  const st = ui.st;
  if (st.outcome) return 'Game over: ' + st.outcome.reason + ' (' + st.outcome.result + ')';
  const side = st.side === 'white' ? 'White' : 'Black';
  const pending = candidates(ui.clicks).find((m) => ui.clicks.length >= stepOf(m).length && m.rem.length);
  if (st.phase === 'removing' || (humanToMove() && pending && stepOf(pending).length)) {
    return side + ' closed a mill: remove a marked piece';
  }
  const waiting = controller(st.side) === 'engine' && ui.paused && !st.search
    ? ': the engine waits, press "Engine move"' : '';
  // A rule gave the same side the next turn too (say so: no surprise).
  const last = st.turns[st.moves.length - 1];
  const again = last && last.side === st.side ? ' again' : '';
  return side + ' to move' + again + ' (' + st.phase + ')' + waiting;
}

function evalText(e) {
  if (!e) return '';
  if (e.result !== undefined) return e.result === '1/2-1/2' ? '½-½' : e.result;
  if (e.mate !== undefined) return (e.mate > 0 ? '+M' : '-M') + Math.abs(e.mate);
  const v = e.cp / 100;
  return (v >= 0 ? '+' : '') + v.toFixed(Math.abs(v) >= 10 ? 1 : 2);
}

// Pieces for the bar and graph: mates pinned at the ends.
function evalPieces(e) {
  if (!e) return null;
  if (e.result !== undefined) return { '1-0': 6, '0-1': -6 }[e.result] || 0;
  if (e.mate !== undefined) return e.mate > 0 ? 6 : -6;
  return Math.max(-6, Math.min(6, e.cp / 100));
}

// The analysis until stopped; a refusal ends the analysis (no retry).
function startAnalysis() {
  act('go', { purpose: 'analyse', multipv: Number(ui.config.multipv) }, null, () => { ui.analysing = false; });
}

// A position as the server reached it: the game's start and its moves.
function positionKey(st) {
  return st.variant + '|' + (st.start_fen || '') + '|' + st.moves.join(' ');
}

// The lines the server sends for the position: the search's, or the last
// hint's or analysis's while the position is the same.
function serverLines(st) {
  if (st.search && st.search.lines.length) return st.search.lines;
  if (st.finished && st.finished.ply === st.moves.length) return st.finished.lines;
  return [];
}

// Keeps the last lines seen for each position: after an undo or a redo
// the server keeps the evaluation (the bar's number) but not the lines.
function remember(st) {
  const lines = serverLines(st);
  if (!lines.length) return;
  const key = positionKey(st);
  ui.seen.delete(key);
  ui.seen.set(key, lines);
  if (ui.seen.size > 1000) ui.seen.delete(ui.seen.keys().next().value);
}

// The lines to show, those the bar's number comes from: the server's, or
// the last seen for this position.
function currentLines() {
  const st = ui.st;
  const lines = serverLines(st);
  return lines.length ? lines : ui.seen.get(positionKey(st)) || [];
}

// The evaluation after each number of moves, the result of a finished
// game standing in for the last.
function evalsShown() {
  const st = ui.st;
  const evals = st.evals.slice();
  if (st.outcome) evals[st.moves.length] = { result: st.outcome.result };
  return evals;
}

// The evaluation to show: the search's, the one known for this position,
// or (dimmed, `stale`) the last one known before it, so that the bar
// does not jump to even while the engine looks.
function currentEval() {
  const lines = currentLines();
  if (lines.length) return { e: lines[0].eval, stale: false };
  const evals = evalsShown();
  const n = ui.st.moves.length;
  if (evals[n]) return { e: evals[n], stale: false };
  for (let i = Math.min(n, evals.length) - 1; i >= 0; i--) if (evals[i]) return { e: evals[i], stale: true };
  return { e: null, stale: false };
}

function renderEval() {
  const { e, stale } = currentEval();
  const pieces = evalPieces(e);
  const share = pieces === null ? 50 : 50 + (pieces / 6) * 50;
  // White's share grows from White's side of the board.
  $('evalfill').style.height = share + '%';
  $('evalbar').classList.toggle('flipped', ui.config.flip);
  $('evalcol').classList.toggle('stale', stale);
  $('evaltext').textContent = evalText(e);
  const title = !e ? 'No evaluation yet'
    : e.result !== undefined ? 'Game over: ' + evalText(e)
    : 'Evaluation (White\'s view): ' + evalText(e) + (stale ? ', from an earlier position' : '');
  $('evalcol').title = title;
  // The graph.
  const svg = $('graph');
  svg.replaceChildren();
  const evals = evalsShown();
  const n = Math.max(evals.length - 1, 1);
  const X = (i) => (i / n) * 300;
  const Y = (v) => 40 - (v / 6) * 36;
  el('line', { class: 'axis', x1: 0, y1: 40, x2: 300, y2: 40 }, svg);
  let path = '';
  evals.forEach((v, i) => {
    const p = evalPieces(v);
    if (p === null) return;
    path += (path ? ' L ' : 'M ') + X(i).toFixed(1) + ' ' + Y(p).toFixed(1);
    el('rect', { class: 'mark', x: X(i) - 2, y: Y(p) - 2, width: 4, height: 4 }, svg);
  });
  if (path) el('path', { class: 'curve', d: path }, svg);
  const now = X(ui.st.moves.length);
  el('line', { class: 'now', x1: now, y1: 0, x2: now, y2: 80 }, svg);
}

function renderLines() {
  const box = $('pv');
  box.replaceChildren();
  const st = ui.st;
  for (const line of currentLines()) {
    const div = document.createElement('div');
    const score = document.createElement('span');
    score.className = 'score';
    score.textContent = evalText(line.eval);
    div.appendChild(score);
    div.appendChild(document.createTextNode('(depth ' + line.depth + ') ' + line.pv.join(' ')));
    box.appendChild(div);
  }
  const hint = currentHint();
  if (hint) {
    const div = document.createElement('div');
    div.id = 'hint-text';
    div.textContent = 'Hint: ' + hint.text;
    box.prepend(div);
  }
  renderTablebase(st.tablebase, st.side);
}

// The endgame databases' exact value (`mulino gui --tb DIR`), for the side
// to move; `null` outside them.
function renderTablebase(tb, side) {
  const box = $('tablebase');
  box.hidden = !tb;
  if (!tb) return;
  // A value under the N-move rules, with the plies to the next removal,
  // and the value without them where it differs.
  // The placing phase's values carry no distance (plies is null).
  const within = (t) => t.plies != null ? ' in ' + t.plies : '';
  const removal = (t) => t.removal != null ? ', removal in ' + t.removal : '';
  const pure = (t) => t.pure ? ' (a ' + t.pure + within(t) + ' without the N-move rule)' : '';
  const value = (t) => {
    if (t.result === 'draw') return 'draw' + pure(t);
    if (t.result === 'unknown') return 'unknown' + pure(t);
    return t.result + within(t) + removal(t);
  };
  let text;
  if (tb.result === 'draw') {
    text = 'Database: a draw with best play' + pure(tb);
  } else if (tb.result === 'unknown') {
    text = 'Database: the N-move rule may draw this' + pure(tb);
  } else {
    text = 'Database: ' + side + ' ' + (tb.result === 'win' ? 'wins' : 'loses')
      + (tb.plies != null ? ' in ' + tb.plies + ' plies' : '') + ' with best play'
      + (tb.removal != null ? ', the next removal in ' + tb.removal : '');
  }
  box.textContent = text;
  if (tb.moves && tb.moves.length) {
    const list = document.createElement('div');
    list.className = 'tb-moves';
    list.textContent = tb.moves.map((m) => m.move + ' ' + value(m)).join(', ');
    box.appendChild(list);
  }
}

// The move list as rows of the full-move number, White's column and
// Black's, from the server's `turns`: a side that moves twice in a row
// leaves the other's cell empty (or, within one number, shares its cell).
function moveRows(st) {
  const all = st.moves.concat(st.redo.slice().reverse());
  const rows = [];
  let row = null;
  all.forEach((text, i) => {
    const t = st.turns[i];
    if (!t) return;
    if (!row || row.number !== t.fullmove || (t.side === 'white' && row.black.length)) {
      row = { number: t.fullmove, white: [], black: [] };
      rows.push(row);
    }
    row[t.side].push({ text, ply: i + 1 });
  });
  return rows;
}

function moveCell(st, side, moves) {
  const cell = document.createElement('span');
  cell.className = 'cell ' + side;
  for (const m of moves) {
    const mv = document.createElement('span');
    mv.className = 'mv' + (m.ply === st.moves.length ? ' current' : '') + (m.ply > st.moves.length ? ' future' : '');
    mv.textContent = m.text;
    mv.dataset.ply = String(m.ply);
    mv.dataset.side = side;
    mv.addEventListener('click', () => goToPly(m.ply));
    cell.appendChild(mv);
  }
  return cell;
}

function renderMoves() {
  const list = $('moves');
  const st = ui.st;
  const keep = list.scrollTop;
  list.replaceChildren();
  for (const row of moveRows(st)) {
    const li = document.createElement('li');
    const num = document.createElement('span');
    num.className = 'num';
    num.textContent = row.number + '.';
    li.append(num, moveCell(st, 'white', row.white), moveCell(st, 'black', row.black));
    list.appendChild(li);
  }
  if (st.outcome) {
    const li = document.createElement('li');
    const r = document.createElement('span');
    r.className = 'result';
    r.textContent = st.outcome.result;
    li.appendChild(r);
    list.appendChild(li);
  }
  list.scrollTop = keep;
  // Scroll the list, never the page (on a phone that took the board
  // away): to the current move when it changes, and to the result.
  const key = st.moves.length + '/' + st.redo.length + '/' + (st.outcome ? st.outcome.result : '');
  if (key === ui.listKey) return;
  ui.listKey = key;
  const current = list.querySelector('.current');
  if (!current) list.scrollTop = 0;
  else scrollWithin(list, st.outcome && !st.redo.length ? list.querySelector('.result') : current);
}

// Scrolls `box` (not the page) just enough to show `item`.
function scrollWithin(box, item) {
  const b = box.getBoundingClientRect();
  const r = item.getBoundingClientRect();
  if (r.bottom > b.bottom) box.scrollTop += r.bottom - b.bottom;
  else if (r.top < b.top) box.scrollTop -= b.top - r.top;
}

// Whether the analysis the Analyse button starts is running (not the
// short evaluation of each position).
function analysisRunning() {
  const s = ui.st && ui.st.search;
  return !!(s && s.purpose === 'analyse' && s.movetime == null);
}

function analysisOn() { return ui.analysing || analysisRunning(); }

function render() {
  const st = ui.st;
  if (!st) return;
  drawBoard();
  const top = ui.config.flip ? 'white' : 'black';
  const bottom = ui.config.flip ? 'black' : 'white';
  $('hand-top').replaceChildren(hand(top));
  $('hand-bottom').replaceChildren(hand(bottom));
  $('status').textContent = statusText();
  const s = st.search;
  $('thinking').hidden = !s;
  if (s) {
    const what = s.purpose === 'analyse' && s.movetime != null ? 'Evaluating'
      : { play: 'Engine thinking', hint: 'Looking for a hint', analyse: 'Analysing' }[s.purpose];
    const depth = s.lines.length ? ', depth ' + s.lines[0].depth : '';
    $('thinking-text').textContent = what + depth + '…';
  }
  // Stop stays in its place, usable while a search runs: a button that
  // appeared would move the others under the finger.
  $('btn-stop').disabled = !s;
  $('btn-undo').disabled = st.moves.length === 0;
  $('btn-redo').disabled = st.redo.length === 0;
  $('btn-hint').disabled = !!st.outcome;
  $('btn-go').disabled = !!st.outcome;
  // The Analyse button says what a press does.
  const analysing = analysisOn();
  $('btn-analyse').disabled = !!st.outcome;
  $('btn-analyse').classList.toggle('active', analysing);
  $('btn-analyse').textContent = analysing ? 'Stop analysis' : 'Analyse';
  $('btn-analyse').title = analysing ? 'Stop the analysis' : 'Analyse this position until stopped';
  if (document.activeElement !== $('fen')) $('fen').value = st.fen;
  const variant = $('variant');
  if (!variant.options.length) {
    for (const v of st.variants) {
      const o = document.createElement('option');
      o.value = v.name;
      o.textContent = v.label;
      variant.appendChild(o);
    }
  }
  variant.value = st.variant;
  renderMoves();
  renderEval();
  renderLines();
  document.body.dataset.ready = '1';
}

// The game as text, numbered as the match runner's PGN: `N.` before
// White's turns, `N...` before Black's unless they follow White's (at
// the start, and after a black double turn), a removal paid as a turn of
// its own unnumbered after its step.
function gameText() {
  const st = ui.st;
  const label = st.variants.find((v) => v.name === st.variant);
  let text = '[Event "mulino gui"]\n[Variant "' + (label ? label.label : st.variant) + '"]\n';
  if (st.start_fen) text += '[FEN "' + st.start_fen + '"]\n';
  text += '[Result "' + (st.outcome ? st.outcome.result : '*') + '"]\n\n';
  const parts = [];
  st.moves.forEach((m, i) => {
    const t = st.turns[i];
    const prev = i > 0 ? st.turns[i - 1] : null;
    const same = prev && prev.fullmove === t.fullmove;
    if (same && prev.side === t.side && m.startsWith('x')) parts.push(m);
    else if (t.side === 'white') parts.push(t.fullmove + '. ' + m);
    else if (same && prev.side === 'white') parts.push(m);
    else parts.push(t.fullmove + '... ' + m);
  });
  parts.push(st.outcome ? st.outcome.result : '*');
  return text + parts.join(' ') + '\n';
}

async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    notice(what + ' copied.');
  } catch (_) {
    const area = $('fen');
    const old = area.value;
    area.value = text;
    area.select();
    const ok = document.execCommand && document.execCommand('copy');
    area.value = old;
    notice(ok ? what + ' copied.' : 'Copying is blocked here: select the text and copy it yourself.');
  }
}

function setupControls() {
  const cfg = ui.config;
  const bind = (id, key, after) => {
    const e = $(id);
    if (e.type === 'checkbox') e.checked = !!cfg[key]; else e.value = cfg[key];
    e.addEventListener('change', () => {
      cfg[key] = e.type === 'checkbox' ? e.checked : e.value;
      saveConfig();
      if (after) after();
      render();
      drive();
    });
  };
  bind('white-player', 'white', () => { ui.paused = false; });
  bind('black-player', 'black', () => { ui.paused = false; });
  bind('level', 'level');
  bind('movetime', 'movetime');
  bind('multipv', 'multipv', () => { if (analysisRunning()) startAnalysis(); });
  bind('auto-eval', 'autoEval');
  $('btn-new').addEventListener('click', () => {
    ui.paused = false;
    act('new', { variant: $('variant').value });
  });
  // A variant chosen is played at once; a game in progress is given up
  // only when the player says so.
  $('variant').addEventListener('change', () => {
    const choice = $('variant');
    const st = ui.st;
    if (!st || choice.value === st.variant) return;
    const label = choice.options[choice.selectedIndex].textContent;
    if (st.moves.length && !window.confirm('Start a new game of ' + label + '? The game in progress ends.')) {
      choice.value = st.variant;
      return;
    }
    ui.paused = false;
    act('new', { variant: choice.value });
  });
  $('btn-undo').addEventListener('click', () => { ui.paused = true; act('undo', { count: undoCount() }); });
  $('btn-redo').addEventListener('click', () => { ui.paused = true; act('redo', { count: redoCount() }); });
  // A hint replaces the analysis (its line starts with the same move).
  $('btn-hint').addEventListener('click', () => {
    ui.analysing = false;
    act('go', { purpose: 'hint', level: 20, movetime: Number(cfg.movetime) });
  });
  $('btn-go').addEventListener('click', () => {
    ui.paused = false;
    act('go', { purpose: 'play', level: Number(cfg.level), movetime: Number(cfg.movetime) });
  });
  $('btn-stop').addEventListener('click', () => { ui.paused = true; ui.analysing = false; act('stop'); });
  // The analysis goes on from position to position until stopped. As the
  // button says: a short evaluation under way is no analysis.
  $('btn-analyse').addEventListener('click', () => {
    if (analysisOn()) {
      ui.analysing = false;
      if (analysisRunning()) act('stop'); else render();
    } else {
      ui.analysing = true;
      render();
      startAnalysis();
    }
  });
  $('btn-flip').addEventListener('click', () => { cfg.flip = !cfg.flip; saveConfig(); render(); });
  $('btn-setup').addEventListener('click', () => {
    ui.paused = true;
    act('fen', { fen: $('fen').value }, () => notice('Position set up.'));
  });
  $('btn-copy-fen').addEventListener('click', () => copy(ui.st.fen, 'FEN'));
  $('btn-copy-game').addEventListener('click', () => copy(gameText(), 'Game'));
  document.addEventListener('keydown', (e) => {
    if (e.target.closest('textarea, input, select')) return;
    if (e.key === 'ArrowLeft' && ui.st && ui.st.moves.length) $('btn-undo').click();
    if (e.key === 'ArrowRight' && ui.st && ui.st.redo.length) $('btn-redo').click();
    if (e.key === 'Escape') { ui.clicks = []; render(); }
  });
}

async function start() {
  Object.assign(ui.config, loadJson(localStorage, CONFIG_KEY) || {});
  setupControls();
  setupBoardInput();
  const saved = loadJson(sessionStorage, SAVE_KEY) || loadJson(localStorage, SAVE_KEY);
  const id = loadJson(sessionStorage, SESSION_KEY);
  // After a reload the game waits for "Engine move" rather than surprise.
  ui.paused = !!(saved && saved.moves && saved.moves.length);
  ui.pending++;
  try {
    if (ENGINE !== 'server') await startWasmEngine();
    let st = null;
    // A session outlives a reload in the server only (a reloaded page
    // starts a new worker).
    if (id && ENGINE === 'server') {
      ui.session = id;
      try { st = await post('state', { session: id }); } catch (_) { st = null; }
    }
    if (!st) st = await openSession(saved);
    // From navigation to the engine's first answer (docs/performance.md).
    performance.mark('mulino-engine-ready');
    // An analysis still running (a reload) goes on.
    ui.analysing = !!(st.search && st.search.purpose === 'analyse' && st.search.movetime == null);
    apply(st, ++ui.sent);
  } catch (e) {
    showError(e.message);
    if (!ui.st) $('status').textContent = e.code === 'isolation' ? 'The engine cannot run here' : 'No engine';
  } finally {
    ui.pending--;
    drive();
  }
}

start();
