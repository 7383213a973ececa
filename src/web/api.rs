//! The JSON API of `mulino gui`: every call is `POST /api/<name>` with a
//! JSON object naming its session (but `session`, which makes one), and
//! answers the game's whole state, or `{"error": ..., "code": ...}` with
//! a 4xx status and the game unchanged.
//!
//! | call | fields | does |
//! |---|---|---|
//! | `session` | `variant`, `fen`, `moves`, `redo`, `evals` (all optional) | a new session, restoring a saved game and its evaluations |
//! | `state` | | the state (the page polls it while the engine thinks) |
//! | `new` | `variant` (optional) | a new game |
//! | `move` | `move` (`d6`, `d6-d5`, `d6-d5xb4`) | plays a whole turn |
//! | `undo`, `redo` | `count` (default 1) | takes back or replays whole turns |
//! | `fen` | `fen` | sets up a position (Sanmill's FEN) |
//! | `go` | `purpose` (`play`, `hint`, `analyse`), `level` (0-20), `movetime` (ms; none: until `stop`), `multipv` | starts a search; a hint is always at full strength within a fixed node budget (`level` and `movetime` ignored) |
//! | `stop` | | ends the search; a playing engine plays its best move so far |
//! | `tablebases` | `url` | the packed databases at `url` for this session and the page's values (the board as static files; refused by `mulino gui`, whose `--tb` gives them) |
//!
//! Each call's fields are read into a struct of its own, and the answers
//! are written from structs (serde): a field the call does not read is
//! ignored, a missing one or one of the wrong type is refused (400) with
//! serde's account of it, and a number out of range is named.
//!
//! The state ([`state`]) holds everything the page draws, so that the
//! page keeps no rules of its own. Among its fields:
//!
//! | field | holds |
//! |---|---|
//! | `moves`, `redo` | the whole turns played; the undone ones, the next to redo last |
//! | `turns` | for each of `moves`, then each of `redo` in the order they replay: `side` (who plays it) and `fullmove` (its number), as the rules core counts them; a rule may give one side two turns in a row (Da San Qi, Experimental, Zhi Qi) |
//! | `side`, `fullmove`, `phase` | the side to move, the current full-move number, and `placing`, `moving`, `flying` or `removing` |
//! | `white`, `black`, `marked`, `in_hand` | the points of each side's pieces, the points marked by a placing mill under mark-and-delay (Da San Qi's `X`: no piece may go there until placing ends), the pieces in hand |
//! | `legal` | every legal whole turn |
//! | `outcome` | `null`, or the `result` (`1-0`, `0-1`, `1/2-1/2`) and its `reason` |
//! | `evals`, `search`, `finished` | the evaluation after each number of moves, the search in progress, the last hint or analysis; each of their `lines` has its `multipv`, `depth`, `eval`, `wdl` (White's win, the draw and Black's win per mille, as `UCI_ShowWDL` gives them) and `pv` |

use serde::{Deserialize, Serialize};

use super::sessions::{
    Eval, Line, MAX_MOVETIME_MS, Purpose, SearchRequest, Session, SessionError, Sessions,
    lock_session,
};
use super::tablebase::{self, TbAnswer};
use crate::core::{Color, Move, Point, Variant};

/// Everything a request can get wrong.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no such API call `{0}`")]
    UnknownCall(String),
    #[error("the request body is not a JSON object: {0}")]
    BadJson(String),
    #[error("the request's fields do not fit `{call}`: {reason}")]
    BadFields { call: String, reason: String },
    #[error("`{field}` must be {expected}")]
    BadField {
        field: &'static str,
        expected: &'static str,
    },
    #[error("unknown session (the server may have restarted)")]
    UnknownSession,
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("TablebasePath: {0}")]
    Tablebases(String),
}

