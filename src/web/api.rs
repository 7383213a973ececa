//! The JSON API of `mulino gui`: every call is `POST /api/<name>` with a
//! JSON object naming its session (but `session`, which makes one), and
//! answers the game's whole state, or `{"error": ..., "code": ...}` with
//! a 4xx status and the game unchanged.
//!
//! | call | fields | does |
//! |---|---|---|
//! | `session` | `variant`, `fen`, `moves`, `redo` (all optional) | a new session, restoring a saved game |
//! | `state` | | the state (the page polls it while the engine thinks) |
//! | `new` | `variant` (optional) | a new game |
//! | `move` | `move` (`d6`, `d6-d5`, `d6-d5xb4`) | plays a whole turn |
//! | `undo`, `redo` | `count` (default 1) | takes back or replays whole turns |
//! | `fen` | `fen` | sets up a position (Sanmill's FEN) |
//! | `go` | `purpose` (`play`, `hint`, `analyse`), `level` (0-20), `movetime` (ms; none: until `stop`), `multipv` | starts a search |
//! | `stop` | | ends the search; a playing engine plays its best move so far |
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
//! | `evals`, `search`, `finished` | the evaluation after each number of moves, the search in progress, the last hint or analysis |

use serde_json::{Map, Value, json};

use super::sessions::{
    Eval, Line, MAX_MOVETIME_MS, Purpose, SearchRequest, Session, SessionError, Sessions,
    lock_session,
};
use super::tablebase;
use crate::core::{Color, Move, Point, Variant};

/// Everything a request can get wrong.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("no such API call `{0}`")]
    UnknownCall(String),
    #[error("the request body is not a JSON object: {0}")]
    BadJson(String),
    #[error("`{0}` is missing")]
    Missing(&'static str),
    #[error("`{field}` must be {expected}")]
    BadField {
        field: &'static str,
        expected: &'static str,
    },
    #[error("unknown session (the server may have restarted)")]
    UnknownSession,
    #[error(transparent)]
    Session(#[from] SessionError),
}

impl ApiError {
    /// The HTTP status and a code the page can act on.
    pub fn status_and_code(&self) -> (u16, &'static str) {
        match self {
            ApiError::UnknownCall(_) => (404, "unknown_call"),
            ApiError::UnknownSession => (404, "unknown_session"),
            ApiError::BadJson(_) | ApiError::Missing(_) | ApiError::BadField { .. } => {
                (400, "bad_request")
            }
            ApiError::Session(SessionError::Engine(_)) => (409, "engine"),
            ApiError::Session(_) => (422, "refused"),
        }
    }

    pub fn to_json(&self) -> Value {
        let (_, code) = self.status_and_code();
        json!({ "error": self.to_string(), "code": code })
    }
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

/// The request's fields.
struct Fields(Map<String, Value>);

impl Fields {
    fn parse(body: &str) -> Result<Fields, ApiError> {
        if body.trim().is_empty() {
            return Ok(Fields(Map::new()));
        }
        match serde_json::from_str::<Value>(body) {
            Ok(Value::Object(map)) => Ok(Fields(map)),
            Ok(_) => Err(ApiError::BadJson("not an object".into())),
            Err(e) => Err(ApiError::BadJson(e.to_string())),
        }
    }

    fn str(&self, field: &'static str) -> Result<Option<&str>, ApiError> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(ApiError::BadField {
                field,
                expected: "a string",
            }),
        }
    }

    fn need_str(&self, field: &'static str) -> Result<&str, ApiError> {
        self.str(field)?.ok_or(ApiError::Missing(field))
    }

    fn uint(&self, field: &'static str, max: u64) -> Result<Option<u64>, ApiError> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) if n <= max => Ok(Some(n)),
                _ => Err(ApiError::BadField {
                    field,
                    expected: "a whole number in range",
                }),
            },
        }
    }

    fn strings(&self, field: &'static str) -> Result<Vec<String>, ApiError> {
        let bad = ApiError::BadField {
            field,
            expected: "a list of strings",
        };
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or(bad),
            Some(_) => Err(bad),
        }
    }
}

/// Answers one API call: the JSON text to send, with its status.
pub fn handle(sessions: &Sessions, call: &str, body: &str) -> (u16, String) {
    match dispatch(sessions, call, body) {
        Ok(state) => (200, state.to_string()),
        Err(e) => (e.status_and_code().0, e.to_json().to_string()),
    }
}

