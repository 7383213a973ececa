//! The endgame databases in `mulino gui`: `--tb DIR` opens them once for
//! the whole server ([`open`]) and checks every file's checksum in the
//! background; the page then shows the value of every position they hold,
//! and of every move, under the N-move rules ([`probe`], from the
//! databases' one root probe), and each tab's engine plays from the same
//! open tables (`Engine::share_tablebases`). A damaged file is left out;
//! the rest serve.

use std::path::Path;
use std::sync::{Arc, RwLock};

use crate::core::{Move, Position, Rules};
use crate::tb::probe::Tablebases;
use crate::tb::root::probe_root;
use crate::tb::{TbValue, Wdl};

/// The databases the server was started with (or, in WebAssembly, the
/// page gave the URL of), if any.
static TABLES: RwLock<Option<Arc<Tablebases>>> = RwLock::new(None);

/// Opens the databases in `dir`, built for `rules`, for every session
/// (each plays from them in games of those rules), and starts checking
/// their checksums (a file
/// is used once it has passed; `on_checked` gets the count in use and the
/// problems). Returns how many files there are and what is wrong with any
/// at once, or why none can serve.
pub fn open(
    dir: &Path,
    rules: &Rules,
    on_checked: impl FnOnce(usize, Vec<String>) + Send + 'static,
) -> Result<(usize, Vec<String>), String> {
    let notify: crate::tb::probe::Notify =
        Arc::new(|what: &str| eprintln!("mulino gui: endgame databases: {what}"));
    let tables = Tablebases::for_play(dir, rules, Some(notify)).map_err(|e| e.to_string())?;
    let (found, problems) = tables.open_all();
    if found == 0 {
        return Err(problems.join("; "));
    }
    let tables = Arc::new(tables);
    tables.start_checks(on_checked);
    *TABLES.write().unwrap_or_else(|e| e.into_inner()) = Some(tables);
    Ok((found, problems))
}

/// Opens the packed databases at `url` (the engine in WebAssembly, whose
/// host fetches them; natively `mulino gui --tb DIR` gives the databases)
/// for every session from now on.
pub fn open_url(url: &str) -> Result<Arc<Tablebases>, String> {
    let source = crate::tb::pack::read::url_source(url).ok_or_else(|| {
        "the board takes the databases' URL only as static files; here `mulino gui --tb DIR` gives them"
            .to_string()
    })?;
    let notify: crate::tb::probe::Notify =
        Arc::new(|what: &str| eprintln!("mulino: endgame databases: {what}"));
    let tables =
        Tablebases::for_pack(source, &Rules::default(), Some(notify)).map_err(|e| e.to_string())?;
    let tables = Arc::new(tables);
    *TABLES.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&tables));
    Ok(tables)
}

/// The open databases, for each tab's engine.
pub fn tables() -> Option<Arc<Tablebases>> {
    TABLES.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// What the databases know about a position (or a move, for the side that
/// plays it), side to move's view; the page gets its fields by these
/// names.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TbAnswer {
    /// `"win"`, `"draw"` or `"loss"` under the N-move rules from the
    /// position's counter, or `"unknown"` where the databases cannot say
    /// whether the rules draw a win or loss.
    pub result: &'static str,
    /// Plies to the end of the game with best play, without the N-move
    /// rules (none for a draw).
    pub plies: Option<u32>,
    /// Plies to the next removal that keeps the win or loss, where known.
    pub removal: Option<u32>,
    /// The value without the N-move rules (`"win"`, `"loss"`), where it
    /// is not `result`.
    pub pure: Option<&'static str>,
}

impl From<TbValue> for TbAnswer {
    fn from(v: TbValue) -> TbAnswer {
        let pure = v.pure.map_or("unknown", Wdl::name);
        let plies = v.to_end.map(u32::from);
        let result = v.rule.map_or("unknown", Wdl::name);
        TbAnswer {
            result,
            plies,
            removal: v.to_removal.map(u32::from),
            pure: (v.pure.is_some() && pure != result).then_some(pure),
        }
    }
}

