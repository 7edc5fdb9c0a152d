//! Every tunable number of the strong engine's search and clock, in one table: name, default,
//! range and SPSA step, with what it does. The search reads each through a function of the same
//! name (`params::rfp_margin()`).
//!
//! In the release build each function returns its default, a constant the compiler folds into
//! the code as it would a `const`: the table costs no speed and changes no node count. With the
//! cargo feature `spsa` each value lives in an atomic, the `uci` reply lists every parameter as a
//! spin option and `setoption` changes it, so a tuner (OpenBench's SPSA, or a local driver) can
//! play games with other values. `rookery params` prints the table in OpenBench's SPSA input
//! format (`name, int, default, min, max, c_end, r_end`).
//!
//! Values are integers: a factor is written in hundredths (`stretch_unstable` 160 is x1.6).
//!
//! Every name says its direction by one fixed word at its end:
//! - `_min_depth` / `_max_depth`: the shallowest / deepest node a step applies to;
//! - `_min` / `_max`: a value's floor / ceiling (`stretch_min`, `double_ext_max`);
//! - `_base`: a formula's constant part; `_per_depth` (`_per_depth2`): its part per ply of
//!   depth (per depth squared); `_divisor`: one unit more per this much; `_scale`: a factor;
//! - `_margin`: how far a score (or a history) may be from a bound before a test holds.
//!
//! A few parameters had other names before the rule ([`RENAMED`]); `find` still takes them, so
//! a tuner's state or a GUI's saved options written with the old names keep working.

/// One parameter of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name: the function the search calls, the UCI option, the SPSA input's name.
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// SPSA's perturbation at the end of a tune (`c_end`), about a twentieth of the range.
    pub step: i32,
    /// What it does.
    pub help: &'static str,
}

/// SPSA's learning rate at the end of a tune (`r_end`), the value OpenBench's examples use.
pub const R_END: f64 = 0.002;

/// Whether this build lets the values change (the cargo feature `spsa`).
pub const TUNABLE: bool = cfg!(feature = "spsa");

macro_rules! params {
    ($( #[doc = $help:literal] $name:ident: $default:literal, $min:literal, $max:literal, $step:literal; )*) => {
        /// Every parameter, in the table's order.
        pub const PARAMS: &[Param] = &[$(
            Param { name: stringify!($name), default: $default, min: $min, max: $max, step: $step, help: $help },
        )*];

        $(
            #[doc = $help]
            #[cfg(not(feature = "spsa"))]
            #[inline(always)]
            pub fn $name() -> i32 {
                $default
            }

            #[doc = $help]
            #[cfg(feature = "spsa")]
            #[inline(always)]
            pub fn $name() -> i32 {
                live::$name.load(std::sync::atomic::Ordering::Relaxed)
            }
        )*

        /// The values of a tuning build, one atomic each.
        #[cfg(feature = "spsa")]
        #[allow(non_upper_case_globals)]
        mod live {
            use std::sync::atomic::AtomicI32;
            $( pub static $name: AtomicI32 = AtomicI32::new($default); )*
        }

        /// The value of a tuning build for `name`.
        #[cfg(feature = "spsa")]
        fn cell(name: &str) -> Option<&'static std::sync::atomic::AtomicI32> {
            match name {
                $( stringify!($name) => Some(&live::$name), )*
                _ => None,
            }
        }
    };
}