impl ApiError {
    /// The HTTP status and a code the page can act on.
    pub fn status_and_code(&self) -> (u16, &'static str) {
        match self {
            ApiError::UnknownCall(_) => (404, "unknown_call"),
            ApiError::UnknownSession => (404, "unknown_session"),
            ApiError::BadJson(_) | ApiError::BadFields { .. } | ApiError::BadField { .. } => {
                (400, "bad_request")
            }
            ApiError::Session(SessionError::Engine(_)) => (409, "engine"),
            ApiError::Session(_) => (422, "refused"),
            ApiError::Tablebases(_) => (422, "tablebases"),
        }
    }

    /// The answer's body.
    pub fn to_json(&self) -> String {
        error_body(&self.to_string(), self.status_and_code().1)
    }
}

/// A refusal as the page gets it: `{"error": ..., "code": ...}`.
pub fn error_body(error: &str, code: &str) -> String {
    #[derive(Serialize)]
    struct Refusal<'a> {
        error: &'a str,
        code: &'a str,
    }
    to_json(&Refusal { error, code })
}

/// An answer's JSON text. Plain structs always serialize; should one not,
/// the page still gets JSON that says so.
fn to_json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| {
        r#"{"error":"the answer could not be written","code":"internal"}"#.to_string()
    })
}

/// The English names of the presets, in the order of [`Variant::ALL`].
pub fn variant_label(v: Variant) -> &'static str {
    match v {
        Variant::Nine => "Nine Men's Morris",
        Variant::Twelve => "Twelve Men's Morris",
        Variant::Morabaraba => "Morabaraba",
        Variant::Russian => "Russian Mill",
        Variant::Lasker => "Lasker Morris",
        Variant::ChengSanQi => "Cheng San Qi",
        Variant::Dooz => "Dooz",
        Variant::DaSanQi => "Da San Qi",
        Variant::ZhiQi => "Zhi Qi",
        Variant::ElFilja => "El Filja",
        Variant::Experimental => "Experimental",
    }
}

// The calls' requests. A field that may be left out is an `Option`
// (`null` counts as left out); fields the call does not read are
// ignored, as the page sends `session` with every call.

/// `session`: a new session, restoring a saved game and its graph.
#[derive(Deserialize)]
struct Restore {
    variant: Option<String>,
    fen: Option<String>,
    moves: Option<Vec<String>>,
    redo: Option<Vec<String>>,
    evals: Option<Vec<Option<Eval>>>,
}

/// `state` and `stop`.
#[derive(Deserialize)]
struct OnSession {
    session: String,
}

/// `new`.
#[derive(Deserialize)]
struct NewGame {
    session: String,
    variant: Option<String>,
}

/// `move`.
#[derive(Deserialize)]
struct Play {
    session: String,
    #[serde(rename = "move")]
    text: String,
}

/// `undo` and `redo`.
#[derive(Deserialize)]
struct Turns {
    session: String,
    count: Option<u64>,
}

/// `fen`.
#[derive(Deserialize)]
struct SetUp {
    session: String,
    fen: String,
}

/// `tablebases`: the URL of a packed folder (the board as static files).
#[derive(Deserialize)]
struct UseTablebases {
    session: String,
    url: String,
}

/// `go`.
#[derive(Deserialize)]
struct Go {
    session: String,
    purpose: String,
    level: Option<u64>,
    movetime: Option<u64>,
    multipv: Option<u64>,
}

/// A call's fields from the request body (an empty body: no fields).
fn parse<'a, T: Deserialize<'a>>(call: &str, body: &'a str) -> Result<T, ApiError> {
    let body = if body.trim().is_empty() { "{}" } else { body };
    // A struct would also be read from a list of its values.
    if !body.trim_start().starts_with('{') {
        return Err(ApiError::BadJson("not an object".into()));
    }
    serde_json::from_str(body).map_err(|e| {
        if e.is_data() {
            ApiError::BadFields {
                call: call.to_string(),
                reason: e.to_string(),
            }
        } else {
            ApiError::BadJson(e.to_string())
        }
    })
}

