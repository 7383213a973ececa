//! The later variants' rules at the end of placing, on cases that
//! Sanmill's conformance files do not reach: a full board in Experimental
//! (Black removes, then White, then Black moves) and removals of one's own
//! pieces in El Filja (no mill on a full board). The expected states were
//! checked against Sanmill's own engine (`tgf mill uci`, its `d` and
//! `moves`) on the same moves.

use mulino::core::{Color, Game, Move, MoveList, Position, Variant};

fn legal(pos: &Position, variant: Variant) -> Vec<String> {
    let mut list = MoveList::new();
    pos.legal_moves(&variant.rules(), &mut list);
    let mut v: Vec<String> = list.iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn fields(pos: &Position, variant: Variant) -> String {
    let fen = pos.fen(&variant.rules());
    fen.split_whitespace()
        .take(10)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn experimental_full_board_black_then_white_remove_then_black_moves() {
    let v = Variant::Experimental;
    let rules = v.rules();
    let placing = "c5 g1 g4 d3 b2 d1 e4 b4 d5 f2 f6 a4 d6 c3 a7 d7 a1 g7 c4 b6 e3 e5 d2 f4";
    let mut game = Game::from_moves(
        rules,
        Position::startpos(&rules),
        placing.split_whitespace(),
    )
    .expect("placing replays");
    // Black placed last, and the full board makes Black remove first.
    assert_eq!(
        fields(game.position(), v),
        "O@OO@@OO/OO@@OO@@/@@O@@O@O b m r 12 0 12 0 1 1"
    );
    assert!(legal(game.position(), v).iter().all(|m| m.starts_with('x')));
    game.play("xa7".parse::<Move>().unwrap()).unwrap();
    assert_eq!(
        fields(game.position(), v),
        "O@OO@@OO/OO@@OO@@/@@O@@O@* w m r 11 0 12 0 1 0"
    );
    game.play("xe5".parse::<Move>().unwrap()).unwrap();
    // The defender moves first.
    assert_eq!(game.position().side_to_move(), Color::Black);
    // Sanmill's steps: a4-a7, b6-a7, d7-a7 (two of them close a mill).
    let mut steps: Vec<String> = legal(game.position(), v)
        .iter()
        .map(|m| m.split('x').next().unwrap_or("").to_string())
        .collect();
    steps.dedup();
    assert_eq!(steps, ["a4-a7", "b6-a7", "d7-a7"]);
}

#[test]
fn el_filja_without_mills_each_side_removes_its_own_piece() {
    let v = Variant::ElFilja;
    let rules = v.rules();
    // A full board on which no line is one colour.
    let fen = "O@O@O@O@/@O@O@O@O/O@O@O@O@ w m r 12 0 12 0 -1 -1 0 0 0 0 0 0 1";
    let pos = Position::from_fen(fen, &rules).expect("reads");
    assert_eq!(pos.fen(&rules), fen);
    let own: Vec<String> = pos
        .pieces(Color::White)
        .into_iter()
        .map(|p| format!("x{p}"))
        .collect();
    let mut own = own;
    own.sort();
    assert_eq!(legal(&pos, v), own, "White removes one of its own");
    let after = pos.play(&rules, "xd5".parse().unwrap()).unwrap();
    assert_eq!(
        fields(&after, v),
        "*@O@O@O@/@O@O@O@O/O@O@O@O@ b m r 11 0 12 0 0 -1"
    );
    assert_eq!(after, pos.play_unchecked(&rules, "xd5".parse().unwrap()));
    let after = after.play(&rules, "xe5".parse().unwrap()).unwrap();
    assert_eq!(after.side_to_move(), Color::White);
    assert_eq!(legal(&after, v), ["e4-e5"]);
}
