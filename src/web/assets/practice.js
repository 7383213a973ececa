// mulino gui: endgame practice. A position of a chosen kind (3 v 3,
// 5 v 4, 7 v 4, ...: the player's pieces against the engine's), won or
// drawn for the side to move, is drawn from the board's sets
// (endgames/<variant>.tsv: sampled from the databases by `mulino tb
// endgames`, each line a FEN, its value and the moves that keep it). The
// player plays it out against the engine at full strength, which plays
// perfectly where it has the databases (`mulino gui --tb DIR`) and by
// search otherwise, and the page says how it went: at the move where the
// value was thrown away, and at the end. Loaded before app.js.
'use strict';

// The sets by variant, once fetched: a promise of their positions (an
// empty list for a variant without a set).
const practiceSets = new Map();

// The databases' values of the position, from the side to move's view:
// `{result, plies, moves: [{move, result}, ...]}` (`result` one of win,
// draw, loss, unknown), or null where none are at hand. Today those of
// the engine's own databases (`mulino gui --tb DIR`, the state's
// `tablebase`); another source of databases answers here too.
function databaseValues(st) {
  return st.tablebase || null;
}

// The pieces of the side to move and of the other in a FEN, as `5v4`.
function fenKind(fen) {
  const fields = fen.trim().split(/\s+/);
  if (fields.length < 2 || !['w', 'b'].includes(fields[1])) return null;
  const count = (c) => fields[0].split(c).length - 1;
  const [white, black] = [count('O'), count('@')];
  return fields[1] === 'w' ? white + 'v' + black : black + 'v' + white;
}

// A set's positions: `{fen, goal, keep, kind}`, `goal` win or draw.
function parseSet(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [fen, value, keep] = line.split('\t');
    const kind = fen && fenKind(fen);
    if (!kind || (value !== 'win' && value !== 'draw')) continue;
    out.push({ fen: fen.trim(), goal: value, keep: (keep || '').split(' ').filter(Boolean), kind });
  }
  return out;
}

// The variants that have a set (endgames/index.json), fetched once.
let practiceIndex = null;

function loadSet(variant) {
  if (!practiceIndex) {
    practiceIndex = fetch('endgames/index.json')
      .then((r) => (r.ok ? r.json() : []))
      .catch(() => []);
  }
  if (!practiceSets.has(variant)) {
    practiceSets.set(variant, practiceIndex.then((names) => (!names.includes(variant) ? ''
      : fetch('endgames/' + variant + '.tsv').then((r) => (r.ok ? r.text() : ''))))
      .then(parseSet)
      .catch(() => []));
  }
  return practiceSets.get(variant);
}

// The kinds first by the pieces in all, then the player's most first.
function kindOrder(a, b) {
  const [a1, a2] = a.split('v').map(Number);
  const [b1, b2] = b.split('v').map(Number);
  return (a1 + a2) - (b1 + b2) || b1 - a1;
}

function kindLabel(kind) {
  const [own, other] = kind.split('v');
  return own + ' v ' + other;
}

// Fills the kinds for the variant on the board, once per variant.
async function showPracticeKinds(variant) {
  if (ui.practiceKindsFor === variant) return;
  ui.practiceKindsFor = variant;
  const set = await loadSet(variant);
  if (ui.practiceKindsFor !== variant) return;
  const select = $('practice-kind');
  const before = select.value || ui.config.practiceKind;
  select.replaceChildren();
  const kinds = [...new Set(set.map((p) => p.kind))].sort(kindOrder);
  for (const kind of kinds) {
    const o = document.createElement('option');
    o.value = kind;
    o.textContent = kindLabel(kind);
    select.appendChild(o);
  }
  if (kinds.includes(before)) select.value = before;
  $('btn-practice').disabled = !kinds.length;
  $('practice-kind').disabled = !kinds.length;
  $('practice-note').textContent = kinds.length
    ? kinds.length + ' kinds, ' + set.length + ' positions, each won or drawn for the side to move'
    : 'No endgame set for this variant (the sets cover the rules with databases).';
}

// Starts practice: a position of the chosen kind and goal, the player on
// the side to move, the engine against them at full strength.
async function startPractice() {
  const variant = ui.st.variant;
  const kind = $('practice-kind').value;
  const goal = $('practice-goal').value;
  const set = await loadSet(variant);
  const fits = set.filter((p) => p.kind === kind && (goal === 'any' || p.goal === goal));
  if (!fits.length) {
    notice('No ' + (goal === 'any' ? '' : goal === 'win' ? 'won ' : 'drawn ') + kindLabel(kind) + ' position in the set.');
    return;
  }
  practise(variant, fits[Math.floor(Math.random() * fits.length)]);
}

// The practice's position once more, to try again.
function practiseAgain() {
  const p = ui.practice;
  if (p) practise(p.variant, { fen: p.fen, kind: p.kind, goal: p.goal, keep: p.keep });
}

