//! The input layouts: how a perspective's pieces become input features, with horizontal
//! mirroring and king buckets, the named presets, and a perspective's orientation for one square
//! of its king.

use shakmaty::{Color, Piece, Square};

use super::{INPUTS, feature_index};
use crate::error::LayoutProblem;

/// The most king buckets an input layout may have (the first layer then has `16 * 768` rows).
pub const MAX_KING_BUCKETS: usize = 16;

/// How a perspective's pieces become input features: horizontal mirroring and king buckets.
///
/// `king_buckets[sq]` is the bucket of a perspective whose own king stands on `sq` as seen from
/// its side (a1 = 0 is its own queen's rook corner, rank 1 its own back rank). With mirroring, a
/// king on files e-h flips that perspective's squares left to right, so only files a-d are
/// looked up and the table must repeat them on files e-h (it reads the same either way). The
/// number of buckets `K` is the highest entry plus one, and every bucket below it has a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputLayout {
    mirror: bool,
    king_buckets: [u8; 64],
    buckets: u8,
}

/// The named layouts `rookery train --inputs` takes.
pub const LAYOUT_PRESETS: [&str; 4] = ["plain", "mirror", "mirror-kb4", "mirror-kb8"];

/// A mirrored table from its files a-d, rank 1 first: each row is repeated on files h-e.
const fn mirrored_table(rows: [[u8; 4]; 8]) -> [u8; 64] {
    let mut table = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        let file = sq % 8;
        let half = if file < 4 { file } else { 7 - file };
        table[sq] = rows[sq / 8][half];
        sq += 1;
    }
    table
}

/// `mirror-kb4`: the king in its corner (a1, b1: castled), in the centre of its back rank (c1,
/// d1: at home or castled long), on its second rank, or further up (an endgame king).
const KB4: [[u8; 4]; 8] = [
    [0, 0, 1, 1],
    [2, 2, 2, 2],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
    [3, 3, 3, 3],
];

/// `mirror-kb8`: each back-rank square of files a-d its own bucket, the second rank in two
/// halves, ranks 3-4 and ranks 5-8.
const KB8: [[u8; 4]; 8] = [
    [0, 1, 2, 3],
    [4, 4, 5, 5],
    [6, 6, 6, 6],
    [6, 6, 6, 6],
    [7, 7, 7, 7],
    [7, 7, 7, 7],
    [7, 7, 7, 7],
    [7, 7, 7, 7],
];

impl InputLayout {
    /// No mirroring, one bucket: the net as it was before input layouts.
    pub const PLAIN: InputLayout = InputLayout {
        mirror: false,
        king_buckets: [0; 64],
        buckets: 1,
    };

    /// A layout from its mirror flag and king bucket table, checked (see the type's comment).
    pub fn new(mirror: bool, king_buckets: [u8; 64]) -> Result<InputLayout, LayoutProblem> {
        let mut used = [false; MAX_KING_BUCKETS];
        for (sq, &b) in king_buckets.iter().enumerate() {
            if usize::from(b) >= MAX_KING_BUCKETS {
                return Err(LayoutProblem::Bucket {
                    square: sq as u8,
                    bucket: b,
                    max: MAX_KING_BUCKETS,
                });
            }
            if mirror && king_buckets[sq ^ 7] != b {
                return Err(LayoutProblem::Asymmetric { square: sq as u8 });
            }
            used[usize::from(b)] = true;
        }
        let buckets = king_buckets.iter().max().map_or(0, |&b| b) + 1;
        if let Some(unused) = (0..buckets).find(|&b| !used[usize::from(b)]) {
            return Err(LayoutProblem::Unused(unused));
        }
        Ok(InputLayout {
            mirror,
            king_buckets,
            buckets,
        })
    }

    /// The layout named `name` (one of [`LAYOUT_PRESETS`]).
    pub fn preset(name: &str) -> Option<InputLayout> {
        let (mirror, table) = match name {
            "plain" => return Some(InputLayout::PLAIN),
            "mirror" => (true, [0; 64]),
            "mirror-kb4" => (true, mirrored_table(KB4)),
            "mirror-kb8" => (true, mirrored_table(KB8)),
            _ => return None,
        };
        Some(InputLayout::new(mirror, table).expect("the presets are valid layouts"))
    }

    /// The preset this layout is, if it is one.
    pub fn name(&self) -> Option<&'static str> {
        LAYOUT_PRESETS
            .into_iter()
            .find(|n| InputLayout::preset(n).as_ref() == Some(self))
    }

    /// Whether a perspective with its king on files e-h reads the board flipped left to right.
    pub fn mirror(&self) -> bool {
        self.mirror
    }

    /// The king bucket of each square, seen from the perspective's side.
    pub fn king_buckets(&self) -> &[u8; 64] {
        &self.king_buckets
    }

    /// King buckets (1 without).
    pub fn buckets(&self) -> usize {
        usize::from(self.buckets)
    }

    /// Inputs a perspective: 768 a king bucket.
    pub fn inputs(&self) -> usize {
        INPUTS * self.buckets()
    }

    /// No mirroring and one bucket: every perspective reads the board one way whatever its king
    /// does, so no move needs a rebuild.
    #[inline]
    pub fn is_plain(&self) -> bool {
        // One bucket is a table of zeros.
        !self.mirror && self.buckets == 1
    }

    /// How `perspective`, whose own king stands on `king`, reads the board.
    #[inline]
    pub fn orientation(&self, perspective: Color, king: Square) -> Orientation {
        let vertical: u8 = match perspective {
            Color::White => 0,
            Color::Black => 56,
        };
        let (bucket, flip) = self.relative(usize::from(u8::from(king) ^ vertical));
        Orientation {
            bucket,
            mask: vertical | flip,
        }
    }

    /// The bucket and the file flip (7 or 0) of a perspective whose king stands on `king`, a
    /// square already seen from the perspective's side.
    #[inline]
    pub fn relative(&self, king: usize) -> (u8, u8) {
        let flip = if self.mirror && king & 7 >= 4 { 7 } else { 0 };
        (self.king_buckets[king & 63], flip)
    }

    /// `plain`, a preset's name with what it is, or the table of a layout that is no preset.
    pub fn describe(&self) -> String {
        let what = match (self.mirror, self.buckets) {
            (false, 1) => return "plain".to_string(),
            (true, 1) => "mirrored".to_string(),
            (m, k) => format!("{}{k} king buckets", if m { "mirrored, " } else { "" }),
        };
        match self.name() {
            Some(name) => format!("{name}: {what}"),
            None => {
                let digit = |b: &u8| char::from_digit(u32::from(*b), 16).unwrap_or('?');
                let ranks: Vec<String> = self
                    .king_buckets
                    .chunks(8)
                    .map(|rank| rank.iter().map(digit).collect())
                    .collect();
                format!("{what}, by rank from the first: {}", ranks.join("/"))
            }
        }
    }
}

