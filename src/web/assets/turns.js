// mulino gui: clicks into turns, and the game's flow. The page keeps no
// rules of its own: the engine's side sends the legal whole turns, and a
// click sequence (from, to, removals) is matched against them; then what
// happens next by itself (the engine's move, the analysis, the short
// evaluation of each position), and undo and redo by whole turns.
// Loaded before app.js, whose state (`ui`) it uses.
'use strict';

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

// Why a click on the board cannot count now, or null when it can.
function whyNoClick() {
  const st = ui.st;
  if (st.outcome) return 'The game is over: New game starts another';
  if (controller(st.side) !== 'engine') return null;
  if (st.search && st.search.purpose === 'play') return 'The engine is thinking: wait for its move';
  if (!ui.paused) return 'It is the engine\'s turn: its move comes';
  return 'It is the engine\'s turn: press "Engine move"';
}

// Why a click on `p` that starts no turn does nothing (nothing picked).
function whyNotHere(p) {
  const st = ui.st;
  const own = (st.side === 'white' ? st.white : st.black).includes(p);
  const theirs = (st.side === 'white' ? st.black : st.white).includes(p);
  const removing = legalMoves().some((m) => !stepOf(m).length);
  if (removing) return 'Remove one of the pieces ringed in red';
  if (st.marked.includes(p)) return p + ' is marked: no piece goes there until placing ends';
  const placing = legalMoves().some((m) => m.to && !m.from);
  if (own && !placing) return 'The piece on ' + p + ' cannot move';
  if (own || theirs) return p + ' is taken: ' + (placing ? 'place on an empty point' : 'pick one of your pieces');
  return placing ? 'No piece can go to ' + p : 'Pick one of your pieces first, then where it goes';
}

// A click on point `p`: the next point of a turn, another piece picked,
// or nothing, said in the status line. A click that is not a target
// deselects (as lichess does): it never starts another kind of turn,
// such as a placement while a piece is picked (Lasker).
function clickPoint(p) {
  // A click while a request is on its way still counts: the move is
  // queued behind it.
  if (!ui.st) return;
  const why = whyNoClick();
  if (why) { refuse(why); return; }
  hideError();
  const clicks = ui.clicks;
  const targets = nextTargets(clicks);
  const picked = clicks.length === 1 && candidates(clicks).some((m) => m.from === clicks[0]);
  const stepDone = clicks.length > 0 && !picked;
  if (targets.has(p)) {
    ui.clicks = clicks.concat([p]);
  } else if (clicks.length && nextTargets([]).get(p) === 'piece' && clicks[0] !== p && !stepDone) {
    ui.clicks = [p]; // another piece picked instead
  } else if (stepDone && p !== clicks[clicks.length - 1]) {
    // The step is made and waits for its removal: kept (a click on the
    // point it went to, or Escape, takes it back).
    refuse('Remove one of the pieces ringed in red');
    return;
  } else {
    ui.clicks = [];
    if (picked && p !== clicks[0]) refuse('The piece on ' + clicks[0] + ' cannot go to ' + p);
    else if (!clicks.length) refuse(whyNotHere(p));
    else render();
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

// Says briefly in the status line why a click did nothing.
function refuse(text) {
  const until = Date.now() + REFUSAL_MS;
  ui.refusal = { text, until };
  render();
  setTimeout(() => { if (ui.refusal && ui.refusal.until === until) { ui.refusal = null; render(); } }, REFUSAL_MS);
}

// ------------------------------------------------------------------- flow

// Shows a state, unless a later request's state is already shown.
function apply(st, seq) {
  if (seq < ui.applied) return;
  ui.applied = seq;
  if (!ui.st || ui.st.fen !== st.fen || ui.st.moves.length !== st.moves.length) ui.clicks = [];
  ui.st = st;
  remember(st);
  practiceCheck(st);
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
// human was to move, and redo forward to the next: whole turns of both
// (`againstEngine`, panel.js).

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

// The analysis until stopped; a refusal ends the analysis (no retry).
function startAnalysis() {
  act('go', { purpose: 'analyse', multipv: Number(ui.config.multipv) }, null, () => { ui.analysing = false; });
}


// Whether the analysis the Analyse button starts is running (not the
// short evaluation of each position).
function analysisRunning() {
  const s = ui.st && ui.st.search;
  return !!(s && s.purpose === 'analyse' && s.movetime == null);
}

function analysisOn() { return ui.analysing || analysisRunning(); }
