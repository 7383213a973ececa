// mulino gui: the page. Its files, loaded in this order as plain scripts
// sharing one scope: board.js (the board and its clicks), engine.js (the
// engine behind the JSON API, actions queued), turns.js (clicks into
// turns, the game's flow), panel.js (everything shown around the board),
// practice.js (endgame practice), databases.js (the packed databases of
// the static folder), and this one (the page's state, its storage, the controls, the start).
// The game is saved in the browser's storage after every change and
// restored on reload, even after a server restart.
'use strict';

const SAVE_KEY = 'mulino.gui.game.v1';
const CONFIG_KEY = 'mulino.gui.config.v1';
const SESSION_KEY = 'mulino.gui.session.v1';
const POLL_MS = 150;
const AUTO_EVAL_MS = 300;
// How long the status line says why a click did nothing.
const REFUSAL_MS = 2500;
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
  refusal: null,     // why the last click did nothing: {text, until}
  fenTyped: false,   // the FEN box holds what was typed, not the position's
  practice: null,    // the endgame practice under way (practice.js)
  practiceKindsFor: null, // the variant whose kinds the practice offers
  config: {
    white: 'human', black: 'engine', level: '8', movetime: '1000',
    multipv: '1', flip: false, autoEval: true,
    // The evaluation's switch, by kind of game (`evalShown`, panel.js).
    showEval: { engine: false, humans: true },
  },
};

// ---------------------------------------------------------------- storage

function loadJson(storage, key) {
  try { return JSON.parse(storage.getItem(key) || 'null'); } catch (_) { return null; }
}

function saveJson(storage, key, value) {
  try { storage.setItem(key, JSON.stringify(value)); } catch (_) { /* private mode */ }
}

// The game as the server restores it (`session`): its moves, and the
// evaluations seen after each number of them (the graph).
function gameToRestore() {
  const st = ui.st;
  return st ? { variant: st.variant, fen: st.start_fen, moves: st.moves, redo: st.redo, evals: st.evals } : null;
}

// The game, and what the page knows of it beyond the server: whether the
// engine waits for "Engine move", the practice under way.
function saveGame() {
  if (!ui.st) return;
  const game = Object.assign(gameToRestore(), { paused: ui.paused, practice: ui.practice });
  saveJson(sessionStorage, SAVE_KEY, game);
  saveJson(localStorage, SAVE_KEY, game);
  saveJson(sessionStorage, SESSION_KEY, ui.session);
}

function saveConfig() {
  saveJson(localStorage, CONFIG_KEY, ui.config);
}

// ---------------------------------------------------------------- controls

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
  // One switch, kept for the kind of game it is pressed in.
  $('show-eval').addEventListener('change', () => {
    cfg.showEval = Object.assign({}, cfg.showEval, { [againstEngine() ? 'engine' : 'humans']: $('show-eval').checked });
    saveConfig();
    render();
  });
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
  // A hint replaces the analysis: the engine's best move at full
  // strength within a fixed budget (the server's), the same each time.
  $('btn-hint').addEventListener('click', () => {
    ui.analysing = false;
    act('go', { purpose: 'hint' });
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
  // What was typed in the FEN box stays there until it is set up (or
  // emptied): a refusal is said beside it, for it to be corrected.
  $('fen').addEventListener('input', () => {
    ui.fenTyped = $('fen').value.trim() !== '';
    if (!ui.fenTyped) hideFenError();
  });
  $('btn-setup').addEventListener('click', () => {
    ui.paused = true;
    hideFenError();
    act('fen', { fen: $('fen').value }, () => {
      ui.fenTyped = false;
      render();
      notice('Position set up.');
    }, (e) => {
      showFenError(e.message);
      return true;
    });
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
  setupPractice();
  setupDatabases();
  setupBoardInput();
  const saved = loadJson(sessionStorage, SAVE_KEY) || loadJson(localStorage, SAVE_KEY);
  const id = loadJson(sessionStorage, SESSION_KEY);
  // After a reload the game goes on as it was: the engine plays its turn
  // unless it was waiting for "Engine move" (after an undo, say).
  ui.paused = !!(saved && saved.paused === true);
  ui.practice = (saved && saved.practice) || null;
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
    if (!st) st = await openSession(saved && {
      variant: saved.variant, fen: saved.fen, moves: saved.moves, redo: saved.redo, evals: saved.evals,
    });
    // From navigation to the engine's first answer (docs/performance.md).
    performance.mark('mulino-engine-ready');
    // An analysis still running (a reload) goes on.
    ui.analysing = !!(st.search && st.search.purpose === 'analyse' && st.search.movetime == null);
    apply(st, ++ui.sent);
    startDatabases();
  } catch (e) {
    showError(e.message);
    if (!ui.st) $('status').textContent = e.code === 'isolation' ? 'The engine cannot run here' : 'No engine';
  } finally {
    ui.pending--;
    drive();
  }
}

start();