// Sets up `pick` (a set's position) for practice in `variant`.
function practise(variant, pick) {
  const kind = pick.kind;
  const side = pick.fen.split(/\s+/)[1] === 'w' ? 'white' : 'black';
  const cfg = ui.config;
  cfg.practiceKind = kind;
  cfg.white = side === 'white' ? 'human' : 'engine';
  cfg.black = side === 'black' ? 'human' : 'engine';
  cfg.level = '20';
  // The player's side at the bottom, as a board turned to its player.
  cfg.flip = side === 'black';
  saveConfig();
  for (const [id, key] of [['white-player', 'white'], ['black-player', 'black'], ['level', 'level']]) $(id).value = cfg[key];
  ui.analysing = false;
  ui.paused = false;
  act('fen', { fen: pick.fen }, () => {
    ui.practice = {
      variant, fen: pick.fen, kind, goal: pick.goal, keep: pick.keep, side,
      judged: 0, values: {}, thrown: null,
    };
    ui.fenTyped = false;
    practiceCheck(ui.st);
    saveGame();
    render();
  });
}

const RANK = { loss: 0, draw: 1, win: 2 };
const FLIP = { win: 'loss', loss: 'win', draw: 'draw', unknown: 'unknown' };

// The player's score in a finished game: win, draw or loss.
function practiceScore(outcome, side) {
  if (outcome.result === '1/2-1/2') return 'draw';
  return (outcome.result === '1-0') === (side === 'white') ? 'win' : 'loss';
}

// Follows the practice game in each new state: the value of each
// position where the databases tell it, and whether the player's last
// move kept the value the player had (the set's moves that keep it
// judge the first move where no databases are at hand).
function practiceCheck(st) {
  const p = ui.practice;
  if (!p) return;
  if (st.variant !== p.variant || (st.start_fen || '') !== p.fen) {
    ui.practice = null; // another game
    return;
  }
  const n = st.moves.length;
  // Undone: judged again when played again.
  if (p.thrown && p.thrown.ply >= n) p.thrown = null;
  p.judged = Math.min(p.judged, n);
  const values = databaseValues(st);
  if (values && values.result !== 'unknown') {
    const mine = st.side === p.side ? values.result : FLIP[values.result];
    const keeping = st.side === p.side
      ? (values.moves || []).filter((m) => m.result === values.result).map((m) => m.move) : [];
    p.values[n] = { result: mine, keeping };
  }
  for (let ply = p.judged; ply < n; ply++) {
    const t = st.turns[ply];
    if (p.thrown || !t || t.side !== p.side) continue;
    const before = ply === 0 ? { result: p.goal, keeping: p.keep } : p.values[ply];
    const after = p.values[ply + 1];
    let thrown = false;
    if (after && before) thrown = RANK[after.result] < RANK[before.result];
    else if (ply === 0 && p.keep.length) thrown = !p.keep.includes(st.moves[0]);
    if (thrown) {
      p.thrown = {
        ply, move: st.moves[ply], fullmove: t.fullmove, was: before.result,
        now: after ? after.result : null, keeping: (before.keeping || []).slice(0, 3),
      };
    }
  }
  p.judged = n;
}

// The practice's line by the board: the task, then how it goes.
function renderPractice() {
  const line = $('practice-line');
  const p = ui.practice;
  line.hidden = !p;
  $('btn-practice-again').disabled = !p;
  if (!p) return;
  const st = ui.st;
  const who = p.side === 'white' ? 'White' : 'Black';
  const task = 'Practice ' + kindLabel(p.kind) + ': ' + who + ' to ' + (p.goal === 'win' ? 'win' : 'hold the draw');
  const how = databaseValues(st) ? 'the engine plays perfectly, from the databases' : 'the engine plays by search';
  const thrown = p.thrown;
  const where = thrown ? 'Move ' + thrown.fullmove + ', ' + thrown.move + ', threw the ' + thrown.was + ' away'
    + (thrown.now ? ': ' + (thrown.now === 'loss' ? 'a loss' : 'a draw') + ' now' : '')
    + (thrown.keeping.length ? '; ' + thrown.keeping.join(' or ') + ' kept it' : '') : '';
  let text;
  let mood = '';
  if (st.outcome) {
    const score = practiceScore(st.outcome, p.side);
    const enough = RANK[score] >= RANK[p.goal];
    mood = enough ? 'good' : 'bad';
    const verdict = score === 'win' ? 'You won' : score === 'draw' ? 'A draw' : 'You lost';
    text = 'Practice ' + kindLabel(p.kind) + ' over: ' + verdict
      + (enough ? (p.goal === 'win' ? ': well played.' : ': the draw held.')
        : (where ? '. ' + where + '.' : ', and the ' + p.goal + ' was there.'));
  } else if (thrown) {
    mood = 'bad';
    text = task + '. ' + where + '.';
  } else {
    text = task + '; ' + how + '.';
  }
  line.textContent = text;
  line.className = 'practice-line' + (mood ? ' ' + mood : '');
  line.dataset.verdict = st.outcome ? (mood === 'good' ? 'held' : 'lost') : thrown ? 'thrown' : 'playing';
}

function setupPractice() {
  $('btn-practice').addEventListener('click', () => { if (ui.st) startPractice(); });
  $('btn-practice-again').addEventListener('click', () => { if (ui.st) practiseAgain(); });
  $('practice-goal').value = ui.config.practiceGoal || 'any';
  $('practice-goal').addEventListener('change', () => {
    ui.config.practiceGoal = $('practice-goal').value;
    saveConfig();
  });
}
