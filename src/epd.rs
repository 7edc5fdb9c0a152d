//! EPD test suites: a position and operations such as `bm` (best moves), `am` (moves to avoid),
//! `id`, and STS-style `c0` points (`"Qd2=10, Qb3=5"`). Moves may be SAN (`Qxh4+`), UCI
//! (`d8f6`) or long algebraic with a piece letter (`Qd8-f6`, `Bb2xa1`).

use shakmaty::{Chess, Move, Position, Square};

use crate::core::game::{parse_fen, parse_move};
use crate::error::Error;

/// One EPD record.
#[derive(Clone, Debug)]
pub struct Record {
    pub pos: Chess,
    pub fen: String,
    /// Operations in order: opcode and its operands (quotes removed).
    pub ops: Vec<(String, Vec<String>)>,
    /// Line number in the file.
    pub line: usize,
}

impl Record {
    /// The operands of the first operation named `code`.
    pub fn op(&self, code: &str) -> Option<&[String]> {
        self.ops
            .iter()
            .find(|(c, _)| c == code)
            .map(|(_, v)| v.as_slice())
    }

    /// `id`, or the line number.
    pub fn id(&self) -> String {
        self.op("id")
            .and_then(|v| v.first().cloned())
            .unwrap_or_else(|| format!("line {}", self.line))
    }

    /// The moves of operation `code` (`bm`, `am`), parsed in this position. An ambiguous SAN
    /// move (`Ne5` with two knights able to go there) stands for every move it could mean.
    pub fn moves(&self, code: &str) -> Result<Vec<Move>, Error> {
        let mut out = Vec::new();
        // A doubled opcode (`bm bm Bh2-f4`, as in one published record) is read as one.
        for text in self
            .op(code)
            .unwrap_or_default()
            .iter()
            .filter(|t| *t != code)
        {
            match parse_any_move(&self.pos, text) {
                Ok(m) => out.push(m),
                Err(e) => {
                    let all = ambiguous_san(&self.pos, text);
                    if all.is_empty() {
                        return Err(e);
                    }
                    out.extend(all);
                }
            }
        }
        Ok(out)
    }

    /// STS points from `c0`: `"Qd2=10, Qb3=5"` gives the points each move earns.
    pub fn points(&self) -> Vec<(Move, u32)> {
        let Some(c0) = self.op("c0") else {
            return Vec::new();
        };
        c0.join(" ")
            .split(',')
            .filter_map(|item| {
                let (m, p) = item.trim().split_once('=')?;
                Some((
                    parse_any_move(&self.pos, m.trim()).ok()?,
                    p.trim().parse().ok()?,
                ))
            })
            .collect()
    }
}

/// Parses a move in SAN, UCI, or long algebraic notation with a piece letter.
pub fn parse_any_move(pos: &Chess, text: &str) -> Result<Move, Error> {
    if let Ok(m) = parse_move(pos, text) {
        return Ok(m);
    }
    let bad = || Error::Move {
        text: text.to_string(),
        reason: "not a legal move in SAN, UCI or long algebraic notation".into(),
    };
    let t = text.trim_end_matches(['+', '#', '!', '?']);
    let t = t.trim_start_matches(['K', 'Q', 'R', 'B', 'N']);
    let (from, rest) = t.split_at_checked(2).ok_or_else(bad)?;
    let rest = rest.trim_start_matches(['-', 'x', ':']);
    let (to, promo) = rest.split_at_checked(2).ok_or_else(bad)?;
    let from: Square = from.parse().map_err(|_| bad())?;
    let to: Square = to.parse().map_err(|_| bad())?;
    let promo = promo.trim_start_matches('=').to_ascii_lowercase();
    parse_move(pos, &format!("{from}{to}{promo}")).map_err(|_| bad())
}