/// The databases' answer for `pos` and, best first, each legal move's,
/// when they are open, fit `rules` and hold the position (both hands
/// empty); a move they cannot value is left out of the list.
pub fn probe(pos: &Position, rules: &Rules) -> Option<(TbAnswer, Vec<(Move, TbAnswer)>)> {
    let tables = tables()?;
    let tables = tables.as_ref();
    if !tables.fits(rules) || tables.limits() != crate::tb::NMoveLimits::of(rules) {
        return None;
    }
    let root = tables.fetching(|| probe_root(tables, rules, pos));
    let value = root.value?;
    let moves = root
        .moves
        .into_iter()
        .filter_map(|(m, v)| Some((m, TbAnswer::from(v?))))
        .collect();
    Some((TbAnswer::from(value), moves))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tb::TbRules;
    use crate::tb::moving::build::{Options, PairBuild};

    #[test]
    fn the_page_gets_the_databases_values() {
        let dir = std::env::temp_dir().join(format!("mulino-gui-tb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // An empty directory serves nothing, and says so.
        let error = open(&dir, &Rules::default(), |_, _| {}).expect_err("an empty directory");
        assert!(error.contains("no database files"), "{error}");
        let opts = Options {
            dir: dir.clone(),
            threads: 1,
            memory: 1 << 30,
        };
        let rules = Rules::default();
        let tb_rules = TbRules::from_rules(&rules).unwrap();
        for (a, b) in [(3, 3), (4, 3)] {
            PairBuild::tb(tb_rules, a, b, &opts).run(&|_| {}).unwrap();
        }
        // A cut file (refused at once) and one with a changed slot byte
        // (refused by its checksum) are left out; the other serves.
        let cut = dir.join(crate::tb::format::file_name(3, 4));
        let bytes = std::fs::read(&cut).unwrap();
        std::fs::write(&cut, &bytes[..bytes.len() - 1]).unwrap();
        let changed = dir.join(crate::tb::format::file_name(4, 3));
        let mut bytes = std::fs::read(&changed).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 2;
        std::fs::write(&changed, &bytes).unwrap();
        let (found, problems) = open(&dir, &Rules::default(), |_, _| {}).unwrap();
        assert_eq!((found, problems.len()), (2, 1));
        let tables = tables().unwrap();
        tables.wait_for_checks();
        assert_eq!(tables.dir(), dir.as_path());
        assert!(tables.holds(3, 3) && !tables.holds(4, 3) && !tables.holds(3, 4));
        // Every new tab's engine plays from the same tables.
        let session = crate::web::sessions::Session::new().unwrap();
        assert!(std::ptr::eq(
            session.engine().tablebases().unwrap(),
            tables.as_ref()
        ));
        // White to move closes a mill that leaves Black two pieces.
        let fen = "@*@**@**/*****O**/OO****** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";
        let pos = Position::from_fen(fen, &rules).unwrap();
        let win = TbAnswer {
            result: "win",
            plies: Some(1),
            removal: Some(1),
            pure: None,
        };
        let (value, moves) = probe(&pos, &rules).unwrap();
        assert_eq!(value.result, "win");
        assert_eq!(value.plies, Some(1));
        // Every move valued, the winning removals first.
        let mut list = crate::core::MoveList::new();
        pos.legal_moves(&rules, &mut list);
        assert_eq!(moves.len(), list.len());
        assert_eq!(moves[0].0.to_string(), "b2-a7xd5");
        assert_eq!(moves[0].1, win);
        assert!(moves.iter().any(|(_, a)| a.result == "loss"));
        let black = Position::from_fen(&fen.replace(" w ", " b "), &rules).unwrap();
        assert_eq!(probe(&black, &rules).map(|a| a.0.result), Some("loss"));
        // Other rules, other N-move limits, or a subspace not built:
        // nothing.
        let no_fly = Rules {
            flying: false,
            ..rules
        };
        assert_eq!(probe(&pos, &no_fly), None);
        let other_limit = Rules {
            n_move_rule: 40,
            ..rules
        };
        assert_eq!(probe(&pos, &other_limit), None);
        assert_eq!(probe(&Position::startpos(&rules), &rules), None);
        other_rules_serve_their_own_games(&dir, opts, fen);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// After the standard tables: databases of other rules (Cheng San
    /// Qi: no flying) serve games of those rules, and no longer the
    /// standard ones.
    fn other_rules_serve_their_own_games(dir: &std::path::Path, opts: Options, fen: &str) {
        let rules = Rules::default();
        let csq = crate::core::Variant::ChengSanQi.rules();
        let csq_dir = dir.join("csq");
        std::fs::create_dir_all(&csq_dir).unwrap();
        let csq_opts = Options {
            dir: csq_dir.clone(),
            ..opts
        };
        PairBuild::tb(TbRules::from_rules(&csq).unwrap(), 3, 3, &csq_opts)
            .run(&|_| {})
            .unwrap();
        assert!(open(&csq_dir, &csq, |_, _| {}).unwrap().0 >= 1);
        super::tables().unwrap().wait_for_checks();
        let pos = Position::from_fen(fen, &csq).unwrap();
        let (value, moves) = probe(&pos, &csq).expect("a value under Cheng San Qi's rules");
        // Still a win, but no longer in one: b2-a7xd5 was a flight.
        assert_eq!(value.result, "win");
        assert!(value.plies.is_some_and(|p| p > 1), "{value:?}");
        let mut list = crate::core::MoveList::new();
        pos.legal_moves(&csq, &mut list);
        assert_eq!(moves.len(), list.len());
        assert!(moves.iter().all(|(m, _)| m.to_string() != "b2-a7xd5"));
        assert_eq!(probe(&pos, &rules), None);
        let session = crate::web::sessions::Session::new().unwrap();
        assert!(
            session.engine().tablebases().is_none(),
            "a standard game plays without them"
        );
    }
}
