//! Perft suites: the rules (shakmaty) and Rookery's perft agree with the published counts.

use rookery::core::game::parse_fen;
use rookery::perft::{parse_suite, perft};

/// Checks every count up to `max_depth`; returns (positions, counts checked).
fn check_suite(text: &str, max_depth: u32) -> (usize, usize) {
    let cases = parse_suite(text).unwrap();
    let mut checked = 0;
    for case in &cases {
        let pos = parse_fen(&case.fen).unwrap();
        for &(depth, expected) in case.counts.iter().filter(|(d, _)| *d <= max_depth) {
            assert_eq!(perft(&pos, depth), expected, "{} depth {depth}", case.fen);
            checked += 1;
        }
    }
    (cases.len(), checked)
}

#[test]
fn standard_suite_to_depth_4() {
    let (positions, checked) = check_suite(include_str!("data/standard.epd"), 4);
    assert_eq!(positions, 128);
    assert!(checked > 500, "{checked}");
}

#[test]
fn cpw_suite_to_depth_5() {
    let (positions, checked) = check_suite(include_str!("data/cpw.epd"), 5);
    assert_eq!((positions, checked), (7, 7 * 5));
}

#[test]
fn chess960_suite_to_depth_4() {
    let (positions, checked) = check_suite(include_str!("data/fischer.epd"), 4);
    assert_eq!((positions, checked), (960, 960 * 4));
}