/// `value` when it is at most `max`.
fn at_most(value: Option<u64>, field: &'static str, max: u64) -> Result<Option<u64>, ApiError> {
    match value {
        Some(n) if n > max => Err(ApiError::BadField {
            field,
            expected: "a whole number in range",
        }),
        _ => Ok(value),
    }
}

/// Answers one API call: the JSON text to send, with its status.
pub fn handle(sessions: &Sessions, call: &str, body: &str) -> (u16, String) {
    answer(dispatch(sessions, call, body, true))
}

/// Answers a call that came while its session's search ran and waited
/// for that search to stop (WebAssembly, where the search runs on the
/// only thread: `src/wasm/api.rs`). The answer is the one [`handle`]
/// gives natively at the moment the call came: the search's answer,
/// which has come in the meantime, is not taken in first, so that a
/// call which changes the game drops it (as its `halt` does natively
/// with a search still running), and `stop` takes it in.
pub fn handle_after_search(sessions: &Sessions, call: &str, body: &str) -> (u16, String) {
    answer(dispatch(sessions, call, body, false))
}

fn answer(result: Result<State, ApiError>) -> (u16, String) {
    match result {
        Ok(state) => (200, to_json(&state)),
        Err(e) => (e.status_and_code().0, e.to_json()),
    }
}

/// What a call on a session does, its fields read and checked.
enum Action {
    Look,
    Stop,
    NewGame(Option<String>),
    Play(String),
    Undo(usize),
    Redo(usize),
    SetUp(String),
    Go(SearchRequest),
    /// The packed databases at a URL, for this session's engine and page.
    Tablebases(String),
}

/// The session a call names and what it does there.
fn read_call(call: &str, body: &str) -> Result<(String, Action), ApiError> {
    let count = |turns: Turns| {
        let count = at_most(turns.count, "count", 10_000)?.unwrap_or(1) as usize;
        Ok::<_, ApiError>((turns.session, count))
    };
    Ok(match call {
        "state" => (parse::<OnSession>(call, body)?.session, Action::Look),
        "stop" => (parse::<OnSession>(call, body)?.session, Action::Stop),
        "new" => {
            let new: NewGame = parse(call, body)?;
            (new.session, Action::NewGame(new.variant))
        }
        "move" => {
            let play: Play = parse(call, body)?;
            (play.session, Action::Play(play.text))
        }
        "undo" => {
            let (session, n) = count(parse(call, body)?)?;
            (session, Action::Undo(n))
        }
        "redo" => {
            let (session, n) = count(parse(call, body)?)?;
            (session, Action::Redo(n))
        }
        "fen" => {
            let set_up: SetUp = parse(call, body)?;
            (set_up.session, Action::SetUp(set_up.fen))
        }
        "tablebases" => {
            let t: UseTablebases = parse(call, body)?;
            (t.session, Action::Tablebases(t.url))
        }
        "go" => {
            let go: Go = parse(call, body)?;
            let purpose = Purpose::from_name(&go.purpose).ok_or(ApiError::BadField {
                field: "purpose",
                expected: "`play`, `hint` or `analyse`",
            })?;
            let multipv = at_most(go.multipv, "multipv", 16)?.unwrap_or(1).max(1) as usize;
            let request = match purpose {
                // A hint is the engine's best, within a fixed budget: its
                // level and time are not the page's to choose.
                Purpose::Hint => SearchRequest::hint(multipv),
                _ => SearchRequest {
                    purpose,
                    skill: at_most(go.level, "level", 20)?.unwrap_or(20) as u8,
                    movetime: at_most(go.movetime, "movetime", MAX_MOVETIME_MS)?,
                    nodes: None,
                    multipv,
                },
            };
            (go.session, Action::Go(request))
        }
        _ => return Err(ApiError::UnknownCall(call.to_string())),
    })
}