impl Default for InputLayout {
    fn default() -> Self {
        InputLayout::PLAIN
    }
}

/// How a perspective reads the board for one position of its king: its king bucket and the
/// mask its squares are XORed with (56 flips Black's board top to bottom, 7 mirrors files).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Orientation {
    bucket: u8,
    mask: u8,
}

impl Orientation {
    /// The input feature of `piece` on `sq` from `perspective`'s point of view.
    #[inline]
    pub fn feature(self, perspective: Color, piece: Piece, sq: Square) -> usize {
        usize::from(self.bucket) * INPUTS
            + feature_index(
                piece.color == perspective,
                piece.role,
                usize::from(sq) ^ usize::from(self.mask),
            )
    }

    /// The king bucket.
    pub fn bucket(self) -> usize {
        usize::from(self.bucket)
    }

    /// Whether the files are mirrored.
    pub fn mirrored(self) -> bool {
        self.mask & 7 != 0
    }

    /// This orientation's entry among a perspective's `2 * MAX_KING_BUCKETS` in the accumulator
    /// cache.
    #[inline]
    pub(crate) fn index(self) -> usize {
        2 * usize::from(self.bucket) + usize::from(self.mirrored())
    }
}

/// The square of `color`'s king on `board`; a board without one reads as if it stood on that
/// side's a1 (a1 for White, a8 for Black).
#[inline]
pub fn king_square(board: &shakmaty::Board, color: Color) -> Square {
    board.king_of(color).unwrap_or(match color {
        Color::White => Square::A1,
        Color::Black => Square::A8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The presets' tables: the bucket counts their names give, files e-h repeating a-d, the
    /// castled king apart from the king at home; and tables no net can have are refused by name.
    #[test]
    fn the_presets_are_what_their_names_say_and_bad_tables_are_refused() {
        let expect = [
            ("plain", false, 1),
            ("mirror", true, 1),
            ("mirror-kb4", true, 4),
            ("mirror-kb8", true, 8),
        ];
        for (name, mirror, buckets) in expect {
            let l = InputLayout::preset(name).unwrap();
            assert_eq!(
                (l.mirror(), l.buckets(), l.inputs()),
                (mirror, buckets, INPUTS * buckets)
            );
            assert_eq!(l.name(), Some(name));
            for sq in 0..64 {
                assert_eq!(l.king_buckets()[sq], l.king_buckets()[sq ^ 7], "{name}");
            }
            if buckets > 1 {
                // A king castled short (g1), one at home (e1) and one up the board differ.
                let b = |sq: Square| l.orientation(Color::White, sq).bucket();
                assert!(b(Square::G1) != b(Square::E1) && b(Square::E1) != b(Square::E4));
                assert_eq!(
                    b(Square::G1),
                    l.orientation(Color::Black, Square::G8).bucket()
                );
                assert!(l.orientation(Color::White, Square::E1).mirrored());
                assert!(!l.orientation(Color::White, Square::D1).mirrored());
            }
        }
        assert_eq!(InputLayout::preset("kb4"), None);
        assert_eq!(InputLayout::PLAIN.describe(), "plain");
        assert_eq!(
            InputLayout::preset("mirror-kb4").unwrap().describe(),
            "mirror-kb4: mirrored, 4 king buckets"
        );
        let mut table = [0u8; 64];
        table[63] = 1;
        let custom = InputLayout::new(false, table).unwrap();
        assert_eq!((custom.buckets(), custom.name()), (2, None));
        assert!(
            custom.describe().ends_with("00000000/00000001"),
            "{}",
            custom.describe()
        );
        assert_eq!(
            InputLayout::new(true, table).unwrap_err(),
            LayoutProblem::Asymmetric { square: 56 }
        );
        table[63] = 2;
        assert_eq!(
            InputLayout::new(false, table).unwrap_err(),
            LayoutProblem::Unused(1)
        );
        table[63] = MAX_KING_BUCKETS as u8;
        let e = InputLayout::new(false, table).unwrap_err();
        assert_eq!(
            e.to_string(),
            "king bucket 16 on h8 (at most 16 buckets, numbered from 0)"
        );
        assert_eq!(
            LayoutProblem::Asymmetric { square: 4 }.to_string(),
            "a mirrored layout with different king buckets on e1 and d1 (files e-h must repeat a-d)"
        );
    }
}
