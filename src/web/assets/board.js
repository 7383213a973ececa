// mulino gui: the board, an SVG drawn from the server's state: lines,
// points, pieces, marked points, the last turn, where a click may go, the
// hint; and the clicks and drags on it. Loaded before app.js, whose
// globals (`ui`, `candidates`, `clickPoint`, ...) it uses.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG_NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// Board coordinates of a point name (`a1` bottom left), flipped on request.
function xy(name) {
  let x = name.charCodeAt(0) - 97;
  let y = 6 - (name.charCodeAt(1) - 49);
  if (ui.config.flip) { x = 6 - x; y = 6 - y; }
  return [x, y];
}

function allPoints() {
  const seen = new Set();
  for (const line of ui.st.lines) for (const p of line) seen.add(p);
  return [...seen];
}

function drawBoard() {
  const svg = $('board');
  svg.replaceChildren();
  const st = ui.st;
  if (!st) return;
  const g = el('g', {}, svg);
  for (const line of st.lines) {
    const pts = line.map(xy).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    el('line', { class: 'line', x1: pts[0][0], y1: pts[0][1], x2: pts[2][0], y2: pts[2][1] }, g);
  }
  // The coordinates in the margin left and below (the viewBox leaves it
  // wider there), clear of the widest ring round an edge point (0.43).
  for (let f = 0; f < 7; f++) {
    const file = String.fromCharCode(97 + f);
    const [x] = xy(file + '1');
    el('text', { class: 'coord', x, y: 6.62 }, g).textContent = file;
    const [, y] = xy('a' + (f + 1));
    el('text', { class: 'coord rank', x: -0.48, y }, g).textContent = String(f + 1);
  }
  const points = allPoints();
  for (const p of points) {
    const [x, y] = xy(p);
    el('circle', { class: 'dot', cx: x, cy: y, r: 0.09 }, g);
  }
  for (const p of st.marked) drawMarked(g, p);
  // The last turn.
  const last = st.moves.length ? parseMove(st.moves[st.moves.length - 1]) : null;
  if (last) {
    if (last.from) { const [x, y] = xy(last.from); el('circle', { class: 'last-from', cx: x, cy: y, r: 0.16 }, g); }
    if (last.to) { const [x, y] = xy(last.to); el('circle', { class: 'last', cx: x, cy: y, r: 0.4 }, g); }
  }
  // Pieces, with the turn being clicked shown as it will be.
  const white = new Set(st.white), black = new Set(st.black);
  const mover = st.side === 'white' ? white : black;
  const clicked = ui.clicks;
  const partial = candidates(clicked)[0];
  let ghostTo = null, movedFrom = null;
  if (partial && clicked.length >= stepOf(partial).length && stepOf(partial).length) {
    ghostTo = partial.to;
    movedFrom = partial.from;
  }
  for (const p of points) {
    const color = white.has(p) ? 'white' : black.has(p) ? 'black' : null;
    if (!color) continue;
    const [x, y] = xy(p);
    const cls = 'piece ' + color + (p === movedFrom ? ' ghost' : '') + (clicked.includes(p) && p !== movedFrom ? ' ghost' : '');
    el('circle', { class: cls, cx: x, cy: y, r: 0.3, 'data-piece': color }, g);
  }
  if (ghostTo) {
    const [x, y] = xy(ghostTo);
    el('circle', { class: 'piece ' + st.side, cx: x, cy: y, r: 0.3 }, g);
    el('circle', { class: 'selected', cx: x, cy: y, r: 0.38 }, g);
  }
  if (clicked.length === 1 && mover.has(clicked[0])) {
    const [x, y] = xy(clicked[0]);
    el('circle', { class: 'selected', cx: x, cy: y, r: 0.38 }, g);
  }
  if (last) {
    for (const r of last.rem) drawCross(g, r, 'removed');
  }
  // Where a click may go next, and the pieces that can move.
  if (humanToMove()) {
    for (const [p, kind] of nextTargets(clicked)) {
      const [x, y] = xy(p);
      if (kind === 'remove') el('circle', { class: 'removable', cx: x, cy: y, r: 0.38, 'data-target': p }, g);
      else if (kind === 'empty') el('circle', { class: 'target', cx: x, cy: y, r: 0.12, 'data-target': p }, g);
    }
    for (const p of movablePieces()) {
      if (p === clicked[0]) continue;
      const [x, y] = xy(p);
      el('circle', { class: 'movable', cx: x, cy: y, r: 0.38, 'data-movable': p }, g);
    }
  }
  drawHint(g);
  // Click targets on top of everything, as wide as the points' spacing
  // allows (neighbours are 1 apart).
  for (const p of points) {
    const [x, y] = xy(p);
    el('circle', { class: 'hit', cx: x, cy: y, r: 0.5, 'data-point': p }, g);
  }
}