params! {
    /// Reverse futility pruning: the margin a depth above beta (centipawns).
    rfp_margin: 64, 30, 150, 8;
    /// Reverse futility pruning: the deepest node it applies to.
    rfp_max_depth: 5, 4, 14, 1;
    /// Razoring: the deepest node it applies to.
    razor_max_depth: 3, 1, 6, 1;
    /// Razoring: the margin's constant part (centipawns).
    razor_base: 392, 150, 700, 30;
    /// Razoring: the margin per depth squared (centipawns).
    razor_per_depth2: 258, 80, 450, 20;
    /// Null move pruning: the shallowest node it applies to.
    nmp_min_depth: 3, 1, 6, 1;
    /// Null move pruning: from this depth a cut-off is verified by a reduced search.
    nmp_verify_min_depth: 10, 6, 18, 1;
    /// Null move pruning: the reduction's constant part (plies).
    nmp_base: 5, 2, 7, 1;
    /// Null move pruning: one more ply of reduction per this many plies of depth.
    nmp_depth_divisor: 3, 2, 8, 1;
    /// Null move pruning: one more ply of reduction per this many centipawns above beta.
    nmp_eval_divisor: 190, 80, 400, 15;
    /// Null move pruning: the most plies the margin above beta adds.
    nmp_eval_max: 3, 1, 5, 1;
    /// Futility pruning of quiet moves: the margin's constant part (centipawns).
    futility_base: 103, 30, 250, 10;
    /// Futility pruning: the margin per ply of depth (centipawns).
    futility_per_depth: 90, 40, 180, 8;
    /// Futility pruning: the deepest node it applies to.
    futility_max_depth: 6, 3, 10, 1;
    /// Late move pruning: the deepest node it applies to.
    lmp_max_depth: 8, 4, 12, 1;
    /// Late move pruning: the quiet moves tried before the rest are pruned, (this + depth^2), halved when not improving.
    lmp_base: 5, 1, 8, 1;
    /// SEE pruning of quiet moves: the loss allowed per ply of depth (centipawns).
    see_quiet_margin: 58, 20, 120, 6;
    /// SEE pruning of captures: the loss allowed per ply of depth (centipawns).
    see_noisy_margin: 98, 40, 200, 8;
    /// SEE pruning: the deepest node it applies to.
    see_max_depth: 7, 3, 10, 1;
    /// Internal iterative reduction: the shallowest node without a hash move it reduces.
    iir_min_depth: 4, 2, 8, 1;
    /// Delta pruning in quiescence: the margin over a capture's gain (centipawns).
    delta_margin: 217, 80, 400, 15;
    /// The aspiration window's first half-width at the root (centipawns).
    aspiration_window: 20, 8, 50, 3;
    /// History pruning of quiet moves: the deepest node it applies to.
    history_pruning_max_depth: 3, 1, 6, 1;
    /// History pruning: the history per ply of depth below which a quiet move is pruned.
    history_pruning_margin: 3805, 1000, 8000, 300;
    /// Late move reductions: one ply less (more) per this much good (bad) history.
    lmr_history_divisor: 12032, 5000, 20000, 600;
    /// Late move reductions: the most a capture that lost material by SEE is reduced.
    bad_noisy_reduction_max: 2, 0, 3, 1;
    /// Late move reductions: the table's constant part (hundredths of a ply).
    lmr_base: 77, 20, 150, 8;
    /// Late move reductions: the table's divisor of ln(depth) x ln(move number) (hundredths).
    lmr_divisor: 230, 150, 350, 10;
    /// Singular extensions: the shallowest node whose hash move is tested.
    singular_min_depth: 6, 5, 12, 1;
    /// Singular extensions: the margin below the hash score per ply of depth (centipawns).
    singular_margin: 2, 1, 5, 1;
    /// Double extensions: a singular move whose test failed this far below its margin (centipawns), off a principal variation, is extended two plies.
    double_ext_margin: 20, 0, 60, 3;
    /// Double extensions: the most on one line (0: none).
    double_ext_max: 7, 0, 12, 1;
    /// Late move reductions: the re-search goes a ply deeper when the reduced search beat the best score by this (centipawns) + 2 x depth.
    lmr_deeper_margin: 39, 10, 100, 5;
    /// Late move reductions: the re-search goes a ply shallower when the reduced search beat the best score by less than this (centipawns).
    lmr_shallower_margin: 11, 0, 40, 2;
    /// History updates: the largest bonus a cut-off gives.
    history_bonus_max: 1221, 500, 2500, 100;
    /// Time: the moves a clock without moves-to-go is spread over.
    tm_moves: 25, 15, 40, 2;
    /// Time: the hard limit as a multiple of the soft target (hundredths).
    tm_hard_ratio: 300, 200, 500, 20;
    /// Time: the most of the clock one move may take, when more moves follow (hundredths).
    tm_move_max: 40, 25, 60, 3;
    /// Time: the soft target's stretch each time the best move changes (hundredths).
    stretch_unstable: 160, 120, 220, 8;
    /// Time: the stretch's ceiling (hundredths).
    stretch_max: 250, 150, 350, 10;
    /// Time: the stretch's decay each time the best move stays (hundredths).
    stretch_stable: 90, 70, 99, 2;
    /// Time: the stretch's floor (hundredths).
    stretch_min: 60, 40, 90, 3;
    /// Time: the iteration from which the best move's share of nodes scales the target.
    effort_min_depth: 6, 3, 10, 1;
    /// Time: the effort factor is (this - the best move's share of nodes) x effort_scale (hundredths).
    effort_base: 150, 110, 200, 5;
    /// Time: the effort factor's scale (hundredths).
    effort_scale: 130, 80, 200, 6;
    /// Time: the effort factor's floor (hundredths).
    effort_min: 50, 20, 80, 3;
    /// Time: the effort factor's ceiling (hundredths).
    effort_max: 180, 120, 250, 8;
    /// Time: the score fall (centipawns) that gives the most extra time.
    fall_max: 100, 40, 200, 8;
    /// Time: the extra time for a fall is fall / this (so `fall_max` / this at most).
    fall_divisor: 200, 100, 400, 15;
}

