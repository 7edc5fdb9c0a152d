//! The clock as a GUI keeps it, against the built binary: with less on the clock than the
//! engine's reserve, every move is short and stops on time. In a file of its own, so no other
//! engine of the test suite runs beside it and the times measured are the engine's.

mod common;

use std::time::Instant;

use common::uci::Engine;

/// A clock below the engine's reserve (20 Move Overheads, 200 ms): each move is short and
/// stops on time, so the clock grows back instead of running out. The test keeps the clock as
/// a GUI does, from the moment `go` is sent to the moment `bestmove` arrives.
#[test]
fn a_clock_below_the_reserve_gives_short_moves_that_stop_on_time() {
    let mut e = Engine::start();
    e.send("ucinewgame");
    e.ready();
    let mut moves: Vec<String> = Vec::new();
    let (mut white, mut black) = (150i64, 150i64);
    let inc = 50;
    for ply in 0..16 {
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        let asked = Instant::now();
        let (_, best) = e.bestmove_after(&format!(
            "go wtime {white} btime {black} winc {inc} binc {inc}"
        ));
        let spent = asked.elapsed().as_millis() as i64;
        let clock = if ply % 2 == 0 { &mut white } else { &mut black };
        *clock -= spent;
        assert!(*clock > 0, "ply {ply}: the flag fell ({spent} ms spent)");
        *clock += inc;
        let Some(m) = best.split_whitespace().nth(1) else {
            panic!("{best}")
        };
        if m == "(none)" {
            break;
        }
        moves.push(m.to_string());
    }
    // Each side spent less than its increments brought: the clocks grew.
    assert!(white > 150 && black > 150, "{white} {black}");
    e.quit();
}
