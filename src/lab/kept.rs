//! The nets trained in the Lab's Train view, kept under names (`trained-1` ...) that the other
//! views take as engines, and the one training that may run at a time; and the folder of data
//! sets the view offers by default.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::reply::ApiError;
use crate::nnue::Network;

/// The names the nets trained in the Lab are kept under, oldest replaced first.
pub const TRAINED: [&str; 4] = ["trained-1", "trained-2", "trained-3", "trained-4"];
/// The training data folder of a server started from the repository.
pub fn default_data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/selfplay")
}

/// True if `name` is one of the names trained nets are kept under.
pub fn is_trained_name(name: &str) -> bool {
    TRAINED.contains(&name.trim().to_ascii_lowercase().as_str())
}

/// A net kept under a name, with what it was trained on.
#[derive(Clone)]
pub struct Kept {
    pub name: &'static str,
    pub net: Arc<Network>,
    pub about: Value,
}

/// The nets trained in the Lab, and the one training that may run.
#[derive(Default)]
pub struct TrainedNets {
    kept: Mutex<(Vec<Kept>, usize)>,
    running: Mutex<Option<Arc<AtomicBool>>>,
}

impl TrainedNets {
    /// The net kept as `name`.
    pub fn get(&self, name: &str) -> Option<Kept> {
        let name = name.trim().to_ascii_lowercase();
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.0.iter().find(|k| k.name == name).cloned()
    }

    /// Keeps `net` under the next name, replacing the oldest once all are taken.
    pub fn keep(&self, net: Network, mut about: Value) -> &'static str {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let name = TRAINED[kept.1 % TRAINED.len()];
        kept.1 += 1;
        about["name"] = json!(name);
        kept.0.retain(|k| k.name != name);
        kept.0.push(Kept {
            name,
            net: Arc::new(net),
            about,
        });
        name
    }

    /// What each kept net is, oldest first.
    pub fn list(&self) -> Vec<Value> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.0.iter().map(|k| k.about.clone()).collect()
    }

    /// True while a training runs.
    pub fn busy(&self) -> bool {
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// Raises the running training's stop flag; false when none runs.
    pub fn stop(&self) -> bool {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        running
            .as_ref()
            .map(|s| s.store(true, Ordering::Relaxed))
            .is_some()
    }

    /// Claims the one training there may be: its stop flag and a guard that frees it.
    pub fn claim(self: &Arc<Self>) -> Result<(Arc<AtomicBool>, Claim), ApiError> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if running.is_some() {
            return Err(ApiError {
                status: 409,
                message: "a net is being trained already: one training at a time (stop it first)"
                    .into(),
            });
        }
        let stop = Arc::new(AtomicBool::new(false));
        *running = Some(stop.clone());
        Ok((stop, Claim(self.clone())))
    }
}

/// Frees the training when the job ends, however it ends.
pub struct Claim(Arc<TrainedNets>);

impl Drop for Claim {
    fn drop(&mut self) {
        *self.0.running.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nets_are_kept_under_four_names_and_one_training_runs_at_a_time() {
        let nets = Arc::new(TrainedNets::default());
        let net = || (*Network::default_net()).clone();
        let names: Vec<&str> = (0..5)
            .map(|i| nets.keep(net(), json!({ "n": i })))
            .collect();
        assert_eq!(
            names,
            [
                "trained-1",
                "trained-2",
                "trained-3",
                "trained-4",
                "trained-1"
            ]
        );
        assert_eq!(nets.list().len(), 4);
        assert_eq!(nets.get("TRAINED-1").unwrap().about["n"], 4);
        assert!(nets.get("trained-9").is_none());
        assert!(!nets.busy() && !nets.stop());
        let (stop, claim) = nets.claim().unwrap();
        assert!(nets.busy());
        assert_eq!(nets.claim().err().unwrap().status, 409);
        assert!(nets.stop() && stop.load(Ordering::Relaxed));
        drop(claim);
        assert!(!nets.busy());
        assert!(nets.claim().is_ok());
    }
}