/// Former names and the names they have now.
pub const RENAMED: &[(&str, &str)] = &[
    ("rfp_depth", "rfp_max_depth"),
    ("razor_depth", "razor_max_depth"),
    ("nmp_verify_depth", "nmp_verify_min_depth"),
    ("futility_depth", "futility_max_depth"),
    ("lmp_depth", "lmp_max_depth"),
    ("see_depth", "see_max_depth"),
    ("iir_depth", "iir_min_depth"),
    ("history_pruning_depth", "history_pruning_max_depth"),
    ("singular_depth", "singular_min_depth"),
    ("bad_noisy_max_reduction", "bad_noisy_reduction_max"),
    ("tm_cap", "tm_move_max"),
];

/// The parameter called `name` (any case), or that was called `name` before ([`RENAMED`]).
pub fn find(name: &str) -> Option<&'static Param> {
    let name = name.trim();
    let name = RENAMED
        .iter()
        .find(|(old, _)| old.eq_ignore_ascii_case(name))
        .map_or(name, |&(_, new)| new);
    PARAMS.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

/// The value `p` has now: its default in the release build.
pub fn value(p: &Param) -> i32 {
    #[cfg(feature = "spsa")]
    {
        cell(p.name).map_or(p.default, |c| c.load(std::sync::atomic::Ordering::Relaxed))
    }
    #[cfg(not(feature = "spsa"))]
    {
        p.default
    }
}