fn dispatch(sessions: &Sessions, call: &str, body: &str) -> Result<Value, ApiError> {
    let fields = Fields::parse(body)?;
    if call == "session" {
        let variant = fields.str("variant")?.unwrap_or("nine");
        let fen = fields.str("fen")?;
        let moves = fields.strings("moves")?;
        let redo = fields.strings("redo")?;
        let session = Session::restore(variant, fen, &moves, &redo)?;
        let st = state(&session, "");
        let id = sessions.insert(session);
        let mut st = st;
        st["session"] = Value::String(id);
        return Ok(st);
    }
    let known = ["state", "new", "move", "undo", "redo", "fen", "go", "stop"];
    if !known.contains(&call) {
        return Err(ApiError::UnknownCall(call.to_string()));
    }
    let id = fields.need_str("session")?;
    let shared = sessions.get(id).ok_or(ApiError::UnknownSession)?;
    let mut s = lock_session(&shared);
    s.touch();
    s.settle();
    let count = || {
        fields
            .uint("count", 10_000)
            .map(|c| c.unwrap_or(1) as usize)
    };
    match call {
        "new" => s.new_game(fields.str("variant")?)?,
        "move" => s.play(fields.need_str("move")?)?,
        "undo" => s.undo(count()?)?,
        "redo" => s.redo(count()?)?,
        "fen" => s.set_fen(fields.need_str("fen")?)?,
        "go" => {
            let purpose = fields.need_str("purpose")?;
            let purpose = Purpose::from_name(purpose).ok_or(ApiError::BadField {
                field: "purpose",
                expected: "`play`, `hint` or `analyse`",
            })?;
            let request = SearchRequest {
                purpose,
                skill: fields.uint("level", 20)?.unwrap_or(20) as u8,
                movetime: fields.uint("movetime", MAX_MOVETIME_MS)?,
                multipv: fields.uint("multipv", 16)?.unwrap_or(1).max(1) as usize,
            };
            s.go(request)?;
        }
        "stop" => s.stop(),
        _ => {}
    }
    Ok(state(&s, id))
}

fn eval_json(e: Eval) -> Value {
    match e {
        Eval::Cp(cp) => json!({ "cp": cp }),
        Eval::Mate(n) => json!({ "mate": n }),
    }
}

fn line_json(rank: usize, l: &Line) -> Value {
    json!({
        "multipv": rank + 1,
        "depth": l.depth,
        "eval": eval_json(l.eval),
        "pv": l.pv.iter().map(Move::to_string).collect::<Vec<_>>(),
    })
}

fn points(b: crate::core::Bitboard) -> Vec<String> {
    b.map(|p: Point| p.to_string()).collect()
}

/// The whole state of a session's game, as the page draws it.
pub fn state(s: &Session, id: &str) -> Value {
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
    let outcome = game
        .outcome()
        .map(|o| json!({ "result": o.result_text(), "reason": o.describe() }));
    let search = s.running().map(|r| {
        let slot = r.slot.lock().unwrap_or_else(|e| e.into_inner());
        json!({
            "purpose": r.request.purpose.name(),
            "movetime": r.request.movetime,
            "elapsed_ms": r.started.elapsed().as_millis() as u64,
            "nodes": slot.nodes,
            "lines": slot.lines.iter().enumerate().map(|(i, l)| line_json(i, l)).collect::<Vec<_>>(),
        })
    });
    let finished = s.finished().map(|f| {
        json!({
            "purpose": f.purpose.name(),
            "ply": f.ply,
            "best": f.best.map(|m| m.to_string()),
            "lines": f.lines.iter().enumerate().map(|(i, l)| line_json(i, l)).collect::<Vec<_>>(),
        })
    });
    let start = game.start();
    let geometry = rules.geometry();
    json!({
        "session": id,
        "variant": s.variant().name(),
        "variants": Variant::ALL.iter().map(|&v| json!({"name": v.name(), "label": variant_label(v)})).collect::<Vec<_>>(),
        "lines": geometry.lines.iter().map(|&l| points(l)).collect::<Vec<_>>(),
        "pieces": rules.pieces,
        "start_fen": s.start_fen(),
        "start_side": start.side_to_move().name(),
        "start_fullmove": start.fullmove(),
        "fen": pos.fen(rules),
        "moves": s.moves(),
        "redo": s.redo_moves(),
        "white": points(pos.pieces(Color::White)),
        "black": points(pos.pieces(Color::Black)),
        "in_hand": [pos.in_hand(Color::White), pos.in_hand(Color::Black)],
        "side": side.name(),
        "fullmove": pos.fullmove(),
        "turns": s.turns().iter().map(|t| json!({"side": t.side.name(), "fullmove": t.fullmove})).collect::<Vec<_>>(),
        "marked": points(pos.marked()),
        "phase": phase,
        "pending_removals": pos.pending_removals(),
        "legal": engine.legal_moves().iter().map(Move::to_string).collect::<Vec<_>>(),
        "outcome": outcome,
        "evals": s.evals().iter().map(|e| e.map(eval_json)).collect::<Vec<_>>(),
        "search": search,
        "finished": finished,
        "tablebase": tablebase::probe(pos, rules).map(|(t, moves)| {
            let mut value = tb_json(&t);
            value["moves"] = moves
                .iter()
                .map(|(m, v)| {
                    let mut mv = tb_json(v);
                    mv["move"] = json!(m.to_string());
                    mv
                })
                .collect::<Vec<_>>()
                .into();
            value
        }),
    })
}

/// A database answer as the page gets it: `result` under the N-move rules
/// (`win`, `draw`, `loss`, or `unknown` where the databases cannot say),
/// `plies` to the end of the game and `removal` to the next removal (or
/// null), and `pure`, the value without the N-move rules where it differs
/// (or null).
fn tb_json(t: &tablebase::TbAnswer) -> Value {
    json!({
        "result": t.result,
        "plies": t.plies,
        "removal": t.removal,
        "pure": t.pure,
    })
}