/// A call's answer; `settle`: first take in the answer of a search that
/// has ended.
/// A folder's URL as a pack's source names it (with its final `/`).
fn url_folder(url: &str) -> String {
    let url = url.trim();
    if url.ends_with('/') {
        url.to_string()
    } else {
        format!("{url}/")
    }
}

fn dispatch(sessions: &Sessions, call: &str, body: &str, settle: bool) -> Result<State, ApiError> {
    if call == "session" {
        let r: Restore = parse(call, body)?;
        let session = Session::restore(
            r.variant.as_deref().unwrap_or("nine"),
            r.fen.as_deref(),
            &r.moves.unwrap_or_default(),
            &r.redo.unwrap_or_default(),
            &r.evals.unwrap_or_default(),
        )?;
        let mut st = state(&session, "");
        st.session = sessions.insert(session);
        return Ok(st);
    }
    let (id, action) = read_call(call, body)?;
    let shared = sessions.get(&id).ok_or(ApiError::UnknownSession)?;
    let mut s = lock_session(&shared);
    s.touch();
    if settle {
        s.settle();
    }
    match action {
        Action::Look => {}
        Action::Stop => s.stop(),
        Action::NewGame(variant) => s.new_game(variant.as_deref())?,
        Action::Play(text) => s.play(&text)?,
        Action::Undo(n) => s.undo(n)?,
        Action::Redo(n) => s.redo(n)?,
        Action::SetUp(fen) => s.set_fen(&fen)?,
        Action::Go(request) => s.go(request)?,
        Action::Tablebases(url) => {
            let open =
                tablebase::tables().filter(|t| t.dir().to_string_lossy() == url_folder(&url));
            let tables = match open {
                Some(t) => t,
                None => tablebase::open_url(&url).map_err(ApiError::Tablebases)?,
            };
            s.use_tablebases(tables);
        }
    }
    Ok(state(&s, &id))
}

// The answers.

/// The whole state of a session's game, as the page draws it (the fields
/// are described at the top of this module).
#[derive(Serialize)]
pub struct State {
    pub session: String,
    variant: &'static str,
    variants: Vec<VariantName>,
    lines: Vec<Vec<String>>,
    pieces: u8,
    start_fen: Option<String>,
    start_side: &'static str,
    start_fullmove: u16,
    fen: String,
    moves: Vec<String>,
    redo: Vec<String>,
    white: Vec<String>,
    black: Vec<String>,
    in_hand: [u8; 2],
    side: &'static str,
    fullmove: u16,
    turns: Vec<TurnView>,
    marked: Vec<String>,
    phase: &'static str,
    pending_removals: u8,
    legal: Vec<String>,
    outcome: Option<OutcomeView>,
    evals: Vec<Option<Eval>>,
    search: Option<SearchView>,
    finished: Option<FinishedView>,
    tablebase: Option<TablebaseView>,
}

/// A preset: its name in the API and its label for people.
#[derive(Serialize)]
struct VariantName {
    name: &'static str,
    label: &'static str,
}

#[derive(Serialize)]
struct TurnView {
    side: &'static str,
    fullmove: u16,
}

#[derive(Serialize)]
struct OutcomeView {
    result: &'static str,
    reason: String,
}

/// One principal variation, `multipv` its rank from 1.
#[derive(Serialize)]
struct LineView {
    multipv: usize,
    depth: u32,
    eval: Eval,
    /// White's win, the draw and Black's win, per mille.
    wdl: [u16; 3],
    pv: Vec<String>,
}

/// The search in progress; `movetime` is `null` when it runs until
/// stopped.
#[derive(Serialize)]
struct SearchView {
    purpose: &'static str,
    movetime: Option<u64>,
    elapsed_ms: u64,
    nodes: u64,
    lines: Vec<LineView>,
}

/// The last hint or analysis, at ply `ply`.
#[derive(Serialize)]
struct FinishedView {
    purpose: &'static str,
    ply: usize,
    best: Option<String>,
    lines: Vec<LineView>,
}

