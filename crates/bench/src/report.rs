//! The bench's report: every row with its verdict against its target,
//! printed as a table or JSON, and what a software adapter cannot judge.

use std::time::Duration;

use super::{Row, reload_latency, run};
use moonloop::error::Result;

/// The report: every row, and what the machine could not judge.
#[derive(Debug, Default)]
pub struct Report {
    /// The rows, CPU cases first.
    pub rows: Vec<Row>,
    /// The graphics adapter, or why there is none.
    pub adapter: String,
    /// Whether the adapter is a software one.
    pub software: bool,
    /// Hot reload latency, write to reload and write to first new frame.
    pub reload: Option<(Duration, Duration)>,
    /// Why the window rows are missing, when they are.
    pub no_window: Option<String>,
    /// Why the web page's rows are missing, when they are.
    pub no_web: Option<String>,
}

/// What `--check` makes of a row with a target.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The target is met.
    Met,
    /// A CPU target is missed, or a recording dropped frames.
    Missed(String),
    /// A renderer target on a software adapter: not a failure, it needs a
    /// GPU to judge.
    NeedsGpu,
}

impl Report {
    /// Runs every case; a machine with no graphics adapter still gets its
    /// CPU rows (the adapter line says why there are no others).
    pub fn run(only: Option<&str>) -> Result<Report> {
        let want = |group: &str| only.is_none_or(|o| o == group);
        let mut report = Report {
            rows: run(only)?,
            adapter: "not measured".into(),
            ..Report::default()
        };
        if want("render") {
            match super::render::run_render() {
                Ok((rows, adapter, software)) => {
                    report.rows.extend(rows);
                    report.adapter = adapter;
                    report.software = software;
                }
                Err(err) => report.adapter = format!("none ({})", err.chain()),
            }
        }
        if want("frame") {
            report.reload = reload_latency(20).ok();
        }
        if want("window") {
            match super::window::rows() {
                Ok(rows) => report.rows.extend(rows),
                Err(why) => report.no_window = Some(why.chain()),
            }
        }
        if want("web") {
            match super::web::rows() {
                Ok(rows) => report.rows.extend(rows),
                Err(why) => report.no_web = Some(why.chain()),
            }
        }
        Ok(report)
    }

    /// Judges `row` against its target, on this report's adapter.
    pub fn verdict(&self, row: &Row) -> Option<Verdict> {
        // A row misses what it says it misses (an absolute target: a time,
        // a size, frames dropped), or its ratio's target; a row with
        // neither has nothing to judge.
        let missed = match (&row.fails, row.target) {
            (Some(why), _) => Some(why.clone()),
            (None, Some(target)) => (row.ratio() > target)
                .then(|| format!("{:.2}x where the target is {target}x", row.ratio())),
            (None, None) => return None,
        };
        Some(match missed {
            None => Verdict::Met,
            Some(_) if row.gpu && self.software => Verdict::NeedsGpu,
            Some(why) => Verdict::Missed(why),
        })
    }

    /// Says whether every CPU target (and every renderer target on a real
    /// GPU) is met.
    pub fn holds(&self) -> bool {
        !self
            .rows
            .iter()
            .any(|r| matches!(self.verdict(r), Some(Verdict::Missed(_))))
    }

    /// Prints the report, one case a line, with the trivial game's
    /// overhead and the reload latency.
    pub fn print(&self) {
        say!("adapter: {}", self.adapter);
        say!(
            "{:<66} {:>12} {:>12} {:>7}  target",
            "case",
            "baseline",
            "measured",
            "ratio"
        );
        for row in &self.rows {
            let target = row.target.map_or(String::new(), |t| format!("<= {t}x"));
            let verdict = match self.verdict(row) {
                Some(Verdict::Missed(why)) => format!("  MISSED: {why}"),
                Some(Verdict::NeedsGpu) => "  (needs a GPU to judge)".into(),
                _ => String::new(),
            };
            let note = row
                .note
                .as_ref()
                .map_or(String::new(), |n| format!("  [{n}]"));
            say!(
                "{:<66} {:>12?} {:>12?} {:>6.2}x  {target}{verdict}{note}",
                row.case,
                row.baseline,
                row.measured,
                row.ratio()
            );
        }
        if let Some(why) = &self.no_window {
            say!("window rows: skipped, {why}");
        }
        if let Some(why) = &self.no_web {
            say!("web rows: skipped, {why}");
        }
        match self.reload {
            Some((reload, frame)) => say!(
                "hot reload, headless at paced 60 Hz (median of 20 edits): write to reload done {reload:?}, \
                 write to first frame of new code {frame:?} (target: 20 ms plus the wait for the next frame)"
            ),
            None => say!("hot reload latency: not measured"),
        }
        if let Some(trivial) = self
            .rows
            .iter()
            .find(|r| r.case.starts_with("trivial game"))
        {
            let overhead = trivial.measured.saturating_sub(trivial.baseline);
            say!("host overhead per frame (trivial game): {overhead:?} (target < 1µs)");
        }
    }

