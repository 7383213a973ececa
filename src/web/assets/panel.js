// mulino gui: what the page shows around the board, drawn from the
// server's state: the hands, the status line, the evaluation bar and
// graph, the engine's lines, the databases' value, the move list, the
// buttons (board.js draws the board itself). Loaded before app.js.
'use strict';

// ------------------------------------------------------------ the panel

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
  if (ui.refusal && Date.now() < ui.refusal.until) return ui.refusal.text;
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

// A line's `wdl` (White's win, the draw, Black's win, per mille, from
// the search's score: protocol.md, UCI_ShowWDL) as percentages; '' when
// the line has none.
function wdlText(line) {
  if (!line || !Array.isArray(line.wdl)) return '';
  const [w, d, b] = line.wdl.map((x) => Math.round(x / 10));
  return 'White ' + w + '% · draw ' + d + '% · Black ' + b + '%';
}

// Pieces for the bar and graph: mates pinned at the ends.
function evalPieces(e) {
  if (!e) return null;
  if (e.result !== undefined) return { '1-0': 6, '0-1': -6 }[e.result] || 0;
  if (e.mate !== undefined) return e.mate > 0 ? 6 : -6;
  return Math.max(-6, Math.min(6, e.cp / 100));
}

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

// Whether a game is between a person and the engine (then undo and
// redo go by whole turns of both, and the evaluation is off by default).
function againstEngine() { return controller('white') !== controller('black'); }

// Whether the evaluation shows: the bar, the graph, the engine's lines
// and the databases' values. Asked for by the switch, whose default is
// off in a game against the engine (it would be a hint at every move)
// and on between two people or two engines; on while the analysis runs.
function evalShown() {
  return analysisOn() || !!ui.config.showEval[againstEngine() ? 'engine' : 'humans'];
}

function renderEval() {
  const shown = evalShown();
  $('evalcol').classList.toggle('off', !shown);
  $('graph').classList.toggle('off', !shown);
  $('show-eval').checked = !!ui.config.showEval[againstEngine() ? 'engine' : 'humans'];
  $('show-eval').disabled = analysisOn();
  if (!shown) {
    $('evalcol').title = 'The evaluation is hidden ("Show the evaluation" shows it)';
    return;
  }
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
  const wdl = stale ? '' : wdlText(currentLines()[0]);
  $('evalcol').title = wdl ? title + '; ' + wdl : title;
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
  // Hidden, the lines show only for a hint, which was asked for.
  const hint = currentHint();
  const shown = evalShown();
  for (const line of shown || hint ? currentLines() : []) {
    const div = document.createElement('div');
    const score = document.createElement('span');
    score.className = 'score';
    score.textContent = evalText(line.eval);
    div.appendChild(score);
    const wdl = wdlText(line);
    if (wdl) {
      const shares = document.createElement('span');
      shares.className = 'wdl';
      shares.textContent = wdl;
      div.appendChild(shares);
    }
    div.appendChild(document.createTextNode('(depth ' + line.depth + ') ' + line.pv.join(' ')));
    box.appendChild(div);
  }
  if (hint) {
    const div = document.createElement('div');
    div.id = 'hint-text';
    div.textContent = 'Hint: ' + hint.text;
    box.prepend(div);
  }
  // On a phone the panel is below the fold: the first line, or the
  // hint's, also by the board.
  const first = (shown || hint ? currentLines() : [])[0];
  // Its place is kept while empty: the buttons under it stay put.
  $('pv-strip').classList.toggle('empty', !first);
  $('pv-strip').textContent = first
    ? (hint ? 'Hint ' : '') + evalText(first.eval) + ' (depth ' + first.depth + ') ' + first.pv.join(' ') : '\u00a0';
  renderTablebase(shown ? databaseValues(st) : null, st.side);
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

// The last few moves in one line by the board, for phones, where the
// move list is below the fold: the current one marked, each a link to
// its position as in the list.
const RECENT_PLIES = 6;

function renderRecent() {
  const strip = $('recent');
  const st = ui.st;
  strip.replaceChildren();
  const n = st.moves.length;
  const first = Math.max(0, n - RECENT_PLIES);
  if (!n) {
    strip.textContent = 'No moves yet';
    return;
  }
  for (let i = first; i < n; i++) {
    const t = st.turns[i];
    if (!t) continue;
    const prev = i > first ? st.turns[i - 1] : null;
    if (t.side === 'white' || i === first || (prev && prev.fullmove !== t.fullmove)) {
      const num = document.createElement('span');
      num.className = 'num';
      num.textContent = t.fullmove + (t.side === 'white' ? '.' : '…');
      strip.appendChild(num);
    }
    const mv = document.createElement('span');
    mv.className = 'mv' + (i === n - 1 ? ' current' : '');
    mv.textContent = st.moves[i];
    mv.addEventListener('click', () => goToPly(i + 1));
    strip.appendChild(mv);
  }
}

function renderMoves() {
  renderRecent();
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

function render() {
  const st = ui.st;
  if (!st) return;
  drawBoard();
  const top = ui.config.flip ? 'white' : 'black';
  const bottom = ui.config.flip ? 'black' : 'white';
  $('hand-top').replaceChildren(hand(top));
  $('hand-bottom').replaceChildren(hand(bottom));
  $('status').textContent = statusText();
  $('status').classList.toggle('refused', !!(ui.refusal && Date.now() < ui.refusal.until));
  const s = st.search;
  // The short evaluation of each position is no news while the
  // evaluation is hidden.
  const quiet = s && s.purpose === 'analyse' && s.movetime != null && !evalShown();
  $('thinking').hidden = !s || quiet;
  if (s) {
    const what = s.purpose === 'analyse' && s.movetime != null ? 'Evaluating'
      : { play: 'Engine thinking', hint: 'Looking for a hint', analyse: 'Analysing' }[s.purpose];
    const depth = s.lines.length ? ', depth ' + s.lines[0].depth : '';
    $('thinking-text').textContent = what + depth + '…';
  }
  // Stop stays in its place, usable while a search runs: a button that
  // appeared would move the others under the finger.
  $('btn-stop').disabled = !s;
  // Below Hard the level searches to a fixed depth, which takes far less
  // than any thinking time: the time is the level's, and says so.
  const timed = Number(ui.config.level) >= 20;
  $('movetime').disabled = !timed;
  $('movetime-note').hidden = timed;
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
  if (!ui.fenTyped && document.activeElement !== $('fen')) $('fen').value = st.fen;
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
  renderPractice();
  showPracticeKinds(st.variant);
  document.body.dataset.ready = '1';
}

// The game as text, numbered as the match runner's PGN: `N.` before
// White's turns, `N...` before Black's unless they follow White's (at
// the start, and after a black double turn), a removal paid as a turn of
