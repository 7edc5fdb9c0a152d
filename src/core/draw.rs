//! Drawing a position in the terminal: Unicode pieces (or letters with `ascii`), seen from the
//! player's side, the last move's squares in brackets.

use shakmaty::{Chess, Color, File, Move, Piece, Position, Rank, Square};

fn glyph(piece: Piece, ascii: bool) -> char {
    // Unicode's chess pieces, pawn to king (`Role` counts from 1 in that order).
    const WHITE: [char; 6] = ['♙', '♘', '♗', '♖', '♕', '♔'];
    const BLACK: [char; 6] = ['♟', '♞', '♝', '♜', '♛', '♚'];
    if ascii {
        return piece.char();
    }
    let set = if piece.color == Color::White {
        WHITE
    } else {
        BLACK
    };
    set[piece.role as usize - 1]
}

/// The board as text, `side` at the bottom, `last` move's squares marked `[ ]`.
pub fn draw(pos: &Chess, side: Color, last: Option<Move>, ascii: bool) -> String {
    let marked = |sq: Square| last.is_some_and(|m| m.from() == Some(sq) || m.to() == sq);
    let files: Vec<File> = if side == Color::White {
        File::ALL.to_vec()
    } else {
        File::ALL.iter().rev().copied().collect()
    };
    let ranks: Vec<Rank> = if side == Color::White {
        Rank::ALL.iter().rev().copied().collect()
    } else {
        Rank::ALL.to_vec()
    };
    let header: String = files.iter().map(|f| format!(" {} ", f.char())).collect();
    let mut out = format!("   {header}\n");
    for &rank in &ranks {
        out.push_str(&format!(" {} ", rank.char()));
        for &file in &files {
            let sq = Square::from_coords(file, rank);
            let c = match pos.board().piece_at(sq) {
                Some(p) => glyph(p, ascii),
                None if ascii => '.',
                None => '·',
            };
            if marked(sq) {
                out.push_str(&format!("[{c}]"));
            } else {
                out.push_str(&format!(" {c} "));
            }
        }
        out.push_str(&format!(" {}\n", rank.char()));
    }
    out.push_str(&format!("   {header}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_move;
    use shakmaty::Role;

    #[test]
    fn each_piece_has_its_unicode_symbol() {
        // U+2654 is the white king; the white set runs king, queen, rook, bishop, knight, pawn,
        // and the black set follows.
        for (i, role) in [
            Role::King,
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Pawn,
        ]
        .into_iter()
        .enumerate()
        {
            for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
                let want = char::from_u32(0x2654 + 6 * c as u32 + i as u32).unwrap();
                assert_eq!(
                    glyph(Piece { color, role }, false),
                    want,
                    "{color:?} {role:?}"
                );
                assert_eq!(
                    glyph(Piece { color, role }, true),
                    Piece { color, role }.char()
                );
            }
        }
    }

    #[test]
    fn draws_from_both_sides_with_last_move() {
        let mut pos = Chess::default();
        let m = parse_move(&pos, "e4").unwrap();
        pos.play_unchecked(m);
        let white = draw(&pos, Color::White, Some(m), true);
        let lines: Vec<&str> = white.lines().collect();
        assert!(lines[0].trim_start().starts_with('a'));
        assert!(lines[1].starts_with(" 8  r "), "{white}");
        assert!(white.contains("[P]"), "{white}");
        assert!(white.contains("[.]"));
        let black = draw(&pos, Color::Black, Some(m), false);
        assert!(black.lines().nth(1).unwrap().starts_with(" 1 "), "{black}");
        assert!(black.contains('♚') && black.contains("[♙]"));
    }
}