/// A database answer as the page gets it: `result` under the N-move rules
/// (`win`, `draw`, `loss`, or `unknown` where the databases cannot say),
/// `plies` to the end of the game and `removal` to the next removal (or
/// null), and `pure`, the value without the N-move rules where it differs
/// (or null); for the position, `moves` holds each move's, best first.
#[derive(Serialize)]
struct TablebaseView {
    #[serde(flatten)]
    value: TbAnswer,
    moves: Vec<TbMoveView>,
}

#[derive(Serialize)]
struct TbMoveView {
    #[serde(rename = "move")]
    text: String,
    #[serde(flatten)]
    value: TbAnswer,
}

fn lines(lines: &[Line]) -> Vec<LineView> {
    lines
        .iter()
        .enumerate()
        .map(|(rank, l)| LineView {
            multipv: rank + 1,
            depth: l.depth,
            eval: l.eval,
            wdl: l.wdl,
            pv: l.pv.iter().map(Move::to_string).collect(),
        })
        .collect()
}

fn points(b: crate::core::Bitboard) -> Vec<String> {
    b.map(|p: Point| p.to_string()).collect()
}

/// The whole state of a session's game, as the page draws it.
pub fn state(s: &Session, id: &str) -> State {
    let engine = s.engine();
    let rules = engine.rules();
    let game = engine.game();
    let pos = game.position();
    let side = pos.side_to_move();
    let phase = if pos.pending_removals() > 0 {
        "removing"
    } else if pos.is_placing() {
        "placing"
    } else if pos.can_fly(rules, side) {
        "flying"
    } else {
        "moving"
    };
    let search = s.running().map(|r| {
        let slot = r.slot.lock().unwrap_or_else(|e| e.into_inner());
        SearchView {
            purpose: r.request.purpose.name(),
            movetime: r.request.movetime,
            elapsed_ms: r.started.elapsed().as_millis() as u64,
            nodes: slot.nodes,
            lines: lines(&slot.lines),
        }
    });
    let start = game.start();
    State {
        session: id.to_string(),
        variant: s.variant().name(),
        variants: Variant::ALL
            .iter()
            .map(|&v| VariantName {
                name: v.name(),
                label: variant_label(v),
            })
            .collect(),
        lines: rules.geometry().lines.iter().map(|&l| points(l)).collect(),
        pieces: rules.pieces,
        start_fen: s.start_fen().map(str::to_string),
        start_side: start.side_to_move().name(),
        start_fullmove: start.fullmove(),
        fen: pos.fen(rules),
        moves: s.moves().to_vec(),
        redo: s.redo_moves().to_vec(),
        white: points(pos.pieces(Color::White)),
        black: points(pos.pieces(Color::Black)),
        in_hand: [pos.in_hand(Color::White), pos.in_hand(Color::Black)],
        side: side.name(),
        fullmove: pos.fullmove(),
        turns: s
            .turns()
            .iter()
            .map(|t| TurnView {
                side: t.side.name(),
                fullmove: t.fullmove,
            })
            .collect(),
        marked: points(pos.marked()),
        phase,
        pending_removals: pos.pending_removals(),
        legal: engine.legal_moves().iter().map(Move::to_string).collect(),
        outcome: game.outcome().map(|o| OutcomeView {
            result: o.result_text(),
            reason: o.describe(),
        }),
        evals: s.evals().to_vec(),
        search,
        finished: s.finished().map(|f| FinishedView {
            purpose: f.purpose.name(),
            ply: f.ply,
            best: f.best.map(|m| m.to_string()),
            lines: lines(&f.lines),
        }),
        tablebase: tablebase::probe(pos, rules).map(|(value, moves)| TablebaseView {
            value,
            moves: moves
                .into_iter()
                .map(|(m, value)| TbMoveView {
                    text: m.to_string(),
                    value,
                })
                .collect(),
        }),
    }
}
