use rookery::core::{Game, Limits};
use rookery::core::trace::NoTrace;
use rookery::ladder::{minimax, alphabeta, negamax};
fn main() {
    let g = Game::from_fen("r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11").unwrap();
    for d in [3, 4] {
        let t = std::time::Instant::now();
        let a = minimax::search(&g, &Limits::default(), d, &mut NoTrace);
        println!("minimax d{d}: nodes {} score {:?} best {:?} {:?}", a.nodes, a.score, a.best, t.elapsed());
        let t = std::time::Instant::now();
        let b = alphabeta::search(&g, &Limits::default(), d, &mut NoTrace);
        println!("alphabeta d{d}: nodes {} score {:?} {:?}", b.nodes, b.score, t.elapsed());
        let t = std::time::Instant::now();
        let c = negamax::search(&g, &Limits::default(), d, &mut NoTrace);
        println!("negamax d{d}: nodes {} score {:?} {:?}", c.nodes, c.score, t.elapsed());
    }
}