/// Sets parameter `name` to `value` in a tuning build. An unknown name, a value outside the
/// parameter's range, or a release build (whose values are constants) is an error that changes
/// nothing.
pub fn set(name: &str, value: i64) -> Result<(), String> {
    let p = find(name).ok_or_else(|| format!("no search parameter '{}'", name.trim()))?;
    if value < i64::from(p.min) || value > i64::from(p.max) {
        return Err(format!(
            "{} takes {} to {}, not {value}",
            p.name, p.min, p.max
        ));
    }
    #[cfg(feature = "spsa")]
    {
        if let Some(c) = cell(p.name) {
            c.store(value as i32, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }
    #[cfg(not(feature = "spsa"))]
    {
        Err(format!(
            "{} is a constant of this build; build with `--features spsa` to tune it",
            p.name
        ))
    }
}

/// Every parameter back to its default (a tuning build; nothing to do in the release build).
pub fn reset() {
    #[cfg(feature = "spsa")]
    for p in PARAMS {
        if let Some(c) = cell(p.name) {
            c.store(p.default, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// The table in OpenBench's SPSA input format, one line a parameter:
/// `name, int, default, min, max, c_end, r_end`, with the current values as defaults.
pub fn spsa_input() -> String {
    PARAMS
        .iter()
        .map(|p| {
            format!(
                "{}, int, {}, {}, {}, {}, {}\n",
                p.name,
                value(p),
                p.min,
                p.max,
                p.step,
                R_END
            )
        })
        .collect()
}

/// A factor written in hundredths, as a float (`160` is 1.6: the same double as the literal).
#[inline(always)]
pub fn hundredths(v: i32) -> f64 {
    f64::from(v) / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_is_well_formed_and_named_once() {
        assert!(PARAMS.len() >= 40, "{} parameters", PARAMS.len());
        for (i, p) in PARAMS.iter().enumerate() {
            assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
            assert!(p.step > 0 && p.step <= p.max - p.min, "{p:?}");
            assert!(!p.help.is_empty(), "{p:?}");
            assert!(
                p.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{p:?}"
            );
            assert!(
                PARAMS[..i]
                    .iter()
                    .all(|q| !q.name.eq_ignore_ascii_case(p.name)),
                "{} twice",
                p.name
            );
        }
    }

    #[test]
    fn the_spsa_input_has_a_line_a_parameter_in_openbench_format() {
        let text = spsa_input();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), PARAMS.len());
        for (line, p) in lines.iter().zip(PARAMS) {
            let fields: Vec<&str> = line.split(", ").collect();
            assert_eq!(fields.len(), 7, "{line}");
            assert_eq!(fields[0], p.name);
            assert_eq!(fields[1], "int");
            assert_eq!(fields[2].parse::<i32>().unwrap(), value(p));
            assert_eq!(fields[3].parse::<i32>().unwrap(), p.min);
            assert_eq!(fields[4].parse::<i32>().unwrap(), p.max);
            assert_eq!(fields[5].parse::<i32>().unwrap(), p.step);
            assert_eq!(fields[6].parse::<f64>().unwrap(), R_END);
        }
    }

    #[test]
    fn every_name_ends_in_a_word_of_the_rule_and_former_names_still_work() {
        const ENDINGS: &[&str] = &[
            "_min_depth",
            "_max_depth",
            "_min",
            "_max",
            "_base",
            "_per_depth",
            "_per_depth2",
            "_divisor",
            "_scale",
            "_margin",
        ];
        // Names that speak of one thing, not of a limit or a part of a formula.
        const PLAIN: &[&str] = &[
            "aspiration_window",
            "tm_moves",
            "tm_hard_ratio",
            "stretch_unstable",
            "stretch_stable",
        ];
        for p in PARAMS {
            assert!(
                PLAIN.contains(&p.name) || ENDINGS.iter().any(|e| p.name.ends_with(e)),
                "{} does not end in a word of the naming rule",
                p.name
            );
            // A depth limit says which end it is.
            assert!(
                !p.name.ends_with("_depth")
                    || p.name.ends_with("_min_depth")
                    || p.name.ends_with("_max_depth")
                    || p.name.ends_with("_per_depth"),
                "{}",
                p.name
            );
        }
        for (old, new) in RENAMED {
            assert!(
                PARAMS.iter().all(|p| p.name != *old),
                "{old} is still a name"
            );
            assert_eq!(find(old).map(|p| p.name), Some(*new));
            assert_eq!(find(&old.to_uppercase()).map(|p| p.name), Some(*new));
        }
    }

    #[test]
    fn functions_give_the_table_values() {
        assert_eq!(rfp_margin(), find("rfp_margin").map(value).unwrap());
        assert_eq!(lmr_divisor(), find("LMR_DIVISOR").map(value).unwrap());
        assert_eq!(hundredths(160), 1.6);
        assert_eq!(hundredths(130), 1.3);
        assert_eq!(hundredths(225), 2.25);
    }

    #[test]
    fn bad_names_and_values_are_refused() {
        assert!(
            set("no_such_parameter", 1)
                .unwrap_err()
                .contains("no search parameter")
        );
        let p = find("rfp_margin").unwrap();
        assert!(
            set("rfp_margin", i64::from(p.max) + 1)
                .unwrap_err()
                .contains("takes")
        );
        assert!(
            set("rfp_margin", i64::from(p.min) - 1)
                .unwrap_err()
                .contains("takes")
        );
        assert_eq!(rfp_margin(), p.default);
    }

    #[cfg(not(feature = "spsa"))]
    #[test]
    fn the_release_build_keeps_its_constants() {
        let p = find("rfp_margin").unwrap();
        assert!(set("rfp_margin", i64::from(p.default) + 1).is_err());
        assert_eq!(rfp_margin(), p.default);
    }

    #[cfg(feature = "spsa")]
    #[test]
    fn a_tuning_build_changes_a_value_and_resets_it() {
        let p = find("tm_moves").unwrap();
        set("tm_moves", i64::from(p.default) + 1).unwrap();
        assert_eq!(tm_moves(), p.default + 1);
        assert!(spsa_input().contains(&format!("tm_moves, int, {}", p.default + 1)));
        reset();
        assert_eq!(tm_moves(), p.default);
    }
}
