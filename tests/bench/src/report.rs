//! Figures: each the median of repeated runs, with its goal beside it; a
//! table on stdout and the same as JSON.

use std::time::Duration;

use serde_json::{Value, json};

/// Which way a goal points.
#[derive(Clone, Copy)]
pub enum Goal {
    None,
    Below(f64),
    AtLeast(f64),
    /// Exactly zero (lost calls).
    Zero,
}

pub struct Figure {
    pub section: &'static str,
    pub name: String,
    pub config: String,
    pub unit: &'static str,
    /// One value per run.
    pub runs: Vec<f64>,
    pub goal: Goal,
}

impl Figure {
    pub fn median(&self) -> f64 {
        median(&self.runs)
    }

    pub fn met(&self) -> Option<bool> {
        let m = self.median();
        match self.goal {
            Goal::None => None,
            Goal::Below(g) => Some(m < g),
            Goal::AtLeast(g) => Some(m >= g),
            Goal::Zero => Some(self.runs.iter().all(|v| *v == 0.0)),
        }
    }

    fn goal_text(&self) -> String {
        match self.goal {
            Goal::None => "—".into(),
            Goal::Below(g) => format!("< {}", number(g)),
            Goal::AtLeast(g) => format!("≥ {}", number(g)),
            Goal::Zero => "0".into(),
        }
    }
}

pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// The `p`-th percentile (nearest rank) of durations, in milliseconds.
pub fn percentile_ms(values: &mut [Duration], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_unstable();
    let rank = ((p / 100.0) * values.len() as f64).ceil().max(1.0) as usize;
    values[rank.min(values.len()) - 1].as_secs_f64() * 1000.0
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn number(v: f64) -> String {
    if v.is_nan() {
        "n/a".into()
    } else if v.abs() >= 100.0 || v == v.trunc() {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// Figures grouped by section, sections in the order they first appear.
pub fn by_section(figures: &mut [Figure]) {
    let mut order: Vec<&'static str> = Vec::new();
    for f in figures.iter() {
        if !order.contains(&f.section) {
            order.push(f.section);
        }
    }
    figures.sort_by_key(|f| order.iter().position(|s| *s == f.section));
}

pub fn print_table(figures: &[Figure]) {
    let header = ["figure", "configuration", "median", "unit", "runs", "goal", "met"];
    let rows: Vec<[String; 7]> = figures
        .iter()
        .map(|f| {
            let runs = f.runs.iter().map(|v| number(*v)).collect::<Vec<_>>().join(" ");
            let met = match f.met() {
                None => "",
                Some(true) => "yes",
                Some(false) => "NO",
            };
            [
                f.name.clone(),
                f.config.clone(),
                number(f.median()),
                f.unit.into(),
                runs,
                f.goal_text(),
                met.into(),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect();
        println!("{}", padded.join("  ").trim_end());
    };
    let mut section = "";
    for (f, row) in figures.iter().zip(&rows) {
        if f.section != section {
            section = f.section;
            println!("\n## {section}");
            line(header.to_vec());
        }
        line(row.iter().map(String::as_str).collect());
    }
}

pub fn to_json(figures: &[Figure], meta: Value) -> Value {
    let items: Vec<Value> = figures
        .iter()
        .map(|f| {
            let median = f.median();
            json!({
                "section": f.section,
                "figure": f.name,
                "configuration": f.config,
                "unit": f.unit,
                "median": if median.is_nan() { Value::Null } else { json!(median) },
                "runs": f.runs,
                "goal": f.goal_text(),
                "met": f.met(),
            })
        })
        .collect();
    json!({ "meta": meta, "figures": items })
}
