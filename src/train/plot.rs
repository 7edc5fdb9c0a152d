//! The loss curve of a run, as an SVG picture and as CSV.

use std::io::Write;

/// The loss curve as an SVG picture: training and validation loss by epoch.
pub fn loss_svg(history: &[(f32, f32)], title: &str) -> String {
    let (w, h, pad) = (640.0f32, 360.0f32, 50.0f32);
    // A logarithmic axis: the first epoch's loss would flatten the rest.
    let all: Vec<f32> = history
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .filter(|v| *v > 0.0)
        .collect();
    let lo = all.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = all.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    let n = history.len().max(2) - 1;
    let x = |i: usize| pad + (w - 2.0 * pad) * i as f32 / n as f32;
    let (llo, lhi) = (lo.max(1e-12).ln(), hi.max(1e-12).ln());
    let y = |v: f32| {
        let t = (v.max(1e-12).ln() - llo) / (lhi - llo).max(1e-12);
        h - pad - (h - 2.0 * pad) * t
    };
    let line = |pick: fn(&(f32, f32)) -> f32| {
        history
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{:.1},{:.1}", x(i), y(pick(e))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{pad}\" y=\"20\" font-size=\"14\">{title}</text>\n\
         <line x1=\"{pad}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"black\"/>\n\
         <line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{b}\" stroke=\"black\"/>\n\
         <text x=\"{mid}\" y=\"{lbl}\" text-anchor=\"middle\">epoch (loss on a log scale)</text>\n\
         <text x=\"4\" y=\"{pad}\">{hi:.5}</text>\n<text x=\"4\" y=\"{b}\">{lo:.5}</text>\n",
        b = h - pad,
        r = w - pad,
        mid = w / 2.0,
        lbl = h - 12.0,
    );
    for (i, _) in history.iter().enumerate() {
        s += &format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n",
            x(i),
            h - pad + 16.0,
            i + 1
        );
    }
    s += &format!(
        "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"{}\"/>\n",
        line(|e| e.0)
    );
    s += &format!(
        "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" points=\"{}\"/>\n",
        line(|e| e.1)
    );
    s += &format!(
        "<text x=\"{0}\" y=\"{1}\" fill=\"#1f77b4\">training</text>\n<text x=\"{0}\" y=\"{2}\" fill=\"#d62728\">validation</text>\n</svg>\n",
        w - pad - 80.0,
        pad + 10.0,
        pad + 26.0
    );
    s
}

/// Writes the loss history as CSV (`epoch,train,validation`).
pub fn loss_csv(history: &[(f32, f32)], out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "epoch,train_loss,validation_loss")?;
    for (i, (a, b)) in history.iter().enumerate() {
        writeln!(out, "{},{a:.6},{b:.6}", i + 1)?;
    }
    Ok(())
}