    /// Returns the report as JSON, one object a row, for tracking from one
    /// run to the next.
    pub fn json(&self) -> String {
        let quote = |s: &str| format!("{:?}", s);
        let mut out = String::from("{\n");
        out.push_str(&format!(
            "  \"adapter\": {},\n  \"software\": {},\n",
            quote(&self.adapter),
            self.software
        ));
        if let Some((reload, frame)) = self.reload {
            out.push_str(&format!(
                "  \"reload_ns\": {},\n  \"reload_to_frame_ns\": {},\n",
                reload.as_nanos(),
                frame.as_nanos()
            ));
        }
        out.push_str("  \"rows\": [\n");
        for (i, row) in self.rows.iter().enumerate() {
            let verdict = match self.verdict(row) {
                None => "null".to_string(),
                Some(Verdict::Met) => quote("met"),
                Some(Verdict::NeedsGpu) => quote("needs a GPU"),
                Some(Verdict::Missed(why)) => quote(&format!("missed: {why}")),
            };
            out.push_str(&format!(
                "    {{\"case\": {}, \"baseline_ns\": {}, \"measured_ns\": {}, \"ratio\": {:.4}, \"target\": {}, \"gpu\": {}, \"verdict\": {verdict}}}{}\n",
                quote(&row.case),
                row.baseline.as_nanos(),
                row.measured.as_nanos(),
                row.ratio(),
                row.target.map_or("null".into(), |t| t.to_string()),
                row.gpu,
                if i + 1 < self.rows.len() { "," } else { "" }
            ));
        }
        out.push_str("  ]\n}");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(ratio: f64, target: f64, gpu: bool) -> Row {
        Row {
            case: "x".into(),
            baseline: Duration::from_millis(100),
            measured: Duration::from_secs_f64(0.1 * ratio),
            target: Some(target),
            gpu,
            ..Row::default()
        }
    }

    #[test]
    fn check_fails_a_missed_cpu_target_and_defers_gpu_ones_on_a_software_adapter() {
        let mut report = Report {
            rows: vec![row(1.1, 1.5, false), row(5.0, 3.0, true)],
            software: true,
            ..Report::default()
        };
        assert!(
            report.holds(),
            "a GPU row on lavapipe needs a GPU, it does not fail"
        );
        assert_eq!(report.verdict(&report.rows[1]), Some(Verdict::NeedsGpu));
        report.software = false;
        assert!(!report.holds(), "on a real GPU it fails");
        report.rows = vec![row(2.0, 1.5, false)];
        report.software = true;
        assert!(!report.holds(), "a CPU row fails anywhere");
        let mut dropping = row(1.0, 1.2, false);
        dropping.fails = Some("dropped 3 frames".into());
        report.rows = vec![dropping];
        assert!(
            !report.holds(),
            "a recording met by dropping frames is not met"
        );
        assert!(
            report
                .json()
                .contains("\"verdict\": \"missed: dropped 3 frames\"")
        );
        // An absolute target (a row with no ratio target) is judged too.
        let slow = Row {
            case: "start".into(),
            baseline: Duration::from_millis(1),
            measured: Duration::from_millis(9),
            fails: Some("over 5 ms".into()),
            ..Row::default()
        };
        report.rows = vec![slow];
        assert!(!report.holds(), "an absolute target missed is missed");
    }
}