// A point a placing mill marked (Da San Qi's `X`): closed until placing ends.
function drawMarked(g, p) {
  const [x, y] = xy(p);
  const group = el('g', { class: 'marked', 'data-marked': p }, g);
  el('title', {}, group).textContent = p + ' is marked: no piece goes there until placing ends';
  el('circle', { class: 'marked-disc', cx: x, cy: y, r: 0.24 }, group);
  drawCross(group, p, 'marked-x', 0.13);
}

function drawCross(g, p, cls, size) {
  const [x, y] = xy(p);
  const d = size || 0.2;
  el('line', { class: cls, x1: x - d, y1: y - d, x2: x + d, y2: y + d }, g);
  el('line', { class: cls, x1: x - d, y1: y + d, x2: x + d, y2: y - d }, g);
}

function currentHint() {
  const f = ui.st && ui.st.finished;
  if (!f || f.purpose !== 'hint' || f.ply !== ui.st.moves.length || !f.best) return null;
  return parseMove(f.best);
}

function drawHint(g) {
  const hint = currentHint();
  if (!hint) return;
  const group = el('g', { class: 'hint', 'data-hint': hint.text }, g);
  if (hint.from && hint.to) {
    const [x1, y1] = xy(hint.from), [x2, y2] = xy(hint.to);
    const len = Math.hypot(x2 - x1, y2 - y1);
    const ux = (x2 - x1) / len, uy = (y2 - y1) / len;
    const ex = x2 - ux * 0.3, ey = y2 - uy * 0.3;
    el('line', { class: 'hint-arrow', x1: x1 + ux * 0.3, y1: y1 + uy * 0.3, x2: ex, y2: ey }, group);
    const h = 0.22;
    el('path', {
      class: 'hint-arrow',
      d: `M ${ex - ux * h - uy * h} ${ey - uy * h + ux * h} L ${ex} ${ey} L ${ex - ux * h + uy * h} ${ey - uy * h - ux * h}`,
    }, group);
  } else if (hint.to) {
    const [x, y] = xy(hint.to);
    el('circle', { class: 'hint-dot', cx: x, cy: y, r: 0.3 }, group);
  }
  for (const r of hint.rem) drawCross(group, r, 'hint-x');
}

// Clicks, and drags on touch screens: a press picks, a release elsewhere
// drops there.
function setupBoardInput() {
  const svg = $('board');
  let down = null;
  svg.addEventListener('pointerdown', (e) => {
    const p = e.target.getAttribute && e.target.getAttribute('data-point');
    if (!p) return;
    e.preventDefault();
    down = p;
    clickPoint(p);
  });
  svg.addEventListener('pointerup', (e) => {
    if (!down) return;
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const p = under && under.getAttribute && under.getAttribute('data-point');
    const from = down;
    down = null;
    if (p && p !== from && nextTargets(ui.clicks).has(p)) clickPoint(p);
  });
  svg.addEventListener('pointercancel', () => { down = null; });
}