/// `text` after its first `n` whitespace-separated words.
fn skip_words(text: &str, n: usize) -> &str {
    let mut rest = text.trim_start();
    for _ in 0..n {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    rest
}

/// Every legal move an under-disambiguated SAN move could mean (`Ne5` for both knights).
fn ambiguous_san(pos: &Chess, text: &str) -> Vec<Move> {
    let want = text.trim_end_matches(['+', '#', '!', '?']);
    pos.legal_moves()
        .into_iter()
        .filter(|&m| {
            let san = crate::core::game::san_plain(pos, m);
            let role = if m.role() == shakmaty::Role::Pawn {
                String::new()
            } else {
                m.role().upper_char().to_string()
            };
            let coarse = format!(
                "{role}{}{}{}",
                if m.is_capture() { "x" } else { "" },
                m.to(),
                m.promotion()
                    .map(|r| format!("={}", r.upper_char()))
                    .unwrap_or_default()
            );
            san == want || coarse == want || coarse.replace('x', "") == want
        })
        .collect()
}

/// Splits EPD operations (`bm Qd1+; id "BK.01";`) into opcodes and operands.
fn parse_ops(text: &str) -> Vec<(String, Vec<String>)> {
    let mut ops = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            ';' if !quoted => {
                ops.push(std::mem::take(&mut current));
            }
            _ => current.push(c),
        }
    }
    ops.push(current);
    ops.into_iter()
        .filter_map(|op| {
            let op = op.trim();
            let (code, rest) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
            if code.is_empty() {
                return None;
            }
            let mut operands = Vec::new();
            let mut rest = rest.trim();
            while !rest.is_empty() {
                if let Some(q) = rest.strip_prefix('"') {
                    let end = q.find('"').unwrap_or(q.len());
                    operands.push(q[..end].to_string());
                    rest = q.get(end + 1..).unwrap_or("").trim_start();
                } else {
                    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                    operands.push(rest[..end].to_string());
                    rest = rest[end..].trim_start();
                }
            }
            Some((code.to_string(), operands))
        })
        .collect()
}

/// Reads every record of an EPD file (blank lines and `#` comments skipped).
pub fn read(path: &str) -> Result<Vec<Record>, Error> {
    let text = crate::core::memory::read_text(path.as_ref(), crate::core::memory::MAX_INPUT)
        .map_err(|e| Error::io(path, e))?;
    parse(&text).map_err(|e| Error::Invalid(format!("{path}: {e}")))
}

/// Parses EPD text.
pub fn parse(text: &str) -> Result<Vec<Record>, Error> {
    let mut out = Vec::new();
    for (n, line) in crate::core::content_lines(text) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 4 {
            return Err(Error::Invalid(format!("line {n}: not an EPD record")));
        }
        // Four position fields (the last may carry the ';' of a bare FEN list), then, in
        // FEN-style records, the two counters; the operations follow.
        let head: Vec<&str> = fields[..4]
            .iter()
            .map(|f| f.trim_end_matches(';'))
            .collect();
        let counters = fields.len() >= 6
            && fields[4].parse::<u32>().is_ok()
            && fields[5].trim_end_matches(';').parse::<u32>().is_ok();
        let taken = if counters { 6 } else { 4 };
        let fen = if counters {
            format!(
                "{} {} {}",
                head.join(" "),
                fields[4],
                fields[5].trim_end_matches(';')
            )
        } else {
            format!("{} 0 1", head.join(" "))
        };
        let rest = skip_words(line, taken);
        let pos = parse_fen(&fen).map_err(|e| Error::Invalid(format!("line {n}: {e}")))?;
        out.push(Record {
            pos,
            fen,
            ops: parse_ops(rest),
            line: n,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_with_and_without_counters_and_every_move_notation() {
        let recs = parse(concat!(
            "rn1qkb1r/pp2pppp/5n2/3p1b2/3P4/1QN1P3/PP3PPP/R1B1KBNR b KQkq - 1 1 id \"CCR02\";bm Bc8;\n",
            "1B1Q1R2/8/qNrn3p/2p1rp2/Rn3k1K/8/5P2/bbN4B w - - bm Qd8-f6; ce +M2;\n",
            "# a comment\n",
            "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm d1d8 Rd8#; am Kf1; c0 \"Rd8=10, h3=2\";\n",
        ))
        .unwrap();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].id(), "CCR02");
        assert_eq!(recs[0].moves("bm").unwrap().len(), 1);
        assert_eq!(recs[1].id(), "line 2");
        let m = recs[1].moves("bm").unwrap();
        assert_eq!(crate::core::game::uci(m[0]), "d8f6");
        let bm = recs[2].moves("bm").unwrap();
        assert_eq!(bm[0], bm[1], "UCI and SAN name the same move");
        assert_eq!(recs[2].moves("am").unwrap().len(), 1);
        assert_eq!(recs[2].points().len(), 2);
        assert!(parse("not an epd").is_err());
        assert!(parse_any_move(&recs[2].pos, "Qd8-f6").is_err());
        // Two knights can reach e5: the ambiguous `am Ne5` means both.
        let r = &parse(
            "r1bqk2r/ppp2ppp/2n5/4P3/2Bp2n1/5N1P/PP1N1PP1/R2Q1RK1 b kq - 1 10 bm Nh6; am Ne5;",
        )
        .unwrap()[0];
        assert_eq!(r.moves("am").unwrap().len(), 2);
    }
}
