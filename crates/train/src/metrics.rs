//! Metrics: a small sink trait, with TensorBoard event files and JSON lines behind it.

use std::path::Path;

/// Where scalar metrics go.
pub trait MetricsSink {
    /// Records `value` of `tag` at `step`.
    fn scalar(&mut self, tag: &str, step: u64, value: f64);
    /// Makes everything written so far durable.
    fn flush(&mut self);
}

/// One JSON object per scalar: `{"tag":..,"step":..,"value":..,"time":..}`.
#[derive(Debug)]
pub struct JsonlSink {
    file: fanorona_rules::durable::Appender,
}

impl JsonlSink {
    /// Appends to `path`.
    ///
    /// # Errors
    /// The file cannot be opened.
    pub fn open(path: &Path) -> std::io::Result<JsonlSink> {
        Ok(JsonlSink {
            file: fanorona_rules::durable::Appender::open(path, false)?,
        })
    }
}

impl MetricsSink for JsonlSink {
    fn scalar(&mut self, tag: &str, step: u64, value: f64) {
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let line = serde_json::json!({"tag": tag, "step": step, "value": value, "time": time});
        // Metrics are best effort: a full disk must not stop training.
        let _ = self.file.line(&line.to_string());
    }
    fn flush(&mut self) {
        // Each line is written through (no buffer in between).
    }
}

/// TensorBoard event files (tensorboard-rs).
pub struct TensorboardSink {
    writer: tensorboard_rs::summary_writer::SummaryWriter,
}

impl std::fmt::Debug for TensorboardSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TensorboardSink")
    }
}

impl TensorboardSink {
    /// Event files in the folder `dir`.
    pub fn open(dir: &Path) -> TensorboardSink {
        TensorboardSink {
            writer: tensorboard_rs::summary_writer::SummaryWriter::new(dir),
        }
    }
}

impl MetricsSink for TensorboardSink {
    fn scalar(&mut self, tag: &str, step: u64, value: f64) {
        self.writer.add_scalar(tag, value as f32, step as usize);
    }
    fn flush(&mut self) {
        self.writer.flush();
    }
}

/// Several sinks at once.
#[derive(Default)]
pub struct Sinks(pub Vec<Box<dyn MetricsSink>>);

impl std::fmt::Debug for Sinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sinks({})", self.0.len())
    }
}

impl MetricsSink for Sinks {
    fn scalar(&mut self, tag: &str, step: u64, value: f64) {
        for s in &mut self.0 {
            s.scalar(tag, step, value);
        }
    }
    fn flush(&mut self) {
        for s in &mut self.0 {
            s.flush();
        }
    }
}

/// One step's scalars held back, to be written with a checkpoint and replayed into the
/// real sinks after it (so that a process killed between the two loses no line).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Recorded {
    /// The step.
    pub step: u64,
    /// `(tag, value)` in the order they were recorded.
    pub scalars: Vec<(String, f64)>,
}

impl Recorded {
    /// Writes every scalar to `sink` and flushes it.
    pub fn replay(&self, sink: &mut dyn MetricsSink) {
        for (tag, value) in &self.scalars {
            sink.scalar(tag, self.step, *value);
        }
        sink.flush();
    }
}

impl MetricsSink for Recorded {
    fn scalar(&mut self, tag: &str, step: u64, value: f64) {
        self.step = step;
        self.scalars.push((tag.to_string(), value));
    }
    fn flush(&mut self) {}
}

/// Whether a JSON-lines metrics file (as [`JsonlSink`] writes it) holds a line of `step`.
pub fn jsonl_has_step(path: &Path, step: u64) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    text.lines().rev().any(|l| {
        serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v["step"].as_u64() == Some(step))
    })
}
