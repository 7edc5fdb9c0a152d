//! Gaviota tablebases (distance to mate), probed by the reference C library through the
//! `gaviota-sys` bindings; only in builds with the `gaviota` feature. The C library keeps global
//! state, so one set of tables is open at a time and every call goes through one lock.

use std::ffi::CString;
use std::os::raw::{c_int, c_uchar, c_uint};
use std::sync::Mutex;

use gaviota_sys as gtb;
use shakmaty::{Chess, Color, EnPassantMode, Position, Role};

use super::dtm::DtmTables;
use crate::error::Error;

/// The directory of the tables now open (the C library's global state).
static OPEN: Mutex<Option<String>> = Mutex::new(None);

/// A handle to the Gaviota tables of one directory.
#[derive(Debug)]
pub struct Gaviota {
    dir: String,
}

impl Gaviota {
    /// Opens the tables in `dir` (replacing any set opened before).
    pub fn open(dir: &str) -> Result<Gaviota, Error> {
        if !std::path::Path::new(dir).is_dir() {
            return Err(Error::Invalid(format!(
                "Gaviota path '{dir}' is not a directory"
            )));
        }
        let path = CString::new(dir)
            .map_err(|_| Error::Invalid(format!("Gaviota path '{dir}' contains a NUL byte")))?;
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the library's documented set-up sequence; `path` outlives `tb_init` (the
        // library copies the paths) and every call is serialised by the `OPEN` lock.
        let available = unsafe {
            let paths = gtb::tbpaths_init();
            let paths = gtb::tbpaths_add(paths, path.as_ptr());
            // The returned text describes what was found; availability below says the same.
            if gtb::tb_is_initialized() != 0 {
                gtb::tb_restart(0, gtb::TB_compression_scheme::tb_CP4 as c_int, paths);
            } else {
                gtb::tb_init(0, gtb::TB_compression_scheme::tb_CP4 as c_int, paths);
            }
            if gtb::tbcache_is_on() == 0 {
                gtb::tbcache_init(16 * 1024 * 1024, 50);
            } else {
                gtb::tbcache_restart(16 * 1024 * 1024, 50);
            }
            gtb::tb_availability()
        };
        if available == 0 {
            *open = None;
            return Err(Error::Invalid(format!(
                "no Gaviota tables (.gtb.cp4 files) found in '{dir}'"
            )));
        }
        *open = Some(dir.to_string());
        Ok(Gaviota {
            dir: dir.to_string(),
        })
    }
}

fn piece(role: Role) -> c_uchar {
    (match role {
        Role::Pawn => gtb::TB_pieces::tb_PAWN,
        Role::Knight => gtb::TB_pieces::tb_KNIGHT,
        Role::Bishop => gtb::TB_pieces::tb_BISHOP,
        Role::Rook => gtb::TB_pieces::tb_ROOK,
        Role::Queen => gtb::TB_pieces::tb_QUEEN,
        Role::King => gtb::TB_pieces::tb_KING,
    }) as c_uchar
}

impl DtmTables for Gaviota {
    fn probe_dtm(&self, pos: &Chess) -> Option<i32> {
        if pos.board().occupied().count() > 5 || !pos.castles().is_empty() {
            return None;
        }
        let open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        if open.as_deref() != Some(self.dir.as_str()) {
            return None;
        }
        let none = gtb::TB_squares::tb_NOSQUARE as c_uint;
        let (mut ws, mut bs) = ([none; 17], [none; 17]);
        let nopiece = gtb::TB_pieces::tb_NOPIECE as c_uchar;
        let (mut wp, mut bp) = ([nopiece; 17], [nopiece; 17]);
        let (mut wi, mut bi) = (0, 0);
        for (sq, p) in pos.board().clone() {
            if p.color == Color::White {
                ws[wi] = u32::from(sq) as c_uint;
                wp[wi] = piece(p.role);
                wi += 1;
            } else {
                bs[bi] = u32::from(sq) as c_uint;
                bp[bi] = piece(p.role);
                bi += 1;
            }
        }
        let stm = if pos.turn() == Color::White {
            gtb::TB_sides::tb_WHITE_TO_MOVE
        } else {
            gtb::TB_sides::tb_BLACK_TO_MOVE
        } as c_uint;
        let ep = pos
            .ep_square(EnPassantMode::Legal)
            .map_or(none, |s| u32::from(s) as c_uint);
        let (mut info, mut plies): (c_uint, c_uint) = (0, 0);
        // SAFETY: the arrays are terminated by tb_NOSQUARE / tb_NOPIECE as the library expects,
        // the out-pointers are valid, and the lock serialises access to the library.
        let ok = unsafe {
            gtb::tb_probe_hard(
                stm,
                ep,
                gtb::TB_castling::tb_NOCASTLE.0,
                ws.as_ptr(),
                bs.as_ptr(),
                wp.as_ptr(),
                bp.as_ptr(),
                &mut info,
                &mut plies,
            )
        };
        drop(open);
        if ok == 0 {
            return None;
        }
        let plies = plies as i32;
        let mover_white = pos.turn() == Color::White;
        match gtb::TB_return_values(info) {
            gtb::TB_return_values::tb_DRAW => Some(0),
            gtb::TB_return_values::tb_WMATE => Some(if mover_white { plies } else { -plies }),
            gtb::TB_return_values::tb_BMATE => Some(if mover_white { -plies } else { plies }),
            _ => None,
        }
    }
}
